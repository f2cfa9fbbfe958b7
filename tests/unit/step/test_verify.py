"""Whole-step verification: the margins of accepted candidates are kept row by row."""

import dataclasses

import numpy as np

from navproof.boundary import EdgeSet, Support
from navproof.orca.crowd import AgentDefaults, Crowd
from navproof.step import StepInput, solve_safe_step, step_input_from_crowd
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


def test_the_margins_storage_is_made_only_where_it_is_read_or_written_row_by_row() -> None:
    rng = np.random.default_rng(9)
    n, k, j = 30, 4, 3
    fresh = KnownMargins.empty(n, k, j)
    for name, shape in (("curve_m", (n, k)), ("end_m", (n, k)), ("sweep_m", (n, j))):
        kept = getattr(fresh, name)
        assert kept.shape == shape and kept.dtype == np.float64 and not kept.any()
        assert getattr(fresh, name) is kept
    whole = Checked(*(rng.normal(size=(n, k)) for _ in range(4)), rng.normal(size=(n, j)))
    known = KnownMargins.empty(n, k, j)
    known.store(np.arange(n), whole, rng.random(n) < 0.5)
    assert known.curve_m is whole.curve_m and known.end_m is whole.end_m
    assert known.sweep_m is whole.sweep_m
    # a store of another layout is written row by row into zeros
    strided = Checked(*(rng.normal(size=(n, 2 * k))[:, ::2] for _ in range(4)), None)
    known = KnownMargins.empty(n, k, j)
    known.store(np.arange(n), strided, np.ones(n, bool))
    assert known.curve_m is not strided.curve_m
    assert np.array_equal(known.curve_m, strided.curve_m)
    assert not known.sweep_m.any() and not known.has_sweep.any()


def _crowd_step_input(n: int) -> StepInput:
    """N agents of a 2.5 m lattice heading through the origin, each in its own box of walls
    0.2 to 3 m away (one riding a 0.2 m/s platform): first rounds, enumerations and fallbacks
    alike."""
    rng = np.random.default_rng(3)
    side = int(np.ceil(np.sqrt(n)))
    grid = np.stack(np.meshgrid(np.arange(side), np.arange(side)), axis=-1).reshape(-1, 2)
    pos = (grid[:n] - (side - 1) / 2.0) * 2.5
    crowd = Crowd(0.1, defaults=AgentDefaults(neighbor_dist_m=15.0, max_neighbors=10,
                                              time_horizon_s=10.0, time_horizon_obst_s=10.0,
                                              radius_m=1.0, max_speed_mps=2.0))
    crowd.add_agents(pos, velocity_mps=-0.5 * pos / np.maximum(np.hypot(*pos.T), 1.0)[:, None])
    crowd.set_pref_velocities(-2.0 * pos / np.maximum(np.hypot(*pos.T), 1.0)[:, None])
    normal = np.broadcast_to(np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]),
                             (n, 4, 2)).copy()
    offset = np.einsum("nkj,nj->nk", normal, pos) + rng.uniform(0.2, 3.0, (n, 4))
    u = np.zeros((n, 2))
    u[:, 0] = 0.2
    edge_v = np.zeros((n, 4, 2))
    edge_v[:, 0] = u
    edges = EdgeSet.build(normal, offset, edge_velocity_mps=edge_v)
    return step_input_from_crowd(crowd, support=Support.translating(u), edges=edges,
                                 vh_mps=np.full(n, 2.0), accel_mps2=np.full(n, 1.0))


def test_the_solve_reads_no_margin_it_has_not_kept_or_computed(monkeypatch) -> None:
    inp = _crowd_step_input(60)
    expect = solve_safe_step(inp)
    assert len(set(expect.label.tolist())) > 1
    made: list[str] = []

    def not_a_number(self: KnownMargins, name: str) -> np.ndarray:
        # storage that was never zeroed: every value read before it is written shows
        if name not in self._storage:
            made.append(name)
            self._storage[name] = np.full(self._shapes[name], np.nan)
        return self._storage[name]

    monkeypatch.setattr(KnownMargins, "_margins", not_a_number)
    got = solve_safe_step(inp)
    for name in ("velocity_mps", "label", "flags", "commit_time_s"):
        assert getattr(got, name).tobytes() == getattr(expect, name).tobytes(), name
    for field in dataclasses.fields(expect.margins):
        assert (getattr(got.margins, field.name).tobytes()
                == getattr(expect.margins, field.name).tobytes()), field.name
