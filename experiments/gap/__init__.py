"""The gap table's helpers (``experiments/accountants.py``): mechanisms as dominating pairs, independent closed
forms of their K-fold compositions, adapters for the numerical accountants, and the shuffle bounds of the
literature implemented from the papers' formulas.

* :mod:`gap.pairs` — a mechanism as one ordered pair of output distributions ``(P, Q)`` over a few output
  classes, and the exact K-fold ``δ(ε)`` / ``ε(δ)`` of the pair (binomial or trinomial sums), in Fractions and in
  log-space floats; the exact ``ε(δ)`` of shuffled binary RR over every dataset (binomial convolutions).
* :mod:`gap.accountants` — dp-accounting (PLD, RDP), prv-accountant and autodp on such a pair.
* :mod:`gap.shuffle_bounds` — Feldman–McMillan–Talwar (closed form and numerical), Balle–Bell–Gascón–Nissim's
  blanket (Hoeffding) and Wang et al.'s variation-ratio bounds (numerical and their two closed forms) for
  shuffled randomized response.
"""
