"""The built-in relations as index arithmetic (:meth:`wmcdp.lang.relations.Relation.directions`) against their own
listing of neighbours, input by input, and the exhaustive pass's pairs (:func:`wmcdp.plan.pairs.pair_directions`)
against the same listing in the exhaustive set's order, in chunks of every size."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from wmcdp import IntVector
from wmcdp.lang.relations import neighbour_relation
from wmcdp.plan.pairs import pair_directions

RELATIONS = ("hamming", "one-entry", "monotone", "all-entries")


def _listed(domain, relation):
    """Every ordered pair ``(x, x')`` by the definition, in the exhaustive order: inputs in code order, each
    input's neighbours in the relation's order."""
    return [(x, tuple(xp)) for x in domain.values() for xp in relation.neighbours(domain, x)]


def _by_definition(x, xp, name, lo, hi):
    moved = [b - a for a, b in zip(x, xp) if a != b]
    inside = all(lo <= v <= hi for v in xp)
    return inside and {
        "hamming": len(moved) == 1,
        "one-entry": moved in ([1], [-1]),
        "monotone": set(moved) in ({1}, {-1}),
        "all-entries": bool(moved) and all(abs(s) == 1 for s in moved),
    }[name]


@pytest.mark.parametrize("name", RELATIONS)
@pytest.mark.parametrize("n, lo, hi", [(1, 0, 1), (3, 0, 1), (2, 0, 2), (3, -1, 1), (2, 0, 0)])
def test_directions_list_each_inputs_neighbours_in_order(name, n, lo, hi):
    domain, relation = IntVector(n, lo, hi), neighbour_relation(name)
    values = range(lo, hi + 1)
    listed = _listed(domain, relation)
    brute = [(x, xp) for x in itertools.product(values, repeat=n) for xp in itertools.product(values, repeat=n)]
    assert sorted(listed) == sorted(p for p in brute if _by_definition(*p, name, lo, hi))
    directions = list(relation.directions(domain))
    assert len(directions) == relation.direction_count(domain)
    found = []
    for rank, (src, dst) in enumerate(directions):
        assert list(src) == sorted(set(src.tolist()))
        for code, code_prime in zip(src.tolist(), dst.tolist()):
            x, xp = domain.at(code), domain.at(code_prime)
            assert relation.step(domain, x, rank) == xp
            found.append((code, rank, (x, xp)))
    assert [pair for _, _, pair in sorted(found)] == listed
    for chunk in (1, 2, 7, 10**6):
        parts = list(pair_directions(domain, relation, chunk))
        assert all(0 < len(src) <= chunk for src, _, _ in parts)
        if not listed:
            assert parts == []
            continue
        src, dst, keys = (np.concatenate(column) for column in zip(*parts))
        order = np.argsort(keys, kind="stable")
        assert len(set(keys.tolist())) == len(keys)
        assert [(domain.at(int(a)), domain.at(int(b))) for a, b in zip(src[order], dst[order])] == listed
