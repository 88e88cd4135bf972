"""Did-you-mean: an unknown command, sweep kind, option, relation, program or parameter name ends its one-line
refusal with the closest known names; a name close to none gets none; ``--neighbors`` is ``--neighbours``."""

import pytest

from wmcdp.cli import main

RR = ["randomized_response", "-p", "n=2", "-p", "lam=1/4"]


def refusal(capsys, *argv):
    assert main(list(argv)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and len(err.rstrip("\n")) < 200
    return err


@pytest.mark.parametrize("argv, hint", [
    (["privcy", *RR], "invalid choice: 'privcy'; did you mean privacy? (choose from "),
    (["sweep", "acuracy", "rr_counting", "--over", "lam=0.1"], "did you mean accuracy? (choose from "),
    (["privacy", *RR, "--backed", "sdd"], "unrecognized arguments: --backed sdd; did you mean --backend?"),
    (["privacy", *RR, "--exact", "--jsno"], "unrecognized arguments: --jsno; did you mean --json"),
    (["sweep", "privacy", "randomized_response", "--over", "lam=0.1", "--neigbours=hamming"],
     "did you mean --neighbours, --neighbors?"),
    (["symmetry", *RR, "--neighbours", "one_entry"], "did you mean one-entry"),
    (["privacy", "rr_countin", "-p", "n=2", "-p", "lam=0.2"], "did you mean rr_counting"),
])
def test_close_names_are_suggested(capsys, argv, hint):
    assert hint in refusal(capsys, *argv)


def test_far_names_get_no_suggestion(capsys):
    err = refusal(capsys, "privacy", *RR, "--zzz")
    assert err == "wmcdp: error: unrecognized arguments: --zzz\n"
    assert "did you mean" not in refusal(capsys, "sweep", "zzz", "x", "--over", "a=1")


def test_neighbors_is_an_alias_in_sweeps_too(capsys):
    argv = ["sweep", "privacy", "randomized_response", "-p", "n=2", "--over", "lam=1/4", "--format", "csv"]
    assert main([*argv, "--neighbors", "all-entries"]) == 0
    american = capsys.readouterr().out
    assert main([*argv, "--neighbours", "all-entries"]) == 0
    british = capsys.readouterr().out
    assert american.splitlines()[1].split(",")[:5] == british.splitlines()[1].split(",")[:5]
