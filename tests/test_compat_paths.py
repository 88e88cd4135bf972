"""The 0.1 module paths import again: each warns (a DeprecationWarning naming the new path, pointing at the
importing line), re-exports the names it held in 0.1 as the very objects of their new home, and the 0.1 code
that used them gives the definitions' values (checked against brute-force enumeration)."""

from __future__ import annotations

import importlib
import sys
import warnings
from fractions import Fraction

import brute
import pytest

#: 0.1 path -> its new homes, and names of it that 0.1's docs, tests and experiments imported
MOVED = {
    "wmcdp.sets": (
        ["wmcdp.lang.sets", "wmcdp.lang.relations"],
        ["exhaustive_inference", "exhaustive_privacy", "exhaustive_accuracy", "InferenceSet", "PrivacySet",
         "AccuracySet", "all_outputs", "Relation", "neighbour_relation"],
    ),
    "wmcdp.approximate": (
        ["wmcdp.notions.approximate"],
        ["synthesize_approximate", "privacy_profile", "ApproximateResult", "ProfilePoint", "Threshold"],
    ),
    "wmcdp.renyi": (["wmcdp.notions.renyi"], ["synthesize_renyi", "RenyiResult", "RenyiOrder", "parse_orders"]),
    "wmcdp.loss": (["wmcdp.notions.loss"], ["privacy_loss_distribution", "PrivacyLoss", "Groups", "compose_count"]),
    "wmcdp.limits": (["wmcdp.base.limits"], ["LimitExceeded", "resource_limits", "check", "limited"]),
    "wmcdp.registry": (
        ["wmcdp.lang.registry", "wmcdp.plan.given_sets"],
        ["build_program", "find_program", "find_relation", "find_sets", "builtin_programs"],
    ),
    "wmcdp.distributed": (["wmcdp.count.distributed"], ["Workers", "check_workers", "worker_counter"]),
}


def _fresh_import(path: str):
    """Import ``path`` anew (the warning comes once per interpreter, at the first import)."""
    sys.modules.pop(path, None)
    with pytest.warns(DeprecationWarning) as caught:
        module = importlib.import_module(path)
    return module, [w for w in caught if issubclass(w.category, DeprecationWarning)]


@pytest.mark.parametrize("path", sorted(MOVED))
def test_the_old_path_warns_naming_the_new_one(path):
    homes, _ = MOVED[path]
    _, caught = _fresh_import(path)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert path in message and all(home in message for home in homes) and "0.4" in message
    assert caught[0].filename != __file__  # import_module's caller is importlib; a plain import points here


def test_the_warning_points_at_the_import_statement():
    sys.modules.pop("wmcdp.renyi", None)
    with pytest.warns(DeprecationWarning) as caught:
        import wmcdp.renyi  # noqa: F401
    assert caught[0].filename == __file__


@pytest.mark.parametrize("path", sorted(MOVED))
def test_the_old_names_are_the_new_objects(path):
    homes, used = MOVED[path]
    module, _ = _fresh_import(path)
    assert set(used) <= set(module.__all__)
    for name in module.__all__:
        if (path, name) == ("wmcdp.approximate", "deltas_with_logs"):
            continue  # merged into deltas in 0.2; the alias adapts it (below)
        owners = [importlib.import_module(h) for h in homes if hasattr(importlib.import_module(h), name)]
        assert owners, f"{path}.{name} has no new home"
        assert getattr(module, name) is getattr(owners[0], name)


def _rr(x, choose):
    return tuple(xi ^ brute.flip(choose, Fraction(1, 5)) for xi in x)


def test_code_written_for_0_1_still_runs():
    """0.1's imports, and the values the definitions give (randomized response, n = 2, λ = 1/5)."""
    sys.modules.pop("wmcdp.approximate", None)
    sys.modules.pop("wmcdp.renyi", None)
    sys.modules.pop("wmcdp.sets", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from wmcdp.approximate import synthesize_approximate
        from wmcdp.renyi import synthesize_renyi
        from wmcdp.sets import exhaustive_inference, exhaustive_privacy
    from wmcdp import Bits, Program, flip, synthesize_privacy

    program = Program("rr", Bits(2), lambda x: tuple(xi ^ flip(Fraction(1, 5)) for xi in x))
    inputs = [(a, b) for a in (0, 1) for b in (0, 1)]
    dists = {x: brute.distribution(_rr, x) for x in inputs}

    def neighbours(x):
        return [x[:i] + (1 - x[i],) + x[i + 1:] for i in range(2)]

    C, I = exhaustive_privacy(Bits(2), inputs), exhaustive_inference(Bits(2), inputs)  # outputs: the same 4 tuples
    assert synthesize_privacy(program, C, I).ratio == brute.tight_ratio(_rr, inputs, neighbours) == 4
    tv, _ = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.hockey(p, q, 1))
    assert synthesize_approximate(program, epsilon=0).delta == tv == Fraction(3, 5)
    renyi, _ = brute.max_over_pairs(dists, neighbours, lambda p, q: brute.renyi(p, q, 2))
    assert synthesize_renyi(program, [2]).orders[0].epsilon == pytest.approx(renyi, rel=1e-12)


def test_deltas_with_logs_gives_its_0_1_tuples():
    from wmcdp.notions.approximate import Threshold, deltas
    from wmcdp.plan.pairs import pair_source

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from wmcdp.approximate import deltas_with_logs
    from wmcdp import Bits, Program, compile_program, flip

    program = Program("rr", Bits(1), lambda x: tuple(xi ^ flip(0.2) for xi in x))
    thresholds = [Threshold.of(0), Threshold.of(1.0)]
    source = pair_source(compile_program(program, "bdd"), None, None)
    records = deltas(source, thresholds)
    assert deltas_with_logs(source, thresholds) == [(d.value, d.key, d.log) for d in records]
    assert records[0].value == pytest.approx(0.6, rel=1e-12)  # |0.8 - 0.2|, the total variation distance
