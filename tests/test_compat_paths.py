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


#: 0.1 modules whose names are functions wmcdp exports -> their new homes and the names 0.1's ``__all__`` held
RENAMED = {
    "wmcdp.inference": ("wmcdp.count.probabilities", ["inference", "ProbabilityTable", "DenseTable", "Counter",
                                                      "as_compiled", "number_system", "memory_budget",
                                                      "explicit_rows"]),
    "wmcdp.sample": ("wmcdp.notions.sampling", ["sample", "wilson_interval", "CheckRow", "CrosscheckResult",
                                                "check_probability", "crosscheck"]),
}


@pytest.mark.parametrize("path", sorted(RENAMED))
def test_a_module_named_as_an_exported_function_fails_naming_its_new_home(path):
    """No alias: a module imported as ``wmcdp.sample`` would take the function's place on the package. The import
    fails in one line naming the new home, which holds every name the 0.1 module had."""
    new, names = RENAMED[path]
    with pytest.raises(ModuleNotFoundError) as caught:
        importlib.import_module(path)
    message = str(caught.value)
    assert caught.value.name == path and new in message and f"from wmcdp import {path.split('.')[1]}" in message
    assert len(message) < 200
    home = importlib.import_module(new)
    assert all(hasattr(home, name) for name in names)


@pytest.mark.parametrize("path", sorted(RENAMED))
def test_from_wmcdp_import_gives_the_function_as_in_0_1(path):
    import wmcdp

    name = path.split(".")[1]
    new, _ = RENAMED[path]
    with pytest.raises(ImportError):
        importlib.import_module(path)  # a failed import of the old path leaves the function in place
    function = getattr(importlib.import_module(new), name)
    assert getattr(wmcdp, name) is function and callable(function)
    exec(f"from wmcdp import {name} as got", namespace := {})
    assert namespace["got"] is function


def test_the_functions_give_what_0_1_gave():
    """``sample`` and ``inference`` of 0.1: seeded counts over k runs, and P(y | x) (RR, n = 1, λ = 1/4)."""
    from wmcdp import Bits, Program, flip, inference, sample

    program = Program("rr", Bits(1), lambda x: tuple(xi ^ flip(Fraction(1, 4)) for xi in x))
    counts = sample(program, (0,), 400, seed=1)
    assert sum(counts.values()) == 400 and set(counts) <= {(0,), (1,)}
    table = inference(program, [((0,), (0,)), ((0,), (1,))])
    assert [table.probability((0,), (y,)) for y in (0, 1)] == [Fraction(3, 4), Fraction(1, 4)]


#: the names of 0.1's top-level ``programs`` package (its __all__), now wmcdp.programs's
PROGRAMS_0_1 = ["PROGRAMS", "randomized_response", "rr_counting", "kary_rr_histogram", "truncated_geometric",
                "geometric_above_threshold", "noisy_max", "noisy_max_value", "histogram", "histogram_wrong_scale",
                "sparse_vector", "isvt1", "isvt2", "isvt3", "isvt4", "kary_rr", "opendp_rr_bool",
                "opendp_rr_categorical", "opendp_rr_bitvec", "opendp_rr_bitvec_lengths", "opendp_geometric_bounded",
                "opendp_noisy_max"]


def test_every_name_of_the_0_1_programs_package_is_in_wmcdp_programs():
    """``from programs import X`` of 0.1 is ``from wmcdp.programs import X``."""
    import wmcdp.programs

    assert set(PROGRAMS_0_1) <= set(wmcdp.programs.__all__)
    assert set(PROGRAMS_0_1) - {"PROGRAMS"} <= set(wmcdp.programs.PROGRAMS)


#: run outside the checkout, where the current folder's ``programs/`` (the source) is not on the import path
TOP_LEVEL = """
import warnings
warnings.simplefilter("error")
for old in ("programs", "symmetry_sets"):
    try:
        __import__(old)
    except DeprecationWarning as e:
        print(e)
warnings.simplefilter("ignore")
import programs, programs.checkdp, symmetry_sets, symmetry_sets.randomized_response
import wmcdp.programs, wmcdp.programs.checkdp, wmcdp.symmetry_sets, wmcdp.symmetry_sets.randomized_response
from programs import noisy_max
assert programs is wmcdp.programs and programs.checkdp is wmcdp.programs.checkdp
assert symmetry_sets.randomized_response is wmcdp.symmetry_sets.randomized_response
assert noisy_max is wmcdp.programs.noisy_max
print("same modules")
"""


def test_the_0_1_top_level_packages_import_with_a_warning(tmp_path):
    """0.1's top-level ``programs`` and ``symmetry_sets`` (installed from compat/) warn, naming their new homes, and
    are the very modules of wmcdp.programs and wmcdp.symmetry_sets, submodules included."""
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", TOP_LEVEL], capture_output=True, text=True, cwd=tmp_path, check=True
    ).stdout.splitlines()
    assert out == [
        "programs is deprecated and will be removed in wmcdp 0.4: import from wmcdp.programs instead",
        "symmetry_sets is deprecated and will be removed in wmcdp 0.4: import from wmcdp.symmetry_sets instead",
        "same modules",
    ]


@pytest.mark.parametrize("notion", ["privacy", "accuracy", "approximate", "renyi"])
def test_the_02_markdown_functions_warn_and_are_markdown_of(notion):
    """``wmcdp.notions.markdown.NOTION_markdown`` (0.2) reads as :func:`markdown_of` with a DeprecationWarning
    naming it; its Markdown of randomized response (n = 1, lam = 1/4) names the closed-form ratio (1 - lam) / lam."""
    import wmcdp.notions.markdown as markdown
    from wmcdp import synthesize_privacy
    from wmcdp.programs import randomized_response

    with pytest.warns(DeprecationWarning, match=rf"{notion}_markdown is deprecated.*markdown_of") as caught:
        old = getattr(markdown, f"{notion}_markdown")
    assert old is markdown.markdown_of and caught[0].filename == __file__
    r = synthesize_privacy(randomized_response(1, Fraction(1, 4)))
    assert r.ratio == 3 and old(r) == markdown.markdown_of(r) and "3" in old(r)
    with pytest.raises(AttributeError, match="no attribute 'nope_markdown'"):
        markdown.nope_markdown  # noqa: B018
