"""One vectorised ORCA step agrees with a loop-per-agent port of RVO2 (the oracle) to 1e-4.

Random crowds with every kind of obstacle (convex and non-convex polygons, segments, a
bounding polygon), states taken from RVO2's example scenarios, and crafted states for each
obstacle case. Claims: O2, O3, O5, O6 (same lines, same linear programs as the reference).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from navproof.orca.crowd import Crowd

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "reference"))
import rvo2_reference as ref  # noqa: E402

TOL = 1e-4

OBSTACLES = [
    [(-3.0, -3.0), (3.0, -3.0), (3.0, 3.0), (-3.0, 3.0)],
    [(5.0, 5.0), (9.0, 6.0)],
    [(-10.0, 0.0), (-6.0, 0.0), (-8.0, 4.0), (-7.0, 1.0)],
    [(8.0, -12.0), (14.0, -12.0), (14.0, -6.0), (11.0, -9.0), (8.0, -6.0)],
]
BOUNDING = [(-30.0, -30.0), (-30.0, 30.0), (30.0, 30.0), (30.0, -30.0)]


def _pair(pos, vel, pref, rad, *, speed=2.0, ndist=8.0, maxn=6, th=3.0, tho=2.0,
          obstacles=(), dt=0.25):
    crowd = Crowd(dt)
    crowd.add_agents(pos, velocity=vel, pref_velocity=pref, radius=rad, max_speed=speed,
                     neighbor_dist=ndist, max_neighbors=maxn, time_horizon=th,
                     time_horizon_obst=tho)
    sim = ref.Simulator(dt)
    speeds = np.broadcast_to(speed, (len(pos),))
    for i in range(len(pos)):
        sim.add_agent(pos[i], ndist, maxn, th, tho, rad[i], float(speeds[i]), vel[i], pref[i])
    for poly in obstacles:
        crowd.add_obstacle(poly)
        sim.add_obstacle(poly)
    sim.process_obstacles()
    return crowd, sim


def _compare(crowd: Crowd, sim: ref.Simulator, steps: int) -> tuple[int, int]:
    """Step both and compare; returns (agent-steps with obstacle lines, degraded agent-steps)."""
    with_obstacle_lines = degraded = 0
    for step in range(steps):
        crowd.step()
        sim.do_step()
        with_obstacle_lines += int(np.count_nonzero(crowd.diagnostics.num_hard > 0))
        degraded += int(np.count_nonzero(~crowd.diagnostics.feasible))
        ref_vel = np.array([[a.velocity.x, a.velocity.y] for a in sim.agents])
        ref_pos = np.array([[a.position.x, a.position.y] for a in sim.agents])
        np.testing.assert_allclose(crowd.velocity, ref_vel, atol=TOL, rtol=0,
                                   err_msg=f"velocity at step {step}")
        np.testing.assert_allclose(crowd.position, ref_pos, atol=TOL, rtol=0,
                                   err_msg=f"position at step {step}")
    return with_obstacle_lines, degraded


@pytest.mark.parametrize("seed", range(8))
def test_random_crowd_with_obstacles_matches_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 50
    pos = rng.uniform(-15, 15, (n, 2))
    vel = rng.uniform(-1.5, 1.5, (n, 2))
    pref = rng.uniform(-2.5, 2.5, (n, 2))
    rad = rng.uniform(0.3, 1.2, n)
    obstacles = OBSTACLES + ([BOUNDING] if seed % 2 else [])
    crowd, sim = _pair(pos, vel, pref, rad, obstacles=obstacles)
    with_obstacle_lines, degraded = _compare(crowd, sim, 4)
    # the random states do exercise obstacle lines and degraded (infeasible) solves
    assert with_obstacle_lines > 0
    assert degraded > 0


def test_dense_overlapping_crowd_matches_reference() -> None:
    rng = np.random.default_rng(99)
    n = 60
    pos = rng.uniform(-4, 4, (n, 2))
    vel = rng.uniform(-2, 2, (n, 2))
    pref = rng.uniform(-2, 2, (n, 2))
    rad = np.full(n, 0.6)
    crowd, sim = _pair(pos, vel, pref, rad, maxn=10, ndist=5.0)
    crowd.compute_new_velocities()
    diag = crowd.compute_new_velocities()
    assert (~diag.feasible).sum() > 0, "this state must exercise linearProgram3"
    _compare(crowd, sim, 3)


def test_circle_example_state_matches_reference() -> None:
    n = 250
    angle = 2.0 * np.pi * np.arange(n) / n
    pos = 200.0 * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    # a late state of the Circle example: agents squeezed near the centre, moving inward
    rng = np.random.default_rng(5)
    pos = pos * 0.06 + rng.normal(0, 0.05, pos.shape)
    to_goal = -pos / np.hypot(*pos.T)[:, None]
    crowd, sim = _pair(pos, to_goal * 0.8, to_goal, np.full(n, 1.5), speed=2.0, ndist=15.0,
                       maxn=10, th=10.0, tho=10.0)
    _compare(crowd, sim, 2)


def test_blocks_example_state_matches_reference() -> None:
    pos = []
    for i in range(5):
        for j in range(5):
            pos += [(55.0 + i * 10.0, 55.0 + j * 10.0), (-55.0 - i * 10.0, 55.0 + j * 10.0),
                    (55.0 + i * 10.0, -55.0 - j * 10.0), (-55.0 - i * 10.0, -55.0 - j * 10.0)]
    pos_arr = np.array(pos) * 0.55
    to_goal = -pos_arr / np.hypot(*pos_arr.T)[:, None]
    blocks = [[(-10.0, 40.0), (-40.0, 40.0), (-40.0, 10.0), (-10.0, 10.0)],
              [(10.0, 40.0), (10.0, 10.0), (40.0, 10.0), (40.0, 40.0)],
              [(10.0, -40.0), (40.0, -40.0), (40.0, -10.0), (10.0, -10.0)],
              [(-10.0, -40.0), (-10.0, -10.0), (-40.0, -10.0), (-40.0, -40.0)]]
    crowd, sim = _pair(pos_arr, to_goal * 1.5, to_goal, np.full(100, 2.0), ndist=15.0, maxn=10,
                       th=5.0, tho=5.0, obstacles=blocks)
    _compare(crowd, sim, 3)


@pytest.mark.parametrize("agent_pos, agent_vel", [
    ((0.0, -3.5), (0.0, 1.0)),      # facing the segment
    ((-3.4, -3.4), (1.0, 1.0)),     # facing a convex corner
    ((0.0, -3.2), (0.0, 1.0)),      # touching the segment (collision with segment)
    ((-3.3, -3.1), (0.2, 0.2)),     # colliding with a vertex
    ((-8.0, -1.0), (0.0, 1.0)),     # under the non-convex polygon
    ((-7.2, 1.2), (0.0, 0.0)),      # in the notch of the non-convex polygon
    ((7.0, 3.0), (0.5, 1.5)),       # near the free segment
    ((10.5, 6.5), (-1.5, -0.2)),    # behind the segment's end (oblique view)
    ((11.2, -8.5), (0.0, -1.0)),    # inside the notch of the pentagon
    ((20.0, 0.0), (-2.0, 0.0)),     # nothing near
])
def test_obstacle_cases_match_reference(agent_pos, agent_vel) -> None:
    pos = np.array([agent_pos])
    vel = np.array([agent_vel])
    pref = vel * 1.2
    crowd, sim = _pair(pos, vel, pref, np.array([0.5]), tho=4.0, obstacles=OBSTACLES)
    point, direction, valid, num_hard = crowd.compute_lines()
    agent = sim.agents[0]
    agent.compute_neighbors()
    agent.compute_new_velocity()
    assert int(num_hard[0]) == len(agent.orca_lines)
    for k, line in enumerate(agent.orca_lines):
        np.testing.assert_allclose(point[0, k], [line.point.x, line.point.y], atol=1e-9)
        np.testing.assert_allclose(direction[0, k], [line.direction.x, line.direction.y],
                                   atol=1e-9)
    _compare(crowd, sim, 1)


def test_partition_splits_match_reference() -> None:
    # a long wall whose supporting line cuts the square: the partition splits an edge
    polys = [[(-20.0, 0.0), (20.0, 0.0)], [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)],
             [(5.0, -5.0), (6.0, 5.0)]]
    crowd = Crowd(0.25)
    sim = ref.Simulator(0.25)
    for p in polys:
        crowd.add_obstacle(p)
        sim.add_obstacle(p)
    crowd.process_obstacles()
    sim.process_obstacles()
    assert crowd.obstacles.point.shape[0] == len(sim.obstacles) > 8
    for k, o in enumerate(sim.obstacles):
        np.testing.assert_allclose(crowd.obstacles.point[k], [o.point.x, o.point.y], atol=1e-12)
        assert crowd.obstacles.next[k] == o.next.id
        assert crowd.obstacles.prev[k] == o.prev.id
        assert crowd.obstacles.is_convex[k] == o.is_convex
