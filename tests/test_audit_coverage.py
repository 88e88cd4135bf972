"""The audits' one description per mechanism: docs/audits.md's coverage tables are generated from each library's
``MECHANISMS``, the audited ones are exactly the mechanisms with cases, and every public mechanism of an
installed library is listed (audited, not auditable or planned)."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from wmcdp.audit.core import LIBRARIES, STATUSES, AuditCase, audited, with_coverage_tables

DOCS = Path(__file__).resolve().parent.parent / "docs" / "audits.md"


def _named(name: str) -> set[str]:
    """The identifiers a coverage row names."""
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", name))


def test_the_docs_tables_are_the_descriptions():
    """Regenerate with: python -c "from pathlib import Path; from wmcdp.audit.core import with_coverage_tables as
    w; p = Path('docs/audits.md'); p.write_text(w(p.read_text()))" """
    text = DOCS.read_text()
    assert with_coverage_tables(text) == text


@pytest.mark.parametrize("name", list(LIBRARIES))
def test_audited_mechanisms_are_those_with_cases(name):
    lib = audited(name)
    cases = lib.build_cases()
    assert all(isinstance(c, AuditCase) and c.library == name for c in cases)
    assert len({c.label for c in cases}) == len(cases)
    audited_names = {m.name for m in lib.mechanisms if m.status == "audited"}
    assert {c.mechanism for c in cases} == audited_names
    assert all(m.status in STATUSES and m.note for m in lib.mechanisms)
    assert len({m.name for m in lib.mechanisms}) == len(lib.mechanisms)


def _public(name: str) -> set[str]:
    """The public mechanisms of an installed library (skips when it is not installed)."""
    if name == "opendp":
        m = pytest.importorskip("opendp.measurements")
        return {n for n in m.__all__ if n.startswith("make_")}
    if name == "diffprivlib":
        m = pytest.importorskip("diffprivlib.mechanisms")
        base = m.DPMechanism
        return {n for n, c in vars(m).items() if inspect.isclass(c) and issubclass(c, base) and c is not base}
    if name == "pure-ldp":
        m = pytest.importorskip("pure_ldp.frequency_oracles")
        from pure_ldp.frequency_oracles.zero_oracle import zero_oracle_client
        from pure_ldp.heavy_hitters import apple_sfp, prefix_extending, treehistogram

        modules = (m, zero_oracle_client, apple_sfp, prefix_extending, treehistogram)
        return {
            n
            for module in modules
            for n in dir(module)
            if n.endswith("Client") and n not in ("HeavyHitterClient", "FreqOracleClient")
        }
    if name == "multi-freq-ldpy":
        pytest.importorskip("multi_freq_ldpy")
        import pkgutil

        out = set()
        for package in ("pure_frequency_oracles", "long_freq_est", "mdim_freq_est", "long_mdim_freq_est"):
            path = importlib.import_module(f"multi_freq_ldpy.{package}").__path__
            for info in pkgutil.iter_modules(path):
                m = importlib.import_module(f"multi_freq_ldpy.{package}.{info.name}")
                out |= {n for n, v in vars(m).items() if n.endswith("_Client") and v.__module__ == m.__name__}
        return out
    if name == "pydp":
        m = pytest.importorskip("pydp.algorithms.laplacian")
        return set(m.__all__)
    m = pytest.importorskip("tmlt.core.measurements.noise_mechanisms")
    return {n for n, c in vars(m).items() if inspect.isclass(c) and n.startswith("Add") and c.__module__ == m.__name__}


@pytest.mark.parametrize("name", list(LIBRARIES))
def test_every_public_mechanism_is_listed(name):
    public = _public(name)
    listed = set().union(*(_named(m.name) for m in audited(name).mechanisms))
    assert public and public <= listed, sorted(public - listed)
