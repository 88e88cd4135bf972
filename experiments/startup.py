"""Start-up cost of the ``wmcdp`` command: CPU seconds of a fresh process, best of several runs.

Each row is one fresh interpreter (``sys.executable``) running a ``-c`` script; its CPU time (user +
system of the child, from ``resource.getrusage``) is measured here, and the table gives the best of
``--repeat`` runs (the first touch of files and memory on a shared machine costs more than a warm
start). The commands call ``wmcdp.cli.main`` as the installed ``wmcdp`` script does.

The target (issue 31): ``wmcdp --version``, ``wmcdp --help`` and ``wmcdp privacy --help`` within
2 x ``python -c "import numpy"``.

    python experiments/startup.py               # best of 7
    python experiments/startup.py --repeat 15
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys

MAIN = "import sys; from wmcdp.cli import main; sys.exit(main(sys.argv[1:]))"

#: (label, -c script, arguments)
CASES: list[tuple[str, str, list[str]]] = [
    ("python -c pass", "pass", []),
    ('python -c "import numpy"', "import numpy", []),
    ("wmcdp --version", MAIN, ["--version"]),
    ("wmcdp --help", MAIN, ["--help"]),
    ("wmcdp privacy --help", MAIN, ["privacy", "--help"]),
    (
        "wmcdp privacy randomized_response -p n=4 -p lam=0.2",
        MAIN,
        ["privacy", "randomized_response", "-p", "n=4", "-p", "lam=0.2"],
    ),
]


def cpu_seconds(script: str, arguments: list[str]) -> float:
    """The CPU seconds (user + system) of one fresh process running ``script``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", script, *arguments], check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per command; the best is shown (default 7)")
    args = parser.parse_args()
    best = {label: min(cpu_seconds(script, argv) for _ in range(args.repeat)) for label, script, argv in CASES}
    numpy = best['python -c "import numpy"']
    width = max(len(label) for label in best)
    print(f"{'command':<{width}}  {'CPU s':>7}  {'x pass':>7}  {'x numpy':>7}  (best of {args.repeat})")
    for label, seconds in best.items():
        print(f"{label:<{width}}  {seconds:>7.3f}  {seconds / best['python -c pass']:>7.1f}  {seconds / numpy:>7.2f}")


if __name__ == "__main__":
    main()
