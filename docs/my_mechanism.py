"""A mechanism of your own, for ``wmcdp privacy docs/my_mechanism.py:randomized_response -p n=3 -p lam=1/4``.

The command line calls the function after the colon with the ``-p`` parameters (fractions such as
``1/4`` arrive as exact ``Fraction`` values) and analyses the ``Program`` it returns.
"""

from wmcdp import Bits, IntVector, Program, flip, ite


def randomized_response(n: int, lam) -> Program:
    """Each of ``n`` clients reports its bit, flipped with probability ``lam``."""
    return Program("my_rr", Bits(n), lambda x: tuple(xi ^ flip(lam) for xi in x))


def three_values(a, b, c) -> Program:
    """One user's value in ``{0, 1, 2}`` reports 1 with probability ``a``, ``b`` or ``c``: a local randomizer for
    ``wmcdp approx docs/my_mechanism.py:three_values -p a=1/5 -p b=1/2 -p c=2/3 --shuffle 10000 --delta 1e-6``."""
    return Program(
        "three_values", IntVector(1, 0, 2), lambda x: ite(x[0] == 0, flip(a), ite(x[0] == 1, flip(b), flip(c)))
    )
