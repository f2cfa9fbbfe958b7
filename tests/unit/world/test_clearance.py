"""The World's agent clearance (W1 diagnostics): the compiled pass that skips the pairs that
cannot be a row's least reports, bit for bit, what every pair through the exact sweep gives;
a pair with a truncated step (F2) is measured on its ramp and its rest."""

import numpy as np
import pytest

from navproof.boundary import Motion, Support
from navproof.step.corridor import curve_displacement_m
from navproof.world.clearance import (
    CLEARANCE_EXACT_BAND_M,
    _clearance_by_arrays,
    agent_clearance_m,
    turning_allowance_m,
)
from navproof.world.motion import execute, executed_points_m
from navproof.world.reach import bodies_within_reach, executed_reach_m


def _executed(rng, n, spread_m, step_m):
    x0 = rng.uniform(0.0, spread_m, (n, 2))
    mid = x0 + rng.normal(0.0, step_m, (n, 2))
    x1 = mid + rng.normal(0.0, step_m, (n, 2))
    return x0, mid, x1, rng.uniform(0.2, 0.5, n)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dt", [0.1, 0.05, 1 / 30, 719 / 10007])
def test_the_compiled_clearance_is_the_whole_array_clearance_to_the_bit(seed, dt):
    rng = np.random.default_rng(seed)
    n = [2, 30, 400, 3000, 200, 50][seed]
    # dense crowds (many pairs in contact or within the exact band) and sparse ones
    x0, mid, x1, radius = _executed(rng, n, spread_m=np.sqrt(n) * [0.6, 1.0, 2.0][seed % 3],
                                    step_m=[0.02, 0.1, 0.3][seed % 3])
    within = bodies_within_reach(x0, executed_reach_m(x0, mid, x1) + radius + 0.025)
    # extra listed neighbours (duplicates and padding), as the World appends ORCA's
    extra = rng.integers(-1, n, (n, 4))
    extra[extra == np.arange(n)[:, None]] = -1
    listed = np.concatenate([within, extra], axis=1)
    got = agent_clearance_m(x0, mid, x1, radius, listed, dt)
    want = _clearance_by_arrays(x0, mid, x1, radius, listed, dt, np.full(n, np.inf))
    assert got.tobytes() == want.tobytes()
    if seed == 3:
        assert np.any(got < 0.0) and np.any(np.isfinite(got))


def test_a_step_whose_square_python_rounds_otherwise_takes_the_whole_array_path():
    # Python's dt ** 2 (the generated formula on whole arrays) differs from dt * dt here
    dt = 719 / 10007
    assert dt**2 != dt * dt or (0.5 * dt) ** 2 != (0.5 * dt) * (0.5 * dt)


def test_rows_without_a_neighbour_have_infinite_clearance():
    x0 = np.array([[0.0, 0.0], [10.0, 0.0]])
    listed = np.full((2, 3), -1)
    listed[0, 0] = 1
    out = agent_clearance_m(x0, x0, x0, np.full(2, 0.4), listed, 0.1)
    assert out[0] == pytest.approx(10.0 - 0.8) and out[1] == np.inf
    assert np.all(agent_clearance_m(x0, x0, x0, np.full(2, 0.4), np.zeros((2, 0), int), 0.1)
                  == np.inf)


@pytest.mark.parametrize("seed", range(4))
def test_a_pair_found_from_its_other_body_is_its_value_to_the_bit(seed):
    # a grid marching in step (relative motion exactly zero), coincident bodies, bodies at
    # rest, mirrored motions and axis-aligned offsets (zero components of both signs): each
    # pair's value taken from the row of its other body equals its own evaluation
    rng = np.random.default_rng(seed)
    side = 12
    x0 = np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2) * 0.9
    n = x0.shape[0]
    step = rng.normal(0.0, 0.05, 2)
    mid = x0 + step
    x1 = x0 + 2.0 * step
    moved = rng.random(n) < 0.3
    mid[moved] += rng.normal(0.0, 0.1, (moved.sum(), 2))
    x1[moved] -= rng.normal(0.0, 0.1, (moved.sum(), 2))
    still = rng.random(n) < 0.2
    mid[still], x1[still] = x0[still], x0[still]
    a, b = rng.choice(n, (2, 5), replace=False)
    mid[b] = x0[b] - (mid[a] - x0[a])
    x1[b] = x0[b] - (x1[a] - x0[a])
    x0[a[:2]] = x0[a[2]]
    radius = np.where(rng.random(n) < 0.5, 0.4, rng.uniform(0.2, 0.5, n))
    listed = bodies_within_reach(x0, executed_reach_m(x0, mid, x1) + radius + 1.0)
    for dt in (0.1, 1 / 30):
        got = agent_clearance_m(x0, mid, x1, radius, listed, dt)
        want = _clearance_by_arrays(x0, mid, x1, radius, listed, dt, np.full(n, np.inf))
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("seed", range(3))
def test_neighbours_in_order_of_distance_end_a_row_at_the_first_too_far(seed):
    from navproof.orca.neighbors import agent_neighbors

    rng = np.random.default_rng(seed + 40)
    n = 900
    x0, mid, x1, radius = _executed(rng, n, spread_m=np.sqrt(n) * [0.6, 1.0, 2.0][seed],
                                    step_m=[0.02, 0.1, 0.3][seed])
    within = bodies_within_reach(x0, executed_reach_m(x0, mid, x1) + radius + 0.025)
    nearest, _ = agent_neighbors(x0, np.full(n, 5.0), np.full(n, 10))
    for listed, ordered_from in ((np.concatenate([within, nearest], axis=1), within.shape[1]),
                                 (nearest, 0)):
        for dt in (0.1, 1 / 30):
            got = agent_clearance_m(x0, mid, x1, radius, listed, dt, ordered_from=ordered_from)
            want = _clearance_by_arrays(x0, mid, x1, radius, listed, dt, np.full(n, np.inf))
            assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_lists_holding_every_pair_within_reach_give_the_clearance_of_both_lists(seed):
    # the World measures on ORCA's neighbours alone when they hold every pair within reach
    # of the executed step (the pairs it listed first, and twice): the same bits, a truncated
    # step's (F2) and a turning support's allowance included
    from navproof.orca.neighbors import agent_neighbors
    from navproof.world.reach import nearest_hold_every_pair

    rng = np.random.default_rng(seed + 70)
    side, dt = 20, [0.1, 1 / 30, 0.1, 0.05][seed]
    x0 = np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2) * 1.2
    n = x0.shape[0]
    x0 = x0 + rng.normal(0.0, [0.0, 0.05, 0.2, 0.1][seed], (n, 2))
    v0, v1 = rng.uniform(-1.2, 1.2, (2, n, 2))
    v1[rng.random(n) < 0.1] = 0.0
    commit = np.where(rng.random(n) < [0.0, 0.1, 0.3, 0.5][seed], rng.uniform(0.0, dt, n), dt)
    support = Support(Motion(np.zeros((n, 2)), rng.uniform(-0.3, 0.3, (n, 2)),
                             np.where(rng.random(n) < 0.3 * (seed % 2), 0.4, 0.0),
                             np.zeros(n, np.int64)))
    done = execute(x0, v0, v1, commit, dt, support)
    radius = np.full(n, 0.4)
    extent = executed_reach_m(x0, done.mid_m, done.position_m, radius_m=radius,
                              band_m=0.5 * CLEARANCE_EXACT_BAND_M)
    nearest, _ = agent_neighbors(x0, np.full(n, 5.0), np.full(n, 10))
    assert nearest_hold_every_pair(x0, extent, (nearest, np.full(n, 10)))
    within = bodies_within_reach(x0, extent)
    assert within.shape[1] > 0
    both = np.concatenate([within, nearest], axis=1)

    def points_at(rows, t_s):
        return executed_points_m(x0, v0, v1, commit, dt, support, rows, t_s)

    for truncated in (None, (commit, points_at)):
        got = agent_clearance_m(x0, done.mid_m, done.position_m, radius, nearest, dt,
                                ordered_from=0, truncated=truncated)
        want = agent_clearance_m(x0, done.mid_m, done.position_m, radius, both, dt,
                                 ordered_from=within.shape[1], truncated=truncated)
        assert got.tobytes() == want.tobytes()
    assert (turning_allowance_m(x0, v0, v1, dt, support, nearest).tobytes()
            == turning_allowance_m(x0, v0, v1, dt, support, both).tobytes())


def test_executed_extents_give_numpys_widest_extent_plus_radius():
    from navproof.world.clearance import _executed_extents

    rng = np.random.default_rng(31)
    for trial in range(300):
        n = int(rng.integers(1, 40))
        x0, mid, x1 = (rng.normal(0.0, 5.0, (n, 2)) for _ in range(3))
        radius = rng.uniform(0.1, 0.5, n)
        if trial % 4 == 0:
            mid[rng.integers(n), rng.integers(2)] = np.nan
        if trial % 7 == 0:
            radius[rng.integers(n)] = np.nan
        extent = np.empty(n)
        widest = _executed_extents(x0, mid, x1, radius, extent)
        want = float(np.max(extent)) + float(np.max(radius))
        assert np.float64(widest).tobytes() == np.float64(want).tobytes() or (
            np.isnan(widest) and np.isnan(want))


def _dense_clearance(points_at, n, pairs, radius, dt, commit_s, samples=20001):
    """Least sampled clearance of each body to the bodies ``pairs`` lists for it."""
    # the commit times are sampled: a truncated pair's closest approach may be at one
    times = np.union1d(np.linspace(0.0, dt, samples), commit_s)
    curve = np.stack([points_at(np.full(times.size, i), times) for i in range(n)])
    out = np.full(n, np.inf)
    for i, j in pairs:
        gap = np.hypot(*(curve[i] - curve[j]).T) - radius[i] - radius[j]
        out[i] = min(out[i], gap.min())
    return out


@pytest.mark.parametrize("seed", range(8))
def test_a_pair_with_a_truncated_step_is_measured_on_the_ramp_and_the_rest(seed):
    # a body committed for part of the step ramps and then rests (F2); the quadratic through
    # its start, middle and end points is another curve, and may miss an overlap (W1)
    rng = np.random.default_rng(seed)
    n, dt = 6, 0.1
    x0 = rng.uniform(0.0, 1.2, (n, 2))
    v0, v1 = rng.uniform(-1.5, 1.5, (2, n, 2))
    commit = np.where(rng.random(n) < 0.5, dt, rng.uniform(0.0, dt, n))
    commit[0] = 0.3 * dt
    support = Support.translating(rng.uniform(-0.3, 0.3, (n, 2)))
    done = execute(x0, v0, v1, commit, dt, support)
    radius = np.full(n, 0.4)
    listed = np.array([[j for j in range(n) if j != i] for i in range(n)])

    def points_at(rows, t_s):
        return executed_points_m(x0, v0, v1, commit, dt, support, rows, t_s)

    got = agent_clearance_m(x0, done.mid_m, done.position_m, radius, listed, dt,
                            truncated=(commit, points_at))
    want = _dense_clearance(points_at, n, [(i, j) for i in range(n) for j in listed[i]],
                            radius, dt, commit)
    # exact within the band, a certified lower bound above it
    close = want < CLEARANCE_EXACT_BAND_M
    assert np.allclose(got[close], want[close], rtol=0.0, atol=1e-7)
    assert np.all(got[~close] <= want[~close] + 1e-7)
    assert np.all(got[~close] > CLEARANCE_EXACT_BAND_M - 1e-7)


def test_the_truncated_curve_shows_an_overlap_the_quadratic_misses():
    # body 0 walks at body 1 for a quarter of the step and stops (F2); body 1 walks away more
    # slowly all step long. Their closest approach is at body 0's stop; the quadratic through
    # body 0's start, middle and end points reaches its end later and keeps them apart (W1)
    dt = 0.1
    x0 = np.array([[0.0, 0.0], [0.0, -0.808]])
    v0 = v1 = np.array([[0.0, -1.0], [0.0, -0.5]])
    commit = np.array([0.025, dt])
    support = Support.translating(np.zeros((2, 2)))
    done = execute(x0, v0, v1, commit, dt, support)
    listed = np.array([[1], [0]])
    radius = np.full(2, 0.4)

    def points_at(rows, t_s):
        return executed_points_m(x0, v0, v1, commit, dt, support, rows, t_s)

    quadratic = agent_clearance_m(x0, done.mid_m, done.position_m, radius, listed, dt)
    got = agent_clearance_m(x0, done.mid_m, done.position_m, radius, listed, dt,
                            truncated=(commit, points_at))
    # the bodies close at 0.5 m/s until body 0 stops, then part: 0.008 - 0.0125 m
    assert np.all(quadratic > 0.0)
    assert np.allclose(got, 0.008 - 0.5 * 0.025, rtol=0.0, atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_a_pair_with_a_step_split_at_a_portal_is_measured_on_both_ramps(seed):
    # a body split at its portal ramps from v0 towards v1 up to the split, then from the
    # velocity reached there towards v2 over the rest of the step, up to its second commit
    # time (B7); the quadratic through its start, middle and end points is another curve
    rng = np.random.default_rng(seed)
    n, dt = 6, 0.1
    x0 = rng.uniform(0.0, 1.2, (n, 2))
    v0, v1, v2 = rng.uniform(-1.5, 1.5, (3, n, 2))
    u = rng.uniform(-0.3, 0.3, (n, 2))
    commit = np.where(rng.random(n) < 0.7, dt, rng.uniform(0.0, dt, n))
    split_rows = np.array([0, 1, 2])
    commit[split_rows] = dt
    tp = rng.uniform(0.0, dt, split_rows.size)
    rest = dt - tp
    commit2 = np.where(rng.random(split_rows.size) < 0.5, rest,
                       rng.uniform(0.0, 1.0, split_rows.size) * rest)
    support = Support.translating(u)
    where = {int(a): k for k, a in enumerate(split_rows)}

    def points_at(rows, t_s):
        out = executed_points_m(x0, v0, v1, commit, dt, support, rows, t_s)
        for q, (i, t) in enumerate(zip(rows.tolist(), np.asarray(t_s).tolist(), strict=True)):
            if i in where:
                k = where[i]
                at = x0[i] + curve_displacement_m(u[i:i + 1], v0[i:i + 1], v1[i:i + 1], dt,
                                                  np.array([min(t, tp[k])]))[0]
                v_at = v0[i] + (v1[i] - v0[i]) * (tp[k] / dt)
                if t > tp[k]:
                    at = at + curve_displacement_m(
                        u[i:i + 1], v_at[None], v2[i:i + 1], rest[k],
                        np.array([min(t - tp[k], commit2[k])]))[0]
                out[q] = at
        return out

    every = np.arange(n)
    mid = points_at(every, np.full(n, 0.5 * dt))
    end = points_at(every, np.full(n, dt))
    radius = np.full(n, 0.4)
    listed = np.array([[j for j in range(n) if j != i] for i in range(n)])
    second = np.where(commit2 < rest, tp + commit2, dt)
    got = agent_clearance_m(x0, mid, end, radius, listed, dt, truncated=(commit, points_at),
                            split=(split_rows, tp, second))
    want = _dense_clearance(points_at, n, [(i, j) for i in range(n) for j in listed[i]],
                            radius, dt, np.concatenate([commit, tp, second]))
    close = want < CLEARANCE_EXACT_BAND_M
    assert np.allclose(got[close], want[close], rtol=0.0, atol=1e-7)
    assert np.all(got[~close] <= want[~close] + 1e-7)
    assert np.all(got[~close] > CLEARANCE_EXACT_BAND_M - 1e-7)


def _turning_crowd(seed):
    """Six bodies, four of them turning with a platform at up to 1 rad/s (an arm up to 0.3 m:
    a surface speed within the profile's), ramping by up to 2 m/s in the step (20 m/s^2), two
    on the ground; some steps truncated (F2)."""
    rng = np.random.default_rng(seed)
    n, dt = 6, 0.1
    pivot = np.tile(rng.uniform(-0.1, 0.1, 2), (n, 1))
    x0 = pivot + rng.uniform(-0.2, 0.2, (n, 2))
    on = np.arange(n) < 4
    omega = np.where(on, rng.choice([-1.0, 1.0]) * rng.uniform(0.3, 1.0), 0.0)
    velocity = np.where(on[:, None], rng.uniform(-0.05, 0.05, 2), 0.0)
    v0 = rng.uniform(-1.0, 1.0, (n, 2))
    v1 = v0 + rng.uniform(-1.4, 1.4, (n, 2))
    commit = np.where(rng.random(n) < 0.7, dt, rng.uniform(0.0, dt, n))
    support = Support(Motion(np.where(on[:, None], pivot, 0.0), velocity, omega,
                             np.zeros(n, np.int64)))
    return x0, v0, v1, commit, dt, support


def _turning_measures(seed):
    """(the World's clearance, the turning allowance, the densely sampled clearance) (m, (6,))
    of :func:`_turning_crowd`."""
    x0, v0, v1, commit, dt, support = _turning_crowd(seed)
    n = x0.shape[0]
    done = execute(x0, v0, v1, commit, dt, support)
    radius = np.full(n, 0.05)
    listed = np.array([[j for j in range(n) if j != i] for i in range(n)])

    def points_at(rows, t_s):
        return executed_points_m(x0, v0, v1, commit, dt, support, rows, t_s)

    got = agent_clearance_m(x0, done.mid_m, done.position_m, radius, listed, dt,
                            truncated=(commit, points_at))
    allowance = turning_allowance_m(x0, v0, v1, dt, support, listed)
    want = _dense_clearance(points_at, n, [(i, j) for i in range(n) for j in listed[i]],
                            radius, dt, commit)
    return got, allowance, want


@pytest.mark.parametrize("seed", range(12))
def test_a_pair_turning_with_its_support_is_measured_within_the_turning_allowance(seed):
    # a body turning with its support follows no quadratic: the quadratic through its start,
    # middle and end points may report more clearance than the curve keeps, by at most the
    # allowance (W1, B6)
    got, allowance, want = _turning_measures(seed)
    close = want < CLEARANCE_EXACT_BAND_M
    assert np.all(got[close] - allowance[close] <= want[close] + 1e-12)
    assert np.all(allowance > 0.0)


def test_the_turning_allowance_covers_what_the_quadratic_misses():
    overstated = [float(np.max(got - want))
                  for got, _, want in (_turning_measures(seed) for seed in range(12))]
    # beyond the independent check's 1 um: an overlap that small would hide behind it
    assert max(overstated) > 1e-6
    # nothing turns: no allowance
    x0, v0, v1, _, dt, _ = _turning_crowd(0)
    ground = Support.translating(np.zeros((x0.shape[0], 2)))
    listed = np.array([[1], [0], [3], [2], [5], [4]])
    assert not turning_allowance_m(x0, v0, v1, dt, ground, listed).any()
