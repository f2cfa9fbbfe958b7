"""Fuzzing the ORCA crowd and its RVO2-compatible API with hostile numbers.

Every call either raises InvalidInput and leaves the crowd exactly as it was, or is accepted;
an accepted crowd keeps stepping with its assertion mode on (O1, O2, O4 checked every step) and
only finite positions and velocities. Claim: O1-O6 (through the monitor).
"""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from navproof.core.errors import InvalidInput
from navproof.orca.compat import RVOSimulator
from navproof.orca.crowd import Crowd

HOSTILE = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 5e-324, 1e-300, 1e-3, 0.5, 2.0, 15.0, 3e9, 1e20, 1e154, -1.0]),
)
SANE = st.floats(-5.0, 5.0)
PARAMS = ("radius", "max_speed", "neighbor_dist", "max_neighbors", "time_horizon",
          "time_horizon_obst")
FIELDS = ("position", "velocity", "pref_velocity", *PARAMS[:-1], "max_neighbors",
          "time_horizon_obst")


def _snapshot(crowd: Crowd) -> dict[str, np.ndarray]:
    return {name: getattr(crowd, name).copy() for name in
            ("position", "velocity", "pref_velocity", "radius", "max_speed", "neighbor_dist",
             "max_neighbors", "time_horizon", "time_horizon_obst")}


def _base() -> Crowd:
    crowd = Crowd(0.25, assertions=True)
    crowd.add_agents([(0.0, 0.0), (2.0, 0.0), (0.0, 2.0)], radius=0.4, max_speed=1.5,
                     neighbor_dist=5.0, max_neighbors=5, time_horizon=2.0, time_horizon_obst=2.0)
    crowd.set_pref_velocities([(1.0, 0.0), (-1.0, 0.0), (0.0, -1.0)])
    return crowd


def _steps_finitely(crowd: Crowd) -> None:
    for _ in range(2):
        crowd.step()
        assert np.isfinite(crowd.position).all() and np.isfinite(crowd.velocity).all()


@settings(max_examples=60)
@given(position=st.tuples(HOSTILE, SANE), params=st.dictionaries(st.sampled_from(PARAMS), HOSTILE),
       pref=st.tuples(HOSTILE, HOSTILE))
@example(position=(1.0, 1.0), params={"max_neighbors": 1e20}, pref=(0.0, 0.0))
@example(position=(1.0, 1.0), params={"neighbor_dist": 1e-300}, pref=(0.0, 0.0))
@example(position=(1.0, 1.0), params={}, pref=(1e154, 1e154))
def test_add_agents_is_refused_whole_or_keeps_the_crowd_safe(position, params, pref) -> None:
    crowd = _base()
    before = _snapshot(crowd)
    try:
        crowd.add_agents([position], pref_velocity=[pref], **params)
    except InvalidInput as exc:
        assert exc.field and exc.rule
        after = _snapshot(crowd)
        for name, value in before.items():
            np.testing.assert_array_equal(after[name], value, err_msg=name)
    _steps_finitely(crowd)


@settings(max_examples=60)
@given(name=st.sampled_from(PARAMS), value=HOSTILE, agent=st.integers(0, 2))
def test_set_agent_scalar_is_refused_or_keeps_the_crowd_safe(name, value, agent) -> None:
    crowd = _base()
    before = _snapshot(crowd)
    try:
        crowd.set_agent_scalar(name, agent, value)
    except InvalidInput:
        after = _snapshot(crowd)
        for key, old in before.items():
            np.testing.assert_array_equal(after[key], old, err_msg=key)
    _steps_finitely(crowd)


@settings(max_examples=40)
@given(vertices=st.lists(st.tuples(st.one_of(st.floats(-3, 3), st.just(float("nan"))), st.floats(-3, 3)),
                         min_size=0, max_size=6))
@example(vertices=[(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)])
@example(vertices=[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)])
def test_obstacles_are_simple_polygons_or_refused(vertices) -> None:
    crowd = _base()
    try:
        crowd.add_obstacle(vertices)
    except InvalidInput:
        assert crowd.obstacles.polygons == []
    _steps_finitely(crowd)


@settings(max_examples=40)
@given(pos=st.tuples(SANE, SANE), args=st.lists(HOSTILE, min_size=0, max_size=6),
       radius=HOSTILE, p1=st.tuples(HOSTILE, SANE))
def test_compat_api_refuses_or_answers(pos, args, radius, p1) -> None:
    sim = RVOSimulator(0.25, 5.0, 5, 2.0, 2.0, 0.4, 1.5, assertions=True)
    sim.addAgent((0.0, 0.0))
    sim.addObstacle([(3.0, -1.0), (4.0, -1.0), (4.0, 1.0), (3.0, 1.0)])
    count = sim.getNumAgents()
    try:
        sim.addAgent(pos, *args)
    except (InvalidInput, TypeError):
        assert sim.getNumAgents() == count
    try:
        visible = sim.queryVisibility(p1, (5.0, 0.0), radius)
    except InvalidInput:
        pass
    else:
        assert isinstance(visible, bool)
        assert np.isfinite(radius) and radius >= 0 and np.isfinite(p1[0])
    sim.setAgentPrefVelocity(0, (1.0, 0.0))
    sim.doStep()
    assert all(np.isfinite(sim.getAgentPosition(i)).all() for i in range(sim.getNumAgents()))
