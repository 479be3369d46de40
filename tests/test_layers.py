"""The packages' layering, read from the source: zilch, vision and firmware stand alone, no circles.

Leaf packages (``closing``; the tray geometry) import no project package and
may be imported by all.

Every ``import`` and ``from ... import`` in ``zilch``, ``vision``, ``firmware``
and ``server`` counts, inside functions too (a lazy import is still a
dependency); imports under ``if TYPE_CHECKING:`` count for the layering but
not for circles, since they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Leaves import no project package and may be imported by every package.
LEAVES = tuple(name for name in ("closing", "dicetray") if (ROOT / name).is_dir())
PACKAGES = ("zilch", "vision", "firmware", "server", *LEAVES)
STANDALONE = ("zilch", "vision", "firmware", *LEAVES)  # import none of the other packages


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _owner(name: str) -> str | None:
    """The project module that ``name`` (a module or a name inside one) belongs to."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                hidden.update(id(n) for n in ast.walk(child))
    return hidden


def imports(module: str) -> list[tuple[str, int, bool]]:
    """``(imported project module, line, runs)`` for each import in ``module``."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = _type_checking_nodes(tree)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{alias.name}" for alias in node.names]
            names = [n if n in MODULES else base for n in names]
        for name in names:
            owner = _owner(name)
            if owner is not None and owner != module:
                out.append((owner, node.lineno, id(node) not in hidden))
    return out


def _graph() -> dict[str, set[str]]:
    return {m: {target for target, _, runs in imports(m) if runs} for m in MODULES}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_the_standalone_packages_import_no_other_package() -> None:
    wrong = [
        f"{MODULES[m].relative_to(ROOT)}:{line} imports {target}"
        for m in MODULES
        if m.split(".")[0] in STANDALONE
        for target, line, _ in imports(m)
        if target.split(".")[0] != m.split(".")[0]
        and (target.split(".")[0] not in LEAVES or m.split(".")[0] in LEAVES)
    ]
    assert not wrong, "layering broken:\n" + "\n".join(wrong)


def test_no_import_circles() -> None:
    circles = _circles(_graph())
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


def test_the_checker_sees_a_circle_and_a_lazy_import() -> None:
    """The checks above can fail: a made-up circle is found, and so is an import in a function."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []
    lazy = [t for t, _, runs in imports("server.commands.service") if runs]
    assert "server.app" in lazy  # imported inside serve(), still counted
