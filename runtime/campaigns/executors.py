"""Where campaign runs execute: in this process, a local process pool (one worker per core by
default) or a Dask distributed cluster (``--scheduler ADDRESS``, the ``navproof[dask]`` extra).

Each executor takes a list of tasks (:mod:`.worker`) and yields their results as they finish,
each exactly once. A worker that dies mid-run has its run retried: the pool rebuilds itself and
resubmits what had not come back, Dask reschedules the task on another worker. The coordinator
holds only the tasks in flight and writes each result to the results file as it arrives.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from navproof.campaigns.worker import run_task
from navproof.core.errors import InvalidInput

MAX_POOL_RESTARTS = 5
"""A pool whose workers keep dying (more restarts than this in one campaign) is an error."""


class ExecutorError(InvalidInput):
    """The executor cannot be used (an unreachable scheduler, workers that keep dying)."""


class InProcess:
    """Runs every task in this process, one after the other (``--workers 0``)."""

    name = "in-process"
    workers = 1

    def run(self, tasks: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for task in tasks:
            yield run_task(task)

    def close(self) -> None:
        pass


class LocalPool:
    """A pool of ``workers`` processes (default: one per core), started once per campaign."""

    name = "local pool"

    def __init__(self, workers: int | None = None) -> None:
        self.workers = int(workers or os.cpu_count() or 1)
        if self.workers < 1:
            raise ExecutorError("--workers", workers, "must be >= 1 (0: in this process)")
        self._pool: ProcessPoolExecutor | None = None
        self.restarts = 0

    def _get(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers,
                                             mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    def run(self, tasks: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        pending = {t["index"]: t for t in tasks}
        # a bounded number in flight: the coordinator holds little, the pool stays busy
        window = 4 * self.workers
        queue = list(pending)
        futures: dict[Future[dict[str, Any]], int] = {}
        while pending:
            while queue and len(futures) < window:
                i = queue.pop(0)
                futures[self._get().submit(run_task, pending[i])] = i
            finished, _ = wait(futures, return_when=FIRST_COMPLETED)
            broken = False
            for future in finished:
                i = futures.pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    broken = True
                    continue
                pending.pop(i, None)
                yield result
            if broken:
                # a worker died: every run in flight is retried on a fresh pool
                self.restarts += 1
                if self.restarts > MAX_POOL_RESTARTS:
                    raise ExecutorError("--workers", self.workers,
                                        f"pool workers died {self.restarts} times")
                queue = sorted(pending)
                futures = {}
                if self._pool is not None:
                    self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class DaskCluster:
    """A Dask distributed cluster at ``address`` (``tcp://host:8786``); connecting fails within
    ``timeout_s`` with :class:`ExecutorError`. Each run is one task (retried up to
    ``retries`` times when its worker dies or it raises)."""

    name = "dask"

    def __init__(self, address: str, *, timeout_s: float = 10.0, retries: int = 3) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ExecutorError("--scheduler", address, "needs Dask: pip install "
                                                        "'navproof[dask]'") from None
        try:
            self.client = Client(address, timeout=f"{timeout_s}s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise ExecutorError("--scheduler", address,
                                f"cannot reach the scheduler ({type(exc).__name__}: "
                                f"{exc})") from None
        self.retries = retries
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))

    def run(self, tasks: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        from distributed import as_completed

        futures = [self.client.submit(run_task, t, key=f"navproof-run-{t['index']}-{os.getpid()}"
                                      f"-{id(t)}", pure=False, retries=self.retries)
                   for t in tasks]
        seen: set[int] = set()
        for future in as_completed(futures):
            result = future.result()
            if result["index"] not in seen:
                seen.add(result["index"])
                yield result
            future.release()

    def close(self) -> None:
        self.client.close()


def make_executor(workers: int | None, scheduler: str | None) -> Any:
    """The executor of the command line: ``--scheduler`` (Dask), else ``--workers`` processes
    (0: in this process)."""
    if scheduler:
        return DaskCluster(scheduler)
    if workers == 0:
        return InProcess()
    return LocalPool(workers)
