"""The audits' ``--report`` files as a maintainer uses them: the script a report holds, run without wmcdp."""

import subprocess
import sys


def script_output(report: str) -> list[str]:
    """The lines the report's Python script prints when run with wmcdp made unimportable (it must not name
    wmcdp at all)."""
    script = report.split("```python\n", 1)[1].split("```", 1)[0]
    assert "wmcdp" not in script
    code = "import sys\nsys.modules['wmcdp'] = None\n" + script
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.splitlines()
