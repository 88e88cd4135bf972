"""The notions' registry with the built-in notions in it.

Pure ε (:mod:`~wmcdp.notions.privacy`), accuracy (:mod:`~wmcdp.notions.accuracy`), (ε, δ) and the privacy
profile (:mod:`~wmcdp.notions.approximate`) and Rényi (:mod:`~wmcdp.notions.renyi`). Each of those modules
registers its own record; importing this module makes sure they all are, so the sweeps, tables, plots and
``wmcdp sweep`` look notions up here."""

from __future__ import annotations

from .accuracy import ACCURACY
from .approximate import APPROXIMATE, PROFILE
from .notion import NOTIONS, Notion, commands, notion, register, unregister
from .privacy import PRIVACY
from .renyi import RENYI

#: the built-in notions
BUILT_IN: tuple[Notion, ...] = (PRIVACY, ACCURACY, APPROXIMATE, RENYI, PROFILE)


def _built_in_first() -> None:
    """The built-in notions first, in the order above (whichever module was imported first), then the others."""
    others = [n for n in NOTIONS.values() if n not in BUILT_IN]
    NOTIONS.clear()
    NOTIONS.update((n.name, n) for n in (*BUILT_IN, *others))


_built_in_first()

__all__ = ["BUILT_IN", "NOTIONS", "Notion", "commands", "notion", "register", "unregister"]
