"""wmcdp size --dot: the compiled diagram as a Graphviz digraph with named variables."""

import pytest

from wmcdp.programs import geometric_above_threshold, randomized_response
from wmcdp import compile_program
from wmcdp.cli import main

pydot = pytest.importorskip("pydot")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pydot on new pyparsing


def parse(text: str):
    (graph,) = pydot.graph_from_dot_data(text)
    nodes = [n for n in graph.get_nodes() if n.get_name() not in ("node", "edge", "graph")]
    return graph, nodes


@pytest.mark.parametrize("backend", ["bdd", "sdd"])
def test_rr_dot_has_one_node_per_diagram_node(tmp_path, capsys, backend):
    path = tmp_path / "phi.dot"
    code = main(["size", "randomized_response", "-p", "n=3", "-p", "lam=1/5", "--backend", backend,
                 "--dot", str(path)])
    out = capsys.readouterr().out
    assert code == 0 and backend.upper() in out
    graph, nodes = parse(path.read_text())
    size = compile_program(randomized_response(3, "1/5"), backend).size
    assert graph.get_type() == "digraph"
    assert len(nodes) == size + 1  # the diagram's nodes and the entry "phi"
    text = path.read_text()
    for name in ("x0", "x2", "y0", "y2", "r1 (p=1/5)"):
        assert name in text


def test_default_dot_is_the_bdd_with_complement_marks(tmp_path):
    path = tmp_path / "phi.dot"
    assert main(["size", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--dot", str(path)]) == 0
    graph, nodes = parse(path.read_text())
    assert graph.get_name() == "bdd" and len(nodes) == compile_program(randomized_response(2, 0.2)).size + 1
    styles = {e.get("style") for e in graph.get_edges()}
    assert {"solid", "dashed"} <= styles
    assert any(e.get("arrowhead") == "odot" for e in graph.get_edges())


def test_integer_inputs_are_named_by_bit():
    from wmcdp.compile.dot import to_dot

    compiled = compile_program(geometric_above_threshold(2, 2, 1, 0.2))
    graph, nodes = parse(to_dot(compiled))
    assert len(nodes) == compiled.size + 1
    labels = " ".join(n.get("label") or "" for n in nodes)
    assert "x0.b0" in labels and "x1.b1" in labels and "y" in labels


def test_unwritable_dot_is_a_one_line_error(tmp_path, capsys):
    code = main(["size", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--dot", str(tmp_path / "no" / "x.dot")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("wmcdp: error: cannot write") and err.count("\n") == 1
