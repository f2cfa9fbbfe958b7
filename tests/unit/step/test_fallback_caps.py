"""Fallback steps (F1-F3) never exceed the speed cap or leave the reachable disk: where no
velocity within the cap is reachable, FLAG_OVER_CAP says so and the step is never safe."""

import numpy as np
import pytest

from navproof.boundary import EdgeSet, Support
from navproof.step import (
    FLAG_OVER_CAP,
    SAFE,
    Neighbors,
    StepInput,
    solve_safe_step,
)
from navproof.step.fallbacks import within_caps
from navproof.world import Layout, World

DT = 0.1
PILLAR = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
HALL = np.array([[-8.0, -4.0], [8.0, -4.0], [8.0, 4.0], [-8.0, 4.0]])


def random_walled_step(n, seed, *, start_speed_factor=1.0):
    """n bodies in random boxes of four fixed walls, some outside them, moving at random."""
    rng = np.random.default_rng(seed)
    angle = rng.uniform(0.0, 2.0 * np.pi, (n, 1)) + np.arange(4)[None] * np.pi / 2
    normal = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    offset = rng.uniform(-0.2, 1.5, (n, 4))
    vh = rng.uniform(0.5, 2.0, n)
    v0 = rng.normal(size=(n, 2))
    v0 *= (vh * rng.uniform(0.0, start_speed_factor, n) / np.hypot(*v0.T))[:, None]
    return StepInput(np.zeros((n, 2)), v0, rng.normal(size=(n, 2)) * 2.0, DT,
                     Support.translating(np.zeros((n, 2))), EdgeSet.build(normal, offset),
                     vh, rng.uniform(0.5, 3.0, n), np.full(n, 0.4),
                     neighbors=Neighbors.none(n))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_committed_velocity_stays_within_the_speed_cap_and_the_reachable_disk(seed):
    inp = random_walled_step(600, seed)
    result = solve_safe_step(inp, assertions=True)
    assert np.any(result.label != SAFE)  # the fallbacks are exercised
    speed = np.hypot(*result.velocity_mps.T)
    assert np.all(speed <= inp.vh_mps * (1 + 1e-9) + 1e-9)
    step = np.hypot(*(result.velocity_mps - inp.velocity_mps).T)
    assert np.all(step <= inp.accel_mps2 * DT * (1 + 1e-9) + 1e-9)
    assert not np.any(result.flags & FLAG_OVER_CAP)


def test_a_start_above_the_cap_brakes_at_full_budget_and_is_flagged_never_safe():
    inp = random_walled_step(300, 5, start_speed_factor=3.0)
    result = solve_safe_step(inp, assertions=True)
    speed0 = np.hypot(*inp.velocity_mps.T)
    speed1 = np.hypot(*result.velocity_mps.T)
    unreachable = speed0 > inp.vh_mps + inp.accel_mps2 * DT + 1e-9
    assert unreachable.any()
    over = (result.flags & FLAG_OVER_CAP) != 0
    np.testing.assert_array_equal(over[unreachable], True)
    assert np.all(result.label[over] != SAFE)
    np.testing.assert_allclose(speed1[unreachable],
                               speed0[unreachable] - (inp.accel_mps2 * DT)[unreachable])
    assert np.all(speed1[~over] <= inp.vh_mps[~over] * (1 + 1e-9) + 1e-9)


def test_within_caps_is_the_nearest_point_of_both_disks():
    rng = np.random.default_rng(4)
    n = 300
    v0, target = rng.normal(size=(n, 2)), rng.normal(size=(n, 2)) * 3.0
    reach, vh = rng.uniform(0.05, 1.0, n), rng.uniform(0.3, 2.0, n)
    got = within_caps(v0, target, reach, vh)
    meet = np.hypot(*v0.T) <= vh + reach
    for i in np.flatnonzero(meet)[:100]:
        angle = rng.uniform(0.0, 2.0 * np.pi, 20000)
        radius = np.sqrt(rng.uniform(0.0, 1.0, 20000)) * reach[i]
        pts = v0[i] + np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
        pts = pts[np.hypot(*pts.T) <= vh[i]]
        assert np.hypot(*got[i]) <= vh[i] + 1e-9
        assert np.hypot(*(got[i] - v0[i])) <= reach[i] + 1e-9
        if pts.size:
            assert np.hypot(*(got[i] - target[i])) <= np.hypot(*(pts - target[i]).T).min() + 1e-9


@pytest.mark.parametrize("offset_m", [0.0, 0.1, 0.3])
def test_two_head_on_agents_with_a_pillar_between_them_never_exceed_their_cap(offset_m):
    world = World(Layout(obstacles=[PILLAR], corridor_m=HALL), assertions=True)
    world.add_agents([[-5.0, offset_m], [5.0, -offset_m]],
                     [[[5.0, offset_m]], [[-5.0, -offset_m]]], radius_m=0.4, max_speed_mps=1.2,
                     time_horizon_obst_s=0.5)
    for _ in range(250):
        step = world.step()
        assert np.all(np.hypot(*step.velocity_mps.T) <= 1.2 + 1e-9)


def test_an_agent_starting_outside_the_corridor_never_speeds_up_beyond_its_cap():
    world = World(Layout(corridor_m=HALL), assertions=True)
    world.add_agents([[0.0, 6.0], [9.0, 0.0]], [[[0.0, 0.0]], [[0.0, 0.0]]], radius_m=0.4,
                     max_speed_mps=1.2)
    for _ in range(200):
        step = world.step()
        assert np.all(np.hypot(*step.velocity_mps.T) <= 1.2 + 1e-9)


def _hardest_brake_in_numpy(inp, prep, agents, v_stop):
    """F2's choice as whole-array numpy over the verification's edge margins (the expression
    the compiled pass replaced)."""
    from navproof.boundary.stop_envelope import brake_envelope_margin_m
    from navproof.step.verify import edge_margins

    def least_brake(v1):
        end = edge_margins(inp, prep, agents, v1).end_m
        stop = brake_envelope_margin_m(end, inp.edges.normal[agents],
                                       prep.u[agents] + v1 - prep.ref.r_mps[agents],
                                       prep.kfac_s[agents])
        least = np.where(walls, np.minimum(end, stop), np.inf)
        return least.min(axis=1, initial=np.inf)

    v0 = inp.velocity_mps[agents]
    reach = inp.accel_mps2[agents] * inp.dt_per_agent_s[agents]
    vh = inp.vh_mps[agents]
    walls = inp.edges.solid[agents]
    best = within_caps(v0, v_stop, reach, vh)
    score = least_brake(best)
    normal = inp.edges.normal[agents]
    for i in range(walls.shape[1]):
        cand = within_caps(v0, v0 - normal[:, i] * reach[:, None], reach, vh)
        cand_score = least_brake(cand)
        better = walls[:, i] & (cand_score > score)
        best = np.where(better[:, None], cand, best)
        score = np.where(better, cand_score, score)
    return best


@pytest.mark.parametrize("seed", [0, 1])
def test_hardest_brake_pass_equals_the_numpy_choice(seed):
    # every body's F2 choice, bodies outside their walls, starts above the cap, portals,
    # NaN stop targets and margins, tiny reaches and equal scores included, to the bit
    from navproof.boundary.edges import EDGE_PORTAL
    from navproof.step.constraints import prepare_constraints
    from navproof.step.fallbacks import _hardest_brake
    from navproof.step.inputs import check_valid_step_input

    rng = np.random.default_rng(seed)
    inp = random_walled_step(800, 10 + seed, start_speed_factor=2.0)
    kind = np.where(rng.random((800, 4)) < 0.2, EDGE_PORTAL, 0)
    edges = EdgeSet.build(inp.edges.normal, inp.edges.offset_m, kind=kind)
    accel = inp.accel_mps2.copy()
    accel[::37] = 1e-12
    inp = check_valid_step_input(StepInput(inp.position_m, inp.velocity_mps, inp.preferred_mps,
                                           DT, inp.support, edges, inp.vh_mps, accel,
                                           inp.radius_m, neighbors=inp.neighbors))
    prep = prepare_constraints(inp)
    prep.s[::41, 2] = np.nan
    agents = np.sort(rng.choice(800, 500, replace=False))
    v_stop = prep.ref.v_stop_mps[agents].copy()
    v_stop[::29] = np.nan
    v_stop[::31] = inp.velocity_mps[agents[::31]]
    got = _hardest_brake(inp, prep, agents, v_stop)
    expect = _hardest_brake_in_numpy(inp, prep, agents, v_stop)
    assert got.tobytes() == expect.tobytes()
    moved = np.any(got != within_caps(inp.velocity_mps[agents], v_stop,
                                      (accel * DT)[agents], inp.vh_mps[agents]), axis=1)
    assert 50 < moved.sum() < 450
