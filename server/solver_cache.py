"""On-disk cache of solved rule sets, so the service never solves the same rules twice.

A solution is stored as one ``.npz`` file (numpy arrays, no pickles) named by
a hash of the rule set's ``to_dict()`` and the solver's version. A file that
cannot be read or does not fit its rules is solved again and replaced; the
file is written to a temporary name and renamed, so a crash never leaves a
half-written entry.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import threading
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from server.errors import UserError
from vision.files import write_atomically
from zilch import RuleSet
from zilch.strategy import Solution, SolutionDataError, solve
from zilch.strategy.model import approximations, streak_model
from zilch.strategy.solver import SOLVER_VERSION
from zilch.strategy.winchance import WinTable, WinTableDataError
from zilch.strategy.winsolve import WIN_SOLVER_VERSION, solve_win

log = logging.getLogger(__name__)

CACHE_FOLDER = "solver"


class SolverCacheError(UserError, OSError):
    """The cache directory cannot be created or written."""


def cache_key(rules: RuleSet) -> str:
    """A stable name for ``rules``: sha256 of its ``to_dict()`` and the solver version."""
    text = json.dumps({"rules": rules.to_dict(), "solver": SOLVER_VERSION}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class SolverCache:
    """Solutions by rule set: memory first, then ``directory``, else solve and store."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._memory: dict[str, Solution] = {}
        self._lock = threading.Lock()

    def path_for(self, rules: RuleSet) -> Path:
        """Where the solution of ``rules`` lives."""
        return self.directory / f"{rules.name}-{cache_key(rules)}.npz"

    def get(self, rules: RuleSet) -> tuple[Solution, bool]:
        """The solution of ``rules`` and whether it came from the cache."""
        key = cache_key(rules)
        with self._lock:
            if key in self._memory:
                return self._memory[key], True
            solution = self._load(rules)
            cached = solution is not None
            if solution is None:
                solution = solve(rules)
                self._store(rules, solution)
            self._memory[key] = solution
            return solution, cached

    def solution(self, rules: RuleSet) -> Solution:
        """The solution of ``rules`` (a function to hand to ``make_bot``)."""
        return self.get(rules)[0]

    def _load(self, rules: RuleSet) -> Solution | None:
        path = self.path_for(rules)
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
            return Solution.from_arrays(
                rules, streak_model(rules), arrays, tuple(approximations(rules))
            )
        except (OSError, ValueError, zipfile.BadZipFile, SolutionDataError) as exc:
            log.warning("solver cache %s is unusable (%s); solving again", path, exc)
            return None

    def _store(self, rules: RuleSet, solution: Solution) -> None:
        path = self.path_for(rules)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            arrays: dict[str, Any] = dict(solution.to_arrays())
            packed = io.BytesIO()
            np.savez_compressed(packed, **arrays)
            write_atomically(path, packed.getvalue())
        except OSError as exc:
            raise SolverCacheError(
                f"cannot write the solver cache in {self.directory}: {exc.strerror or exc}; "
                "give a writable folder with --cache-dir"
            ) from None


def win_cache_key(rules: RuleSet) -> str:
    """A stable name for the win table of ``rules``: its ``to_dict()`` and the solver version."""
    text = json.dumps({"rules": rules.to_dict(), "win": WIN_SOLVER_VERSION}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class WinTableCache:
    """Two-player win tables by rule set: memory first, then ``directory``, else solve.

    Solving takes minutes; :meth:`cached` answers only from memory or disk, so a
    caller that must not wait (the table's display) can ask without solving.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._memory: dict[str, WinTable] = {}
        self._lock = threading.Lock()

    def path_for(self, rules: RuleSet) -> Path:
        """Where the win table of ``rules`` lives."""
        return self.directory / f"win-{rules.name}-{win_cache_key(rules)}.npz"

    def cached(self, rules: RuleSet) -> WinTable | None:
        """The win table of ``rules`` if it is in memory or on disk, else None (no solve)."""
        key = win_cache_key(rules)
        with self._lock:
            if key not in self._memory:
                table = self._load(rules)
                if table is None:
                    return None
                self._memory[key] = table
            return self._memory[key]

    def get(self, rules: RuleSet) -> tuple[WinTable, bool]:
        """The win table of ``rules`` and whether it came from the cache (solving if not)."""
        found = self.cached(rules)
        if found is not None:
            return found, True
        table = WinTable.of(solve_win(rules))
        with self._lock:
            self._store(rules, table)
            self._memory[win_cache_key(rules)] = table
        return table, False

    def table(self, rules: RuleSet) -> WinTable:
        """The win table of ``rules`` (a function to hand to ``make_bot``)."""
        return self.get(rules)[0]

    def _load(self, rules: RuleSet) -> WinTable | None:
        path = self.path_for(rules)
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
            return WinTable.from_arrays(rules, arrays)
        except (OSError, ValueError, zipfile.BadZipFile, WinTableDataError) as exc:
            log.warning("win table cache %s is unusable (%s); solving again", path, exc)
            return None

    def _store(self, rules: RuleSet, table: WinTable) -> None:
        path = self.path_for(rules)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            packed = io.BytesIO()
            np.savez_compressed(packed, **table.to_arrays())
            write_atomically(path, packed.getvalue())
        except OSError as exc:
            raise SolverCacheError(
                f"cannot write the win table cache in {self.directory}: {exc.strerror or exc}; "
                "give a writable folder with --cache-dir"
            ) from None
