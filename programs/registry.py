"""`program`: a built-in program registered once, with its origin and what the literature claims of it.

A factory decorated with ``@program(origin=...)`` is a built-in: ``wmcdp programs`` (and ``--json``) lists it,
:data:`wmcdp.programs.PROGRAMS` and :data:`wmcdp.programs.ORIGINS` hold it, the table of docs/programs.md
(:func:`with_program_table`) shows it, and every :class:`Claim` given with it (a benchmark's or a paper's claimed
``e^eps`` at small parameters, and the verdict of the literature) is a row of experiments/peers_suite.py. The
benchmark lists :data:`~wmcdp.programs.CHECKDP` and :data:`~wmcdp.programs.PEERS` add their claims to the
programs they run with :func:`add_claims`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from wmcdp.base.errors import WmcdpError
from wmcdp.base.numbers import Number
from wmcdp.lang.docstrings import summary
from wmcdp.lang.program import Program

#: a program factory: keyword parameters in, a :class:`~wmcdp.lang.Program` out
Factory = TypeVar("Factory", bound=Callable[..., Program])


@dataclass(frozen=True)
class Published:
    """A peer tool's published lower bound on eps for its own (continuous) version of a program.

    ``eps0`` is the budget the peer ran the program with; ``dp_sniper`` its DD-Search (logistic regression)
    lower bound ``eps_lcb``; ``statdp`` StatDP's two runs in DP-Sniper's evaluation; ``n`` the peer's size.
    Source: ``eth-sri/dp-sniper``, ``eval_sp2021/reference-results/{dd_search_reg,statdp_1,statdp_2}_data.log``,
    the data of the paper's comparison of DD-Search and StatDP (its power figure, ``eval-powers``).
    """

    eps0: float
    dp_sniper: float
    statdp: tuple[float, float] | None
    n: int | None


@dataclass(frozen=True)
class Claim:
    """What one benchmark or paper claims of a registered program at fixed small parameters.

    ``ratio(params)`` is the claimed ``e^eps`` at the program's full parameters (``params`` and the size), in the
    program's own noise (its ``alpha``); ``private`` is the literature's verdict at that claim. ``cite``, if given,
    is added to the program's origin (``wmcdp programs`` prints it).
    """

    benchmark: str  # the tool or paper: "CheckDP", "DP-Sniper", "StatDP", "Lyu, Su, Li 2017", ...
    name: str  # the program's name there
    params: dict[str, Any]  # the program's small parameters besides the size, alpha included
    ratio: Callable[[dict[str, Any]], Number]
    private: bool
    size: str = "n"  # the parameter that grows
    cite: str = ""
    published: Published | None = None

    @property
    def label(self) -> str:
        """The benchmark and the program's name there, e.g. ``CheckDP NoisyMax``."""
        return f"{self.benchmark} {self.name}"


@dataclass
class Registered:
    """One registered program: its factory, its own origin, its claims and the other names it goes by."""

    factory: Callable[..., Program]
    origin: str
    claims: list[Claim] = field(default_factory=list)
    mentions: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The program's name: its factory's."""
        return self.factory.__name__

    @property
    def origin_text(self) -> str:
        """The origin, then each claim's citation and each mention, joined by ``"; "``."""
        parts = [self.origin, *(c.cite for c in self.claims), *self.mentions]
        return "; ".join(p for p in parts if p)

    @property
    def summary(self) -> str:
        """The first line of the factory's docstring as plain text: one sentence."""
        return summary(self.factory)


_REGISTRY: dict[str, Registered] = {}
#: every claim with its program's name, in the order they were added (the peers' suite's rows)
_CLAIMS: list[tuple[str, Claim]] = []


def program(*, origin: str = "", claims: Sequence[Claim] = ()) -> Callable[[Factory], Factory]:
    """Register the decorated factory as a built-in program, under its function name, with its ``origin`` (the
    paper, tool or library it comes from; "" when its claims' citations say it) and the ``claims`` of the
    literature; the factory is returned as it is.

    The first line of its docstring is its summary in ``wmcdp programs``: one sentence, ending in a full stop.
    """

    def register(factory: Factory) -> Factory:
        name = factory.__name__
        if not inspect.getdoc(factory):
            raise WmcdpError(f"program {name} has no docstring: its first line is its summary")
        if name in _REGISTRY:
            if _where(_REGISTRY[name].factory) != _where(factory):
                raise WmcdpError(f"a program named {name} is registered already ({_where(_REGISTRY[name].factory)})")
            unregister(name)  # the same function of the same file, imported again: the new one replaces it
        _REGISTRY[name] = Registered(factory, origin)
        add_claims(name, claims)
        return factory

    return register


def _where(factory: Callable[..., Any]) -> str:
    """``file:qualified name`` of a factory (the same for a module imported twice, under two names)."""
    return f"{inspect.getsourcefile(factory)}:{factory.__qualname__}"


def registered(name: str) -> Registered:
    """The registered program ``name``."""
    if name not in _REGISTRY:
        raise WmcdpError(f"no registered program {name!r}")
    return _REGISTRY[name]


def add_claims(name: str, claims: Iterable[Claim] = (), mentions: Iterable[str] = ()) -> None:
    """Add ``claims`` (and ``mentions``, other names the program goes by) to the registered program ``name``."""
    entry = registered(name)
    for c in claims:
        entry.claims.append(c)
        _CLAIMS.append((name, c))
    entry.mentions.extend(mentions)


def unregister(name: str) -> None:
    """Remove the program ``name`` and its claims from the registry (for a program registered for a while)."""
    registered(name)
    del _REGISTRY[name]
    _CLAIMS[:] = [(n, c) for n, c in _CLAIMS if n != name]


def all_claims() -> list[tuple[str, Claim]]:
    """Every ``(program name, claim)``, in the order the claims were added."""
    return list(_CLAIMS)


class _View(Mapping[str, Any]):
    """A read-only, live view of the registry: ``name -> read(entry)``, in registration order."""

    def __init__(self, read: Callable[[Registered], Any]) -> None:
        self._read = read

    def __getitem__(self, name: str) -> Any:
        return self._read(_REGISTRY[name])

    def __iter__(self) -> Iterator[str]:
        return iter(list(_REGISTRY))

    def __len__(self) -> int:
        return len(_REGISTRY)

    def __repr__(self) -> str:
        return repr(dict(self))


#: name -> factory taking the program's parameters as keyword arguments
FACTORIES: Mapping[str, Callable[..., Program]] = _View(lambda entry: entry.factory)
#: name -> where the program comes from (``wmcdp programs`` prints it)
ORIGIN_TEXTS: Mapping[str, str] = _View(lambda entry: entry.origin_text)


# -- the table of docs/programs.md ---------------------------------------------------------------

TABLE_BEGIN, TABLE_END = "<!-- programs -->", "<!-- end programs -->"


def program_table() -> str:
    """The Markdown table of every registered program: name, summary, origin and claims (with verdicts)."""
    rows = ["| program | what it does | origin | claims |", "|---|---|---|---|"]
    for name in sorted(_REGISTRY):
        entry = _REGISTRY[name]
        claims = "; ".join(f"{c.label}: {'private' if c.private else 'not private'}" for c in entry.claims)
        cells = (f"`{name}`", entry.summary, entry.origin_text, claims or "-")
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows)


def with_program_table(text: str) -> str:
    """``text`` (docs/programs.md) with the table between :data:`TABLE_BEGIN` and :data:`TABLE_END` regenerated."""
    start = text.find(TABLE_BEGIN)
    end = text.find(TABLE_END, start)
    if start < 0 or end < 0:
        raise WmcdpError(f"no program table: {TABLE_BEGIN} ... {TABLE_END}")
    return text[:start] + f"{TABLE_BEGIN}\n{program_table()}\n" + text[end:]


__all__ = [
    "FACTORIES",
    "ORIGIN_TEXTS",
    "Claim",
    "Published",
    "Registered",
    "add_claims",
    "all_claims",
    "program",
    "program_table",
    "registered",
    "unregister",
    "with_program_table",
]
