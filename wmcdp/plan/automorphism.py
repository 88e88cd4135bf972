"""Circuit symmetries from graph automorphisms: nauty (through ``pynauty``) on the traced circuit.

The traced circuit of a program (:class:`~wmcdp.lang.circuit.Circuit`) becomes a directed graph
with a vertex per gate its outputs read and per output bit, an edge from each gate to each child
and from each output bit to its gate, and vertex colours that any automorphism must keep:

* a gate by its kind (AND, OR, XOR, NOT); every such gate is commutative, so children need no order;
* a random bit by its pair of literal weights (a bijection of random bits of equal weights keeps
  every assignment's weight);
* an input bit by its position in its entry (most significant first);
* an output bit by its leaf's shape, its position in the leaf, and the leaf's position in its part
  of the output tuple (parts of one shape may trade places).

An automorphism maps every gate onto a gate computing, on the renamed variables, the same formula
(by induction from the variables up). If it maps the bits of each entry ``e`` onto the bits of an
entry ``pi(e)`` and each output bit ``j`` onto ``sigma(j)``, then
``o_sigma(j)(pi x, rho theta) = o_j(x, theta)`` for all inputs and random bits, so
``P(sigma(y) | pi x) = P(y | x)``: a proved symmetry, found in one call to nauty with no diagram
operation. wmcdp's groups are products of symmetric groups on blocks of entries; a generator that
acts on the entries as a transposition proves that transposition, and transpositions that join
entries into a block generate the block's full symmetric group. (Other generators are not used: the
group that is claimed is only ever what its transpositions generate.)
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time

from ..base.limits import check
from ..lang.circuit import TRUE, VAR
from ..lang.program import Trace
from ..lang.shape import TupleShape, leaves
from .parts import _reachable

#: circuits with more vertices than this are not handed to nauty (the proofs on the diagram remain)
MAX_VERTICES = 200_000
#: seconds nauty may search (in a child process) before the search is abandoned: most circuits take
#: milliseconds, but long chains of equal gates (a sum of n bits built term by term: 57 s at n = 100) do not
SECONDS = 0.5


def available() -> bool:
    try:
        import pynauty  # noqa: F401
    except ImportError:  # pragma: no cover - pynauty is a dependency; kept optional for odd platforms
        return False
    return True


def _output_colours(trace: Trace) -> list[tuple]:
    """One colour per output bit: (the leaf's shape, the bit's place in it, the leaf's place in its tuple part)."""
    shape = trace.shape
    parts = shape.parts if isinstance(shape, TupleShape) else (shape,)
    out = []
    for part in parts:
        for k, leaf in enumerate(leaves(part)):
            for b in range(leaf.width):
                out.append((repr(leaf), b, k, len(leaves(part))))
    return out


def transpositions(trace: Trace, n: int, seconds: float | None = None) -> list[tuple[int, int, str]] | None:
    """``(a, b, kind)`` for every nauty generator that swaps entries ``a`` and ``b`` (and fixes the other
    entries), with the output action ``kind`` (``"unchanged"`` or ``"tuple"``; ``n``: the number of entries);
    None without pynauty, over :data:`MAX_VERTICES`, or when nauty takes more than ``seconds`` (default
    :data:`SECONDS`): nauty's search can be long on very regular graphs, so it runs in a child process that
    is stopped at the time limit (the search is then abandoned, not failed)."""
    if not available():
        return None
    circuit = trace.circuit
    needed = _reachable(circuit, trace.output_roots)
    nodes = [k for k in range(2, len(needed)) if needed[k]]
    if len(nodes) + len(trace.output_roots) > MAX_VERTICES or not nodes:
        return None
    check("circuit automorphisms")
    return _in_child(lambda: _transpositions(trace, n, nodes), SECONDS if seconds is None else seconds)


def _in_child(job, seconds: float):
    """``job()`` in a forked child process, its result back through a pipe; None past ``seconds`` or on failure."""
    if not hasattr(os, "fork") or seconds <= 0:
        return None
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read)
            data = pickle.dumps(job())
            with os.fdopen(write, "wb") as f:
                f.write(data)
        finally:
            os._exit(0)
    os.close(write)
    chunks = []
    deadline = time.monotonic() + seconds
    with os.fdopen(read, "rb") as f:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([f], [], [], max(left, 0))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None
            chunk = os.read(f.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    os.waitpid(pid, 0)
    try:
        return pickle.loads(b"".join(chunks))
    except Exception:  # pragma: no cover - the child died before writing
        return None


def _transpositions(trace: Trace, n: int, nodes: list[int]) -> list[tuple[int, int, str]]:
    import pynauty

    circuit = trace.circuit
    roots = trace.output_roots
    vertex = {node: i for i, node in enumerate(nodes)}
    outputs = list(range(len(nodes), len(nodes) + len(roots)))
    position = {v: (e, b) for e, bits in trace.input_bits.items() for b, v in enumerate(bits)}
    colours: dict[tuple, set[int]] = {}
    adjacency: dict[int, list[int]] = {}
    for node in nodes:
        gate = circuit.gates[node]
        i = vertex[node]
        if gate[0] == VAR:
            v = gate[1]
            w = circuit.weights.get(v)
            colour = ("in", position[v][1]) if w is None else ("r", repr(w.one), repr(w.zero))
        else:
            colour = (gate[0],)  # type: ignore[assignment]
            adjacency[i] = [vertex[c] for c in gate[1:] if c > TRUE]
        colours.setdefault(colour, set()).add(i)
    for j, (root, colour) in enumerate(zip(roots, _output_colours(trace))):
        const = None if root > TRUE else root
        colours.setdefault(("out", *colour, const), set()).add(outputs[j])
        if root > TRUE:
            adjacency[outputs[j]] = [vertex[root]]
    # each edge u -> v becomes the undirected path u - tail - head - v: nauty refines undirected graphs
    # far better than digraphs, and the two coloured middle vertices keep the direction
    count = len(nodes) + len(roots)
    undirected: dict[int, list[int]] = {}
    tails, heads = set(), set()
    for u, children in adjacency.items():
        for v in children:
            tail, head = count, count + 1
            count += 2
            tails.add(tail)
            heads.add(head)
            undirected.setdefault(u, []).append(tail)
            undirected[tail] = [head]
            undirected[head] = [v]
    colours[("edge", "tail")] = tails
    colours[("edge", "head")] = heads
    ordered = [colours[key] for key in sorted(colours, key=repr) if colours[key]]
    graph = pynauty.Graph(count, directed=False, adjacency_dict=undirected, vertex_coloring=ordered)
    generators = pynauty.autgrp(graph)[0]
    entry_vertex = {
        e: [vertex[circuit.var_node[v]] for v in bits if circuit.var_node[v] in vertex]
        for e, bits in trace.input_bits.items()
    }
    entry_of_vertex = {i: e for e, vs in entry_vertex.items() for i in vs}
    parts = _tuple_parts(trace, n)
    found = []
    for perm in generators:
        moved = {}
        consistent = True
        for e, vs in entry_vertex.items():
            images = {entry_of_vertex.get(perm[i]) for i in vs}
            if len(images) != 1 or None in images:
                consistent = False
                break
            (f,) = images
            if f != e:
                moved[e] = f
        if not consistent or len(moved) != 2:
            continue
        a, b = sorted(moved)
        if moved[a] != b or moved[b] != a:
            continue
        sigma = [perm[o] - len(nodes) for o in outputs]
        if sigma == list(range(len(roots))):
            found.append((a, b, "unchanged"))
        elif parts is not None and _swaps_parts(sigma, parts, a, b):
            found.append((a, b, "tuple"))
    return found


def _tuple_parts(trace: Trace, n: int) -> list[range] | None:
    """The output bits of each part of a tuple output with one part per entry (else None)."""
    shape = trace.shape
    if not isinstance(shape, TupleShape) or len(shape.parts) != n:
        return None
    out, j = [], 0
    for part in shape.parts:
        width = sum(leaf.width for leaf in leaves(part))
        out.append(range(j, j + width))
        j += width
    return out


def _swaps_parts(sigma: list[int], parts: list[range], a: int, b: int) -> bool:
    """``sigma`` maps part ``a``'s bits onto part ``b``'s in order, and back, and fixes every other bit."""
    if a >= len(parts) or b >= len(parts) or len(parts[a]) != len(parts[b]):
        return False
    expected = list(range(len(sigma)))
    for j, k in zip(parts[a], parts[b]):
        expected[j], expected[k] = k, j
    return sigma == expected


__all__ = ["transpositions", "available", "MAX_VERTICES"]
