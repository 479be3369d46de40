"""On-disk cache of solved rule sets, so the service never solves the same rules twice.

One generic :class:`ArrayCache` keeps both kinds of solve: the points solve
(:class:`SolverCache`, about a second) and the two-player win table
(:class:`WinTableCache`, minutes). A solve is stored as one ``.npz`` file
(numpy arrays, no pickles) named by a hash of the rule set's ``to_dict()`` and
its solver's version. A file that cannot be read or does not fit its rules is
solved again and replaced; the file is written to a temporary name and
renamed, so a crash never leaves a half-written entry. Solving happens outside
the cache's lock, so a caller that must not wait (:meth:`ArrayCache.cached`,
the table's display) is never held behind a solve.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import threading
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

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

T = TypeVar("T")


class SolverCacheError(UserError, OSError):
    """The cache directory cannot be created or written."""


@dataclass(frozen=True)
class CacheKind(Generic[T]):
    """One kind of solve the cache keeps: how it is named, solved, stored and read back.

    ``version_field`` and ``version`` go into the key beside the rules, so a new
    solver version never reads an old file; ``prefix`` starts the file name.
    """

    what: str
    prefix: str
    version_field: str
    version: int
    solve: Callable[[RuleSet], T]
    to_arrays: Callable[[T], Mapping[str, Any]]
    from_arrays: Callable[[RuleSet, Mapping[str, Any]], T]
    data_error: type[Exception]

    def key(self, rules: RuleSet) -> str:
        """A stable name for ``rules``: sha256 of its ``to_dict()`` and the solver version."""
        fields = {"rules": rules.to_dict(), self.version_field: self.version}
        text = json.dumps(fields, sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class ArrayCache(Generic[T]):
    """Solves of one kind by rule set: memory first, then ``directory``, else solve and store."""

    def __init__(self, directory: str | os.PathLike[str], kind: CacheKind[T]) -> None:
        self.directory = Path(directory)
        self.kind = kind
        self._memory: dict[str, T] = {}
        self._lock = threading.Lock()  # guards the memory and the reads of files; never a solve

    def path_for(self, rules: RuleSet) -> Path:
        """Where the solve of ``rules`` lives."""
        return self.directory / f"{self.kind.prefix}{rules.name}-{self.kind.key(rules)}.npz"

    def cached(self, rules: RuleSet) -> T | None:
        """The solve of ``rules`` if it is in memory or on disk, else None (never solves)."""
        key = self.kind.key(rules)
        with self._lock:
            if key not in self._memory:
                found = self._load(rules)
                if found is None:
                    return None
                self._memory[key] = found
            return self._memory[key]

    def get(self, rules: RuleSet) -> tuple[T, bool]:
        """The solve of ``rules`` and whether it came from the cache (solving if not).

        Two callers asking at once for rules not solved yet both solve them (the
        same answer; the later file replaces the earlier whole).
        """
        found = self.cached(rules)
        if found is not None:
            return found, True
        solved = self.kind.solve(rules)
        with self._lock:
            self._store(rules, solved)
            self._memory[self.kind.key(rules)] = solved
        return solved, False

    def value(self, rules: RuleSet) -> T:
        """The solve of ``rules`` (a function to hand to ``make_bot``)."""
        return self.get(rules)[0]

    def _load(self, rules: RuleSet) -> T | None:
        path = self.path_for(rules)
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
            return self.kind.from_arrays(rules, arrays)
        except (OSError, ValueError, zipfile.BadZipFile, self.kind.data_error) as exc:
            log.warning("%s %s is unusable (%s); solving again", self.kind.what, path, exc)
            return None

    def _store(self, rules: RuleSet, solved: T) -> None:
        path = self.path_for(rules)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            packed = io.BytesIO()
            np.savez_compressed(packed, **dict(self.kind.to_arrays(solved)))
            write_atomically(path, packed.getvalue())
        except OSError as exc:
            raise SolverCacheError(
                f"cannot write the {self.kind.what} in {self.directory}: "
                f"{exc.strerror or exc}; give a writable folder with --cache-dir"
            ) from None


def _solution_from_arrays(rules: RuleSet, arrays: Mapping[str, Any]) -> Solution:
    return Solution.from_arrays(
        rules, streak_model(rules), dict(arrays), tuple(approximations(rules))
    )


POINTS: CacheKind[Solution] = CacheKind(
    what="solver cache",
    prefix="",
    version_field="solver",
    version=SOLVER_VERSION,
    solve=solve,
    to_arrays=lambda solution: solution.to_arrays(),
    from_arrays=_solution_from_arrays,
    data_error=SolutionDataError,
)

WINS: CacheKind[WinTable] = CacheKind(
    what="win table cache",
    prefix="win-",
    version_field="win",
    version=WIN_SOLVER_VERSION,
    solve=lambda rules: WinTable.of(solve_win(rules)),
    to_arrays=lambda table: table.to_arrays(),
    from_arrays=WinTable.from_arrays,
    data_error=WinTableDataError,
)


def cache_key(rules: RuleSet) -> str:
    """The points solve's name for ``rules``: its ``to_dict()`` and the solver version."""
    return POINTS.key(rules)


def win_cache_key(rules: RuleSet) -> str:
    """The win table's name for ``rules``: its ``to_dict()`` and the win solver's version."""
    return WINS.key(rules)


class SolverCache(ArrayCache[Solution]):
    """Points solves (:func:`zilch.strategy.solve`) by rule set."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        super().__init__(directory, POINTS)

    def solution(self, rules: RuleSet) -> Solution:
        """The solution of ``rules`` (a function to hand to ``make_bot``)."""
        return self.value(rules)


class WinTableCache(ArrayCache[WinTable]):
    """Two-player win tables by rule set; :meth:`cached` answers without solving."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        super().__init__(directory, WINS)

    def table(self, rules: RuleSet) -> WinTable:
        """The win table of ``rules`` (a function to hand to ``make_bot``)."""
        return self.value(rules)
