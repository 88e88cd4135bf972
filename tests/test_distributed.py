"""Exhaustive runs spread over a Dask cluster give the same bound and the same witness as a serial run."""

import signal
import subprocess
import sys
import time
from fractions import Fraction

import pytest

from wmcdp import WmcdpError, synthesize_accuracy, synthesize_privacy
from wmcdp.cli import main
from wmcdp.lang.registry import build_program

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def workers():
    from wmcdp.count.distributed import Workers
    with Workers(2) as w:
        yield w


@pytest.mark.parametrize("spec, params", [
    ("randomized_response", {"n": 6, "lam": 0.2}),
    ("randomized_response", {"n": 5, "lam": Fraction(1, 5)}),
    ("histogram", {"n": 3, "m": 2, "eps0": 0.7}),
    ("noisy_max", {"n": 4, "m": 2, "eps0": 0.7}),
    ("sparse_vector", {"n": 4, "m": 2, "T": 1, "N": 1, "eps0": 0.7}),
])
def test_privacy_over_workers_equals_serial(workers, spec, params):
    program = build_program(spec, params)
    serial = synthesize_privacy(program, "exhaustive")
    spread = synthesize_privacy(program, workers=workers)
    assert spread.ratio == serial.ratio and spread.epsilon == serial.epsilon
    assert spread.witness == serial.witness
    assert (spread.p_x, spread.p_x_prime) == (serial.p_x, serial.p_x_prime)


def test_accuracy_over_workers_equals_serial(workers):
    program = build_program("rr_counting", {"n": 7, "lam": Fraction(1, 5)})
    serial = synthesize_accuracy(program, alpha=2)
    spread = synthesize_accuracy(program, alpha=2, workers=workers)
    assert (spread.one_minus_beta, spread.beta, spread.witness) == (serial.one_minus_beta, serial.beta, serial.witness)


def test_cli_workers(capsys):
    assert main(["privacy", "randomized_response", "-p", "n=4", "-p", "lam=1/5", "--workers", "2", "--json"]) == 0
    out = __import__("json").loads(capsys.readouterr().out)
    assert out["ratio_exact"] == "4" and out["witness"]["x"] == [0, 0, 0, 0]


def test_without_dask_the_flag_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    assert main(["privacy", "randomized_response", "-p", "n=2", "-p", "lam=0.2", "--workers", "2"]) == 2
    assert capsys.readouterr().err == ("wmcdp: error: spreading a run over workers needs Dask: "
                                       "pip install 'wmcdp[distributed]'\n")


def test_any_program_runs_on_workers(workers):
    """The example in docs/cli.md (Distributed runs): a Program object (its body a lambda in this file) on Workers, as a serial run."""
    from wmcdp import Bits, Program, flip

    prog = Program("rr", Bits(3), lambda x: tuple(xi ^ flip(Fraction(1, 5)) for xi in x))
    assert not prog.source
    spread = synthesize_privacy(prog, workers=workers)
    serial = synthesize_privacy(prog, "exhaustive")
    assert spread.ratio == serial.ratio == 4 and spread.witness == serial.witness


def test_a_bad_workers_value_is_one_error():
    with pytest.raises(WmcdpError, match="workers must be a wmcdp.count.distributed.Workers"):
        synthesize_privacy(build_program("randomized_response", {"n": 2, "lam": 0.2}), workers=2)


def test_ctrl_c_during_a_run_over_workers_is_one_line_and_quick():
    """Ctrl-C while local workers count: one line, exit 130, stopped promptly, no worker left behind.

    The stop takes well under a second on a quiet machine; the bound leaves room for a loaded CI host.
    """
    psutil = pytest.importorskip("psutil")
    proc = subprocess.Popen([sys.executable, "-m", "wmcdp", "privacy", "randomized_response", "-p", "n=15", "-p",
                             "lam=0.2", "--sets", "exhaustive", "--force", "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    children = _counting_workers(psutil, proc, 2)
    proc.send_signal(signal.SIGINT)
    start = time.monotonic()
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - start < 5.0
    assert proc.returncode == 130 and err.strip() == "wmcdp: interrupted" and out == ""
    psutil.wait_procs(children, timeout=0.5)  # returns as soon as every one has gone; at most the 0.5 s it allowed
    assert not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]


def _counting_workers(psutil, proc, n):
    """The children of ``proc`` once its ``n`` local workers are counting: each has spent WORKER_CPU seconds of CPU.

    Polled, not slept for: CPU time grows only with a worker's own work, so the wait is as long as starting
    the cluster and a second of counting take, on a quiet machine or a loaded one (the test slept 8 s before).
    """
    stop = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < stop:
        try:
            children = psutil.Process(proc.pid).children(recursive=True)
            workers = [c for c in children if "resource_tracker" not in " ".join(c.cmdline())]
            if len(workers) == n and all(sum(c.cpu_times()[:2]) >= WORKER_CPU for c in workers):
                return children
        except psutil.Error:
            pass
        time.sleep(0.1)
    pytest.fail(f"{n} workers did not start counting: the run ended or took 120 s")


# a worker's CPU time once it has loaded wmcdp (about 1.5 s on the 2-core CI host) plus a second of counting
WORKER_CPU = 2.5
