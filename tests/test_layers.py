"""The package's folders are its layers: a module imports only from its own layer and the layers below, and no
modules import each other in a circle (imports inside functions count; those only for type checkers do not).

The built-in programs and proved sets live in top-level folders of the checkout but install as ``wmcdp.programs``
and ``wmcdp.symmetry_sets``; they are checked too, each at the layer it needs: a program is written in the DSL
(``wmcdp.programs`` is at the ``lang`` layer: base and lang only), and the proved sets are built from the planner's
pair sources (``wmcdp.symmetry_sets`` is at the ``plan`` layer). The 0.1 module paths kept as deprecated aliases
(``wmcdp.sets``, ...) are compatibility shims at the package's top, above every layer, like ``wmcdp`` itself."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import networkx as nx

import wmcdp
import wmcdp.programs
import wmcdp.symmetry_sets

PACKAGE = Path(wmcdp.__file__).parent
#: lowest first; the package's own __init__ and __main__ stand above them all
LAYERS = ["base", "lang", "compile", "count", "plan", "notions", "report", "audit", "cli"]
#: the folders outside wmcdp/ that install inside it, and their layers
FOLDERS = {"programs": "lang", "symmetry_sets": "plan"}
#: the 0.1 module paths, deprecated aliases above every layer (nothing in the package imports them)
SHIMS = {f"wmcdp.{name}" for name in ("sets", "approximate", "renyi", "loss", "limits", "registry", "distributed")}


def _name(path: Path, root: Path, package: str) -> str:
    parts = [package, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    modules = {_name(p, PACKAGE, "wmcdp"): p for p in PACKAGE.rglob("*.py")}
    for folder in FOLDERS:
        root = Path(getattr(wmcdp, folder).__file__).parent
        modules.update({_name(p, root, f"wmcdp.{folder}"): p for p in root.rglob("*.py")})
    return modules


#: the longest a function may be, from its ``def`` to its last line
MAX_FUNCTION_LINES = 90


@functools.cache
def _graph(typing: bool = False) -> nx.DiGraph:
    """The import graph of the package; with ``typing``, the imports under ``if TYPE_CHECKING:`` too."""
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        typing_only = set() if typing else {
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
    folder = FOLDERS.get(parts[1], parts[1]) if len(parts) > 1 else None
    return LAYERS.index(folder) if folder in LAYERS else None


def test_every_module_is_in_a_layer_folder():
    loose = [m for m in _graph() if _layer(m) is None and m not in {"wmcdp", "wmcdp.__main__", *SHIMS}]
    assert loose == []


def test_the_programs_and_proved_sets_are_checked():
    graph = _graph()
    assert {"wmcdp.programs.randomized_response", "wmcdp.symmetry_sets.randomized_response"} <= set(graph)
    assert ("wmcdp.symmetry_sets.randomized_response", "wmcdp.plan.pairs") in graph.edges


def test_the_shims_stand_apart():
    """Every 0.1 alias exists, and no module of the package imports one (they only re-export)."""
    graph = _graph()
    assert set(graph) >= SHIMS
    assert [f"{a} -> {b}" for a, b in graph.edges if b in SHIMS] == []


def test_no_import_circles():
    circles = [sorted(c) for c in nx.strongly_connected_components(_graph()) if len(c) > 1]
    assert circles == []


def test_no_import_circles_even_for_type_checkers():
    """Counting the imports under ``if TYPE_CHECKING:`` too, no modules import each other in a circle: a type
    both sides of a would-be circle need lives in a module below both."""
    circles = [sorted(c) for c in nx.strongly_connected_components(_graph(typing=True)) if len(c) > 1]
    assert circles == []


def _function_imports(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """The imports of a module that run inside a function (once per import statement)."""
    found = {
        id(node): node
        for function in ast.walk(ast.parse(path.read_text()))
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.walk(function)
        if isinstance(node, (ast.Import, ast.ImportFrom))
    }
    return sorted(found.values(), key=lambda node: node.lineno)


def test_every_import_inside_a_function_says_why():
    """An import inside a function has a ``# deferred:`` comment with its reason, on its line or above its block
    (an optional or heavy dependency, or a start-up cost); any other import belongs at the module's top."""
    unexplained = []
    for name, path in _modules().items():
        lines = path.read_text().splitlines()
        for node in _function_imports(path):
            here, above = lines[node.lineno - 1], node.lineno - 2
            while lines[above].strip().startswith(("import ", "from ")):  # one comment heads a block of imports
                above -= 1
            if "# deferred:" not in here and not lines[above].strip().startswith("# deferred:"):
                unexplained.append(f"{name}:{node.lineno}: {here.strip()}")
    assert unexplained == []


def test_the_checks_see_function_imports_and_typing_imports(tmp_path):
    """The two checks above are not vacuous: a function's imports are found (with or without their comment), and
    the graph with ``TYPE_CHECKING`` imports has edges the plain one has not."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    import json\n\n    # deferred: a reason\n    import csv\n    return json, csv\n")
    assert [node.lineno for node in _function_imports(module)] == [2, 5]
    assert set(_graph(typing=True).edges) > set(_graph().edges)


def test_no_function_is_longer_than_90_lines():
    """Every function of the package, the built-in programs and the proved sets fits in 90 lines."""
    lengths = {
        f"{name}.{node.name}": node.end_lineno - node.lineno + 1  # type: ignore[operator]
        for name, path in _modules().items()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    assert len(lengths) > 1000 and "wmcdp.notions.approximate.synthesize_approximate" in lengths
    assert {f: n for f, n in lengths.items() if n > MAX_FUNCTION_LINES} == {}


def test_imports_go_down_the_layers():
    upward = [
        f"{a} -> {b}"
        for a, b in _graph().edges
        if _layer(a) is not None and _layer(b) is not None and _layer(b) > _layer(a)  # type: ignore[operator]
    ]
    assert upward == []
