"""Hypothesis properties of the ORCA runtime: O1, O2 (KKT certificate), O3, O6, finiteness.

Pinned examples: zero max speed, touching radii, preferred velocity exactly at max speed,
coincident agents.
"""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from navproof.orca.crowd import AgentDefaults, Crowd
from navproof.orca.halfplanes import line_violation, solve_lines
from navproof.orca.lines import agent_lines
from navproof.orca.monitor import kkt_residual

coord = st.floats(-3.0, 3.0, allow_nan=False)
unit_angle = st.floats(0.0, 2 * np.pi, allow_nan=False)
speed = st.floats(0.0, 3.0, allow_nan=False)


@st.composite
def line_sets(draw):
    k = draw(st.integers(0, 8))
    pts = [(draw(coord), draw(coord)) for _ in range(k)]
    angles = [draw(unit_angle) for _ in range(k)]
    dirs = [(np.cos(a), np.sin(a)) for a in angles]
    return np.array(pts, float).reshape(1, k, 2), np.array(dirs, float).reshape(1, k, 2)


@settings(max_examples=300, deadline=None)
@given(lines=line_sets(), pref=st.tuples(coord, coord), radius=speed)
@example(lines=(np.zeros((1, 0, 2)), np.zeros((1, 0, 2))), pref=(0.0, 0.0), radius=0.0)
@example(lines=(np.array([[[0.5, 0.0]]]), np.array([[[0.0, 1.0]]])), pref=(2.0, 0.0), radius=2.0)
@example(lines=(np.array([[[1.0, 0.0], [1.0, 0.0]]]), np.array([[[0.0, 1.0], [0.0, -1.0]]])),
         pref=(2.0, 1.0), radius=1.0)
def test_o2_solution_is_certified_closest_point(lines, pref, radius) -> None:
    point, direction = lines
    k = point.shape[1]
    valid = np.ones((1, k), bool)
    pref_arr = np.array([pref], float)
    rad = np.array([radius])
    res = solve_lines(pref_arr, rad, point, direction, valid)
    v = res.velocity
    assert np.all(np.isfinite(v))
    # RVO2's chord of line and disk cancels |p|^2 - |p|^2: absolute error ~ eps |p|^2 / radius
    assert np.hypot(*v[0]) <= radius + 1e-7
    if res.feasible[0]:
        viol = line_violation(v, point, direction, valid)
        assert viol.max(initial=-np.inf) <= 1e-7
        tol = np.array([1e-9 * (1 + radius)])
        res_kkt = kkt_residual(pref_arr, v, rad, point, direction, valid, active_tol=tol)
        assert res_kkt[0] <= 1e-7 * (1 + radius + np.hypot(*pref))
    else:
        # O4: degraded answers are labelled and report how far outside they are
        assert res.fail_slot[0] >= 0


@settings(max_examples=200, deadline=None)
@given(pref=st.tuples(coord, coord), max_speed=speed)
@example(pref=(0.0, 0.0), max_speed=0.0)
@example(pref=(2.0, 0.0), max_speed=2.0)
def test_o1_free_agent_keeps_preferred(pref, max_speed) -> None:
    crowd = Crowd(0.25, defaults=AgentDefaults(5.0, 10, 2.0, 2.0, 0.5, max_speed))
    crowd.add_agent((0.0, 0.0), pref_velocity=pref)
    crowd.step()
    if np.hypot(*pref) <= max_speed:
        assert tuple(crowd.velocity[0]) == tuple(pref)
    else:
        np.testing.assert_allclose(np.hypot(*crowd.velocity[0]), max_speed, atol=1e-12)


@settings(max_examples=300, deadline=None)
@given(rel=st.tuples(st.floats(-6, 6), st.floats(-6, 6)), r0=st.floats(0.1, 1.5),
       r1=st.floats(0.1, 1.5), v0=st.tuples(coord, coord), v1=st.tuples(coord, coord),
       p0=st.tuples(coord, coord), p1=st.tuples(coord, coord), tau=st.floats(0.5, 10.0))
@example(rel=(1.0, 0.0), r0=0.5, r1=0.5, v0=(1.0, 0.0), v1=(-1.0, 0.0), p0=(1.0, 0.0),
         p1=(-1.0, 0.0), tau=2.0)
@example(rel=(1.0 + 1e-9, 0.0), r0=0.5, r1=0.5, v0=(0.0, 0.0), v1=(0.0, 0.0), p0=(1.0, 0.0),
         p1=(-1.0, 0.0), tau=2.0)
def test_o3_reciprocal_velocities_do_not_collide_within_horizon(rel, r0, r1, v0, v1, p0, p1,
                                                                tau) -> None:
    dist = np.hypot(*rel)
    comb = r0 + r1
    if dist <= comb:
        return  # overlapping pairs are O6's case, tested below
    pos = np.array([(0.0, 0.0), rel])
    vel = np.array([v0, v1], float)
    point, direction, valid = agent_lines(pos, vel, np.array([r0, r1]), np.array([tau, tau]),
                                          0.25, np.array([[1], [0]]))
    # any velocities inside the two half-planes: here the closest ones to random preferences
    res = solve_lines(np.array([p0, p1], float), np.array([100.0, 100.0]), point, direction,
                        valid)
    assert res.feasible.all()
    rel_vel = res.velocity[1] - res.velocity[0]
    # closest approach of the relative motion over [0, tau]
    t = np.clip(-np.dot(pos[1], rel_vel) / max(np.dot(rel_vel, rel_vel), 1e-300), 0.0, tau)
    closest = np.hypot(*(pos[1] + t * rel_vel))
    assert closest >= comb - 1e-7 * (1 + dist)


@settings(max_examples=200, deadline=None)
@given(gap=st.floats(0.0, 0.99), angle=unit_angle, v0=st.tuples(coord, coord),
       v1=st.tuples(coord, coord))
@example(gap=0.0, angle=0.0, v0=(0.0, 0.0), v1=(0.0, 0.0))
def test_o6_overlapping_pair_separates_in_one_step_without_jumping(gap, angle, v0, v1) -> None:
    dt = 0.25
    rel = gap * np.array([np.cos(angle), np.sin(angle)])
    pos = np.array([(0.0, 0.0), rel])
    vel = np.array([v0, v1], float)
    point, direction, valid = agent_lines(pos, vel, np.array([0.5, 0.5]), np.array([2.0, 2.0]),
                                          dt, np.array([[1], [0]]))
    assert np.all(np.isfinite(point)) and np.all(np.isfinite(direction))
    res = solve_lines(vel, np.array([100.0, 100.0]), point, direction, valid)
    end = rel + dt * (res.velocity[1] - res.velocity[0])
    assert np.hypot(*end) >= 1.0 - 1e-9
    # no teleport: each agent's displacement is bounded by the velocity change it must make
    move = dt * np.hypot(*(res.velocity - vel).T)
    assert np.all(move <= 1.0 + dt * np.hypot(*(vel[1] - vel[0])) + 1e-9)


@st.composite
def crowds(draw):
    n = draw(st.integers(1, 12))
    pos = [(draw(st.floats(-4, 4)), draw(st.floats(-4, 4))) for _ in range(n)]
    if n > 1 and draw(st.booleans()):
        pos[1] = pos[0]   # coincident agents
    vel = [(draw(st.floats(-2, 2)), draw(st.floats(-2, 2))) for _ in range(n)]
    pref = [(draw(st.floats(-3, 3)), draw(st.floats(-3, 3))) for _ in range(n)]
    radius = [draw(st.floats(0.0, 1.0)) for _ in range(n)]
    max_speed = [draw(st.sampled_from([0.0, 0.5, 2.0])) for _ in range(n)]
    return pos, vel, pref, radius, max_speed


@settings(max_examples=150, deadline=None)
@given(crowd_state=crowds(), with_obstacle=st.booleans())
def test_no_nan_ever_and_monitor_passes(crowd_state, with_obstacle) -> None:
    pos, vel, pref, radius, max_speed = crowd_state
    crowd = Crowd(0.25, defaults=AgentDefaults(4.0, 5, 2.0, 1.0, 0.5, 2.0), assertions=True)
    crowd.add_agents(pos, velocity=vel, pref_velocity=pref, radius=radius, max_speed=max_speed)
    if with_obstacle:
        crowd.add_obstacle([(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)])
        crowd.add_obstacle([(2.0, 2.0), (3.0, 3.0)])
    for _ in range(3):
        diag = crowd.step()
        assert np.all(np.isfinite(crowd.position)) and np.all(np.isfinite(crowd.velocity))
        assert np.all(np.isfinite(diag.max_violation))
