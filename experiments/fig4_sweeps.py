"""Paper Fig. 4: tight epsilon and tight 1 - beta against the flip probability lambda.

(a) ``randomized_response(n = 6)``: tight epsilon for lambda = 0.05, 0.10, ..., 0.50,
checked against the closed form |ln((1 - lambda)/lambda)|; (b) ``rr_counting(n = 6)``:
tight 1 - beta at alpha = 3, checked against P(at most 3 of 6 coins flip), the value at
the worst input 0^n. Both come from the sweep API (exhaustive sets, exact fractions).

    python experiments/fig4_sweeps.py
Writes experiments/results/fig4_privacy.{csv,png} and fig4_accuracy.{csv,png}.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from wmcdp.report.plot import plot_rows  # noqa: E402
from wmcdp.notions.sweep import parse_over, sweep_accuracy, sweep_privacy  # noqa: E402
from wmcdp.report.tables import render_rows  # noqa: E402

N, ALPHA, OVER = 6, 3, "lam=1/20:1/2:1/20"
RESULTS = HERE / "results"
XLABEL = "flip probability lambda"


def main() -> None:
    parameter, lams = parse_over(OVER)
    privacy = sweep_privacy(["randomized_response"], {"n": N}, parameter, lams)
    accuracy = sweep_accuracy(["rr_counting"], {"n": N}, parameter, lams, ALPHA)
    for r in privacy:
        assert math.isclose(r.epsilon, abs(math.log((1 - r.value) / r.value)), abs_tol=1e-12), r
    for r in accuracy:
        lam = r.value
        assert r.one_minus_beta == sum(math.comb(N, k) * lam ** k * (1 - lam) ** (N - k) for k in range(ALPHA + 1))
    RESULTS.mkdir(exist_ok=True)
    for name, rows, title in (("privacy", privacy, f"(a) RR, n = {N}: tight epsilon"),
                              ("accuracy", accuracy, f"(b) RR counting, n = {N}: tight 1 - beta, alpha = {ALPHA}")):
        (RESULTS / f"fig4_{name}.csv").write_text(render_rows(rows, "csv") + "\n")
        plot_rows(rows, RESULTS / f"fig4_{name}.png", title=title, xlabel=XLABEL)
        print(render_rows(rows, "table"), end="\n\n")
    print("epsilon equals |ln((1-lam)/lam)| and 1 - beta equals P(Binomial(6, lam) <= 3) at every lambda")
    print(f"wrote {RESULTS}/fig4_privacy.csv/.png and fig4_accuracy.csv/.png")


if __name__ == "__main__":
    main()
