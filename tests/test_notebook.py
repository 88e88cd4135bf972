"""Results and rows in notebooks: one-line reprs, Markdown, to_dataframe of results and of rows, and plot_rows
that draws on given axes or a figure of its own, returns the figure and never changes matplotlib's backend.

Reference values are closed forms of randomized response (eps = ln((1 - lam) / lam)) and of RR counting
(1 - beta = P(at most alpha flips)), not numbers wmcdp printed."""

import math
from fractions import Fraction

import pytest

import wmcdp
from wmcdp.notions.sweep import sweep_privacy
from wmcdp.programs import randomized_response, rr_counting

try:  # (imported with the module: its one-time cost is not the test's)
    import matplotlib
    from matplotlib.figure import Figure
except ImportError:  # pragma: no cover - the test extra has it
    matplotlib = None
needs_matplotlib = pytest.mark.skipif(matplotlib is None, reason="plot_rows needs matplotlib")

LAM = Fraction(1, 5)
EPS = math.log((1 - LAM) / LAM)  # ln 4


@pytest.fixture(scope="module")
def results():
    rr = randomized_response(n=3, lam=LAM)
    return [
        wmcdp.synthesize_privacy(rr),
        wmcdp.synthesize_accuracy(rr_counting(n=3, lam=LAM), alpha=1),
        wmcdp.synthesize_approximate(rr, epsilon=0),
        wmcdp.synthesize_renyi(rr, orders=[2, math.inf]),
    ]


def test_reprs_are_one_short_line_with_the_bound_the_witness_and_the_plan(results):
    privacy, accuracy, approximate, renyi = (repr(r) for r in results)
    for text in (privacy, accuracy, approximate, renyi):
        assert "\n" not in text and len(text) < 200 and "plan=" in text and text.endswith(" s)")
    assert privacy.startswith(f"PrivacyResult(epsilon={EPS:.6g}, ratio=4, witness_x=")
    assert "ratio_exact" not in privacy  # the exact ratio reads as its float: shown once
    one_minus_beta = (1 - LAM) ** 3 + 3 * LAM * (1 - LAM) ** 2  # at most one of the three bits flips
    assert f"one_minus_beta_exact={one_minus_beta}" in accuracy
    # delta(0) of RR: the total variation of the worst pair, one entry differing: |(1 - lam) - lam|
    assert f"delta_exact={1 - 2 * LAM}" in approximate
    assert f"D_inf={EPS:.6g}" in renyi


def test_a_long_witness_keeps_the_repr_short():
    r = wmcdp.synthesize_privacy(randomized_response(n=150, lam=0.25))
    text = repr(r)
    assert len(r.witness.x) == 150 and len(text) < 230 and "..." in text


def test_markdown_is_a_table(results):
    for r in results:
        md = r._repr_markdown_()
        assert "|" in md and md.count("\n") >= 2


def test_to_dataframe_takes_results_of_every_notion(results):
    df = wmcdp.to_dataframe(results)
    assert list(df["notion"]) == ["privacy", "accuracy", "approximate", "renyi"]
    assert df.loc[0, "epsilon"] == pytest.approx(EPS) and df.loc[0, "ratio_exact"] == "4"
    assert df.loc[0, "witness_x"] != df.loc[0, "witness_x_prime"]
    assert df.loc[1, "one_minus_beta_exact"] == str((1 - LAM) ** 3 + 3 * LAM * (1 - LAM) ** 2)
    assert df.loc[2, "delta"] == pytest.approx(float(1 - 2 * LAM))
    assert df.loc[3, "D_inf"] == pytest.approx(EPS) and df.loc[3, "zcdp_order"] == 2
    assert set(df["plan"]) <= {"product", "exhaustive", "symmetry", "hub", "chain", "given-input", "counted"}
    assert len(wmcdp.to_dataframe(results[:1])) == 1


def test_to_dataframe_takes_rows_and_results_together(results):
    rows = sweep_privacy(["randomized_response"], {"n": 2}, "lam", [Fraction(1, 10), Fraction(1, 5)], exact=True)
    df = wmcdp.to_dataframe([*rows, results[0]])
    assert list(df["epsilon"]) == pytest.approx([math.log(9), math.log(4), EPS])
    assert list(df["value"][:2]) == [0.1, 0.2]


def test_to_dataframe_refuses_other_things_in_one_line():
    with pytest.raises(wmcdp.WmcdpError, match="got a dict"):
        wmcdp.to_dataframe([{"epsilon": 1}])


@pytest.fixture
def rows():
    return sweep_privacy(["randomized_response"], {"n": 2}, "lam", [0.1, 0.2, 0.3])


@needs_matplotlib
def test_plot_rows_draws_on_given_axes_and_keeps_the_backend(rows, tmp_path):
    before = matplotlib.get_backend()
    matplotlib.use("svg")  # not Agg: plot_rows used to switch every process to Agg
    try:
        fig = Figure()
        ax = fig.subplots()
        assert wmcdp.plot_rows(rows, ax=ax) is fig
        (line,) = ax.get_lines()
        assert list(line.get_xdata()) == [0.1, 0.2, 0.3]
        assert list(line.get_ydata()) == pytest.approx([math.log(0.9 / 0.1), math.log(4), math.log(0.7 / 0.3)])
        own = wmcdp.plot_rows(rows)
        assert isinstance(own, Figure) and own is not fig and len(own.axes) == 1
        path = tmp_path / "curve.svg"
        assert isinstance(wmcdp.plot_rows(rows, path), Figure) and "<svg" in path.read_text()
        assert matplotlib.get_backend() == "svg"
        import matplotlib.pyplot as plt

        assert plt.get_fignums() == []  # no figure left open in pyplot
    finally:
        matplotlib.use(before)


@needs_matplotlib
def test_plot_rows_without_rows_is_one_line():
    with pytest.raises(wmcdp.WmcdpError, match="at least one row"):
        wmcdp.plot_rows([])
