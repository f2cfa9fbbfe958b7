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
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

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
