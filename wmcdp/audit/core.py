"""What every library audit shares: verdicts, rows and the chi-square check of a model.

The verdict of a claim against an exact epsilon, the rows, and the chi-square check of a model against the
library's own draws."""

from __future__ import annotations

import functools
import html
import importlib
import math
import signal
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from fractions import Fraction
from multiprocessing import get_context
from typing import Any

import gmpy2

from ..base.errors import WmcdpError, brief, listing, suggest
from ..base.limits import LimitExceeded
from ..lang import IntVector, Program, discrete
from ..lang.relations import relation_from_function
from ..notions.approximate import synthesize_approximate
from ..notions.privacy import synthesize_privacy
from .severity import Severity, pair_delta, severity, tight_text, verdict_label

#: the number of ulps of the claim within which a sound claim is tight
TIGHT_ULPS = 4
#: an epsilon this close to 0 above the tight one is tight too (claims near 0 are ratios near 1)
TIGHT_ABSOLUTE = 2.0**-50
#: relative tolerance of the float model (permute-and-flip, whose probabilities are irrational)
FLOAT_TOLERANCE = 1e-12


#: the chance with which the sampling check's reported model error is detected (its power)
POWER = 0.9


@dataclass(frozen=True)
class SampleCheck:
    """The library's draws on one witness input against the model's distribution. ``detectable`` is the check's
    power: the smallest shift of one output's probability (the mass moved from or to the other outputs in
    proportion) that the test rejects with probability :data:`POWER` at its draws and level, the smallest over
    the outputs it counts; ``detectable_relative`` the smallest such shift as a fraction of that output's
    probability (:func:`detectable_shifts`)."""

    input: str
    draws: int
    statistic: float
    degrees: int
    p_value: float
    level: float
    detectable: float = math.nan
    detectable_relative: float = math.nan

    @property
    def agrees(self) -> bool:
        return self.p_value >= self.level

    def as_dict(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "draws": self.draws,
            "statistic": json_float(self.statistic),
            "degrees": self.degrees,
            "p_value": self.p_value,
            "level": self.level,
            "agrees": self.agrees,
            "detectable_shift": json_float(self.detectable),
            "detectable_relative_shift": json_float(self.detectable_relative),
        }


@dataclass(frozen=True)
class ExactCheck:
    """The library's own code run exactly on one input at ``points`` points (grid points or paths of its
    draws) that the model fixes, against the model's output there; ``mismatch`` describes the first point
    where they differ (empty when they all agree)."""

    input: str
    points: int
    mismatch: str = ""

    @property
    def agrees(self) -> bool:
        return not self.mismatch

    def as_dict(self) -> dict[str, Any]:
        return {"input": self.input, "points": self.points, "agrees": self.agrees, "mismatch": self.mismatch}


@dataclass(frozen=True)
class AuditRow:
    """One case's result: the claim, the tight epsilon, the verdict, its witness and the model checks."""

    mechanism: str
    params: str
    d_in: int
    claimed: float
    epsilon: float
    ratio_exact: str | None
    verdict: str
    witness: tuple[str, str, str]
    seconds: float
    samples: tuple[SampleCheck, ...] = field(default=())
    claimed_delta: float | None = None  # an (epsilon, delta) claim: its delta,
    delta: float | None = None  # and the tight delta at the claimed epsilon
    witness_probabilities: tuple[str, str] | None = None  # P(y | x) and P(y | x') exactly, where known
    reproducer: str | None = None  # a script showing a violation with the library alone, where one is written
    exact: tuple[ExactCheck, ...] = field(default=())  # the library's own code run at points the model fixes
    witness_event: str | None = None  # an (epsilon, delta) claim: the outputs of the witness's event
    measure: str | None = None  # the claim's measure when it is not epsilon or (epsilon, delta): "approximate zCDP"
    neighbours: str | None = None  # the neighbouring notion the verdict is under (the library's, filled by run_audit)
    source: str | None = None  # the library's source line behind a violation, where the model knows it
    # ln P(y | x) enclosed, where only its logarithm is known (P(y | x') is then 0): python-dp's bounded noise
    log_witness_probability: tuple[float, float] | None = None
    # the witness pair's delta at the claimed epsilon, sum over y of max(0, P(y | x) - e^epsilon P(y | x')), where known
    pair_delta: str | None = None
    # a pure epsilon claim: the tight delta at the claimed epsilon over every neighbouring pair (text, any exponent),
    tight_delta: str | None = None
    delta_note: str | None = None  # or why it is not known (the delta needed is then a lower bound)

    @property
    def model_agrees(self) -> bool:
        return all(s.agrees for s in self.samples) and all(e.agrees for e in self.exact)

    @property
    def severity(self) -> Severity | None:
        """A violated claim's weight (:mod:`wmcdp.audit.severity`): the delta its epsilon needs and the draws
        that show the violation; None for a claim that holds or whose delta needed is unknown."""
        if self.verdict != "VIOLATED":
            return None
        return severity(
            self.claimed,
            self.claimed_delta,
            self.delta,
            self.witness_probabilities,
            self.log_witness_probability,
            self.pair_delta,
            self.tight_delta,
            self.delta_note,
        )

    @property
    def shown_verdict(self) -> str:
        """The verdict as tables and reports show it (a negligible violation says so)."""
        return verdict_label(self.verdict, self.severity)

    def as_dict(self) -> dict[str, Any]:
        """The row for JSON (infinities as the string "inf")."""
        x, x_prime, y = self.witness
        weight = self.severity
        return {
            "mechanism": self.mechanism,
            "params": self.params,
            "d_in": self.d_in,
            "claimed": json_float(self.claimed),
            "epsilon": json_float(self.epsilon),
            "ratio_exact": self.ratio_exact,
            "verdict": self.verdict,
            "witness": {"x": x, "x_prime": x_prime, "y": y},
            "seconds": self.seconds,
            "samples": [s.as_dict() for s in self.samples],
            **({} if self.claimed_delta is None else {"claimed_delta": self.claimed_delta, "delta": self.delta}),
            **(
                {}
                if self.witness_probabilities is None
                else {"witness_probabilities": list(self.witness_probabilities)}
            ),
            **({} if self.witness_event is None else {"witness_event": self.witness_event}),
            **({} if self.measure is None else {"measure": self.measure}),
            **({} if not self.exact else {"exact_checks": [e.as_dict() for e in self.exact]}),
            **({} if self.neighbours is None else {"neighbours": self.neighbours}),
            **({} if self.source is None else {"source": self.source}),
            **({} if weight is None else {"severity": weight.as_dict()}),
            "model_agrees": self.model_agrees,
        }


def json_float(value: float) -> float | str:
    return ("inf" if value > 0 else "-inf") if math.isinf(value) else value


def verdict(claim: float, ratio: Fraction | float, epsilon: float, exact: bool) -> str:
    """``tight``, ``loose`` or ``VIOLATED`` (see the module docstring)."""
    if ratio == math.inf or epsilon == math.inf:
        return "tight" if claim == math.inf else "VIOLATED"
    if claim == math.inf:
        return "loose"
    if not exact:
        if epsilon > claim * (1 + FLOAT_TOLERANCE) + 1e-300:
            return "VIOLATED"
        return "tight" if claim - epsilon <= FLOAT_TOLERANCE * max(abs(claim), 1e-300) else "loose"
    with gmpy2.context(precision=200):
        r = Fraction(ratio)
        true = gmpy2.log(gmpy2.mpq(r.numerator, r.denominator)) if r > 0 else gmpy2.mpfr("-inf")
        gap = gmpy2.mpfr(claim) - true
    if gap < 0:
        return "VIOLATED"
    return "tight" if gap <= max(TIGHT_ULPS * math.ulp(claim), TIGHT_ABSOLUTE) else "loose"


def certified_verdict(claim_low: float, claim_high: float, lo: float, hi: float) -> str:
    """The verdict of a claim known to lie in ``[claim_low, claim_high]`` against a true value in
    ``[lo, hi]``: ``VIOLATED`` when the true value is certainly above the claim; ``loose`` when certainly
    below it by more than 4 ulp; ``tight`` otherwise (the claim within 4 ulp above the enclosure, or
    inside it: an enclosure narrower than 2^-50 relative that holds the claim)."""
    if lo > claim_high:
        return "VIOLATED"
    if hi <= claim_low and claim_low - hi > TIGHT_ULPS * math.ulp(claim_low):
        return "loose"
    return "tight"


# -- sampling ---------------------------------------------------------------------------------


def _cells(counts: Counter[Any], expected: dict[Any, Any], draws: int) -> list[tuple[int, float]]:
    """``(observed, expected)`` counts per output, the outputs expecting fewer than 5 draws pooled into one cell."""
    cells, pooled_obs, pooled_exp = [], 0, 0.0
    for y, p in expected.items():
        e = float(p) * draws
        if e >= 5:
            cells.append((counts.get(y, 0), e))
        else:
            pooled_obs += counts.get(y, 0)
            pooled_exp += e
    if pooled_exp > 0:
        cells.append((pooled_obs, pooled_exp))
    return cells


def _chi_square(cells: list[tuple[int, float]]) -> tuple[float, int, float]:
    """Pearson's chi-square of the cells: statistic, degrees of freedom, p-value."""
    from scipy.stats import chi2

    statistic = sum((o - e) ** 2 / e for o, e in cells)
    degrees = max(len(cells) - 1, 1)
    return statistic, degrees, float(chi2.sf(statistic, degrees))


def detectable_shifts(probabilities: Sequence[float], draws: int, level: float) -> tuple[float, float]:
    """The power of a chi-square test of ``draws`` outputs at ``level`` over cells of these probabilities:
    ``(the smallest absolute shift, the smallest relative shift)`` of one cell's probability that it rejects with
    probability :data:`POWER`. Moving ``s`` to cell ``i`` from the others in proportion makes the statistic
    noncentral chi-square with ``lambda = draws s^2 / (p_i (1 - p_i))`` (sum of ``(p'_j - p_j)^2 / p_j``), so
    ``s_i = sqrt(lambda* p_i (1 - p_i) / draws)`` with ``lambda*`` the noncentrality whose power at the critical
    value is :data:`POWER`; the first number is the least ``s_i``, the second the least ``s_i / p_i``."""
    from scipy.optimize import brentq
    from scipy.stats import chi2, ncx2

    cells = [p for p in probabilities if 0 < p < 1]
    if len(cells) < 2 or draws <= 0:
        return math.inf, math.inf
    degrees = len(cells) - 1
    critical = float(chi2.isf(level, degrees))
    hi = 1.0
    while ncx2.sf(critical, degrees, hi) < POWER:
        hi *= 2
    lam = float(brentq(lambda t: ncx2.sf(critical, degrees, t) - POWER, 0.0, hi, xtol=1e-12, rtol=1e-12))
    shifts = [(math.sqrt(lam * p * (1 - p) / draws), p) for p in cells]
    return min(s for s, _ in shifts), min(s / p for s, p in shifts)


def check_model(shown: str, expected: dict[Any, Any], counts: Counter[Any], level: float) -> SampleCheck:
    """The chi-square test of the library's ``counts`` on the input ``shown`` against the model's ``expected``
    (outputs expecting fewer than 5 draws pooled), with its power (:func:`detectable_shifts`); an output the
    model gives probability 0 but the library produced fails outright."""
    draws = sum(counts.values())
    cells = _cells(counts, expected, draws)
    shifts = detectable_shifts([e / draws for _, e in cells], draws, level)
    if any(expected.get(y, 0) == 0 for y in counts):
        return SampleCheck(shown, draws, math.inf, 0, 0.0, level, *shifts)
    return SampleCheck(shown, draws, *_chi_square(cells), level, *shifts)


def with_checks(
    rows: list[AuditRow], pending: list[list[Any]], level: float, waiting: Callable[[int], None] | None = None
) -> list[AuditRow]:
    """The rows with their model checks: ``pending[k]`` holds ``(shown input, expected distribution, a function
    waiting for the library's counts)`` per witness input of row ``k`` (call it while the workers run;
    ``waiting(k)`` hears of each row first). The ``m`` tests run at ``level / m`` each (Bonferroni), so the
    whole family raises a false alarm with probability at most ``level``."""
    each = level / max(sum(len(jobs) for jobs in pending), 1)
    out = list(rows)
    for k, jobs in enumerate(pending):
        if waiting is not None:
            waiting(k)
        checks = tuple(check_model(shown, want, result(), each) for shown, want, result in jobs)
        out[k] = replace(out[k], samples=checks)
    return out


#: what a case's model gives: its row and, per witness input to sample, ``(shown input, the model's
#: distribution there, the input as the case's ``draw`` takes it)``
Modelled = tuple[AuditRow, list[tuple[str, dict[Any, Any], Any]]]

#: the states of a public mechanism in a library's coverage
STATUSES = ("audited", "not auditable", "planned")


@dataclass(frozen=True)
class Mechanism:
    """One public mechanism of an audited library, described once: whether it is ``audited`` (``note``: its
    model), ``not auditable`` (``note``: why, such as a continuous output) or ``planned`` (``note``: what is
    missing). docs/audits.md's coverage tables are generated from these (:func:`coverage_table`)."""

    name: str
    status: str
    note: str


@dataclass(frozen=True)
class AuditCase:
    """One audited mechanism at one set of parameters, the same shape for every library: ``claim`` says where
    the claimed guarantee is read, ``model(case)`` builds the exact model and gives the case's row with the
    witness inputs to sample (:data:`Modelled`), ``draw(case, input, k)`` counts ``k`` outputs of the library's
    own code on an input, as the model names them, and ``validation`` says how the model is checked against
    the library. ``spec`` holds the library's own parameters, which ``model`` and ``draw`` read."""

    library: str  # the audit's name, as ``wmcdp audit`` takes it
    mechanism: str
    params: str
    claim: str
    model: Callable[[AuditCase], Modelled]
    draw: Callable[[AuditCase, Any, int], Counter[Any]]
    validation: str
    spec: Any = None

    @property
    def label(self) -> str:
        return f"{self.mechanism} {self.params}"


@dataclass(frozen=True)
class AuditedLibrary:
    """An audited library: its names, how to load it, its cases and the coverage of its public mechanisms.
    ``module`` is the wmcdp module that holds the models (its ``MODELLED`` is the version they follow)."""

    name: str  # as ``wmcdp audit`` takes it
    title: str  # as messages name the audit
    distribution: str  # on PyPI
    extra: str  # wmcdp's optional extra that installs it
    module: str
    load: Callable[[], Any]
    build_cases: Callable[[], list[AuditCase]]
    mechanisms: tuple[Mechanism, ...]
    #: the neighbouring notion of a case, as the rows state it
    neighbours: Callable[[AuditCase], str] | None = None
    #: ``(mechanism, the library's source line behind its violation)``, where the model knows it
    sources: tuple[tuple[str, str], ...] = ()

    @property
    def modelled(self) -> str:
        """The library version the models follow."""
        return str(importlib.import_module(self.module).MODELLED)

    def version(self) -> str:
        """The installed version (one line saying how to install the library when it is missing)."""
        return installed_version(self.load, self.distribution)

    def cases(self, only: str | None = None) -> list[AuditCase]:
        """The audit's cases; with ``only``, those whose ``"mechanism params"`` label contains it."""
        return select_cases(self.build_cases(), only, self.title)

    def audit(
        self,
        sample: int = 0,
        level: float = 1e-3,
        only: str | None = None,
        progress: Callable[[int, int, str], None] | None = None,
        processes: int = 2,
    ) -> list[AuditRow]:
        """One :class:`AuditRow` per case (with ``only``: per case whose ``"mechanism params"`` label contains
        it). With ``sample``, the library's own outputs on each witness input (``sample`` of them) are tested
        against the model by chi-square at the family-wise ``level``, drawn in ``processes`` worker processes
        while this one models the next cases (1: all here). ``progress(done, total, note)`` hears of each step:
        a case modelled, then (when sampling) a case's draws tested."""
        self.load()
        check_options(sample, level, processes, self.extra)
        return run_audit(self, self.cases(only), sample, level, progress, processes)


#: the audited libraries: ``wmcdp audit`` name -> the module that holds the models (its ``LIBRARY``)
LIBRARIES = {
    "opendp": "opendp",
    "diffprivlib": "diffprivlib",
    "pydp": "pydp",
    "tmlt": "tmlt",
    "pure-ldp": "pureldp",
    "multi-freq-ldpy": "multifreq",
}


def audited(name: str) -> AuditedLibrary:
    """The audited library ``name`` (as ``wmcdp audit`` takes it); its module imports no audited library."""
    if name not in LIBRARIES:
        raise WmcdpError(f"no audited library {name!r}; the libraries are {', '.join(LIBRARIES)}")
    found: AuditedLibrary = importlib.import_module(f"{__package__}.{LIBRARIES[name]}").LIBRARY
    return found


def coverage_table(lib: AuditedLibrary) -> str:
    """The Markdown table of the library's public mechanisms: status and model (or why not, or what is missing)."""
    lines = ["| mechanism | status | model, or why not |", "|---|---|---|"]
    for m in lib.mechanisms:
        cells = (_code_name(m.name), m.status, m.note)
        lines.append("| " + " | ".join(_table_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def _table_cell(text: str) -> str:
    """``text`` as a Markdown table cell: ``|`` escaped outside code; a code span holding ``|`` written as HTML
    ``<code>`` with ``&#124;`` (inside a code span the backslash of ``\\|`` would show)."""
    parts = text.split("`")
    for i, part in enumerate(parts):
        if i % 2 == 0:
            parts[i] = part.replace("|", "\\|")
        elif "|" in part:
            parts[i] = "<code>" + html.escape(part, quote=False).replace("|", "&#124;") + "</code>"
        else:
            parts[i] = f"`{part}`"
    return "".join(parts)


#: the lines around a library's coverage table in docs/audits.md
COVERAGE_BEGIN, COVERAGE_END = "<!-- coverage {name} -->", "<!-- end coverage -->"


def _code_name(name: str) -> str:
    """A mechanism's name as the table shows it: its first word as code (a name with code spans as it is)."""
    if "`" in name:
        return name
    first, _, rest = name.partition(" ")
    return f"`{first}` {rest}".rstrip()


def with_coverage_tables(text: str) -> str:
    """``text`` (docs/audits.md) with the table between ``<!-- coverage NAME -->`` and ``<!-- end coverage -->``
    regenerated from each library's :class:`Mechanism` descriptions; a library without its block is an error."""
    for name in LIBRARIES:
        begin = COVERAGE_BEGIN.format(name=name)
        start = text.find(begin)
        end = text.find(COVERAGE_END, start)
        if start < 0 or end < 0:
            raise WmcdpError(f"no coverage block for {name}: {begin} ... {COVERAGE_END}")
        text = text[:start] + f"{begin}\n{coverage_table(audited(name))}\n" + text[end:]
    return text


def _draw(name: str, number: int, x: Any, draws: int) -> Counter[Any]:
    """The library's own draws for case ``number`` of the audit ``name`` (what a worker process is sent)."""
    case = audited(name).build_cases()[number]
    return case.draw(case, x, draws)


def run_audit(
    lib: AuditedLibrary,
    chosen: list[AuditCase],
    sample: int,
    level: float,
    progress: Callable[[int, int, str], None] | None,
    processes: int,
) -> list[AuditRow]:
    """The rows of the ``chosen`` cases of ``lib``, in order. Each case's ``model`` gives its row and the
    witness inputs to sample; with ``sample``, its ``draw`` collects the library's counts in ``processes``
    worker processes (the case sent by its place in ``lib.build_cases()``) while this one models the next
    cases, and the rows get their model checks (:func:`with_checks`)."""
    number = {c.label: k for k, c in enumerate(lib.build_cases())}
    steps = len(chosen) * (2 if sample else 1)
    rows, pending = [], []
    with workers(processes if sample else 1) as submit:
        for done, case in enumerate(chosen):
            if progress:
                progress(done, steps, case.label)
            start = time.perf_counter()
            with _naming(case.label):
                row, inputs = case.model(case)
            rows.append(_described(lib, case, replace(row, seconds=time.perf_counter() - start)))
            if sample:
                # a worker process is sent the library's name and the case's number (it cannot be sent functions)
                job = (case.draw, case) if processes == 1 else (_draw, lib.name, number[case.label])
                pending.append(
                    [(shown, want, _named(case.label, submit(*job, x, sample))) for shown, want, x in inputs]
                )

        def waiting(k: int) -> None:
            if progress:
                progress(len(chosen) + k, steps, f"the library's draws for {chosen[k].label}")

        rows = with_checks(rows, pending, level, waiting)  # (inside the block: the workers end with it)
    if progress:
        progress(steps, steps, "")
    return rows


def _described(lib: AuditedLibrary, case: AuditCase, row: AuditRow) -> AuditRow:
    """The row with the case's neighbouring notion and, when violated, the library's source line (where known)."""
    neighbours = row.neighbours or (None if lib.neighbours is None else lib.neighbours(case))
    source = row.source or (dict(lib.sources).get(case.mechanism) if row.verdict == "VIOLATED" else None)
    return replace(row, neighbours=neighbours, source=source)


def choice_program(
    name: str, inputs: Sequence[Any], neighbours: Callable[[Any, Any], bool], dists: list[dict[Hashable, Any]]
) -> tuple[Program, list[Hashable], Any]:
    """``(program, outputs, relation)``: input ``i`` (standing for ``inputs[i]``) draws output ``j`` with the
    probability ``dists[i]`` gives ``outputs[j]``; two inputs are neighbours when ``neighbours`` says so."""
    outputs = sorted({y for d in dists for y in d}, key=lambda y: (str(type(y)), y))
    code = {y: j for j, y in enumerate(outputs)}
    coded = [{code[y]: p for y, p in d.items()} for d in dists]
    relation = relation_from_function(lambda i, j: bool(neighbours(inputs[i[0]], inputs[j[0]])), f"{name} neighbours")
    prog = Program(
        name.lower(),
        IntVector(1, 0, len(inputs) - 1),
        lambda x: discrete(lambda i: coded[i], x[0]),
        neighbours=relation,
    )
    return prog, outputs, relation


def local_row(
    case: AuditCase,
    inputs: Sequence[Any],
    dists: list[dict[Hashable, Fraction]],
    claimed: float,
    reproduce: Callable[[Any, Any, Hashable], str] | None = None,
    view: Callable[[Any, Hashable], Hashable] | None = None,
) -> Modelled:
    """The row of a local-DP case (every two distinct inputs neighbours) whose exact output distributions on
    ``inputs`` are ``dists``: the exact tight ratio, the verdict, the witness with its two probabilities and
    ``reproduce(x, x', y)``'s script; the witness's two inputs are sampled as ``view(x, y)`` counts them."""
    prog, outputs, relation = choice_program(case.mechanism, inputs, lambda a, b: a != b, dists)
    r = synthesize_privacy(prog, "exhaustive", neighbours=relation, force=True, exact=True)
    i, j, y = r.witness.x[0], r.witness.x_prime[0], outputs[r.witness.y]
    row = AuditRow(
        case.mechanism,
        case.params,
        1,
        claimed,
        r.epsilon,
        "inf" if r.ratio == math.inf else str(r.ratio),
        verdict(claimed, r.ratio, r.epsilon, True),
        (repr(inputs[i]), repr(inputs[j]), repr(y)),
        0.0,
        witness_probabilities=(str(dists[i].get(y, Fraction(0))), str(dists[j].get(y, Fraction(0)))),
        reproducer=None if reproduce is None else reproduce(inputs[i], inputs[j], y),
    )
    if row.verdict == "VIOLATED":
        row = replace(row, pair_delta=pair_delta(dists[i], dists[j], claimed))
        row = with_tight_delta(row, prog, relation, exact=True)
    return row, [
        (repr(inputs[k]), viewed(dists[k], functools.partial(_view, view, inputs[k])), inputs[k]) for k in (i, j)
    ]


def with_tight_delta(row: AuditRow, prog: Any, neighbours: Any = None, **run: Any) -> AuditRow:
    """A violated pure epsilon row with its tight delta at the claimed epsilon (its binary64 value) over every
    neighbouring pair (``neighbours``, the audit's relation; the program's own by default):
    :func:`~wmcdp.notions.approximate.synthesize_approximate` on the audit's model, run as the audit ran its epsilon
    (``run``: ``exact=`` or ``certified=True``, whose enclosure's upper end is taken); ``delta_note`` instead when
    that run exceeds a resource limit or refuses the model. Any other row comes back unchanged."""
    if row.verdict != "VIOLATED" or row.claimed_delta is not None or row.measure is not None:
        return row
    try:
        r = synthesize_approximate(prog, epsilon=row.claimed, neighbours=neighbours, force=True, **run)
    except (WmcdpError, LimitExceeded) as exc:
        return replace(row, delta_note=f"the tight delta over every pair is not known: {one_line(exc)}")
    if run.get("certified"):
        return replace(row, tight_delta=tight_text(r.interval.hi))
    if r.exact_delta is not None:
        return replace(row, tight_delta=tight_text(r.exact_delta))
    if r.delta == 0 and r.log_delta is not None and math.isfinite(r.log_delta):  # a float delta below the floats
        with gmpy2.context(precision=200):
            return replace(row, tight_delta=tight_text(gmpy2.exp(gmpy2.mpfr(r.log_delta))))
    return replace(row, tight_delta=tight_text(r.delta))


def _view(view: Callable[[Any, Hashable], Hashable] | None, x: Any, y: Hashable) -> Hashable:
    return y if view is None else view(x, y)


def viewed(dist: dict[Hashable, Any], view: Callable[[Hashable], Hashable]) -> dict[Hashable, float]:
    """The distribution of ``view(y)`` (what a sampling check counts), in floats."""
    out: dict[Hashable, float] = {}
    for y, p in dist.items():
        key = view(y)
        out[key] = out.get(key, 0.0) + float(p)
    return out


@contextmanager
def _naming(label: str) -> Iterator[None]:
    """A library's own failure on a case as one line naming the case (wmcdp's errors and limits pass)."""
    try:
        yield
    except (WmcdpError, LimitExceeded, MemoryError):
        raise
    except Exception as exc:
        raise WmcdpError(f"the case {label!r} failed: {one_line(exc)}") from None


def _named(label: str, result: Callable[[], Any]) -> Callable[[], Any]:
    """``result`` whose failure (the library's draws in a worker) is one line naming the case."""

    def wait() -> Any:
        with _naming(label):
            return result()

    return wait


def select_cases(all_cases: list[Any], only: str | None, audit: str) -> list[Any]:
    """The cases whose ``"mechanism params"`` label contains ``only`` (all without it); none is an error."""
    chosen = [c for c in all_cases if only is None or only in c.label]
    if not chosen:
        mechanisms = sorted({c.mechanism for c in all_cases})
        hint = suggest(only or "", mechanisms) or f"the mechanisms are {listing(mechanisms)}"
        raise WmcdpError(f"no case of the {audit} audit matches {brief(repr(only))}; {hint}")
    return chosen


def library(module: str, audit: str, distribution: str, extra: str) -> Any:
    """The audited library's ``module`` (``from package import name`` for a dotted one), or one line saying
    how to install it when it is missing, or, when the installed library fails to import, that failure."""
    package, _, name = module.rpartition(".")
    try:
        if not package:
            return importlib.import_module(module)
        return getattr(__import__(package, fromlist=[name]), name)
    except ImportError as exc:
        missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
        if missing is not None and (module == missing or module.startswith(missing + ".")):
            raise WmcdpError(f"the {audit} audit needs {distribution}: pip install 'wmcdp[{extra}]'") from None
        raise WmcdpError(f"{distribution} is installed but fails to import: {one_line(exc)}") from None


def one_line(exc: BaseException) -> str:
    """An exception as ``Type: first line of its message``."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def installed_version(load: Callable[[], Any], distribution: str) -> str:
    """The installed version of an audited library (``load`` refuses in one line when it is missing)."""
    from importlib.metadata import version

    load()
    return version(distribution)


def version_warning(installed: str, modelled: str, distribution: str) -> str | None:
    """One line when the installed library is not the version the models follow (their results may not hold)."""
    if installed == modelled:
        return None
    return f"the models follow {distribution} {modelled}, and {installed} is installed: the verdicts may not hold"


def check_options(sample: int, level: float, processes: int, extra: str) -> None:
    """The options every audit takes, each refused in one line; sampling needs scipy (in the audit's ``extra``)."""
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 0:
        raise WmcdpError(f"sample must be a whole number >= 0, got {sample!r}")
    if not 0 < level < 1:
        raise WmcdpError(f"level must be in (0, 1), got {level!r}")
    if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
        raise WmcdpError(f"processes must be a whole number >= 1, got {processes!r}")
    if sample:
        try:
            import scipy  # noqa: F401  (the chi-square test)
        except ImportError:
            raise WmcdpError(f"sampling needs scipy: pip install 'wmcdp[{extra}]'") from None


# -- worker processes -----------------------------------------------------------------------


@contextmanager
def workers(processes: int) -> Iterator[Callable[..., Callable[[], Any]]]:
    """``submit(fn, *args)``, which returns a function waiting for ``fn(*args)``: run in ``processes`` worker
    processes that leave Ctrl-C to this one and end with the block, or (one process) at once, here."""
    if processes == 1:

        def now(fn: Callable[..., Any], *args: Any) -> Callable[[], Any]:
            value = fn(*args)
            return lambda: value

        yield now
        return
    previous = _sigterm_interrupts()
    try:
        with get_context("spawn").Pool(
            processes, initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN)
        ) as pool:
            yield lambda fn, *args: pool.apply_async(fn, args).get
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _sigterm_interrupts() -> Any:
    """SIGTERM raises KeyboardInterrupt in this process (as Ctrl-C does), so leaving the pool's block ends its
    workers; the previous handler, or None off the main thread (where no handler can be set)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _interrupt)


__all__ = [
    "TIGHT_ULPS",
    "TIGHT_ABSOLUTE",
    "FLOAT_TOLERANCE",
    "SampleCheck",
    "ExactCheck",
    "POWER",
    "detectable_shifts",
    "AuditRow",
    "AuditCase",
    "AuditedLibrary",
    "Mechanism",
    "Modelled",
    "STATUSES",
    "LIBRARIES",
    "audited",
    "coverage_table",
    "with_coverage_tables",
    "local_row",
    "with_tight_delta",
    "viewed",
    "verdict",
    "certified_verdict",
    "check_model",
    "choice_program",
    "installed_version",
    "one_line",
    "version_warning",
    "run_audit",
    "select_cases",
    "with_checks",
    "json_float",
]
