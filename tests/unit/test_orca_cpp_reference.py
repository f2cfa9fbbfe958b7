"""One step from the same input state agrees with the C++ RVO2 library (through pyrvo) to 1e-4.

The library computes in float32 and the crowd in float64. Dense, overlapping crowds force the
already-colliding case and the linear program 3 fallback; obstacles bring in their special cases.
Skipped only where the pyrvo wheel is not available for the platform.
"""

import numpy as np
import pytest

from navproof.crowd import Crowd

pyrvo = pytest.importorskip("pyrvo", reason="the pyrvo bindings of the C++ RVO2 library")

OBSTACLES = [
    [(-3.0, -3.0), (3.0, -3.0), (3.0, 3.0), (-3.0, 3.0)],
    [(5.0, 5.0), (9.0, 6.0)],
    [(-10.0, 0.0), (-6.0, 0.0), (-8.0, 4.0), (-7.0, 1.0)],
]


def _random_state(seed, n, box):
    rng = np.random.default_rng(seed)
    return dict(
        pos=rng.uniform(-box, box, (n, 2)),
        vel=rng.uniform(-2.0, 2.0, (n, 2)),
        pref=rng.uniform(-2.5, 2.5, (n, 2)),
        rad=rng.uniform(0.4, 1.5, n),
    )


def _one_step_both(state, obstacles, *, dist=10.0, max_n=10, tau=5.0, tau_obst=2.0):
    real = pyrvo.RVOSimulator(0.25, dist, max_n, tau, tau_obst, 1.0, 2.0)
    n = len(state["rad"])
    for i in range(n):
        real.add_agent(tuple(state["pos"][i]), dist, max_n, tau, tau_obst,
                       float(state["rad"][i]), 2.0, tuple(state["vel"][i]))
        real.set_agent_pref_velocity(i, tuple(state["pref"][i]))
    for poly in obstacles:
        real.add_obstacle(poly)
    real.process_obstacles()
    crowd = Crowd(0.25)
    crowd.add_agents(state["pos"], velocity=state["vel"], pref_velocity=state["pref"],
                     radius=state["rad"], max_speed=2.0, neighbor_dist=dist, max_neighbors=max_n,
                     time_horizon=tau, time_horizon_obst=tau_obst)
    for poly in obstacles:
        crowd.add_obstacle(poly)
    real.do_step()
    diagnostics = crowd.step()
    real_vel = np.array([real.get_agent_velocity(i).to_tuple() for i in range(n)])
    real_pos = np.array([real.get_agent_position(i).to_tuple() for i in range(n)])
    return crowd, diagnostics, real_vel, real_pos


@pytest.mark.parametrize("seed", range(4))
def test_dense_overlapping_crowd_agrees_with_the_library(seed):
    # 150 bodies of radius 0.4-1.5 m in a 24 m square: many overlaps and infeasible programs.
    state = _random_state(seed, 150, 12.0)
    crowd, diagnostics, real_vel, real_pos = _one_step_both(state, [])
    assert not np.all(diagnostics.feasible), "the state should exercise the fallback"
    np.testing.assert_allclose(crowd.velocity, real_vel, atol=1e-4, rtol=0)
    np.testing.assert_allclose(crowd.position, real_pos, atol=1e-4, rtol=0)


@pytest.mark.parametrize("seed", range(4))
def test_crowd_among_obstacles_agrees_with_the_library(seed):
    state = _random_state(100 + seed, 80, 14.0)
    crowd, _, real_vel, real_pos = _one_step_both(state, OBSTACLES)
    np.testing.assert_allclose(crowd.velocity, real_vel, atol=1e-4, rtol=0)
    np.testing.assert_allclose(crowd.position, real_pos, atol=1e-4, rtol=0)
