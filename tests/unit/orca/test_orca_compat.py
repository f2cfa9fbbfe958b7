"""RVO2-binding-compatible API: same names and return shapes, same results as the crowd."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from navproof.core.errors import InvalidInput
from navproof.orca import compat
from navproof.orca.crowd import AgentDefaults, Crowd


def _sim() -> compat.RVOSimulator:
    sim = compat.RVOSimulator(0.25, 15.0, 10, 5.0, 5.0, 2.0, 2.0)
    for p in [(0.0, 0.0), (10.0, 0.5), (5.0, 8.0)]:
        sim.addAgent(p)
    sim.addObstacle([(4.0, -6.0), (6.0, -6.0), (6.0, -4.0), (4.0, -4.0)])
    sim.processObstacles()
    return sim


def test_binding_class_name_is_available() -> None:
    assert compat.PyRVOSimulator is compat.RVOSimulator


def test_step_matches_crowd() -> None:
    sim = _sim()
    crowd = Crowd(0.25, defaults=AgentDefaults(15.0, 10, 5.0, 5.0, 2.0, 2.0))
    crowd.add_agents([(0.0, 0.0), (10.0, 0.5), (5.0, 8.0)])
    crowd.add_obstacle([(4.0, -6.0), (6.0, -6.0), (6.0, -4.0), (4.0, -4.0)])
    prefs = [(1.0, 0.0), (-1.0, 0.0), (0.0, -1.0)]
    for i, p in enumerate(prefs):
        sim.setAgentPrefVelocity(i, p)
    crowd.set_pref_velocities(prefs)
    for _ in range(20):
        sim.doStep()
        crowd.step()
    for i in range(3):
        assert sim.getAgentPosition(i) == tuple(crowd.position[i])
        assert sim.getAgentVelocity(i) == tuple(crowd.velocity[i])
    assert sim.getGlobalTime() == pytest.approx(5.0)
    assert sim.getNumAgents() == 3


def test_getters_and_setters() -> None:
    sim = _sim()
    assert sim.getTimeStep() == 0.25
    sim.setTimeStep(0.1)
    assert sim.getTimeStep() == 0.1
    sim.setAgentRadius(0, 1.0)
    sim.setAgentMaxSpeed(0, 3.0)
    sim.setAgentNeighborDist(0, 7.0)
    sim.setAgentMaxNeighbors(0, 4)
    sim.setAgentTimeHorizon(0, 3.0)
    sim.setAgentTimeHorizonObst(0, 2.0)
    sim.setAgentPosition(0, (1.0, 1.0))
    sim.setAgentVelocity(0, (0.5, 0.0))
    assert (sim.getAgentRadius(0), sim.getAgentMaxSpeed(0), sim.getAgentNeighborDist(0),
            sim.getAgentMaxNeighbors(0), sim.getAgentTimeHorizon(0),
            sim.getAgentTimeHorizonObst(0)) == (1.0, 3.0, 7.0, 4, 3.0, 2.0)
    assert sim.getAgentPosition(0) == (1.0, 1.0)
    assert sim.getAgentVelocity(0) == (0.5, 0.0)
    assert sim.getNumObstacleVertices() == 4
    assert sim.getObstacleVertex(1) == (6.0, -6.0)
    assert sim.getNextObstacleVertexNo(3) == 0
    assert sim.getPrevObstacleVertexNo(0) == 3


def test_neighbours_and_lines_after_step() -> None:
    sim = _sim()
    sim.setAgentPrefVelocity(0, (1.0, 0.0))
    sim.setAgentPrefVelocity(1, (-1.0, 0.0))
    sim.doStep()
    assert sim.getAgentNumAgentNeighbors(0) == 2
    # agent 2 at distance 9.43 is nearer than agent 1 at 10.01
    assert [sim.getAgentAgentNeighbor(0, k) for k in range(2)] == [2, 1]
    # one line per agent neighbour, at most one per obstacle edge (covered edges add none)
    n_lines = sim.getAgentNumORCALines(0)
    assert 2 <= n_lines <= 2 + sim.getAgentNumObstacleNeighbors(0)
    px, py, dx, dy = sim.getAgentORCALine(0, 0)
    assert abs(np.hypot(dx, dy) - 1.0) < 1e-12
    with pytest.raises(IndexError):
        sim.getAgentORCALine(0, 99)


def test_add_agent_with_all_parameters_and_partial_is_rejected() -> None:
    sim = _sim()
    i = sim.addAgent((3.0, 3.0), 10.0, 5, 2.0, 2.0, 0.5, 1.0, (0.0, 0.0))
    assert i == 3 and sim.getAgentRadius(3) == 0.5
    with pytest.raises(ValueError):
        sim.addAgent((3.0, 3.0), 10.0)


def test_bad_input_raises_named_errors() -> None:
    sim = _sim()
    with pytest.raises(IndexError, match="agent_no = 9"):
        sim.getAgentPosition(9)
    with pytest.raises(InvalidInput):
        sim.setAgentPrefVelocity(0, (float("nan"), 0.0))
    with pytest.raises(InvalidInput):
        sim.addObstacle([(0.0, 0.0)])
    with pytest.raises(InvalidInput):
        compat.RVOSimulator(0.25, 15.0, 10, 5.0, 5.0, -2.0, 2.0)
    with pytest.raises(IndexError):
        sim.getObstacleVertex(99)


def test_query_visibility() -> None:
    sim = _sim()
    assert not sim.queryVisibility((5.0, -10.0), (5.0, 0.0))
    assert sim.queryVisibility((0.0, 0.0), (10.0, 0.0), 1.0)
    assert not sim.queryVisibility((0.0, -3.5), (10.0, -3.5), 1.0)


@pytest.mark.skipif(importlib.util.find_spec("pyrvo") is None,
                    reason="the pyrvo bindings of the C++ RVO2 library are not installed")
@pytest.mark.parametrize("seed", range(3))
def test_against_the_cpp_library(seed: int) -> None:
    """The real library (float32) and the crowd (float64) agree to 1e-4 over several steps."""
    import pyrvo

    rng = np.random.default_rng(seed)
    n = 60
    pos = rng.uniform(-15, 15, (n, 2))
    vel = rng.uniform(-1.5, 1.5, (n, 2))
    pref = rng.uniform(-2.5, 2.5, (n, 2))
    rad = rng.uniform(0.3, 1.2, n)
    obstacles = [[(-3, -3), (3, -3), (3, 3), (-3, 3)], [(5, 5), (9, 6)],
                 [(-10, 0), (-6, 0), (-8, 4), (-7, 1)]]
    real = pyrvo.RVOSimulator(0.25, 8.0, 6, 3.0, 2.0, 1.0, 2.0)
    for i in range(n):
        real.add_agent(tuple(pos[i]), 8.0, 6, 3.0, 2.0, float(rad[i]), 2.0, tuple(vel[i]))
        real.set_agent_pref_velocity(i, tuple(pref[i]))
    for poly in obstacles:
        real.add_obstacle(poly)
    real.process_obstacles()
    crowd = Crowd(0.25)
    crowd.add_agents(pos, velocity=vel, pref_velocity=pref, radius=rad, max_speed=2.0,
                     neighbor_dist=8.0, max_neighbors=6, time_horizon=3.0, time_horizon_obst=2.0)
    for poly in obstacles:
        crowd.add_obstacle(poly)
    for _ in range(3):
        real.do_step()
        crowd.step()
        real_vel = np.array([real.get_agent_velocity(i).to_tuple() for i in range(n)])
        real_pos = np.array([real.get_agent_position(i).to_tuple() for i in range(n)])
        np.testing.assert_allclose(crowd.velocity, real_vel, atol=1e-4, rtol=0)
        np.testing.assert_allclose(crowd.position, real_pos, atol=1e-4, rtol=0)
