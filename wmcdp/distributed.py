"""Exhaustive runs spread over a Dask cluster (optional extra ``[distributed]``).

A run over exhaustive sets is a series of *stripes*: the joint table ``P(y | x)`` for all
inputs and one block of outputs (:meth:`wmcdp.probabilities.Counter.stripes`). Workers take
stripes: each one builds the program again from its name or ``file.py:function`` and its
parameters, compiles it, counts its stripes and scans them (:mod:`wmcdp.scan` for privacy,
window sums for accuracy). The scans merge into the same bound and the same witness as a
serial run: the larger value wins, and among equal values the witness that comes first in the
set's order (witness keys are positions in the whole set).

    with Workers(2) as workers:                      # a LocalCluster of 2 processes
        synthesize_privacy(prog, workers=workers)
    with Workers(scheduler="tcp://10.0.0.5:8786"):   # a running Dask cluster
        ...

On a real cluster every worker needs wmcdp installed (and a user program file at the same
path); start the scheduler with ``dask scheduler`` and the workers with
``dask worker tcp://SCHEDULER:8786 --nthreads 1``.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from typing import Any

import numpy as np

from .errors import WmcdpError
from .registry import build_program, find_relation


class Workers:
    """A Dask client: a new LocalCluster of ``n`` single-threaded processes, or an existing scheduler."""

    def __init__(self, n: int | None = None, *, scheduler: str | None = None) -> None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise WmcdpError("spreading a run over workers needs Dask: pip install 'wmcdp[distributed]'") from None
        if (n is None) == (scheduler is None):
            raise WmcdpError("give either a number of workers or a scheduler address")
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise WmcdpError(f"the number of workers must be a whole number >= 1, got {n!r}")
        self.cluster = None
        try:
            if scheduler is None:
                self.cluster = LocalCluster(
                    n_workers=n,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",
                    silence_logs=logging.ERROR,
                )
                self.client = Client(self.cluster)
            else:
                self.client = Client(scheduler, timeout="10s")
        except OSError as exc:
            raise WmcdpError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
        self.size = max(1, len(self.client.scheduler_info().get("workers", {})) or (n or 1))
        self.client.run(_load)  # every worker loads wmcdp now, not inside the first run

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        self.close(interrupted=kind is KeyboardInterrupt)

    def close(self, interrupted: bool = False) -> None:
        """Close the client and the local cluster; after Ctrl-C quietly and at once (the local workers,
        which ignore Ctrl-C themselves, are stopped with their cluster)."""
        if interrupted:
            for name in ("distributed", "tornado", "asyncio"):
                logging.getLogger(name).setLevel(logging.CRITICAL + 1)
            if self.cluster is not None:  # our own local workers: stop them now rather than after their tasks
                import psutil

                for child in psutil.Process().children(recursive=True):
                    try:
                        if "resource_tracker" not in " ".join(child.cmdline()):  # multiprocessing's own helper
                            child.kill()
                    except psutil.Error:
                        pass
        try:
            self.client.close(timeout=1 if interrupted else None)
            if self.cluster is not None:
                self.cluster.close(timeout=1 if interrupted else None)
        except Exception:  # after Ctrl-C a worker that does not stop in time is left to the cluster's teardown
            if not interrupted:
                raise

    # -- jobs --------------------------------------------------------------------------------
    @staticmethod
    def _job(compiled: Any, exact: Any) -> dict:
        """What a worker needs to build the program again: its name or ``FILE.py:FUNC`` and its parameters
        when it has them (a built-in, or a program from the command line), else the program itself,
        pickled by value with ``cloudpickle`` (its body is any function, a lambda included)."""
        program = compiled.program
        job = {"backend": compiled.backend.name, "exact": exact}
        if program.source:
            return {**job, "source": program.source, "params": dict(program.params)}
        import cloudpickle

        module = getattr(program.body, "__module__", None)
        by_value = isinstance(module, str) and module != "__main__" and not module.startswith("wmcdp.")
        if by_value:  # a module the workers may not import (a test file, a notebook's helpers): send its code
            cloudpickle.register_pickle_by_value(importlib.import_module(str(module)))
        try:
            return {**job, "pickled": cloudpickle.dumps(program)}
        finally:
            if by_value:
                cloudpickle.unregister_pickle_by_value(importlib.import_module(str(module)))

    def _split(self, counter: Any) -> tuple[int, list[list[int]]]:
        fixed = counter.fixed_groups(at_least=2 * self.size)
        count = int(np.prod([g.size for g in counter.compiled.output_groups[:fixed]], dtype=object))
        parts = [list(range(k, count, self.size)) for k in range(self.size)]
        return fixed, [p for p in parts if p]

    def privacy(self, compiled: Any, relation: Any, exact: Any) -> Any:
        """Algorithm 2 over the exhaustive sets, stripes spread over the workers: the merged scan."""
        from .probabilities import Counter, number_system
        from .scan import RatioScan

        job = self._job(compiled, exact)
        job["relation"] = relation.name if relation.builtin else None
        if job["relation"] is None:
            raise WmcdpError("a run over workers needs a built-in neighbour relation")
        counter = Counter(compiled, number_system(compiled, exact))
        fixed, parts = self._split(counter)
        futures = [self.client.submit(_privacy_task, job, fixed, part, pure=False) for part in parts]
        merged = RatioScan(counter.arith)
        for state in self.client.gather(futures):
            merged.merge(RatioScan.of_state(counter.arith, state))
        return merged

    def accuracy(self, compiled: Any, first: np.ndarray, last: np.ndarray, exact: Any) -> tuple[Any, Any]:
        """Window sums inside and outside for every input, stripes spread over the workers."""
        from .probabilities import Counter, number_system

        job = self._job(compiled, exact)
        counter = Counter(compiled, number_system(compiled, exact))
        arith = counter.arith
        fixed, parts = self._split(counter)
        futures = [self.client.submit(_accuracy_task, job, fixed, part, first, last, pure=False) for part in parts]
        inside = outside = None
        for s_in, s_out in self.client.gather(futures):
            inside = s_in if inside is None else arith.add(inside, s_in)
            outside = s_out if outside is None else arith.add(outside, s_out)
        return inside, outside


def _load() -> None:
    """On each worker: load wmcdp now; a local worker ignores Ctrl-C (the run's own process handles it)."""
    import signal

    import wmcdp.accuracy  # noqa: F401
    import wmcdp.privacy  # noqa: F401

    with contextlib.suppress(ValueError):  # not the worker's main thread: it keeps the default handler
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _worker_counter(job: dict) -> Any:
    from .probabilities import Counter, as_compiled, number_system

    if "pickled" in job:
        import cloudpickle

        program = cloudpickle.loads(job["pickled"])
    else:
        program = build_program(job["source"], job["params"])
    compiled = as_compiled(program, job["backend"], job["exact"])
    return Counter(compiled, number_system(compiled, job["exact"]))


def _privacy_task(job: dict, fixed: int, stripes: list[int]) -> tuple:
    """On a worker: scan some stripes; the scan's state goes back."""
    from .privacy import scan_exhaustive
    from .scan import RatioScan

    counter = _worker_counter(job)
    scan = RatioScan(counter.arith)
    scan_exhaustive(counter, find_relation(job["relation"]), scan, fixed, stripes)
    return scan.state()


def _accuracy_task(job: dict, fixed: int, stripes: list[int], first: np.ndarray, last: np.ndarray) -> tuple:
    """On a worker: window sums of some stripes."""
    from .accuracy import window_sums

    counter = _worker_counter(job)
    arith = counter.arith
    inside = outside = None
    for y0, table in counter.stripes(fixed, stripes):
        s_in, s_out = window_sums(arith, table, first, last, y0)
        inside = s_in if inside is None else arith.add(inside, s_in)
        outside = s_out if outside is None else arith.add(outside, s_out)
    return inside, outside


def check_workers(workers: Any) -> None:
    """A ``workers=`` argument must be a :class:`Workers` (or None): anything else is one clear error."""
    if workers is not None and not isinstance(workers, Workers):
        raise WmcdpError(
            f"workers must be a wmcdp.distributed.Workers, e.g. `with Workers(2) as w: "
            f"synthesize_privacy(prog, workers=w)`, got {type(workers).__name__} {workers!r:.40}"
        )


__all__ = ["Workers", "check_workers"]
