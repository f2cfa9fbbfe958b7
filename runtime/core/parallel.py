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
from concurrent.futures import ThreadPoolExecutor

THREAD_PIECES = 16
"""Pieces a threaded compiled loop is cut into: a busy core's share moves to the free one."""

_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


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
    items on (below it a hand-off to a helper costs more than it saves), else one."""
    return available_cpus() if work >= min_work else 1


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
