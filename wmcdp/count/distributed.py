"""Exhaustive runs spread over a Dask cluster (optional extra ``[distributed]``).

A run over exhaustive sets is a series of *stripes*: the joint table ``P(y | x)`` for all
inputs and one block of outputs (:meth:`wmcdp.count.probabilities.Counter.stripes`). Workers take
stripes: each one builds the program again from its name or ``file.py:function`` and its
parameters, compiles it, counts its stripes and scans them (:mod:`wmcdp.count.scan` for privacy,
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
import os
import signal
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..base.errors import WmcdpError
from ..lang.registry import build_program
from .probabilities import Counter, as_compiled, number_system


class Workers:
    """A Dask client: a new LocalCluster of ``n`` single-threaded processes, or an existing scheduler."""

    def __init__(self, n: int | None = None, *, scheduler: str | None = None) -> None:
        try:
            from dask.distributed import Client, LocalCluster  # deferred: Dask is the optional extra distributed
        except ImportError:
            raise WmcdpError("spreading a run over workers needs Dask: pip install 'wmcdp[distributed]'") from None
        if (n is None) == (scheduler is None):
            raise WmcdpError("give either a number of workers or a scheduler address")
        if n is not None:
            _check_count(n)
        else:
            _check_address(scheduler)
        self.cluster = None
        try:
            with warnings.catch_warnings():  # Dask's start-up warnings (slow scratch directories, ports) are noise here
                warnings.simplefilter("ignore")
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
                    self.client = Client(scheduler, timeout=f"{CONNECT_SECONDS}s")
        except (OSError, ValueError) as exc:
            where = f"the Dask scheduler {scheduler}" if scheduler is not None else f"a local cluster of {n} workers"
            raise WmcdpError(
                f"cannot reach {where}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            ) from None
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
                import psutil  # deferred: comes with Dask, the optional extra distributed

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
    def _job(compiled: Any, exact: Any) -> dict[str, Any]:
        """What a worker needs to build the program again: its name or ``FILE.py:FUNC`` and its parameters
        when it has them (a built-in, or a program from the command line), else the program itself,
        pickled by value with ``cloudpickle`` (its body is any function, a lambda included)."""
        program = compiled.program
        job = {"backend": compiled.backend.name, "exact": exact}
        if program.source:
            return {**job, "source": program.source, "params": dict(program.params)}
        import cloudpickle  # deferred: part of the optional extra distributed

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

    def stripes(self, compiled: Any, exact: Any, task: Callable[..., Any], *args: Any) -> list[Any]:
        """``task(job, fixed, stripes, *args)`` on the workers, each over its share of the stripes of the
        joint table (:meth:`wmcdp.count.probabilities.Counter.stripes`); their results, in order. ``task`` is a
        module-level function (workers import it by name) that rebuilds the counter with
        :func:`worker_counter` ``(job)``."""
        counter = Counter(compiled, number_system(compiled, exact))
        job = self._job(compiled, exact)
        fixed, parts = self._split(counter)
        futures = [self.client.submit(task, job, fixed, part, *args, pure=False) for part in parts]
        return list(self.client.gather(futures))


#: seconds to wait for a scheduler given by address
CONNECT_SECONDS = 5

#: schemes of a Dask scheduler address another process can reach
SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")


def max_local_workers() -> int:
    """The most local workers a run starts: two per processor this process may use (at least 4)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(4, 2 * cpus)


def _check_count(n: object) -> None:
    """A number of local workers: a whole number from 1 to :func:`max_local_workers`."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise WmcdpError(f"the number of workers must be a whole number >= 1, got {n!r:.40}")
    if n > max_local_workers():
        raise WmcdpError(
            f"{n} local workers are more than this machine runs usefully (at most {max_local_workers()}, two per "
            "processor); give fewer, or start workers on other machines and give their scheduler"
        )


def _check_address(scheduler: object) -> None:
    """A scheduler address another process can reach: ``SCHEME://HOST:PORT`` (or ``HOST:PORT``, tcp)."""
    # deferred: Dask is the optional extra distributed
    from distributed.comm.addressing import parse_address, parse_host_port

    form = "give an address such as tcp://10.0.0.5:8786"
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise WmcdpError(f"the scheduler address is empty; {form}")
    try:
        scheme, location = parse_address(scheduler)
        if scheme not in SCHEMES:
            raise ValueError(f"the scheme {scheme!r} is not one of {', '.join(SCHEMES)}")
        _, port = parse_host_port(location)
        if not 0 < int(port) < 1 << 16:
            raise ValueError(f"port {port} is not from 1 to 65535")
    except (ValueError, TypeError) as exc:
        raise WmcdpError(f"{scheduler!r:.60} is not a Dask scheduler address ({exc}); {form}") from None


def _load() -> None:
    """On each worker: load wmcdp now; a local worker ignores Ctrl-C (the run's own process handles it)."""
    importlib.import_module("wmcdp")

    with contextlib.suppress(ValueError):  # not the worker's main thread: it keeps the default handler
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def worker_counter(job: dict[str, Any]) -> Any:
    """On a worker: the counter of the job's program (built again from its source, or unpickled)."""
    if "pickled" in job:
        import cloudpickle  # deferred: part of the optional extra distributed

        program = cloudpickle.loads(job["pickled"])
    else:
        program = build_program(job["source"], job["params"])
    compiled = as_compiled(program, job["backend"], job["exact"])
    return Counter(compiled, number_system(compiled, job["exact"]))


def local_only(workers: Any, sets: str) -> None:
    """A run over listed or orbit sets counts in this process: ``workers`` is one clear error there (``sets``
    names the notion's sets, e.g. ``"C and I"``)."""
    if workers is not None:
        raise WmcdpError(f"workers spread exhaustive sets only; give no {sets} (or the exhaustive ones)")


def check_workers(workers: Any) -> None:
    """A ``workers=`` argument must be a :class:`Workers` (or None): anything else is one clear error."""
    if workers is not None and not isinstance(workers, Workers):
        raise WmcdpError(
            f"workers must be a wmcdp.count.distributed.Workers, e.g. `with Workers(2) as w: "
            f"synthesize_privacy(prog, workers=w)`, got {type(workers).__name__} {workers!r:.40}"
        )


__all__ = ["Workers", "check_workers", "local_only", "worker_counter"]
