"""Signs of life on long runs: the phases the layers announce (wmcdp.base.progress) and the line the command line
draws from them on stderr (wmcdp.report.progress.PhaseLine), forced with --progress, never with --no-progress,
never in JSON output unless forced, and then on stderr only."""

import io
import json
import sys

import pytest

import wmcdp
from wmcdp.programs import noisy_max
from wmcdp.base import progress
from wmcdp.cli import main
from wmcdp.report import progress as line_module


class Heard:
    """A listener that keeps what it hears."""

    def __init__(self):
        self.events = []

    def phase(self, name, detail):
        self.events.append(("phase", name, detail))

    def advance(self, done, total):
        self.events.append(("advance", done, total))

    def outer(self, done, total, note):
        self.events.append(("outer", done, total, note))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def lines(err):
    """The texts the progress line drew (each draw starts with a carriage return)."""
    return [part.strip() for part in err.split("\r") if part.strip()]


def test_nothing_is_told_without_a_listener():
    assert not progress.listening()
    progress.phase("planning")  # no listener: nothing happens, nothing fails
    progress.advance(1, 2)
    progress.point(1, 2, "x")
    assert list(progress.steps("abc", 3)) == ["a", "b", "c"]


def test_steps_tell_how_many_are_done_and_the_listener_goes_with_its_block():
    heard = Heard()
    with pytest.raises(KeyError), progress.listener(heard):
        assert progress.listening()
        progress.phase("counting", "rows")
        assert list(progress.steps(iter("ab"), 2)) == ["a", "b"]
        raise KeyError
    assert not progress.listening()
    assert heard.events == [("phase", "counting", "rows"), ("advance", 0, 2), ("advance", 1, 2), ("advance", 2, 2)]


def test_an_exhaustive_run_tells_its_phases_in_order():
    heard = Heard()
    with progress.listener(heard):
        r = wmcdp.synthesize_privacy(noisy_max(n=3, m=2, eps0=1))
    phases = [e[1:] for e in heard.events if e[0] == "phase"]
    names = [name for name, _ in phases]
    assert names.index("planning") < names.index("tracing") < names.index("compiling") < names.index("plan")
    plan = next(detail for name, detail in phases if name == "plan")
    kind, estimate, _ = r.plan.considered[0]  # the count's own estimate (the report's adds the compilation)
    assert kind == "exhaustive" and plan == f"exhaustive sets, estimated {estimate:.3g} s"
    steps = [e for e in heard.events if e[0] == "advance"]
    assert steps and steps[-1][1] == steps[-1][2]  # the count's batches, all done at the end


def test_the_hub_plan_counts_its_output_events_and_recounts_its_witness():
    heard = Heard()
    with progress.listener(heard):
        r = wmcdp.synthesize_privacy(noisy_max(n=3, m=2, eps0=1), plan="hub")
    assert r.plan.kind == "hub"
    kinds = [e[1] if e[0] == "phase" else e[0] for e in heard.events]
    hub = heard.events.index(("phase", "plan", "hub, searching each output event"))
    recount = kinds.index("recount", hub)
    counted = [e for e in heard.events[hub:recount] if e[0] == "advance"]
    assert counted[-1][1] == counted[-1][2] >= 2  # every output event searched, one step each
    assert [e[1] for e in counted] == list(range(counted[-1][2] + 1))


def test_progress_shows_the_phases_on_stderr_and_leaves_stdout_alone(capsys):
    argv = ["privacy", "noisy_max", "-p", "n=3", "-p", "m=2", "-p", "eps0=1", "--json"]
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""
    code, forced, err = run(capsys, *argv, "--progress")
    assert code == 0
    plain, shown = json.loads(out), json.loads(forced)
    for d in (plain, shown):
        for key in ("seconds", "plan"):
            d.pop(key)
    assert plain == shown
    texts = lines(err)
    assert any(t.startswith("wmcdp planning: pure epsilon") for t in texts)
    assert any(t.startswith("wmcdp compiling: noisy_max, ") for t in texts)
    assert any(t.startswith("wmcdp plan: exhaustive sets, estimated ") for t in texts)
    assert any("; counting the privacy triples" in t for t in texts)
    assert err.endswith("\r") and err.split("\r")[-2].strip() == ""  # the line is erased at the end


def test_no_progress_and_a_pipe_show_nothing(capsys, monkeypatch):
    argv = ["privacy", "randomized_response", "-p", "n=2", "-p", "lam=0.2"]
    assert run(capsys, *argv, "--no-progress")[2] == ""
    assert run(capsys, *argv)[2] == ""  # stderr is no terminal here


@pytest.mark.parametrize(
    "extra, shown",
    [([], [1.0]), (["--json"], []), (["--no-progress"], []), (["--json", "--progress"], [0.0])],
)
def test_on_a_terminal_the_line_waits_a_second_and_json_keeps_it_off(capsys, monkeypatch, extra, shown):
    made = []

    class Recorded(line_module.PhaseLine):
        def __init__(self, **kwargs):
            made.append(kwargs.get("delay"))
            super().__init__(**kwargs)

    monkeypatch.setattr(line_module, "PhaseLine", Recorded)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    code, out, err = run(capsys, "privacy", "randomized_response", "-p", "n=2", "-p", "lam=0.2", *extra)
    assert code == 0 and made == shown
    if shown == [1.0]:
        assert err == ""  # a run under a second stays silent


def test_the_line_gives_the_time_left_at_the_phase_pace(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(line_module.time, "monotonic", lambda: clock[0])
    line = line_module.PhaseLine(enabled=False, stream=io.StringIO())
    line.phase("plan", "exhaustive sets, estimated 10 s")
    clock[0] += 8.0
    line.advance(2, 10)
    assert line.words() == "plan: exhaustive sets, estimated 10 s" and line.left() == "~32 s left"
    line.advance(10, 10)
    assert line.left() == ""



def test_counting_right_after_the_plan_keeps_the_plans_words():
    line = line_module.PhaseLine(enabled=False, stream=io.StringIO())
    line.phase("plan", "symmetry, estimated 2 s")
    line.phase("counting", "the privacy triples")
    assert line.words() == "plan: symmetry, estimated 2 s; counting the privacy triples"
    line.phase("recount", "the plan's witness")
    line.phase("counting", "the privacy triples")
    assert line.words() == "recount: the plan's witness; counting the privacy triples"
    line.phase("tracing", "rr")
    line.phase("counting", "the pairs")  # after another phase: counting alone
    assert line.words() == "counting: the pairs"


@pytest.mark.parametrize("command", [["sweep", "privacy"], ["audit", "opendp"], ["approx"], ["size"]])
def test_every_long_command_takes_the_options(capsys, command):
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    out = capsys.readouterr().out
    assert "--progress, --no-progress" in out
