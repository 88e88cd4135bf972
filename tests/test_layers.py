"""The package's folders are its layers: a module imports only from its own layer and the layers below, and no
modules import each other in a circle (imports inside functions count; those only for type checkers do not)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import wmcdp

PACKAGE = Path(wmcdp.__file__).parent
#: lowest first; the package's own __init__ and __main__ stand above them all
LAYERS = ["base", "lang", "compile", "count", "plan", "notions", "report", "audit", "cli"]


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> nx.DiGraph:
    modules = {_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        typing_only = {
            id(n)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for stmt in node.body
            for n in ast.walk(stmt)
        }
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                submodules = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules]
                targets = submodules if len(submodules) == len(node.names) else [target]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph.add_edges_from((name, t) for t in targets if t in modules and t != name)
    return graph


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def test_every_module_is_in_a_layer_folder():
    loose = [m for m in _graph() if _layer(m) is None and m not in ("wmcdp", "wmcdp.__main__")]
    assert loose == []


def test_no_import_circles():
    circles = [sorted(c) for c in nx.strongly_connected_components(_graph()) if len(c) > 1]
    assert circles == []


def test_imports_go_down_the_layers():
    upward = [
        f"{a} -> {b}"
        for a, b in _graph().edges
        if _layer(a) is not None and _layer(b) is not None and _layer(b) > _layer(a)  # type: ignore[operator]
    ]
    assert upward == []
