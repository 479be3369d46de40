"""Reading the known-answer data files of ``tests/data/rules``."""

from __future__ import annotations

from pathlib import Path

from zilch import RuleSet, find_preset

DATA = Path(__file__).resolve().parent.parent / "data" / "rules"


def rules_named(spec: str) -> RuleSet:
    """``"dicenow+three_ones=300+multiples=flat"``: a preset with house rules."""
    name, *overrides = spec.split("+")
    house = dict(item.split("=", 1) for item in overrides)
    return find_preset(name).with_house_rules(house)


def dice(text: str) -> tuple[int, ...]:
    """``"1 2 5"`` -> ``(1, 2, 5)``; ``"-"`` -> ``()``."""
    return () if text.strip() == "-" else tuple(int(word) for word in text.split())


def table(name: str, columns: int) -> list[tuple[str, ...]]:
    """The rows of a ``|``-separated data file, comments and blank lines skipped."""
    rows = []
    for number, line in enumerate((DATA / name).read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = tuple(cell.strip() for cell in line.split("|"))
        assert len(cells) == columns, f"{name}:{number}: expected {columns} cells: {line}"
        rows.append((f"{name}:{number}", *cells))
    return rows
