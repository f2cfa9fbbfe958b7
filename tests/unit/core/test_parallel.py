"""Threaded loops: every piece runs once, on helpers or on the caller, and helpers that cost
more than they save are paused without changing which pieces run."""

from __future__ import annotations

import threading

from navproof.core import parallel


def test_every_piece_runs_once_with_helpers_and_while_paused(monkeypatch):
    balance = parallel._HelperBalance()
    monkeypatch.setattr(parallel, "_BALANCE", balance)
    for paused in (0, 3):
        balance.paused = paused
        seen: list[int] = []
        parallel.run_pieces(seen.append, 16, threads=2)
        assert sorted(seen) == list(range(16))
    assert balance.paused == 2


def test_a_paused_loop_runs_every_piece_in_order_on_the_caller(monkeypatch):
    balance = parallel._HelperBalance()
    balance.paused = 1
    monkeypatch.setattr(parallel, "_BALANCE", balance)
    caller = threading.get_ident()
    seen: list[tuple[int, int]] = []
    parallel.run_pieces(lambda i: seen.append((i, threading.get_ident())), 16, threads=2)
    assert seen == [(i, caller) for i in range(16)]
    assert balance.paused == 0


def test_helpers_pause_only_when_they_cost_more_than_their_share():
    balance = parallel._HelperBalance()
    balance.record(0.004, 0.010)  # saved 4 ms of a 10 ms loop
    balance.record(-0.001, 0.010)  # then lost 1 ms: still ahead
    assert balance.paused == 0
    for _ in range(3):
        balance.record(-0.004, 0.010)
    assert balance.paused == parallel.PAUSED_LOOPS
    assert balance.gain_s == balance.spent_s == 0.0
    assert sum(balance.pause() for _ in range(parallel.PAUSED_LOOPS + 5)) \
        == parallel.PAUSED_LOOPS


def test_a_small_loss_within_the_share_does_not_pause():
    balance = parallel._HelperBalance()
    for _ in range(50):
        balance.record(-0.0001, 0.010)  # 1 % of each loop: the hand-off's noise
    assert balance.paused == 0
