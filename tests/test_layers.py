"""The import graph flows one way: core <- domains <- (models | encoders | native) <- portfolio <- API/CLI.

Every module of the package is parsed (not imported) and every ``import`` statement in it
counts, at module level or inside a function or an ``if TYPE_CHECKING:`` block.  A module may
import its own layer or a lower one; the three formulation layers do not import each other;
and no chain of imports leads back to where it started.  Strategies and generators are named
in the puzzle registry by dotted path and imported on use: data, not edges of this graph.
"""

from __future__ import annotations

import ast
import pathlib
from dataclasses import dataclass

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "puzzlesat"

LAYERS = {"core": 0, "domains": 1, "models": 2, "encoders": 2, "native": 2, "portfolio": 3}
TOP = 4  # the public API (puzzlesat/__init__.py, puzzlesat/api*.py) and the CLI


@dataclass(frozen=True)
class Edge:
    """One import statement from a module of the package to another."""

    source: str
    target: str
    path: str
    line: int

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}"
        return f"{where}: {self.source} [{group(self.source)}] imports {self.target} [{group(self.target)}]"


def module_name(path: pathlib.Path) -> str:
    """``puzzlesat/models/masyu.py`` -> ``puzzlesat.models.masyu``; a package is its ``__init__``."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def group(module: str) -> str:
    """The layer group a module belongs to: a subpackage name, or ``top`` for API and CLI."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] in ("cli", "cli_parser") or parts[1].startswith("api"):
        return "top"
    return parts[1]


def layer(module: str) -> int | None:
    """0 core, 1 domains, 2 models/encoders/native, 3 portfolio, 4 API and CLI; None if unknown."""
    name = group(module)
    return TOP if name == "top" else LAYERS.get(name)


def resolve(name: str) -> str | None:
    """The package module an imported dotted name refers to (the longest one that exists)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return None


def imports(module: str) -> list[Edge]:
    """Every import of a package module by ``module``, lazy ones included."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    rel = str(path.relative_to(PACKAGE.parent))
    edges = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from pkg import sub`` names the submodule when there is one, else pkg itself
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        targets = {t for name in names if name.startswith("puzzlesat") and (t := resolve(name)) not in (None, module)}
        edges += [Edge(module, str(t), rel, node.lineno) for t in sorted(targets)]
    return edges


GRAPH = {module: imports(module) for module in MODULES}


def find_cycles(graph: dict[str, list[Edge]]) -> list[list[Edge]]:
    """One cycle through each strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for edge in graph[v]:
            w = edge.target
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                components.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_cycle_in(graph, comp) for comp in components]


def _cycle_in(graph: dict[str, list[Edge]], comp: set[str]) -> list[Edge]:
    """A shortest cycle through the component's first module (breadth-first within it)."""
    start = min(comp)
    came: dict[str, Edge] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for edge in graph[v]:
                if edge.target not in comp or edge.target in came:
                    continue
                came[edge.target] = edge
                if edge.target == start:
                    path = [edge]
                    while path[0].source != start:
                        path.insert(0, came[path[0].source])
                    return path
                nxt.append(edge.target)
        frontier = nxt
    raise AssertionError(f"no cycle found in strongly connected {sorted(comp)}")


def test_every_module_has_a_layer() -> None:
    unknown = sorted(m for m in MODULES if layer(m) is None)
    assert not unknown, "modules in no known layer (add them to LAYERS in tests/test_layers.py): " + ", ".join(unknown)


def test_no_import_goes_up_or_sideways() -> None:
    offenders = []
    for edges in GRAPH.values():
        for edge in edges:
            here, there = layer(edge.source), layer(edge.target)
            if here is None or there is None:
                continue
            if there > here:
                offenders.append(f"{edge}: layer {here} imports layer {there}")
            elif here == there == 2 and group(edge.source) != group(edge.target):
                offenders.append(f"{edge}: one formulation layer imports another")
    assert not offenders, "imports that cross the layers:\n" + "\n".join(offenders)


def test_no_import_cycle() -> None:
    cycles = find_cycles(GRAPH)
    report = [
        " -> ".join([c[0].source, *(e.target for e in c)]) + "\n    " + "\n    ".join(map(str, c)) for c in cycles
    ]
    assert not cycles, "import cycles:\n" + "\n".join(report)


# ---------------------------------------------------------------- the checker itself


def test_resolve_names_submodules_and_packages() -> None:
    assert resolve("puzzlesat.core") == "puzzlesat.core"
    assert resolve("puzzlesat.core.Result") == "puzzlesat.core"
    assert resolve("puzzlesat.domains.masyu.Instance") == "puzzlesat.domains.masyu"
    assert resolve("puzzlesat") == "puzzlesat"
    assert [layer(m) for m in ("puzzlesat.core", "puzzlesat.native.masyu.dfs", "puzzlesat.cli", "puzzlesat")] == [
        0,
        2,
        4,
        4,
    ]


def test_lazy_imports_are_edges() -> None:
    # the native masyu wrapper imports its kernel inside ``solve``
    targets = {e.target for e in GRAPH["puzzlesat.native.masyu.dfs"]}
    assert "puzzlesat.native.masyu.kernel" in targets


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": ["b"], "b": ["c"], "c": []}, []),
        ({"a": ["b"], "b": ["c"], "c": ["a"]}, [["a", "b", "c", "a"]]),
        ({"a": ["b", "c"], "b": ["a"], "c": ["c2"], "c2": ["c"]}, [["c", "c2", "c"], ["a", "b", "a"]]),
    ],
)
def test_find_cycles(graph: dict[str, list[str]], expected: list[list[str]]) -> None:
    edges = {v: [Edge(v, w, v, 1) for w in ws] for v, ws in graph.items()}
    found = [[c[0].source, *(e.target for e in c)] for c in find_cycles(edges)]
    assert sorted(found) == sorted(expected)
