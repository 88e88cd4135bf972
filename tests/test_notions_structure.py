"""The notions' modules import each other without a circle, counting the imports for type checkers too (the
result types live in wmcdp/notions/results.py, below the notions, certify.py and rows.py), every import left
inside a function of wmcdp/notions says why it is deferred, and no function there is longer than 90 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import wmcdp.notions

FOLDER = Path(wmcdp.notions.__file__).parent
MODULES = {p.stem: p for p in FOLDER.glob("*.py") if p.stem != "__init__"}


def _targets(node: ast.ImportFrom) -> list[str]:
    """The notions' modules a relative ``from . import`` / ``from .x import`` names."""
    if node.level != 1:
        return []
    if node.module is None:
        return [a.name for a in node.names if a.name in MODULES]
    return [node.module] if node.module in MODULES else []


def test_no_circle_even_counting_type_checking_imports():
    graph = nx.DiGraph()
    graph.add_nodes_from(MODULES)
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                graph.add_edges_from((name, target) for target in _targets(node) if target != name)
    assert graph.has_edge("certify", "results") and graph.has_edge("privacy", "certify")  # the graph is read
    assert list(nx.simple_cycles(graph)) == []


def _local_imports(tree: ast.Module) -> list[ast.stmt]:
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    found = {id(n): n for f in functions for n in ast.walk(f) if isinstance(n, (ast.Import, ast.ImportFrom))}
    return list(found.values())


def test_every_function_local_import_says_why():
    undeferred, seen = [], 0
    for name, path in MODULES.items():
        lines = path.read_text().splitlines()
        for node in _local_imports(ast.parse("\n".join(lines))):
            seen += 1
            here, above = lines[node.lineno - 1], lines[node.lineno - 2].strip()
            if "# deferred:" not in here and not above.startswith("# deferred:"):
                undeferred.append(f"{name}.py:{node.lineno}: {here.strip()}")
    assert seen > 0  # the piecewise (python-flint) imports stay deferred
    assert undeferred == []


def test_no_function_is_longer_than_90_lines():
    lengths = {
        f"{name}.py:{node.name}": node.end_lineno - node.lineno + 1
        for name, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    assert "approximate.py:synthesize_approximate" in lengths
    assert {f: n for f, n in lengths.items() if n > 90} == {}
