"""Row pieces of the compiled loops (:mod:`navproof.core.parallel`)."""

from __future__ import annotations

import threading

import pytest

from navproof.core import parallel
from navproof.core.parallel import Beside, piece_bounds, run_row_pieces, thread_count

MIN_ROWS = 4096


def test_row_pieces_below_the_threading_size_are_one_direct_piece() -> None:
    for rows in (0, 1, 999, MIN_ROWS - 1, MIN_ROWS, 3 * MIN_ROWS + 5):
        calls: list[tuple[int, int]] = []
        run_row_pieces(lambda lo, hi, calls=calls: calls.append((lo, hi)), rows,
                       min_rows=MIN_ROWS)
        bounds = piece_bounds(rows, thread_count(rows, MIN_ROWS))
        # every piece once (threads may take them in any order), and they cover the rows
        assert sorted(calls) == list(zip(bounds[:-1], bounds[1:], strict=True))
        assert bounds[0] == 0 and bounds[-1] == rows
        if rows < MIN_ROWS:
            assert calls == [(0, rows)]


def test_beside_returns_the_value_and_raises_the_exception_at_join() -> None:
    assert Beside(lambda a, b: a + b, 2, 3).join() == 5

    def fails() -> None:
        raise ValueError("from the task")

    try:
        task = Beside(fails)
    except ValueError:
        # one CPU: the task ran at once on this thread and raised there
        return
    with pytest.raises(ValueError, match="from the task"):
        task.join()


def test_a_call_beside_runs_its_compiled_loops_on_one_thread() -> None:
    # the caller keeps the helpers: a loop started beside is one piece (the task is let run
    # there before the join, which would take an unstarted task back)
    seen: list[int] = []
    done = threading.Event()

    def count() -> None:
        seen.append(thread_count(10 * MIN_ROWS, MIN_ROWS))
        done.set()

    task = Beside(count)
    assert done.wait(10.0)
    task.join()
    assert seen == [1]
    assert thread_count(10 * MIN_ROWS, MIN_ROWS) == parallel.available_cpus()


def test_beside_on_one_cpu_runs_the_task_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "available_cpus", lambda: 1)
    ran_on: list[threading.Thread] = []
    task = parallel.Beside(lambda: ran_on.append(threading.current_thread()))
    assert ran_on == [threading.current_thread()]
    task.join()
    assert len(ran_on) == 1


def test_a_task_the_thread_has_not_started_is_run_by_the_caller(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "available_cpus", lambda: 2)
    # hold the one beside thread busy so that the second task waits in its queue
    release = threading.Event()
    started = threading.Event()

    def hold() -> None:
        started.set()
        release.wait(10.0)

    first = parallel.Beside(hold)
    assert started.wait(10.0)
    ran_on: list[threading.Thread] = []
    second = parallel.Beside(lambda: ran_on.append(threading.current_thread()) or 7)
    assert second.join() == 7
    assert ran_on == [threading.current_thread()]
    release.set()
    first.join()
