"""How deeply outside input may nest arrays and objects.

Python's parsers recurse once per level, so a request body or a config file
of a few thousand brackets ends in ``RecursionError`` (a 500, or "internal
error" on the command line). The callers catch that, and refuse anything
nested deeper than these limits with one line. Real input nests far less:
a play body or a game record 3 levels, the configuration 3.
"""

from __future__ import annotations

BODY_NESTING = 8
CONFIG_NESTING = 8


def nesting_depth(value: object) -> int:
    """Levels of lists and dicts in ``value`` (0 for a scalar), counted without recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: list[object] = list(item.values())
        elif isinstance(item, list):
            children = list(item)
        else:
            continue
        deepest = max(deepest, level + 1)
        stack.extend((child, level + 1) for child in children)
    return deepest


def too_deep(what: str, limit: int) -> str:
    """The one-line refusal for input nested deeper than ``limit``."""
    return f"{what} nests arrays or tables deeper than {limit} levels, the most accepted"
