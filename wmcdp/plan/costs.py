"""The planner's cost model: every constant its estimates are made of, in one place.

An estimate is a fixed function of work that wmcdp counts before or while a plan runs (array cells, diagram
entries and levels, triples, pairs, diagram nodes, work units) times the constants below, in seconds of a
reference machine only as a unit: no decision reads a clock, so one command gives the same plan on any machine.

The estimates decide in four places. The exhaustive estimate ``E`` (:func:`~.planner.exhaustive_estimate`)
below :data:`QUICK_SECONDS` runs the exhaustive sets at once; otherwise it sets the budget of counted work that
symmetry detection and the structured plans may spend (:data:`DETECTION_SHARE` of ``E`` at
:data:`WORK_PER_SECOND` nodes a second, or :data:`UNFIT_DETECTION_WORK` when the exhaustive sets do not fit)
(:func:`~.planner.detection_budget`; at one database :func:`~.structured_at.at_budget`, from the estimate of the
exhaustive at sets). For pure ε the proved plans of the whole program (chain, hub, registered plans) run
cheapest first while their estimate, made before they run, is below ``E`` (:func:`~.choose.choose_privacy`), and
a proved symmetry runs only when its orbit estimate (:func:`~.planner.orbit_estimate`) is below ``E``. For one
float run of δ(ε), ε(δ) or a profile of a count of two-report users, the shuffle at scale runs when its estimate
is below the count-of-reports plan's (:func:`~.planned.planned_scale`). The other estimates (given-input,
preparation and detection) are reported in the plan's ``estimated_seconds`` and ``considered`` list and decide
nothing.

Each constant has a line saying what it measures and its unit, and a line naming the command that sets the
estimates it enters beside measured seconds (the values were fitted to such runs, by hand but for the hub plan's;
the exhaustive run's, the chain plan's and the hub plan's script fits them again with ``--fit``; the runs and what
they measured are in docs/plans.md, "The cost model"). Values are seconds unless the name says otherwise.
"""

from __future__ import annotations

# -- the planner's decisions ------------------------------------------------------------------------------

#: exhaustive sets estimated below this run at once, without any detection (seconds of the exhaustive estimate)
#: checked by: python experiments/reach.py (the planner within 1.5 x exhaustive + 0.2 s on the built-ins)
QUICK_SECONDS = 0.1
#: share of the exhaustive estimate that detection and the structured plans may spend (a fraction)
#: checked by: python experiments/reach.py
DETECTION_SHARE = 0.25
#: detection budget's exchange rate: diagram nodes a proof may touch per second of the estimate (nodes / s)
#: checked by: python experiments/symmetry.py --estimates (detection work and seconds of each default plan)
WORK_PER_SECOND = 1_000_000
#: work when the exhaustive sets do not fit, and the whole compilation's cap then (diagram nodes: 30 s at the rate)
#: checked by: python experiments/reach.py
UNFIT_DETECTION_WORK = 30 * WORK_PER_SECOND
#: a structured plan (chain, hub) the estimates chose may spend this many times its estimate in diagram work (at
#: WORK_PER_SECOND) when detection's budget has less left; the hub plan's work runs 0.1-4 x its estimate
#: checked by: python experiments/peers_unbounded.py --sizes 20,40 --only svt,noisy_max,gap_svt
PLAN_WORK_FACTOR = 8

# -- an exhaustive run (:func:`~.planner.exhaustive_estimate`) ----------------------------------------------

#: one array cell of the count (seconds a cell)
#: checked by: python experiments/estimates.py (fitted by: python experiments/estimates.py --fit)
CELL_SECONDS = 2.7e-9
#: one diagram entry stepped alone in the count (seconds an entry)
#: checked by: python experiments/estimates.py (fitted by: python experiments/estimates.py --fit)
STEP_SECONDS = 3.5e-5
#: one diagram level counted a level at a time (:class:`~wmcdp.count.region.Region`) (seconds a level)
#: checked by: python experiments/estimates.py (fitted by: python experiments/estimates.py --fit)
LAYER_SECONDS = 1.2e-4
#: a run's fixed cost (seconds)
#: checked by: python experiments/estimates.py (fitted by: python experiments/estimates.py --fit)
BASE_SECONDS = 2.2e-3
#: one triple (x, x', y) of a pure-ε scan in floats or exact numerators of up to 26 bits (seconds a triple)
#: checked by: python experiments/estimates.py (fitted by: python experiments/estimates.py --fit)
TRIPLE_SECONDS = 1.2e-9
#: one triple of a scan in int64 numerators (seconds a triple)
#: checked by: python experiments/estimates.py (fitted by: python experiments/estimates.py --fit)
INT_TRIPLE_SECONDS = 3.6e-9
#: one triple of a scan in Python int numerators (seconds a triple)
#: checked by: python experiments/estimates.py (fitted by: python experiments/estimates.py --fit)
OBJECT_TRIPLE_SECONDS = 4.3e-6
#: one triple of a scan in rationals (and functions of a symbolic parameter) (seconds a triple)
#: checked by: python experiments/estimates.py (fitted by: python experiments/estimates.py --fit)
RATIONAL_TRIPLE_SECONDS = 1e-5
#: one slice of the table a built-in relation is scanned in, one per direction (seconds a slice)
#: checked by: python experiments/estimates.py (fitted by: python experiments/estimates.py --fit)
SLICE_SECONDS = 4.8e-5
#: the least one triple costs under all-entries, scanned in 3^n - 1 small slices (seconds a triple)
#: checked by: python experiments/estimates.py (fitted by: python experiments/estimates.py --fit)
SLICED_TRIPLE_SECONDS = 1e-8
#: one cell of a table whose output bits sit on top of the diagram (one Int output) (seconds a cell)
#: checked by: python experiments/estimates.py (fitted by: python experiments/estimates.py --fit)
TOP_CELL_SECONDS = 2.6e-8
#: one (pair, output) of a pass over pairs: the sums of (ε, δ) and Rényi DP in logs (seconds a pair and output)
#: checked by: python experiments/symmetry.py --estimates
PAIR_TRIPLE_SECONDS = 7e-8
#: one neighbour pair of a user relation, listed in Python on each pass (seconds a pair)
#: checked by: python experiments/estimates.py (fitted by: python experiments/estimates.py --fit)
USER_PAIR_SECONDS = 8e-5

# -- what every plan of a program shares (:func:`~.planner.preparation_estimate`, :func:`~.planner.with_detection`)

#: tracing and compiling one gate of the traced circuit (seconds a gate)
#: checked by: python experiments/symmetry.py --estimates
GATE_SECONDS = 5.5e-6
#: flattening one node of the compiled diagram and its count's dry run (seconds a node)
#: checked by: python experiments/symmetry.py --estimates
NODE_SECONDS = 1.5e-5
#: a preparation's fixed cost (seconds)
#: checked by: python experiments/symmetry.py --estimates
PREPARE_SECONDS = 5e-3
#: one unit of detection work (diagram nodes, circuit nodes and edges visited) (seconds a unit)
#: checked by: python experiments/symmetry.py --estimates
DETECTION_UNIT_SECONDS = 5e-7

# -- orbit sets (:func:`~.planner.orbit_estimate`, :func:`~.planner.rows_estimate`) --------------------------

#: a pure-ε orbit run's fixed cost: its count's and scan's set-up, the witness's report (seconds)
#: checked by: python experiments/estimates.py --orbits (fitted by hand to its runs' CPU seconds)
ORBIT_BASE_SECONDS = 4e-3
#: one node of the diagram per (input, output) pair counted one at a time, in floats (seconds a node)
#: checked by: python experiments/symmetry.py --estimates
PAIR_NODE_SECONDS = 1e-7
#: one orbit triple scanned, in floats (seconds a triple)
#: checked by: python experiments/symmetry.py --estimates
ORBIT_TRIPLE_SECONDS = 5e-7
#: as :data:`PAIR_NODE_SECONDS` in Python numbers (exact numerators past int64, rationals) (seconds a node)
#: checked by: python experiments/symmetry.py --estimates
OBJECT_PAIR_NODE_SECONDS = 5e-7
#: as :data:`ORBIT_TRIPLE_SECONDS` in Python numbers (seconds a triple)
#: checked by: python experiments/symmetry.py --estimates
OBJECT_ORBIT_TRIPLE_SECONDS = 7.5e-6
#: one node of the diagram per input of an accuracy orbit run, its row counted in one pass (seconds a node)
#: checked by: python experiments/symmetry.py --estimates
ROW_NODE_SECONDS = 1e-8
#: one neighbour pair of a pair run over orbits, listed with its output orbits (seconds a pair)
#: checked by: python experiments/symmetry.py --estimates
ORBIT_PAIR_SECONDS = 3.5e-4

# -- the exhaustive sets at one database (:func:`~.structured_at.at_budget`) --------------------------------

#: one triple (pair of x0, output) beyond its scan: the output listed for the pair (seconds a triple)
#: checked by: none; measured by hand (docs/plans.md, "The cost model")
AT_TRIPLE_SECONDS = 1e-6
#: one node of the diagram per input whose row is counted (x0 and its neighbours) (seconds a node)
#: checked by: none; measured by hand (docs/plans.md, "The cost model")
AT_ROW_NODE_SECONDS = 5e-7

# -- the structured plans' reported estimates -------------------------------------------------------------

#: the chain plan's estimate before it runs: frontier states per node of the program's diagram and pair of entry
#: values (a count)
#: checked by: python experiments/chain_estimates.py (fitted by: python experiments/chain_estimates.py --fit)
CHAIN_NODE_UNITS = 1.5
#: the chain plan's counted work (frontier states, state pairs of the search) in Fractions (seconds a unit)
#: checked by: python experiments/chain_estimates.py (fitted by: python experiments/chain_estimates.py --fit)
CHAIN_EXACT_UNIT_SECONDS = 1.4e-5
#: the chain plan's counted work in floats (seconds a unit)
#: checked by: python experiments/chain_estimates.py (fitted by: python experiments/chain_estimates.py --fit)
CHAIN_FLOAT_UNIT_SECONDS = 6e-6
#: the hub plan's counted work (:func:`~.hub.estimate.hub_estimate`), seconds per: a run ("base"), a node of the
#: program's diagram ("node"), a block node per entry value ("table", "table_pinned" for a pinned entry's classes),
#: a restriction of an event to one hub bit ("cofactor"), a type-count multiset evaluated ("leaf"), a node of a
#: prefix event conjoined while the output events are formed ("operation")
#: checked by: python experiments/hub_estimates.py (fitted again by: python experiments/hub_estimates.py --fit)
HUB_SECONDS = {
    "base": 0.018,
    "node": 2.4e-6,
    "table": 4.7e-6,
    "table_pinned": 2.4e-6,
    "cofactor": 1.3e-6,
    "leaf": 3.1e-6,
    "operation": 3e-7,
}
#: the hub plan's estimate before it runs (:func:`~.hub.estimate.planned_estimate`, the planner's choice), seconds
#: per: a run ("base"); a node of the program's diagram ("node": the witness's recount, the output bits compiled
#: in the hub's order); an output event some input produces ("output": its hub values, types and search set-up);
#: a block level per output event and entry value ("table": the parts' tables); a block level per output event and
#: output leaf ("operation": the prefixes conjoined into the events); with a pinned entry, a multiset of the other
#: entries' values per output event ("multiset": the count vectors the search evaluates)
#: checked by: python experiments/hub_estimates.py (fitted by: python experiments/hub_estimates.py --fit)
HUB_PLANNED_SECONDS = {
    "base": 0.027,
    "node": 3.3e-5,
    "output": 2.1e-5,
    "table": 6.3e-6,
    "operation": 3.6e-7,
    "multiset": 3.5e-4,
}
#: the count-of-reports plan (:func:`~.sums.counted_estimate`): compiling one report (seconds)
#: checked by: python experiments/symmetry.py --estimates (approx rr_counting, n = 100, 300, 1000)
SUM_BASE_SECONDS = 0.005
#: one term traced and split (seconds a term)
#: checked by: python experiments/symmetry.py --estimates
SUM_TERM_SECONDS = 7.5e-5
#: one cell of the sorted inputs (seconds a cell)
#: checked by: python experiments/symmetry.py --estimates
SUM_INPUT_CELL_SECONDS = 5e-8
#: one multiply-add of the convolutions (extended floats) (seconds an operation)
#: checked by: python experiments/symmetry.py --estimates
SUM_CONVOLVE_SECONDS = 5e-9
#: one (pair, output) of the notion's pass (seconds a pair and output)
#: checked by: python experiments/symmetry.py --estimates
SUM_PAIR_OUTPUT_SECONDS = 2e-7

# -- a shuffle of two-report users at scale (:func:`~.shuffled_binary.scaled_estimate`) ------------------------

#: a scaled run's fixed cost: the local randomizer compiled, its exact probabilities and the first bounds (seconds)
#: checked by: python experiments/default_plan.py (binary RR, ε0 = 4, ln 3, n = 10^2 .. 10^5)
SCALED_BASE_SECONDS = 0.05
#: block and configuration bounds one run evaluates, per sqrt(n / (e^ε0 − 1)) (ε(δ) takes about 1.6 times this,
#: δ(ε) about 0.6 times; at least log2 n)
#: checked by: python experiments/default_plan.py (fitted: 60 .. 8814 evaluations at ε0 = 0.5 .. 4, n = 10^3 .. 10^5)
SCALED_EVALUATIONS = 8
#: one block or configuration bound (its two binomials' windows in log space, whatever their width) (seconds)
#: checked by: python experiments/default_plan.py (1.2 .. 2 ms an evaluation at windows of 260 .. 6820 entries)
SCALED_EVALUATION_SECONDS = 1.5e-3

# -- the declared law's plan (wmcdp.plan.declared) --------------------------------------------------------

#: one combination of moves listed, per entry (its sums' series grow with n); the estimate counts every combination
#: listed, so where the moved entries' suprema skip most of them it is an upper bound (MonotoneSVT)
#: checked by: python experiments/unbounded_speed.py (estimated beside measured seconds)
DECLARED_SECONDS = 4e-5
