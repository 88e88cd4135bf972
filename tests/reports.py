"""The audits' ``--report`` files as a maintainer uses them: the script a report holds, run without wmcdp."""

import contextlib
import decimal
import io
import random
import subprocess
import sys

import numpy as np


def script_output(report: str, alone: bool = False) -> list[str]:
    """The lines the report's Python script prints with wmcdp made unimportable (it must not name wmcdp at all).

    ``alone``: in a fresh interpreter, as a maintainer runs it. Otherwise in this one, which spares the
    interpreter's start and the library's import (seconds for diffprivlib, pure-ldp and OpenDP): the script runs
    as ``__main__`` with ``import wmcdp`` (and of its loaded modules) failing, in a decimal context of its own, and
    the random and numpy global states are restored after it. Each audit's tests run at least one of its reports
    ``alone``, and one report of each (epsilon, delta) kind too."""
    script = report.split("```python\n", 1)[1].split("```", 1)[0]
    assert "wmcdp" not in script
    if alone:
        code = "import sys\nsys.modules['wmcdp'] = None\n" + script
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
        return done.stdout.splitlines()
    return _output_here(script).splitlines()


def _output_here(script: str) -> str:
    """What ``script`` prints when run in this interpreter with ``import wmcdp`` failing."""
    printed = io.StringIO()
    loaded = {name: module for name, module in sys.modules.items() if name.split(".")[0] == "wmcdp"}
    states = random.getstate(), np.random.get_state()
    sys.modules.update(dict.fromkeys(loaded))  # None: import wmcdp and of every wmcdp.x raises ImportError
    try:
        with decimal.localcontext(), contextlib.redirect_stdout(printed):
            exec(compile(script, "<report script>", "exec"), {"__name__": "__main__"})
    finally:
        sys.modules.update(loaded)
        random.setstate(states[0])
        np.random.set_state(states[1])
    return printed.getvalue()
