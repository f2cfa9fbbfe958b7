"""Every body within reach of a step is checked (W1), whatever ORCA's neighbour range and count:
the reach bound, the uncapped spatial query, and head-on pairs that ORCA does not see."""

import numpy as np
import pytest

from navproof.boundary import Support
from navproof.step import SAFE
from navproof.world import Layout, World
from navproof.world.reach import bodies_within_reach, executed_reach_m, step_reach_m
from navproof.world.summary import RunSummary

CORRIDOR = np.array([[-8.0, -3.0], [8.0, -3.0], [8.0, 3.0], [-8.0, 3.0]])


def brute_force_pairs(position, extent):
    d = np.hypot(*(position[:, None] - position[None]).transpose(2, 0, 1))
    meet = d <= extent[:, None] + extent[None] + 1e-6
    np.fill_diagonal(meet, False)
    return meet


@pytest.mark.parametrize("n", [0, 1, 2, 40, 1500])
def test_the_reach_query_finds_exactly_the_pairs_whose_extents_meet_with_no_count_cap(n):
    rng = np.random.default_rng(n)
    position = rng.uniform(0.0, 12.0, (n, 2))
    extent = rng.uniform(0.05, 1.5, n)
    found = bodies_within_reach(position, extent)
    got = np.zeros((n, n), bool)
    for i in range(n):
        got[i, found[i][found[i] >= 0]] = True
    np.testing.assert_array_equal(got, brute_force_pairs(position, extent))
    if n == 1500:
        assert found.shape[1] > 10  # wider than any ORCA max_neighbors of the profile


def test_a_dense_cluster_lists_every_member_in_one_row():
    position = np.zeros((60, 2)) + np.linspace(0.0, 0.01, 60)[:, None]
    found = bodies_within_reach(position, np.full(60, 0.4))
    assert found.shape == (60, 59)
    assert np.all(found >= 0)


def test_the_step_reach_bounds_speed_cap_support_carry_and_rotation():
    x0 = np.array([[3.0, 0.0]])
    support = Support.translating(np.array([[0.5, 0.0]]), acceleration_mps2=np.array([[1.0, 0]]))
    reach = step_reach_m(x0, np.array([[1.0, 0.0]]), np.array([[1.5, 0.0]]), np.array([1.2]),
                         np.array([2.0]), 0.1, support)
    # (max(|v0|, Vh) + a dt) dt + |w| dt + |alpha| dt^2 / 2
    assert reach[0] == pytest.approx((1.2 + 0.2) * 0.1 + 0.05 + 0.005)
    from navproof.boundary import Motion

    turning = Support(Motion.rotating(np.zeros((1, 2)), np.array([2.0])))
    reach = step_reach_m(x0, np.zeros((1, 2)), np.array([[0.0, 6.0]]), np.array([1.2]),
                         np.array([2.0]), 0.1, turning)
    assert reach[0] >= 6.0 * 0.1  # the far side of the arm moves |omega| r dt


def test_the_executed_reach_bounds_the_quadratic_curve():
    rng = np.random.default_rng(3)
    x0, mid, x1 = (rng.normal(size=(50, 2)) for _ in range(3))
    bound = executed_reach_m(x0, mid, x1)
    tau = np.linspace(0.0, 1.0, 101)[:, None, None]
    b = 4.0 * (mid - x0) - (x1 - x0)
    a = 2.0 * (x1 - x0) - 4.0 * (mid - x0)
    curve = x0 + b * tau + a * tau**2
    assert np.all(np.hypot(*(curve - x0).transpose(2, 0, 1)).max(axis=0) <= bound + 1e-12)


@pytest.mark.parametrize("neighbor_dist_m, max_neighbors", [(0.1, 10), (5.0, 0)])
def test_bodies_orca_does_not_see_never_pass_through_each_other_labelled_safe(
        neighbor_dist_m, max_neighbors):
    world = World(Layout(corridor_m=CORRIDOR), assertions=True)
    world.add_agents([[-3.0, 0.0], [3.0, 0.0]], [[[3.0, 0.0]], [[-3.0, 0.0]]], radius_m=0.4,
                     neighbor_dist_m=neighbor_dist_m, max_neighbors=max_neighbors)
    summary = RunSummary(world)
    overlapped = False
    for _ in range(120):
        start_gap = np.hypot(*(world.position_m[0] - world.position_m[1])) - 0.8
        step = world.step()
        summary.add(step, 0.0)
        end_gap = np.hypot(*(world.position_m[0] - world.position_m[1])) - 0.8
        overlapped |= bool(step.agent_clearance_m.min() < -1e-6)
        # a safe step starts and ends apart and keeps the pair apart throughout (W1)
        safe = step.label == SAFE
        if safe.any():
            assert start_gap >= -1e-6 and end_gap >= -1e-6
            assert np.all(step.agent_clearance_m[safe] >= -1e-6)
    result = summary.as_dict()
    # the pair is measured although ORCA never lists it; any overlap is reported
    assert result["min_agent_clearance_m"] is not None
    assert (result["min_agent_clearance_m"] < -1e-6) == overlapped
    world.close()


def numpy_step_reach(x0, v0, vw, vh, accel, dt, m):
    """The whole-array expression the compiled step reach replaced."""
    rel_speed = np.maximum(np.hypot(*v0.T), vh) + accel * dt
    pivot = np.hypot(*m.velocity_mps.T) * dt + 0.5 * np.hypot(*m.acceleration_mps2.T) * dt**2
    arm = np.hypot(*(x0 - m.pivot_m).T)
    turn = np.minimum(2.0, np.abs(m.omega_radps) * dt) * arm
    moved = rel_speed * dt + pivot + turn
    return np.maximum(moved, np.hypot(*vw.T) * dt)


@pytest.mark.parametrize("dt", [0.1, 0.05, 0.033, 0.2])
def test_the_step_reach_equals_the_whole_array_expression_bit_for_bit(dt):
    from navproof.boundary import Motion

    rng = np.random.default_rng(7)
    n = 4000
    x0, v0, vw, pivot, vel, acc = (rng.normal(size=(n, 2)) * 10.0 ** rng.integers(-3, 3, (n, 1))
                                   for _ in range(6))
    vh, accel = rng.uniform(0.0, 3.0, n), rng.uniform(0.0, 5.0, n)
    omega = rng.normal(size=n) * 10.0 ** rng.integers(-2, 3, n)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 1e300])
    for arr in (x0, v0, vw, pivot, vel):  # a support's acceleration is finite (Motion)
        arr[:special.size, 0] = special
        arr[special.size:2 * special.size, 1] = special
    vh[-special.size:], omega[-2 * special.size:-special.size] = special, special
    omega[:3] = 0.0
    motion = Motion(pivot, vel, omega, np.zeros(n, np.int64), acc)
    with np.errstate(invalid="ignore", over="ignore"):
        expected = numpy_step_reach(x0, v0, vw, vh, accel, dt, motion)
        got = step_reach_m(x0, v0, vw, vh, accel, dt, Support(motion))
    assert got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dt", [0.1, 0.0, -0.1])
def test_the_step_reach_skips_only_lengths_it_knows_bit_for_bit(dt):
    # supports that do not turn (omega +-0), zero vectors of both signs, arms about as long as
    # the skip bound, overflowing and not finite
    from navproof.boundary import Motion

    rng = np.random.default_rng(17)
    n = 4000
    x0, v0, vw, pivot, vel, acc = (rng.normal(size=(n, 2)) * 10.0 ** rng.integers(-3, 3, (n, 1))
                                   for _ in range(6))
    zeros = np.array([[0.0, 0.0], [-0.0, 0.0], [0.0, -0.0], [-0.0, -0.0]])
    for arr in (v0, vw, vel, acc):
        arr[rng.random(n) < 0.4] = zeros[rng.integers(0, 4)]
    far = np.array([1e300, -1e300, 0.99e300, 1.01e300, 1.5e308, -1.7e308, np.inf, np.nan])
    x0[:far.size * far.size] = np.stack(np.meshgrid(far, far), -1).reshape(-1, 2)
    pivot[:far.size * far.size] = 0.0
    x0[100:110] = -x0[100:110]
    vh, accel = rng.uniform(0.0, 3.0, n), rng.uniform(0.0, 5.0, n)
    omega = np.where(rng.random(n) < 0.7, np.where(rng.random(n) < 0.5, 0.0, -0.0),
                     rng.normal(size=n))
    motion = Motion(pivot, vel, omega, np.zeros(n, np.int64), acc)
    with np.errstate(invalid="ignore", over="ignore"):
        expected = numpy_step_reach(x0, v0, vw, vh, accel, dt, motion)
        got = step_reach_m(x0, v0, vw, vh, accel, dt, Support(motion))
    assert got.tobytes() == expected.tobytes()


def test_the_stopping_horizon_equals_the_whole_array_expression_bit_for_bit():
    from navproof.core.tolerances import EPS
    from navproof.world.reach import stopping_horizon

    rng = np.random.default_rng(13)
    n = 4000
    reach, vh, carry = (rng.uniform(0.0, 3.0, n) for _ in range(3))
    accel = rng.uniform(0.0, 5.0, n) * 10.0 ** rng.integers(-12, 1, n)
    accel[:4] = [0.0, -0.0, EPS, np.nan]
    with np.errstate(invalid="ignore"):
        cmax = vh + carry
        want = reach + cmax * (0.1 + cmax / (2.0 * np.maximum(accel, EPS)))
        got, lookahead = stopping_horizon(reach, vh, carry, accel, 0.1)
    assert got.tobytes() == want.tobytes()
    assert np.isnan(lookahead)
    accel[3] = 1.0
    want_s = 0.1 + float(np.max(cmax / np.maximum(accel, EPS), initial=0.0))
    assert stopping_horizon(reach, vh, carry, accel, 0.1)[1] == want_s
    assert stopping_horizon(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0), 0.1)[1] == 0.1


@pytest.mark.parametrize("n", [0, 1, 2, 40, 1500])
def test_a_narrower_query_from_a_wider_answer_equals_a_new_query(n):
    rng = np.random.default_rng(n + 17)
    position = rng.uniform(0.0, 12.0, (n, 2))
    wider_extent = rng.uniform(0.05, 1.5, n)
    wider = bodies_within_reach(position, wider_extent)
    for shrink in (1.0, 0.9, 0.5, 0.0):
        extent = wider_extent * shrink
        narrowed = bodies_within_reach(position, extent, wider=(wider, wider_extent))
        direct = bodies_within_reach(position, extent)
        assert narrowed.dtype == direct.dtype and narrowed.shape == direct.shape
        assert narrowed.tobytes() == direct.tobytes()
    if n:
        grown = wider_extent.copy()
        grown[0] += 0.5  # beyond the earlier extent: a new query
        np.testing.assert_array_equal(
            bodies_within_reach(position, grown, wider=(wider, wider_extent)),
            bodies_within_reach(position, grown))


@pytest.mark.parametrize("n", [2, 12, 40, 1500])
def test_an_answer_from_the_nearest_neighbours_equals_a_new_query(n):
    from navproof.orca.neighbors import agent_neighbors

    rng = np.random.default_rng(n + 5)
    side = int(np.ceil(np.sqrt(n)))
    grid = np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2)[:n]
    for spacing, jitter in ((1.2, 0.0), (1.2, 0.3), (0.5, 0.2)):
        position = grid * spacing + rng.normal(0.0, jitter, (n, 2))
        for k in (1, 4, 10):
            nearest, _ = agent_neighbors(position, np.full(n, 5.0), np.full(n, k))
            for extent in (np.full(n, 0.5), rng.uniform(0.0, 0.7, n), np.full(n, 3.0),
                           np.zeros(n)):
                answer = bodies_within_reach(position, extent,
                                             nearest=(nearest, np.full(n, k)))
                direct = bodies_within_reach(position, extent)
                assert answer.dtype == direct.dtype and answer.shape == direct.shape
                assert answer.tobytes() == direct.tobytes()


def test_the_nearest_neighbours_cover_only_full_lists_far_enough():
    from navproof.orca.neighbors import agent_neighbors
    from navproof.world.reach import _nearest_cover

    position = np.stack(np.meshgrid(np.arange(5.0), np.arange(5.0)), -1).reshape(-1, 2)
    nearest, _ = agent_neighbors(position, np.full(25, 5.0), np.full(25, 4))
    kept, met = np.empty(nearest.shape, np.int64), np.empty(25, np.int64)
    # the fourth nearest is 1 m away: extents below 0.5 m are covered, and no pair meets
    assert _nearest_cover(position, np.full(25, 0.49), nearest, np.full(25, 4), 1e-9,
                          kept, met, True) == 0
    assert np.all(met == 0)
    assert _nearest_cover(position, np.full(25, 0.5), nearest, np.full(25, 4), 1e-9,
                          kept, met, True) == -1
    # a list that is not full, a negative or NaN extent: no cover
    assert _nearest_cover(position, np.full(25, 0.1), nearest, np.full(25, 5), 1e-9,
                          kept, met, True) == -1
    for bad in (-0.1, np.nan):
        extent = np.full(25, 0.1)
        extent[7] = bad
        assert _nearest_cover(position, extent, nearest, np.full(25, 4), 1e-9, kept, met,
                              True) == -1


@pytest.mark.parametrize("n", [0, 1, 2, 12, 40, 1500])
def test_nearest_lists_hold_every_pair_exactly_when_the_cover_answers(n):
    from navproof.orca.neighbors import agent_neighbors
    from navproof.world.reach import (
        NEAREST_COVER_REL,
        REACH_SLACK_M,
        _nearest_cover,
        nearest_hold_every_pair,
    )

    rng = np.random.default_rng(n + 11)
    side = max(1, int(np.ceil(np.sqrt(n))))
    grid = np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2)[:n]
    held = 0
    for spacing, jitter in ((1.2, 0.0), (1.2, 0.3), (0.5, 0.2)):
        position = grid * spacing + rng.normal(0.0, jitter, (n, 2))
        for k in (0, 1, 4, 10):
            nearest, _ = agent_neighbors(position, np.full(n, 5.0), np.full(n, k))
            count = np.full(n, k)
            for extent in (np.full(n, 0.5), rng.uniform(0.0, 0.7, n), np.full(n, 3.0),
                           np.zeros(n), np.where(np.arange(n) == n // 2, np.nan, 0.1),
                           np.where(np.arange(n) == n // 3, -0.1, 0.1)):
                holds = nearest_hold_every_pair(position, extent, (nearest, count))
                if n < 2 or k == 0:
                    assert not holds
                    continue
                # the decision of the answer from the nearest neighbours
                kept, met = np.empty(nearest.shape, np.int64), np.empty(n, np.int64)
                assert holds == (_nearest_cover(position, extent + REACH_SLACK_M, nearest,
                                                count, NEAREST_COVER_REL, kept, met, True) >= 0)
                if holds:
                    held += 1
                    found = bodies_within_reach(position, extent)
                    for i in range(n):
                        assert set(found[i][found[i] >= 0]) <= set(nearest[i][nearest[i] >= 0])
    assert held > 0 or n < 2


def test_the_counting_sort_gives_the_order_of_a_stable_sort():
    from navproof.world.reach import _sort_by_cell

    rng = np.random.default_rng(21)
    for cells, n in ((1, 10), (50, 1000), (5000, 300)):
        key = rng.integers(0, cells, n)
        order, sorted_key = np.empty(n, np.int64), np.empty(n, np.int64)
        _sort_by_cell(key, cells, order, sorted_key)
        want = np.argsort(key, kind="stable")
        assert order.tolist() == want.tolist()
        assert sorted_key.tolist() == key[want].tolist()


def test_a_sparse_crowd_finds_exactly_the_pairs_whose_extents_meet():
    rng = np.random.default_rng(8)
    position = rng.uniform(0.0, 12.0, (300, 2))
    position[0] = [5000.0, -3000.0]  # one body far away: too many cells to count
    extent = rng.uniform(0.05, 1.5, 300)
    found = bodies_within_reach(position, extent)
    got = np.zeros((300, 300), bool)
    for i in range(300):
        got[i, found[i][found[i] >= 0]] = True
    np.testing.assert_array_equal(got, brute_force_pairs(position, extent))


def test_the_executed_extent_adds_radius_and_band_like_the_whole_array_evaluation():
    rng = np.random.default_rng(11)
    x0, mid, x1 = (rng.normal(size=(400, 2)) for _ in range(3))
    mid[:20] = x0[:20]
    x1[:20] = x0[:20]
    x1[20:25, 0] = np.nan
    mid[25:30, 1] = np.inf
    radius = rng.uniform(0.0, 0.5, 400)
    radius[30:40] = 0.0
    radius[40:45] = -0.0
    extent = executed_reach_m(x0, mid, x1, radius_m=radius, band_m=0.025)
    want = executed_reach_m(x0, mid, x1) + radius + 0.025
    assert extent.tobytes() == want.tobytes()
    b = 4.0 * (mid - x0) - (x1 - x0)
    a = 2.0 * (x1 - x0) - 4.0 * (mid - x0)
    reach = np.hypot(*b.T) + np.hypot(*a.T)
    assert executed_reach_m(x0, mid, x1).tobytes() == reach.tobytes()


@pytest.mark.parametrize("n", [2, 40, 800])
def test_the_narrowing_is_refused_exactly_where_an_extent_left_the_earlier_range(n):
    from navproof.world import reach

    rng = np.random.default_rng(n + 29)
    position = rng.uniform(0.0, 12.0, (n, 2))
    wider_extent = rng.uniform(0.05, 1.5, n)
    wider = bodies_within_reach(position, wider_extent)
    for case in ("inside", "equal", "zero", "negative zero", "negative", "nan", "beyond"):
        extent = wider_extent * rng.uniform(0.0, 1.0, n)
        at = rng.integers(0, n)
        extent[at] = {"inside": extent[at], "equal": wider_extent[at], "zero": 0.0,
                      "negative zero": -0.0, "negative": -1e-300, "nan": np.nan,
                      "beyond": np.nextafter(wider_extent[at], np.inf)}[case]
        holds = bool(np.all((extent >= 0.0) & (extent <= wider_extent)))
        kept = np.full(wider.shape, -1, np.int64)
        width = reach._narrowed(position, extent, wider_extent, reach.REACH_SLACK_M, wider, kept)
        assert (width >= 0) == holds
        if holds:
            narrowed = bodies_within_reach(position, extent, wider=(wider, wider_extent))
            direct = bodies_within_reach(position, extent)
            assert narrowed.shape == direct.shape and narrowed.tobytes() == direct.tobytes()
            assert narrowed.tobytes() == kept[:, :width].tobytes()
