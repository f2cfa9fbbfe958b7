"""Whole-step verification: the margins of accepted candidates are kept row by row."""

import numpy as np

from navproof.step.verify import Checked, KnownMargins


def test_store_keeps_the_picked_rows_as_numpys_fancy_assignment_does() -> None:
    rng = np.random.default_rng(5)
    n, k, j, r = 60, 4, 3, 25
    agents = rng.choice(n, r, replace=False)
    picked = rng.random(r) < 0.5
    checked = Checked(rng.normal(size=(r, k)), rng.normal(size=(r, k)), rng.normal(size=(r, k)),
                      rng.normal(size=(r, k)), rng.normal(size=(r, j)))
    known = KnownMargins.empty(n, k, j)
    known.store(agents, checked, picked)
    expect = KnownMargins.empty(n, k, j)
    at = agents[picked]
    expect.curve_m[at], expect.end_m[at] = checked.curve_m[picked], checked.end_m[picked]
    expect.sweep_m[at] = checked.sweep_m[picked]
    expect.has_curve[at], expect.has_sweep[at] = True, True
    for name in ("curve_m", "end_m", "sweep_m", "has_curve", "has_sweep"):
        assert np.array_equal(getattr(known, name), getattr(expect, name)), name


def test_store_without_sweep_margins_leaves_the_sweep_rows_open() -> None:
    rng = np.random.default_rng(6)
    n, k, r = 10, 2, 4
    agents = np.array([7, 1, 3, 8])
    checked = Checked(rng.normal(size=(r, k)), rng.normal(size=(r, k)), rng.normal(size=(r, k)),
                      rng.normal(size=(r, k)), None)
    known = KnownMargins.empty(n, k, 3)
    known.store(agents, checked, np.array([True, False, True, True]))
    assert known.has_curve.tolist() == [i in (7, 3, 8) for i in range(n)]
    assert not known.has_sweep.any() and not known.sweep_m.any()
    assert np.array_equal(known.curve_m[[7, 3, 8]], checked.curve_m[[0, 2, 3]])


def test_a_first_store_of_every_agent_takes_the_checked_arrays_and_later_stores_write_in() -> None:
    rng = np.random.default_rng(8)
    n, k, j = 50, 4, 3

    def checked(r: int) -> Checked:
        return Checked(rng.normal(size=(r, k)), rng.normal(size=(r, k)),
                       rng.normal(size=(r, k)), rng.normal(size=(r, k)), rng.normal(size=(r, j)))

    first, picked = checked(n), rng.random(n) < 0.6
    known = KnownMargins.empty(n, k, j)
    known.store(np.arange(n), first, picked)
    assert known.curve_m is first.curve_m and known.sweep_m is first.sweep_m
    later, agents = checked(8), np.flatnonzero(~picked)[:8]
    later_picked = rng.random(8) < 0.5
    known.store(agents, later, later_picked)
    expect = KnownMargins.empty(n, k, j)
    # the later agents are among those not picked first: no row is written twice
    for at, src, rows in ((np.arange(n), first, picked), (agents, later, later_picked)):
        expect.curve_m[at[rows]] = src.curve_m[rows]
        expect.end_m[at[rows]] = src.end_m[rows]
        assert src.sweep_m is not None
        expect.sweep_m[at[rows]] = src.sweep_m[rows]
        expect.has_curve[at[rows]], expect.has_sweep[at[rows]] = True, True
    filled = expect.has_curve
    assert np.array_equal(known.has_curve, filled) and np.array_equal(known.has_sweep, filled)
    for name in ("curve_m", "end_m", "sweep_m"):
        assert np.array_equal(getattr(known, name)[filled], getattr(expect, name)[filled]), name


def test_as_index_is_a_slice_exactly_for_every_agent_in_order() -> None:
    from navproof.step.verify import as_index

    def old(rows: np.ndarray, n: int) -> bool:
        return rows.size == n and (n == 0 or (rows[0] == 0 and bool(np.all(np.diff(rows) == 1))))

    rng = np.random.default_rng(8)
    cases = [np.arange(50), np.arange(1, 51), rng.permutation(50), np.arange(49),
             np.r_[np.arange(25), np.arange(26, 51)], np.arange(0), np.arange(50)[::-1],
             np.arange(100)[::2][:50], np.arange(50, dtype=np.int32)]
    for rows in cases:
        got = as_index(rows, 50 if rows.size else 0)
        assert isinstance(got, slice) == old(rows, 50 if rows.size else 0)
        if not isinstance(got, slice):
            assert got is rows
