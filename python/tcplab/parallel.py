"""The execution layer under sweeps and paper reproductions: many independent simulations on
a dask.distributed cluster (a LocalCluster by default, an existing scheduler on request).

Simulations vary from a millisecond to minutes of wall time, and Dask costs about a
millisecond per task, so runs are grouped into chunks whose size adapts to the measured cost
of a run (about :data:`TARGET_TASK_S` of work per task) and only a few chunks per worker
thread are in flight at once: the scheduler never holds a task per run of a 10^5-run sweep,
and results stream back in completion order, to be stored as they arrive.
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterable, Iterator, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Wall seconds of simulation a chunk should hold once the cost of a run is known.
TARGET_TASK_S = 0.5
#: Largest chunk (bounds the work lost when a worker dies, and the result message size).
MAX_CHUNK = 256
#: Chunks in flight per worker thread: enough to hide scheduling latency, few enough that a
#: sweep's tail is balanced.
INFLIGHT_PER_THREAD = 3


def run_chunk(fn: Callable[..., R], shared: Any, items: Sequence[Any]) -> tuple[list[R], float]:
    """Worker side: ``[fn(shared, item) for item in items]`` and the wall time it took."""
    t0 = time.perf_counter()
    out = [fn(shared, item) for item in items]
    return out, time.perf_counter() - t0


def _warm_up() -> None:
    """Worker side: import what a run needs (the extension, the scenario checker, the sweep)."""
    from . import _tcplab, runner, sweeps  # noqa: F401


@dataclass
class Failure:
    """A single item whose task failed outside ``fn`` (its worker died, or ``fn`` raised)."""

    item: Any
    error: str


class Engine(Generic[T, R]):
    """A dask.distributed client for the duration of a ``with`` block.

    - ``scheduler=None``: a LocalCluster of ``workers`` processes (default: all cores), one
      thread each (a simulation is single-threaded); ``processes=False`` makes it ``workers``
      threads in this process instead (no pickling of results; the simulator releases the
      GIL while it runs).
    - ``scheduler="tcp://host:8786"``: an existing scheduler (e.g. one dask-jobqueue started
      on SLURM or PBS); its workers need tcplab installed and the scenario's trace files at
      the same paths.
    - ``scheduler=<distributed.Client or Cluster>``: used as it is and left open.
    """

    def __init__(self, workers: int | None = None, scheduler: Any = None, *, processes: bool = True):
        if workers is not None and workers < 1:
            raise ValueError("workers must be at least 1")
        self.workers = workers or os.cpu_count() or 1
        self.scheduler = scheduler
        self.processes = processes
        self._client: Any = None
        self._cluster: Any = None
        self._config: Any = None
        self._own_client = False
        self._threads, self._threads_at = 1, -1e9

    def __enter__(self) -> "Engine[T, R]":
        from distributed import Client

        sched = self.scheduler
        if sched is None:
            import dask
            from distributed import LocalCluster

            # A simulation is one long call into Rust: the workers' statistical profiler
            # (a stack sample every 10 ms) would only steal CPU from it on a small machine.
            self._config = dask.config.set({"distributed.worker.profile.enabled": False})
            self._config.__enter__()
            self._cluster = LocalCluster(
                n_workers=1 if not self.processes else self.workers,
                threads_per_worker=self.workers if not self.processes else 1,
                processes=self.processes,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            self._client = Client(self._cluster, set_as_default=False)
            self._own_client = True
            if self.processes:
                # Start-up is a fixed cost: pay it before the first run, on every worker at
                # once, rather than inside the first chunks that measure the cost of a run.
                self._client.wait_for_workers(self.workers)
                self._client.run(_warm_up)
        elif isinstance(sched, str):
            self._client = Client(sched, set_as_default=False, timeout="30s")
            self._own_client = True
        elif isinstance(sched, Client):
            self._client = sched
        else:  # a Cluster object (LocalCluster, dask_jobqueue.SLURMCluster, ...)
            self._client = Client(sched, set_as_default=False)
            self._own_client = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._own_client and self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        if self._config is not None:
            self._config.__exit__(None, None, None)
        self._client = self._cluster = self._config = None

    @property
    def threads(self) -> int:
        """Worker threads the cluster has (at least 1, so a cluster still scaling up is fed).
        Asking is a round trip to the scheduler, so the answer is kept for a second."""
        now = time.monotonic()
        if now - self._threads_at >= 1.0:
            try:
                self._threads = max(1, sum(self._client.nthreads().values()))
            except Exception:  # noqa: BLE001 - a scheduler that cannot answer: feed one thread
                self._threads = 1
            self._threads_at = now
        return self._threads

    def map(
        self,
        fn: Callable[[Any, T], R],
        items: Iterable[T],
        shared: Any = None,
        *,
        isolate_failures: bool = False,
    ) -> Iterator[list[tuple[T, R | Failure]]]:
        """Applies ``fn(shared, item)`` to every item; yields ``[(item, result), ...]`` per
        finished chunk, in completion order. ``fn`` must be importable by the workers.

        When a chunk's task fails (``fn`` raised, or its worker died): with
        ``isolate_failures`` the chunk's items are retried one per task and an item that
        still fails yields a :class:`Failure`; without it the exception propagates."""
        from distributed import as_completed

        client = self._client
        if client is None:
            raise RuntimeError("Engine.map outside its with block")
        pending: deque[T] = deque(items)
        retry_alone: deque[T] = deque()
        shared_f = client.scatter(shared, broadcast=True) if shared is not None and self.processes else shared
        per_item_s: float | None = None
        busy_s, busy_items = 0.0, 0
        seq = as_completed(loop=client.loop)
        futures: dict[Any, tuple[list[T], bool]] = {}

        def chunk_size() -> int:
            if per_item_s is None:
                return 1  # the first chunks measure the cost of a run
            spread = max(1, len(pending) // (self.threads * INFLIGHT_PER_THREAD))
            return max(1, min(MAX_CHUNK, spread, int(TARGET_TASK_S / max(per_item_s, 1e-6))))

        def submit() -> None:
            limit = self.threads * INFLIGHT_PER_THREAD
            while len(futures) < limit and (retry_alone or pending):
                if retry_alone:
                    chunk, alone = [retry_alone.popleft()], True
                else:
                    n = chunk_size()
                    chunk, alone = [pending.popleft() for _ in range(min(n, len(pending)))], False
                f = client.submit(run_chunk, fn, shared_f, chunk, pure=False)
                futures[f] = (chunk, alone)
                seq.add(f)

        submit()
        while futures:
            f = next(seq)
            chunk, alone = futures.pop(f)
            try:
                results, elapsed = f.result()
            except Exception as e:  # noqa: BLE001 - the task failed as a whole
                if not isolate_failures:
                    raise
                if alone or len(chunk) == 1:
                    yield [(chunk[0], Failure(chunk[0], f"{type(e).__name__}: {e}"))]
                else:
                    retry_alone.extend(chunk)
                submit()
                continue
            # The mean over every finished run: the first runs of a worker pay its imports,
            # which a running average would keep paying for in small chunks.
            busy_s += elapsed
            busy_items += len(chunk)
            per_item_s = busy_s / busy_items
            submit()
            yield list(zip(chunk, results))
