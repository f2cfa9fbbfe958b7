"""Sharing a compiled loop's pieces between the calling thread and helper threads.

The caller works through the pieces itself while helpers take pieces from the same counter,
so a helper that the operating system does not schedule (a loaded machine) costs nothing: the
caller does all the work and the helper's unstarted task is cancelled. Worth it only for
compiled loops, which release the interpreter lock; numpy code made of many short calls
mostly waits for the lock in a second thread. Each piece writes its own rows, so the result
does not depend on which thread ran which piece.

On a loaded machine a helper can also cost time: the caller waits at the end for a piece the
helper took and the operating system then stopped. Each threaded loop therefore weighs what its
helpers saved (their pieces at the caller's pace) against the caller's wait; when the helpers
have cost more than they saved over recent loops, the next PAUSED_LOOPS loops run every piece
on the caller, the same pieces in the same order, so no result changes.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

THREAD_PIECES = 16
"""Pieces a threaded compiled loop is cut into: a busy core's share moves to the free one."""

PAUSED_LOOPS = 64
"""Threaded loops run on the caller alone after the helpers cost more than they saved."""

GAIN_MEMORY = 0.75
"""Weight of the earlier loops in the running sums of the helpers' gain and the loops' time."""

LOSS_TO_PAUSE = 0.05
"""Helpers pause when their running gain falls below minus this share of the loops' time."""

_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _pool(helpers: int) -> ThreadPoolExecutor:
    with _POOLS_LOCK:
        pool = _POOLS.get(helpers)
        if pool is None:
            pool = ThreadPoolExecutor(max_workers=helpers, thread_name_prefix="navproof")
            _POOLS[helpers] = pool
        return pool


class _HelperBalance:
    """The helpers' running gain and the threaded loops' running time (s, each weighted by
    :data:`GAIN_MEMORY` per loop), and how many more loops run on the caller alone. Updated
    under the interpreter lock; a lost update only shifts when helpers pause, never a result."""

    def __init__(self) -> None:
        self.gain_s = 0.0
        self.spent_s = 0.0
        self.paused = 0

    def record(self, gain_s: float, spent_s: float) -> None:
        """Add one loop's gain and time; pause the helpers when they have cost more than
        :data:`LOSS_TO_PAUSE` of the loops' time."""
        self.gain_s = GAIN_MEMORY * self.gain_s + gain_s
        self.spent_s = GAIN_MEMORY * self.spent_s + spent_s
        if self.gain_s < -LOSS_TO_PAUSE * self.spent_s:
            self.gain_s = self.spent_s = 0.0
            self.paused = PAUSED_LOOPS

    def pause(self) -> bool:
        """Whether this loop runs on the caller alone (counting it off the pause)."""
        if self.paused <= 0:
            return False
        self.paused -= 1
        return True


_BALANCE = _HelperBalance()


def run_pieces(task: Callable[[int], None], pieces: int, *, threads: int) -> None:
    """Call ``task(i)`` once for every ``i < pieces``, on up to ``threads`` threads (on the
    caller alone while helpers are paused, :class:`_HelperBalance`)."""
    helpers = min(threads, pieces) - 1
    if helpers <= 0 or _BALANCE.pause():
        for i in range(pieces):
            task(i)
        return
    counter = itertools.count()  # next() on it is atomic under the interpreter lock

    def work() -> int:
        done = 0
        for i in counter:
            if i >= pieces:
                return done
            task(i)
            done += 1
        return done

    started = time.perf_counter()
    futures = [_pool(helpers).submit(work) for _ in range(helpers)]
    own = work()
    worked = time.perf_counter()
    for future in futures:
        if not future.cancel():
            future.result()
    ended = time.perf_counter()
    # the helpers' pieces would have cost the caller its own pace each
    pace_s = (worked - started) / own if own else 0.0
    _BALANCE.record((pieces - own) * pace_s - (ended - worked), ended - started)


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
    (:func:`piece_bounds`), on :func:`thread_count` threads (one below ``min_rows`` rows)."""
    threads = thread_count(rows, min_rows)
    bounds = piece_bounds(rows, threads)
    run_pieces(lambda k: task(bounds[k], bounds[k + 1]), len(bounds) - 1, threads=threads)
