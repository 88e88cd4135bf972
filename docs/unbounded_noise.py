"""Programs with noise on all of the integers, for the commands of docs/unbounded.md, e.g.
``wmcdp privacy docs/unbounded_noise.py:threshold -p alpha=1/2 --width 1e-9``."""

from wmcdp import Bits, Program, geometric, ite, truncated_geometric


def threshold(alpha) -> Program:
    """One bit ``x`` released as ``x + Z >= 0``, ``Z`` two-sided geometric with ratio ``alpha``."""
    return Program("threshold", Bits(1), lambda x: geometric(x[0].as_int(), alpha=alpha) >= 0)


def release(alpha) -> Program:
    """One bit ``x`` released as ``x + Z`` itself: infinitely many outputs."""
    return Program("release", Bits(1), lambda x: geometric(x[0].as_int(), alpha=alpha))


def svt(n: int, alpha, margin: int = 0) -> Program:
    """Sparse vector with one positive answer: query ``i`` (a bit) answers True when ``x_i + noise`` reaches the
    noisy threshold ``0 + noise`` and no earlier query did; the noise is geometric with ratio ``alpha`` on all of
    the integers, or (``margin`` > 0) truncated to ``margin`` around each center."""

    def noisy(center, lo: int, hi: int):
        if margin:
            return truncated_geometric(center, lo - margin, hi + margin, alpha=alpha)
        return geometric(center, alpha=alpha)

    def body(x):
        threshold = noisy(0, 0, 0)
        done, out = False, []
        for b in x:
            above = ite(done, False, noisy(b.as_int(), 0, 1) >= threshold)
            out.append(above)
            done = done | above
        return tuple(out)

    return Program("svt", Bits(n), body)
