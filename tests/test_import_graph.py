"""tactful's import graph: no import circle spans more than one package.

Every ``import`` and ``from ... import`` in ``src/tactful`` counts, function-level ones
included (a lazy import still ties two modules together). The strongly connected
components of that graph are the circles; each must lie within one package (a package
and its own modules, e.g. ``tactful.train`` and ``tactful.train._cli``)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules() -> dict[str, tuple[Path, list[str]]]:
    out = {}
    for p in (SRC / "tactful").rglob("*.py"):
        parts = list(p.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
            pkg = parts
        else:
            pkg = parts[:-1]
        out[".".join(parts)] = (p, pkg)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the tactful modules it imports (resolved to the longest known name)."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, (path, pkg) in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ".".join(pkg[: len(pkg) - node.level + 1] + [node.module or ""])
                    base = base.rstrip(".")
                else:
                    base = node.module or ""
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != m:
                    graph[m].add(t)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def _package(module: str, graph: dict[str, set[str]]) -> str:
    # A package's own name is its package; a module's is its parent.
    is_package = any(m.startswith(module + ".") for m in graph)
    return module if is_package else module.rpartition(".")[0]


def test_circles_are_found():
    # The checker finds a circle where there is one.
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_spans_more_than_one_package():
    graph = import_graph()
    assert len(graph) > 100 and "tactful.datasets" in graph["tactful.evaluate"]
    wide = [c for c in circles(graph) if len({_package(m, graph) for m in c}) > 1]
    assert wide == []
