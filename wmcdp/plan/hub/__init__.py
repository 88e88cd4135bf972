"""The hub plan: conditioned parts, independent once a small hub of random bits is fixed.

A program's output event may split into independent parts once a small hub of random bits is fixed (the noisy
threshold of sparse vector and above-threshold).

For an output ``y`` let ``f_y(x, r) = [A(x; r) = y]`` over input bits ``x`` and random bits ``r``. The *hub*
``H`` is the set of random bits (that an output reads) the program draws before it reads any input entry, and
those it draws after every entry was read that meet every entry's input (the threshold of a second loop over
the same answers, as in DP-Sniper's SVT34Parallel). The other variables fall into one *block* per input entry
``e``: the entry's bits and the random bits whose lowest gates that read an input read ``e``'s alone (its
answer's noise, in every loop), or else the random bits drawn after ``e``'s first bit, up to the next entry's
(:func:`find_blocks`). Fix ``H = h`` and write ``f_{y,h}`` as a BDD with the variables in that order (the hub,
then the blocks in the order their entries are first read). When at every block boundary every edge that
crosses it reaches FALSE or one and the same node ``g`` (a cut of width one), then ``f_{y,h} = u ∧ g`` with ``u``
over the upper blocks only (``u`` is ``f_{y,h}`` with ``g`` read as TRUE: every path that crosses the cut reaches
FALSE, in both, or ``g``). Cut at every boundary, ``f_{y,h} = AND_e u_e`` with ``u_e`` over block ``e`` alone;
the parts share no input entry and no random bit (the criterion of :mod:`.parts`), so the random bits of the
blocks are independent and

    P(y | x) = sum_h P(H = h) * prod_e P_e(y | x_e, h),    P_e(y | x_e, h) = WMC(u_e | x_e).

When no bits are drawn before the inputs, one entry's block ``p`` may serve as the hub of an output (the *pinned*
entry: the winner of noisy max, given whose input and noise the others are independent). Its assignments ``b``
fall into classes ``k``, those that send every node where a path of ``f_y`` enters the block to the same nodes
below it (a forward pass over the block's levels); ``f_y`` restricted to any ``b`` of a class is one BDD, cut
as above, and ``P(y | x) = sum_k P_p(k | x_p) prod_{e != p} P_e(y | x_e, k)`` with ``P_p(k | x_p)`` the
probability of the class's random bits with ``p``'s input bits at ``x_p``: the pinned entry is one more part.
This is proved on the diagram of each ``(y, h)``, never sampled: a cut wider than one (a coin shared by two
entries' blocks, a state the output does not pin down) refuses the plan, and the planner runs another one.
The output events are found breadth first over the output leaves, keeping only prefixes whose event is
satisfiable (sparse vector with ``N`` TRUE answers has about ``n^N`` outputs, not ``3^n``); more than 1024 prefixes
at any depth hand the program on. When every output leaf reads the hub and one entry's block alone, no output is
listed: each entry's own output value is one more choice of the search (:mod:`.owned`).

The worst triple ``(x, x', y)`` is searched without listing every pair: per output, entries whose tables
``P_e(y | ., h)`` are equal for every ``h`` are one *type*, and only how many entries of a type take each
choice ``(x_e, x'_e)`` matters (a multiset). Under ``monotone`` (every entry moves by 0 or +1, or every one by 0
or -1) the search runs twice, once per direction, each as under ``all-entries`` with that direction's moves only.
Under ``all-entries`` a choice ``d`` whose tables satisfy
``P(.| x_d, h) <= P(.| x_e, h)`` and ``P(.| x'_d, h) >= P(.| x'_e, h)`` for every ``h`` is dominated by ``e``
(numerator up, denominator down) and dropped. A branch-and-bound over the counts prunes a branch when its
bound, ``sum_h a_h / sum_h b_h <= max_h a_h / b_h`` with each undecided entry at its largest per-``h`` ratio,
is below the best ratio found (the bound in floats with a margin far above their rounding, so it only skips
branches that cannot win); the last group's count vectors are evaluated at once in floats and only those
within the same margin of the best are kept; every ratio kept is computed exactly (Fractions in exact mode, logs
in float mode).

The package's modules, in the order the plan runs: :mod:`.blocks` (the hub and the entries' blocks),
:mod:`.events` (the output events), :mod:`.owned` (outputs factored by entry, listed never), :mod:`.conditioned`
(each event's parts per hub value), :mod:`.moves` and :mod:`.search` (the worst triple), :mod:`.worst` (every event
searched), :mod:`.estimate` (the plan's seconds from its counted work) and :mod:`.privacy` (the entry point, with
the recount of the witness); :mod:`.arith` holds the numbers of both modes.
"""

from __future__ import annotations

from ..costs import HUB_SECONDS as HUB_SECONDS
from .arith import Arith as Arith
from .arith import _Exact as _Exact
from .arith import _Logs as _Logs
from .blocks import HUB_BITS as HUB_BITS
from .blocks import Block as Block
from .blocks import Hub as Hub
from .blocks import find_blocks as find_blocks
from .blocks import find_hub as find_hub
from .conditioned import _decompose as _decompose
from .conditioned import split_event as split_event
from .estimate import hub_estimate as hub_estimate
from .events import MAX_OUTPUTS as MAX_OUTPUTS
from .events import Diagrams as Diagrams
from .events import _children as _children
from .moves import RELATIONS as RELATIONS
from .privacy import _exact_run as _exact_run
from .privacy import hub_privacy as hub_privacy
from .search import MARGIN as MARGIN
from .search import LargestRatio as LargestRatio
from .search import Search as Search
from .search import undominated as undominated
from .worst import HubAnswer as HubAnswer
from .worst import _output as _output
from .worst import hub_plan as hub_plan
