"""Early refusals where wmcdp used to crash or run for minutes: runs-form counts past the domain and non-ASCII
digits, huge ``--times`` counts, inputs too many to enumerate, and the hub plan on noises with zero-weight values
or gaps in their support.

Each refusal runs through ``wmcdp.cli.main`` (exit status 2, one line ``wmcdp: error: ...`` under 200 characters,
within a few seconds) and, where there is one, through the API (a :class:`WmcdpError`). Answers are compared with
a brute-force enumeration (tests/brute.py), the exhaustive sets or a closed form.
"""

import time

import pytest

from wmcdp import WmcdpError
from wmcdp.cli import main
from wmcdp.lang.shape import read_witness

#: seconds a refusal may take (the work is estimated before anything is allocated)
QUICK = 10.0

RR3 = ["privacy", "randomized_response", "-p", "n=3", "-p", "lam=1/4"]


def _refused(capsys, argv, *words):
    """Run ``argv``; it must be refused in one line naming ``words``, quickly."""
    start = time.perf_counter()
    code = main(argv)
    seconds = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert code == 2, err
    assert err.startswith("wmcdp: error: ") and err.count("\n") <= 1 and "Traceback" not in err
    assert len(err.strip()) < 200, err
    assert seconds < QUICK, seconds
    for word in words:
        assert word in err, err
    return err


# -- the runs form ------------------------------------------------------------------------------


def test_a_run_past_the_domain_is_refused(capsys):
    _refused(capsys, [*RR3, "--at", "0^99999999999999999999"], "more than 3 entries", "99999999999999999999")
    _refused(capsys, [*RR3, "--at", "(0^4)"], "more than 3 entries")


def test_sample_input_run_past_the_domain_is_refused(capsys):
    argv = ["sample", "randomized_response", "-p", "n=3", "-p", "lam=1/4", "-k", "10", "--input"]
    _refused(capsys, [*argv, "0^99999999999999999999"], "more than 3 entries")
    _refused(capsys, [*argv, "0^\u0662\u0660\u0660"])  # Arabic-Indic digits: 200


@pytest.mark.parametrize("text", ["0^\u0663", "\u0660\u0661\u0660", "0,\u0661,0", "0^3\u0663"])
def test_runs_forms_and_digit_strings_take_ascii_digits_only(capsys, text):
    _refused(capsys, [*RR3, "--at", text])


def test_the_runs_form_reader_refuses_before_it_builds():
    with pytest.raises(WmcdpError, match="more than 3 entries"):
        read_witness("0^99999999999999999999", most=3)
    with pytest.raises(WmcdpError, match="more than 5 entries"):
        read_witness("(1^3, 2^3)", most=5)
    with pytest.raises(WmcdpError):
        read_witness("1^\u0663")
    assert read_witness("0^3 1", most=4) == (0, 0, 0, 1)
    assert read_witness("(2^2, [0^4 1])", most=5) == (2, 2, (0, 0, 0, 0, 1))
