"""Sharing a compiled loop's pieces between the calling thread and helper threads.

The caller works through the pieces itself while helpers take pieces from the same counter,
so a helper that the operating system does not schedule (a loaded machine) costs nothing: the
caller does all the work and the helper's unstarted task is cancelled. Worth it only for
compiled loops, which release the interpreter lock; numpy code made of many short calls
mostly waits for the lock in a second thread. Each piece writes its own rows, so the result
does not depend on which thread ran which piece.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

THREAD_PIECES = 16
"""Pieces a threaded compiled loop is cut into: a busy core's share moves to the free one."""

_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()
_THIS_THREAD = threading.local()


def _pool(helpers: int) -> ThreadPoolExecutor:
    with _POOLS_LOCK:
        pool = _POOLS.get(helpers)
        if pool is None:
            pool = ThreadPoolExecutor(max_workers=helpers, thread_name_prefix="navproof")
            _POOLS[helpers] = pool
        return pool


def run_pieces(task: Callable[[int], None], pieces: int, *, threads: int) -> None:
    """Call ``task(i)`` once for every ``i < pieces``, on up to ``threads`` threads."""
    helpers = min(threads, pieces) - 1
    if helpers <= 0:
        for i in range(pieces):
            task(i)
        return
    counter = itertools.count()  # next() on it is atomic under the interpreter lock

    def work() -> None:
        for i in counter:
            if i >= pieces:
                return
            task(i)

    futures = [_pool(helpers).submit(work) for _ in range(helpers)]
    work()
    for future in futures:
        if not future.cancel():
            future.result()


def available_cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not offered on every platform
        return os.cpu_count() or 1


def thread_count(work: int, min_work: int) -> int:
    """Threads for a compiled loop of ``work`` items: every available CPU from ``min_work``
    items on (below it a hand-off to a helper costs more than it saves), else one; one on the
    thread of :class:`Beside` (its call runs beside the caller's, which keeps the helpers)."""
    if work < min_work or getattr(_THIS_THREAD, "beside", False):
        return 1
    return available_cpus()


def piece_bounds(rows: int, threads: int) -> list[int]:
    """Row bounds of the pieces of a loop over ``rows`` rows on ``threads`` threads: one piece
    on one thread, else THREAD_PIECES (at most one per row)."""
    pieces = max(1, min(THREAD_PIECES, rows)) if threads > 1 else 1
    return [rows * k // pieces for k in range(pieces + 1)]


def run_row_pieces(task: Callable[[int, int], None], rows: int, *, min_rows: int) -> None:
    """Call ``task(lo, hi)`` on the pieces of a compiled loop over ``rows`` rows
    (:func:`piece_bounds`), on :func:`thread_count` threads; below ``min_rows`` rows that is
    the one piece ``task(0, rows)``, called directly (no pieces and no hand-off: a step of a
    thousand agents makes some ten such calls)."""
    if rows < min_rows:
        task(0, rows)
        return
    threads = thread_count(rows, min_rows)
    bounds = piece_bounds(rows, threads)
    run_pieces(lambda k: task(bounds[k], bounds[k + 1]), len(bounds) - 1, threads=threads)


_BESIDE: list[ThreadPoolExecutor] = []
"""The one thread that runs :class:`Beside` calls (its own, so that the pieces of the compiled
loops the caller runs meanwhile keep their helper)."""


def _mark_beside() -> None:
    _THIS_THREAD.beside = True


def _beside_pool() -> ThreadPoolExecutor:
    with _POOLS_LOCK:
        if not _BESIDE:
            _BESIDE.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="navproof-beside",
                                              initializer=_mark_beside))
        return _BESIDE[0]


class Beside:
    """``task(*args)`` run beside the caller's own work: on a thread of its own when another
    CPU is available (the caller goes on meanwhile; calls started there run one after the
    other, each on that one thread: :func:`thread_count` is one there), else at once on the
    caller's thread, raising there. :meth:`join` returns its value or raises its exception; a
    call that thread has not started by then is taken back and run by the caller, so a
    machine too loaded to schedule that thread costs no waiting. The task must read nothing
    the caller writes before it joins, and write nothing the caller reads before then."""

    def __init__(self, task: Callable[..., Any], *args: Any) -> None:
        self._task, self._args = task, args
        self._future: Future[Any] | None = None
        self._value: Any = None
        if available_cpus() > 1:
            self._future = _beside_pool().submit(task, *args)
        else:
            self._value = task(*args)

    def join(self) -> Any:
        """The task's value (its exception is raised here)."""
        future, self._future = self._future, None
        if future is not None:
            self._value = self._task(*self._args) if future.cancel() else future.result()
        return self._value
