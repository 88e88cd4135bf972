"""A mechanism of your own, for ``wmcdp privacy docs/my_mechanism.py:randomized_response -p n=3 -p lam=1/4``.

The command line calls the function after the colon with the ``-p`` parameters (fractions such as
``1/4`` arrive as exact ``Fraction`` values) and analyses the ``Program`` it returns.
"""

from wmcdp import Bits, Program, flip


def randomized_response(n: int, lam) -> Program:
    """Each of ``n`` clients reports its bit, flipped with probability ``lam``."""
    return Program("my_rr", Bits(n), lambda x: tuple(xi ^ flip(lam) for xi in x))
