"""A plan named by the caller (``plan=`` of every bound, ``--plan`` on the command line).

The planner weighs its plans by estimate and answers small programs on the exhaustive sets at once
(:mod:`.planner`). A forced plan runs one named plan instead, even where exhaustive sets
are quick: the planner's shortcut and its detection budget are skipped, the plan's proofs never are. A plan that
does not apply to the program, or does not serve the notion, is refused in one line naming the plan and why
(:func:`refuse`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from ..base.errors import WmcdpError, suggest
from .protocol import registered_plans

if TYPE_CHECKING:  # the command line reads PLANS for --help without loading the planner
    from ..lang.relations import Relation

#: the built-in plans a caller may force, by the kind their reports print (``count-of-reports``: the permutations of
#: the entries, its rows by convolution of one report, :mod:`.sums`); every registered plan may be forced for pure ε
#: too (:func:`forced_plan`)
PLANS = ("exhaustive", "product", "given-input", "chain", "hub", "count-of-reports", "symmetry")
#: the plans each kind of notion has: pure ε, the notions over pairs (δ(ε), ε(δ), profiles, Rényi) and accuracy
SERVES = {
    "privacy": ("exhaustive", "product", "given-input", "chain", "hub", "symmetry"),
    "pairs": ("exhaustive", "product", "given-input", "count-of-reports", "symmetry"),
    "accuracy": ("exhaustive", "symmetry"),
}
#: what a forced plan is reported with in its plan's ``considered`` list
NOT_WEIGHED = ("exhaustive", None, "not weighed: the plan was forced")


def forced_plan(plan: str | None, notion: str, **given: Any) -> str | None:
    """``plan`` checked for a notion of kind ``notion`` (a key of :data:`SERVES`): None (the planner chooses), or
    a name of :data:`PLANS` or of a registered plan (pure ε) that serves it. ``given`` are the caller's sets, pairs
    or workers: a forced plan is the planner's, so it takes none of them."""
    if plan is None:
        return None
    added = tuple(p.name for p in registered_plans())  # registered plans offer pure ε (:mod:`.protocol`)
    names = PLANS + added
    if plan not in names:
        near = suggest(plan, names)
        raise WmcdpError(f"unknown plan {plan!r}; {near + ' ' if near else ''}(choose one of {', '.join(names)})")
    if plan not in SERVES[notion] + (added if notion == "privacy" else ()):
        serves = ", ".join(SERVES[notion])
        refuse(plan, f"it does not serve this notion (the plans of {_NOTIONS[notion]}: {serves})")
    named = [name for name, value in given.items() if value is not None]
    if named:
        raise WmcdpError(f"plan {plan!r} is one of the planner's plans: leave out {', '.join(named)}")
    return plan


_NOTIONS = {"privacy": "pure epsilon", "pairs": "(epsilon, delta), profiles and Renyi", "accuracy": "accuracy"}


def refuse(plan: str, why: str) -> NoReturn:
    """The one-line refusal of a forced plan: it does not apply, or (``why`` a planner's ``"dropped: ..."`` note)
    its witness, recounted on the whole program, did not bear out its value: with no next plan to answer, that is
    an error of the plan, never an answer."""
    dropped = "dropped: "
    if why.startswith(dropped):
        raise WmcdpError(f"plan {plan!r} failed its recount: {why[len(dropped) :]}")
    raise WmcdpError(f"plan {plan!r} does not apply: {why}")


def no_product(relation: Relation, rules: tuple[str, ...] = ("max", "sum")) -> str:
    """Why a program has no product plan under ``relation`` for a notion whose product rules are ``rules``."""
    from .planner import PRODUCT_RULE  # deferred: --help reads this module without loading the planner

    rule = PRODUCT_RULE.get(relation.name) if relation.builtin else None
    if rule is None:
        return f"the {relation.name} relation does not say how a product's parts move"
    if rule not in rules:
        return f"under {relation.name} this notion of a product is not a function of its parts' (rule {rule})"
    return "the output does not split into independent parts (at least two, sharing no gate, random bit or entry)"


def no_symmetry(relation: Relation) -> str:
    return f"orbit sets need a relation that is a condition on each entry, not {relation.name}"


__all__ = ["PLANS", "SERVES", "NOT_WEIGHED", "forced_plan", "refuse", "no_product", "no_symmetry"]
