"""Imports flow one way: no cycle between paraspan's modules, nor between its subpackages.

Read with ``ast`` from the source, so imports inside functions (the lazy ones) count as much as
module-level ones: a lazy import hides a cycle from Python at import time, not from a reader.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

import paraspan

ROOT = Path(paraspan.__file__).parent


def _modules() -> dict[str, Path]:
    """Dotted name → file, for every module of the package (a package is its ``__init__``)."""
    out: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _absolute(module: str | None, level: int, current: str, is_package: bool) -> str:
    if not level:
        return module or ""
    parts = current.split(".")
    # In a package's __init__, `.` is the package itself; in a module, its parent package.
    base = parts[: len(parts) - level + 1] if is_package else parts[:-level]
    return ".".join(base + ([module] if module else []))


def _imported(name: str, modules: dict[str, Path], tree: ast.AST, is_package: bool) -> Iterator[str]:
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module, node.level, name, is_package)
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for target in targets:
            # `from paraspan.x import f`: f is not a module; the nearest enclosing module is.
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def import_graph() -> dict[str, set[str]]:
    """Module → the paraspan modules it imports (anywhere in its body)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[name] = set(_imported(name, modules, tree, path.name == "__init__.py"))
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _subpackage(module: str) -> str:
    """``paraspan.align.train`` → ``paraspan.align``; a top-level module is its own unit."""
    return ".".join(module.split(".")[:2])


def _explain(graph: dict[str, set[str]], members: list[str], unit: Callable[[str], str] = str) -> str:
    """The cycle's members and the module imports that make it."""
    inside = set(members)
    edges = [f"{a} -> {b}" for a in sorted(graph) for b in sorted(graph[a])
             if unit(a) in inside and unit(b) in inside and unit(a) != unit(b)]
    return " / ".join(members) + ":\n    " + "\n    ".join(edges)


def test_no_import_cycle_between_modules() -> None:
    graph = import_graph()
    cycles = _cycles(graph)
    assert not cycles, "import cycles between modules:\n" + "\n".join(_explain(graph, c) for c in cycles)


def test_no_import_cycle_between_subpackages() -> None:
    graph = import_graph()
    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        for target in targets:
            a, b = _subpackage(module), _subpackage(target)
            # paraspan/__init__ (the root) is left out: every module lies inside it.
            if a != b and "paraspan" not in (a, b):
                packages.setdefault(a, set()).add(b)
    cycles = _cycles(packages)
    assert not cycles, "import cycles between subpackages:\n" + "\n".join(
        _explain(graph, c, _subpackage) for c in cycles)


def test_the_graph_sees_function_level_and_relative_imports() -> None:
    # The checks above are only as good as the graph: it must see the lazy imports.
    graph = import_graph()
    assert "paraspan.align.scoring" in graph["paraspan.align.train"]  # imported inside a function
    assert any(t.startswith("paraspan.corpus") for t in graph["paraspan.cli.main"])
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
