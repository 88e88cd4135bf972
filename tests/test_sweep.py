"""wmcdp sweep: values, formats (CSV/JSON/LaTeX/Markdown), plots, progress and errors.

Reference numbers are closed forms checked against brute-force enumeration, never
numbers printed by wmcdp itself.
"""

import csv
import io
import itertools
import json
import math
import sys
from fractions import Fraction

import pytest

from brute import distribution, flip
from wmcdp.cli import main
from wmcdp.report.progress import PhaseLine
from wmcdp.notions.sweep import parse_over, records, sweep_accuracy, sweep_privacy, to_dataframe
from wmcdp.report.tables import render_rows

N, ALPHA = 5, 1
LAMS = [Fraction(k, 10) for k in range(1, 5)]  # below 1/2


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def rr_epsilon(lam) -> float:
    return abs(math.log((1 - lam) / lam))


def counting_closed_form(n, lam, alpha) -> Fraction:
    """``P(#flips <= alpha)``: 1 - beta of RR counting at x = 0^n (the count error is the number of flips)."""
    return sum(math.comb(n, k) * lam ** k * (1 - lam) ** (n - k) for k in range(alpha + 1))


def brute_one_minus_beta(n, lam, alpha) -> tuple[Fraction, tuple]:
    """min over all x of P(|#ones(RR(x)) - #ones(x)| <= alpha), by enumerating every coin."""
    def rr_count(x, choose):
        return sum(xi ^ flip(choose, lam) for xi in x)

    worst = None
    for x in itertools.product((0, 1), repeat=n):
        p = sum(q for y, q in distribution(rr_count, x).items() if abs(y - sum(x)) <= alpha)
        if worst is None or p < worst[0]:
            worst = (p, x)
    return worst


@pytest.mark.parametrize("lam", LAMS[::3])
def test_zero_input_is_the_worst_for_rr_counting(lam):
    # the claim the accuracy tests rely on: for lam < 1/2, x = 0^n attains the minimum
    worst, x = brute_one_minus_beta(N, lam, ALPHA)
    assert worst == counting_closed_form(N, lam, ALPHA)
    assert x == (0,) * N


def test_parse_over_ranges():
    assert parse_over("lam=0.05:0.5:0.05")[1] == [round(0.05 * k, 2) for k in range(1, 11)]
    assert parse_over("lam=1/20:1/2:1/20")[1] == [Fraction(k, 20) for k in range(1, 11)]
    assert parse_over("lam=0.1:0.35:0.1")[1] == [0.1, 0.2, 0.3]          # stop not reached
    assert parse_over("n=2:5") == ("n", [2, 3, 4, 5])
    assert parse_over("n=6:2:-2") == ("n", [6, 4, 2])
    assert parse_over("lam=0.1, 1/3") == ("lam", [0.1, Fraction(1, 3)])
    assert parse_over("lam=0.25:0.5:0.25", exact=True)[1] == [Fraction(1, 4), Fraction(1, 2)]


def test_csv_and_json_parse_back_to_the_closed_form(capsys):
    argv = ["sweep", "privacy", "randomized_response", "-p", "n=3", "--over", "lam=0.1:0.4:0.1"]
    code, out, err = run(capsys, *argv, "--format", "csv")
    assert code == 0 and err == ""
    rows = list(csv.DictReader(io.StringIO(out)))
    code, out, _ = run(capsys, *argv, "--format", "json")
    items = json.loads(out)["rows"]
    assert [float(r["value"]) for r in rows] == [i["value"] for i in items] == [0.1, 0.2, 0.3, 0.4]
    for r, i in zip(rows, items):
        assert float(r["epsilon"]) == i["epsilon"] == pytest.approx(rr_epsilon(i["value"]), rel=1e-12)
        assert float(r["ratio"]) == i["ratio"] and float(r["p_y_given_x"]) == i["p_y_given_x"]
        assert r["witness_x"] == "000" and r["witness_x_prime"] == "100"
        assert i["witness"] == {"x": [0, 0, 0], "x_prime": [1, 0, 0], "y": [0, 0, 0]}
        assert r["ratio_exact"] == "" and i["ratio_exact"] is None  # the exact columns, empty in a float run


def test_exact_sweep_keeps_fractions(capsys):
    code, out, _ = run(capsys, "sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=1/10:1/2:1/10",
                       "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [Fraction(r["value_exact"]) for r in rows] == [Fraction(k, 10) for k in range(1, 6)]
    for r in rows:
        lam = Fraction(r["value_exact"])
        assert Fraction(r["ratio_exact"]) == (1 - lam) / lam


def test_a_delta_below_the_float_range_is_printed_not_zero(capsys):
    """3000 composed runs of RR(1/4) at e^ε = 3^2998: only the all-truthful output passes the threshold, so
    δ = (8/9)(3/4)^3000 ≈ 1.357e-375 exactly, which no float holds: the table, CSV and JSON print it, never 0."""
    exact = Fraction(8, 9) * Fraction(3, 4) ** 3000
    argv = ["sweep", "approx", "randomized_response", "-p", "n=1", "--over", "lam=1/4"]
    argv += ["--epsilon", f"ln:{3**2998}", "--compose", "3000"]
    code, out, _ = run(capsys, *argv, "--format", "json")
    (row,) = json.loads(out)["rows"]
    assert code == 0 and Fraction(row["delta_exact"]) == exact
    mantissa, exponent = row["delta"].split("e")
    log10 = math.log10(exact.numerator) - math.log10(exact.denominator)
    assert math.log10(float(mantissa)) + int(exponent) == pytest.approx(log10, abs=1e-9)
    code, out, _ = run(capsys, *argv, "--format", "csv")
    assert next(csv.DictReader(io.StringIO(out)))["delta"] == row["delta"]


def test_accuracy_sweep_matches_binomial_closed_form(capsys):
    code, out, _ = run(capsys, "sweep", "accuracy", "rr_counting", "-p", f"n={N}", "--alpha", str(ALPHA),
                       "--over", "lam=" + ",".join(map(str, LAMS)), "--format", "json")
    assert code == 0
    for item, lam in zip(json.loads(out)["rows"], LAMS):
        assert Fraction(item["one_minus_beta_exact"]) == counting_closed_form(N, lam, ALPHA)
        assert item["beta"] == pytest.approx(1 - item["one_minus_beta"], abs=1e-15)
        assert item["witness"] == {"x": [0] * N} and item["alpha"] == ALPHA


def test_symmetry_sets_and_sdd_give_the_same_rows():
    lams = [0.15, 0.3]
    a = sweep_accuracy(["rr_counting"], {"n": 6}, "lam", lams, 2)
    b = sweep_accuracy(["rr_counting"], {"n": 6}, "lam", lams, 2, sets="symmetry", backend="sdd")
    assert [r.one_minus_beta for r in a] == pytest.approx([r.one_minus_beta for r in b], rel=1e-12)
    p = sweep_privacy(["randomized_response"], {"n": 6}, "lam", lams, sets="symmetry")
    assert [r.epsilon for r in p] == pytest.approx([rr_epsilon(v) for v in lams], rel=1e-12)


def test_latex_is_a_booktabs_tabular(capsys):
    code, out, _ = run(capsys, "sweep", "privacy", "randomized_response", "rr_counting", "-p", "n=3",
                       "--over", "lam=0.1,0.2,0.3", "--format", "latex")
    lines = out.strip().splitlines()
    assert lines[0].startswith(r"\begin{tabular}{") and lines[-1] == r"\end{tabular}"
    assert [lines[1], lines[3], lines[-2]] == [r"\toprule", r"\midrule", r"\bottomrule"]
    spec = lines[0][len(r"\begin{tabular}{"):-1]
    body = lines[4:-2]
    assert len(body) == 6  # 2 programs x 3 values
    for line in [lines[2], *body]:
        assert line.endswith(r"\\") and line.count(" & ") == len(spec) - 1
    assert r"\texttt{rr\_counting(n=3)}" in out


def test_markdown_and_table(capsys):
    code, out, _ = run(capsys, "sweep", "accuracy", "rr_counting", "-p", "n=3", "--alpha", "1",
                       "--over", "lam=1/4,1/3", "--format", "markdown")
    lines = out.strip().splitlines()
    assert len(lines) == 4 and lines[1].startswith("| --- | ---: |")
    assert all(line.count(" | ") == lines[0].count(" | ") for line in lines)
    code, out, _ = run(capsys, "sweep", "accuracy", "rr_counting", "-p", "n=3", "--alpha", "1", "--over", "lam=1/4")
    assert out.splitlines()[0].split()[:3] == ["program", "lam", "alpha"]


def test_output_file_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    table, png = tmp_path / "rows.csv", tmp_path / "curve.png"
    code, out, err = run(capsys, "sweep", "privacy", "randomized_response", "rr_counting", "-p", "n=2",
                         "--over", "lam=0.1:0.5:0.2", "--format", "csv", "--output", str(table), "--plot", str(png))
    assert code == 0 and out == "" and err == ""
    assert len(table.read_text().strip().splitlines()) == 1 + 6
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_dataframe_has_the_records():
    pd = pytest.importorskip("pandas")
    rows = sweep_privacy(["randomized_response"], {"n": 2}, "lam", [0.2, 0.4])
    df = to_dataframe(rows)
    assert isinstance(df, pd.DataFrame) and list(df["epsilon"]) == [r["epsilon"] for r in records(rows)]


@pytest.mark.parametrize("over, message", [
    ("lam", "malformed --over"),
    ("lam=0.1:0.2:0.1:0.3", "malformed --over"),
    ("lam=0.1:x", "is not a number"),
    ("lam=0.1,,0.2", "malformed --over"),
    ("lam=0.5:0.1:0.1", "empty range"),
    ("lam=0.1:0.5:0", "step is zero"),
    ("eps=0.1:0.5:0.1", "has no parameter 'eps'"),
    ("n=1:3", "both fixed"),
    ("lam=0.5:1.5:0.5", "lam must be in [0, 1]"),
])
def test_bad_over_is_a_one_line_error(capsys, over, message):
    code, out, err = run(capsys, "sweep", "privacy", "randomized_response", "-p", "n=2", "--over", over)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("wmcdp: error:") and message in err


def test_kind_specific_options_are_checked(capsys):
    assert run(capsys, "sweep", "accuracy", "rr_counting", "-p", "n=2", "--over", "lam=0.1")[0] == 2
    assert run(capsys, "sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=0.1",
               "--alpha", "1")[0] == 2
    code, _, err = run(capsys, "sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=0.1",
                       "--plot", "curve.gif")
    assert code == 2 and ".png" in err


def test_plot_without_matplotlib_is_one_line(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = run(capsys, "sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=0.1",
                         "--plot", str(tmp_path / "c.png"))
    assert code == 2 and err.count("\n") == 1 and "needs matplotlib" in err and "[plot]" in err


def test_ctrl_c_stops_cleanly(capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("wmcdp.cli.sweep.sweep", interrupted)
    code, out, err = run(capsys, "sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=0.1")
    assert code == 130 and out == "" and err == "wmcdp: interrupted\n"


def test_no_progress_bar_when_not_a_terminal(capsys):
    code, out, err = run(capsys, "sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=0.1")
    assert code == 0 and err == ""


def test_progress_line_draws_and_erases():
    stream = io.StringIO()
    with PhaseLine(delay=0, stream=stream) as line:
        line.outer(2, 4, "lam=0.2")
    text = stream.getvalue()
    assert "wmcdp lam=0.2 loading |" in text and "| 2/4 " in text
    assert text.endswith("\r") and text.rstrip("\r").split("\r")[-1].strip() == ""  # the last draw is blanks
    quiet = io.StringIO()
    with PhaseLine(enabled=False, stream=quiet) as line:
        line.outer(4, 4)
    assert quiet.getvalue() == ""


def test_sweep_progress_names_the_point_under_way(capsys):
    code, out, err = run(capsys, "sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=0.1,0.2",
                         "--progress")
    assert code == 0 and "|" in err and "lam=0.2" in err and "/2 " in err
    code, quiet, err = run(capsys, "sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=0.1,0.2",
                           "--quiet")
    assert code == 0 and err == "" and quiet.splitlines()[0] == out.splitlines()[0]


def test_render_empty_rows():
    assert json.loads(render_rows([], "json"))["rows"] == [] and render_rows([], "csv") == ""
