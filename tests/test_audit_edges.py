"""The edges of ``wmcdp audit``: a library that fails to import, a version other than the modelled one, a
library whose API misbehaves, and SIGTERM during a sampled run. Run on pure-ldp (skips without it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pure_ldp.frequency_oracles")

from wmcdp import WmcdpError  # noqa: E402
from wmcdp.audit import pureldp  # noqa: E402
from wmcdp.cli import main  # noqa: E402


def test_an_import_error_inside_the_library_is_shown(monkeypatch):
    """pure-ldp's package imports statsmodels (rappor_server.py): without it the audit names that failure, not
    'pip install pure-ldp'."""
    for name in [m for m in sys.modules if m == "pure_ldp" or m.startswith("pure_ldp.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "statsmodels.api", None)
    with pytest.raises(WmcdpError) as info:
        pureldp.audit_pureldp(only="DEClient epsilon=1.0, d=2")
    message = str(info.value)
    assert message.startswith("pure-ldp is installed but fails to import: ModuleNotFoundError:")
    assert "statsmodels.api" in message and "pip install" not in message and "\n" not in message


def test_a_missing_library_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pure_ldp", None)
    monkeypatch.delitem(sys.modules, "pure_ldp.frequency_oracles")
    with pytest.raises(WmcdpError, match=r"^the pure-ldp audit needs pure-ldp: pip install 'wmcdp\[pureldp\]'$"):
        pureldp.audit_pureldp(only="DEClient")


def test_another_version_warns_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(pureldp, "MODELLED", "0.9.0")
    assert main(["audit", "pure-ldp", "--only", "HadamardResponseClient epsilon=0.5, d=4"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "wmcdp: warning: the models follow pure-ldp 0.9.0, and 1.2.0 is installed: the verdicts may not hold"
    ]
    monkeypatch.setattr(pureldp, "MODELLED", "1.2.0")
    assert main(["audit", "pure-ldp", "--only", "HadamardResponseClient epsilon=0.5, d=4"]) == 0
    assert capsys.readouterr().err == ""


def test_a_misbehaving_library_is_one_line_naming_the_case(monkeypatch, capsys):
    """xxhash 4 refuses the str that LHClient hashes: the audit says so in one line."""
    import xxhash

    def refuses(data, seed=0):
        raise TypeError("Strings must be encoded before hashing")

    monkeypatch.setattr(xxhash, "xxh32", refuses)
    label = "LHClient epsilon=1.0, d=4, g=2"
    assert main(["audit", "pure-ldp", "--only", label]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"wmcdp: error: the case {label!r} failed: TypeError: Strings must be encoded before hashing"]


def _descendants(pid: int) -> set[int]:
    """The live processes below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_sigterm_stops_every_worker(tmp_path):
    err = tmp_path / "stderr"
    with err.open("w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "wmcdp", "audit", "pure-ldp", "--sample", "10000000", "--only", "DEClient"],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.2)
            workers = _descendants(proc.pid)
        assert len(workers) >= 2, "the sampled run did not start its workers"
        time.sleep(1.0)
        workers = _descendants(proc.pid)
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.2)
        assert not [p for p in workers if _alive(p)], "workers outlived the audit"
        assert err.read_text().strip() == "wmcdp: interrupted"
    finally:
        for pid in [proc.pid, *workers]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
