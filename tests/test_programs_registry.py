"""The registry of built-in programs (programs/registry.py) is the one list every listing of programs reads.

Every built-in is registered once, with a summary that is one whole sentence; ``PROGRAMS``, ``ORIGINS``,
``__all__``, ``wmcdp programs`` and the table of docs/programs.md read it; the benchmarks' claims are attached to
the programs they run."""

from __future__ import annotations

import inspect
import itertools
import re
from pathlib import Path

import pytest

import wmcdp.programs as programs
from wmcdp.base.errors import WmcdpError
from wmcdp.cli import main
from wmcdp.lang import Bits, Program, flip
from wmcdp.programs import CHECKDP, ORIGINS, PEERS, PROGRAMS, STATDP_NAMES
from wmcdp.programs.registry import all_claims, program, registered, unregister, with_program_table

DOCS = Path(__file__).resolve().parent.parent / "docs" / "programs.md"
BUILT_IN = sorted(PROGRAMS)


def test_the_names_are_the_registered_ones():
    """``__all__`` holds the constants and every registered program, each the registered factory itself."""
    assert set(programs.__all__) == {"CHECKDP", "ORIGINS", "PEERS", "PROGRAMS", *PROGRAMS}
    assert all(getattr(programs, name) is registered(name).factory for name in PROGRAMS)
    assert len(BUILT_IN) == 41 and set(ORIGINS) == set(PROGRAMS)


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_summary_is_one_whole_sentence(name):
    """The docstring's first paragraph is its first line: one sentence, a capital (or code) first, a full stop
    last, balanced brackets and quotes, and short enough for ``wmcdp programs`` (4 spaces + 116 characters)."""
    doc = inspect.getdoc(PROGRAMS[name])
    assert doc is not None
    first, _, rest = doc.partition("\n")
    assert rest == "" or rest.startswith("\n"), "the first paragraph runs past the first line"
    summary = registered(name).summary
    assert summary.endswith(".") and len(summary) <= 116
    assert first[0].isupper() or first.startswith("``")
    assert first.count("``") % 2 == 0 and summary.count("(") == summary.count(")")
    assert not re.search(r"\b(e\.g|i\.e|Alg|et al)\.$", summary)


def test_the_listing_prints_each_summary_whole(capsys):
    assert main(["programs"]) == 0
    out = capsys.readouterr().out
    for name in BUILT_IN:
        entry = registered(name)
        assert f"\n    {entry.summary}\n    origin: {entry.origin_text}\n" in f"\n{out}\n"
    assert out.count("\n    origin: ") == len(BUILT_IN)


def test_the_docs_table_is_the_registry():
    """Regenerate with: python -c "from pathlib import Path; from wmcdp.programs.registry import
    with_program_table as w; p = Path('docs/programs.md'); p.write_text(w(p.read_text()))" """
    text = DOCS.read_text()
    assert with_program_table(text) == text
    assert all(f"| `{name}` | {registered(name).summary} |" in text for name in BUILT_IN)


def test_the_benchmarks_claims_and_names_are_attached():
    """CheckDP's claims first, then DP-Sniper's and StatDP's, each on its built-in, and each cited in its origin."""
    expected = [(b.program, "CheckDP", b.name) for b in CHECKDP] + [(p.program, p.tool, p.name) for p in PEERS]
    assert [(name, c.benchmark, c.name) for name, c in all_claims()] == expected
    noisy_max = registered("noisy_max")
    assert [c.label for c in noisy_max.claims] == ["CheckDP NoisyMax", "DP-Sniper ReportNoisyMax1"]
    assert ORIGINS["noisy_max"] == (
        "StatDP (Ding et al., CCS 2018) Alg. 5; CheckDP (Wang et al., CCS 2020), cmla-psu/checkdp examples/noisymax.c "
        "(NoisyMax); DP-Sniper (Bichsel et al., S&P 2021), eth-sri/dp-sniper dpsniper/mechanisms/report_noisy_max.py "
        "(ReportNoisyMax1); cmla-psu/statdp statdp/algorithms.py noisy_max_v1a (Alg. 5)"
    )
    assert all(f"statdp/algorithms.py {function}" in ORIGINS[name] for name, function in STATDP_NAMES.items())
    checkdp = {b.name: c for b in CHECKDP for name, c in all_claims() if c.benchmark == "CheckDP" and c.name == b.name}
    assert checkdp["SVT"].ratio({**checkdp["SVT"].params, "n": 5}) == 2 ** (4 * 1)  # alpha^(-4N) at alpha = 1/2


def _coin(n: int) -> Program:
    """A coin program for the registry's refusals."""
    return Program("coin", Bits(n), lambda x: tuple(b ^ flip(0.25) for b in x))


def test_registry_refusals():
    def noisy_max(n: int) -> Program:
        """A second noisy_max, from another file."""
        return _coin(n)

    with pytest.raises(WmcdpError, match="a program named noisy_max is registered already"):
        program(origin="x")(noisy_max)
    undocumented = lambda n: _coin(n)  # noqa: E731
    with pytest.raises(WmcdpError, match="has no docstring"):
        program()(undocumented)
    with pytest.raises(WmcdpError, match="no registered program 'nothing'"):
        unregister("nothing")
    program(origin="a test")(_coin)
    try:
        assert PROGRAMS["_coin"] is _coin and ORIGINS["_coin"] == "a test"
        program(origin="again")(_coin)  # the same function registered again replaces the entry
        assert ORIGINS["_coin"] == "again"
    finally:
        unregister("_coin")
    assert "_coin" not in PROGRAMS


def _table_rows(text: str, header: str) -> list[list[str]]:
    """The cells of the Markdown table of docs/peers.md whose header starts with ``header``."""
    lines = text[text.index(header):].splitlines()[2:]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in itertools.takewhile(bool, lines)]


def test_the_peers_pages_tables_agree_with_the_claims():
    """docs/peers.md's hand-written tables name each benchmark program, its built-in and its verdict as registered."""
    text = (DOCS.parent / "peers.md").read_text()
    verdict = {True: "private", False: "not private"}
    checkdp = {(row[0], row[1].strip("`"), row[4]) for row in _table_rows(text, "| CheckDP | built-in |")}
    assert checkdp == {(c.name, name, verdict[c.private]) for name, c in all_claims() if c.benchmark == "CheckDP"}
    peers = set()
    for row in _table_rows(text, "| DP-Sniper (`dpsniper/mechanisms/`) |"):
        tool, peer = ("DP-Sniper", row[0].split()[0]) if row[0] else ("StatDP", row[1].split()[0])
        peers.add((tool, peer, re.search(r"`(\w+)`", row[2])[1], row[4]))
    assert peers == {(c.benchmark, c.name, name, verdict[c.private]) for name, c in all_claims() if c.benchmark != "CheckDP"}


def _benchmark_builds():
    from fractions import Fraction

    for bench in CHECKDP:
        for noise in ("truncated", "unbounded"):
            yield bench.program, {"n": 3, "alpha": Fraction(1, 2), **bench.params, "noise": noise}
    for peer in PEERS:
        yield peer.program, {**peer.params, peer.size: 3 if peer.size == "n" else 5}


@pytest.mark.parametrize("name, params", list(_benchmark_builds()), ids=lambda v: v if isinstance(v, str) else "")
def test_a_built_in_built_again_is_the_built_in(name, params):
    """``is_builtin`` decides on the objects (the code and every captured value), so each built-in of the
    benchmarks, built from its parameters, is one, and with its body replaced or a captured value changed it is not."""
    from dataclasses import replace

    from wmcdp.lang.registry import is_builtin

    built = PROGRAMS[name](**params)
    assert is_builtin(built)
    assert not is_builtin(replace(built, body=lambda x: built.body(x)))
    assert not is_builtin(replace(built, name=name + "_copy"))
    assert not is_builtin(replace(built, params={**built.params, "unknown": 1}))
