"""ORCA line construction per geometric case (agents and obstacles).

Claims: O3 (reciprocal half-planes), O5 (obstacle lines, full responsibility), O6 (overlap).
"""

from __future__ import annotations

import numpy as np

from navproof.orca.halfplanes import line_violation
from navproof.orca.lines import agent_lines, obstacle_lines
from navproof.orca.obstacles import ObstacleSet


def _pair_lines(p0, p1, v0, v1, r=(0.5, 0.5), tau=2.0, dt=0.25, responsibility=0.5):
    pos = np.array([p0, p1], float)
    vel = np.array([v0, v1], float)
    nb = np.array([[1], [0]])
    return agent_lines(pos, vel, np.array(r, float), np.array([tau, tau]), dt, nb,
                       responsibility=responsibility)


def test_head_on_projects_on_cutoff_circle_symmetrically() -> None:
    # far apart, slowly closing: relative velocity lies inside the cut-off disc's shadow
    point, direction, valid = _pair_lines((0, 0), (3, 0), (0.2, 0), (-0.2, 0), tau=10.0)
    assert valid.all()
    # reciprocity: the two lines are mirror images (each takes half of u)
    np.testing.assert_allclose(point[0, 0] - [0.2, 0], -(point[1, 0] - [-0.2, 0]), atol=1e-12)
    np.testing.assert_allclose(direction[0, 0], -direction[1, 0], atol=1e-12)


def test_cutoff_case_line_is_tangent_to_cutoff_circle() -> None:
    # relative velocity (0.2, 0), cut-off centre rel_pos / tau = (0.3, 0), cut-off radius 0.1:
    # w = (-0.1, 0) points back from the centre, so the relative velocity is exactly on the
    # cut-off circle and u = 0; the line passes through v and permits x <= 0.1
    point, direction, _ = _pair_lines((0, 0), (3, 0), (0.1, 0), (-0.1, 0), tau=10.0)
    np.testing.assert_allclose(point[0, 0], [0.1, 0.0], atol=1e-12)
    np.testing.assert_allclose(direction[0, 0], [0.0, 1.0], atol=1e-12)


def test_leg_case_line_is_parallel_to_a_leg() -> None:
    # relative velocity (3, 0.6) passes the cut-off centre (2, 0.25): projection on a leg
    point, direction, _ = _pair_lines((0, 0), (4, 0.5), (3.0, 0.6), (0, 0), tau=2.0)
    rel = np.array([4.0, 0.5])
    comb = 1.0
    # the leg direction makes angle asin(comb/|rel|) with rel_pos
    cos_leg = np.dot(direction[0, 0], rel) / np.linalg.norm(rel)
    np.testing.assert_allclose(cos_leg, np.sqrt(1 - (comb / np.linalg.norm(rel)) ** 2), atol=1e-12)


def test_pair_velocities_in_their_lines_do_not_collide_within_horizon() -> None:
    point, direction, valid = _pair_lines((0, 0), (4, 0.5), (1.0, 0.3), (-1.0, 0.0), tau=2.0)
    # velocities on the two lines (the smallest admissible changes)
    v0, v1 = point[0, 0], point[1, 0]
    rel_pos = np.array([4.0, 0.5])
    rel_vel = v0 - v1
    t = np.linspace(0, 2.0, 2001)
    dist = np.hypot(*(rel_pos[:, None] - rel_vel[:, None] * t[None, :]))
    assert dist.min() >= 1.0 - 1e-9


def test_overlapping_pair_uses_time_step_cutoff_and_separates() -> None:
    dt = 0.25
    point, direction, valid = _pair_lines((0, 0), (0.6, 0), (0, 0), (0, 0), dt=dt)
    # each agent must move away from the other: agent 0 to -x, agent 1 to +x
    viol0 = line_violation(np.array([[0.0, 0.0]]), point[:1], direction[:1], valid[:1])[0, 0]
    assert viol0 > 0
    # velocities on both lines separate the pair within one step (O6), not a jump
    v0, v1 = point[0, 0], point[1, 0]
    end = np.array([0.6, 0]) + dt * (v1 - v0)
    assert np.hypot(*end) >= 1.0 - 1e-12
    assert np.hypot(*(v0 * dt)) <= 0.5 * (1.0 - 0.6) + 1e-12


def test_coincident_agents_get_finite_opposite_lines() -> None:
    point, direction, valid = _pair_lines((1, 1), (1, 1), (0, 0), (0, 0))
    assert np.all(np.isfinite(point)) and np.all(np.isfinite(direction))
    np.testing.assert_allclose(direction[0, 0], -direction[1, 0])


def test_responsibility_one_takes_whole_change() -> None:
    half, _, _ = _pair_lines((0, 0), (3, 0), (0.5, 0), (-0.5, 0), tau=5.0)
    full, _, _ = _pair_lines((0, 0), (3, 0), (0.5, 0), (-0.5, 0), tau=5.0, responsibility=1.0)
    np.testing.assert_allclose(full[0, 0] - [0.5, 0], 2 * (half[0, 0] - [0.5, 0]), atol=1e-12)


def _square() -> ObstacleSet:
    obs = ObstacleSet()
    obs.add([(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)])
    obs.process()
    return obs


def _obst_lines(obs, pos, vel, r=0.5, tho=2.0):
    p = np.array([pos], float)
    v = np.array([vel], float)
    range_sq = np.array([(tho * 2.0 + r) ** 2])
    idx, _ = obs.neighbors(p, range_sq)
    return idx, obstacle_lines(p, v, np.array([r]), np.array([tho]), obs, idx)


def test_collision_with_segment_gives_line_through_origin_along_edge() -> None:
    obs = _square()
    idx, (point, direction, valid) = _obst_lines(obs, (0.0, -1.3), (0.0, 0.0))
    assert valid[0, 0]
    np.testing.assert_allclose(point[0, 0], [0, 0])
    np.testing.assert_allclose(direction[0, 0], [-1, 0])   # minus the edge direction
    # moving into the wall is forbidden, moving away allowed
    assert line_violation(np.array([[0, 0.1]]), point[:, :1], direction[:, :1], valid[:, :1])[0, 0] > 0
    assert line_violation(np.array([[0, -0.1]]), point[:, :1], direction[:, :1], valid[:, :1])[0, 0] < 0


def test_collision_with_vertex_gives_line_through_origin() -> None:
    obs = _square()
    _, (point, direction, valid) = _obst_lines(obs, (-1.2, -1.2), (0.0, 0.0))
    assert valid[0, 0]
    np.testing.assert_allclose(point[0, 0], [0, 0])
    toward = np.array([[1.0, 1.0]]) * 0.1
    assert line_violation(toward, point[:, :1], direction[:, :1], valid[:, :1])[0, 0] > 0


def test_agent_only_sees_edges_facing_it() -> None:
    obs = _square()
    idx, _ = _obst_lines(obs, (0.0, -3.0), (0.0, 0.0))
    # the bottom edge (vertex 0) faces the agent; the top edge (vertex 2) does not
    seen = set(idx[0][idx[0] >= 0].tolist())
    assert 0 in seen and 2 not in seen


def test_far_approach_gives_hard_line_that_stops_at_horizon() -> None:
    obs = _square()
    _, (point, direction, valid) = _obst_lines(obs, (0.0, -3.0), (0.0, 1.5), tho=2.0)
    assert valid[0].any()
    # full responsibility: velocity reaching the edge within the obstacle horizon is excluded
    fast = np.array([[0.0, 1.5]])
    assert line_violation(fast, point, direction, valid).max() > 0
    slow = np.array([[0.0, 0.5]])
    assert line_violation(slow, point, direction, valid).max() <= 1e-12


def test_segment_obstacle_is_two_sided() -> None:
    obs = ObstacleSet()
    obs.add([(-1.0, 0.0), (1.0, 0.0)])
    obs.process()
    for y, vy in ((-1.0, 1.0), (1.0, -1.0)):
        _, (point, direction, valid) = _obst_lines(obs, (0.0, y), (0.0, vy))
        assert valid[0].any()
        assert line_violation(np.array([[0.0, 2 * vy]]), point, direction, valid).max() > 0


def test_non_convex_vertex_collision_is_ignored() -> None:
    obs = ObstacleSet()
    # a "V" notch: vertex 3 at (0, 1) is non-convex
    obs.add([(-2.0, -1.0), (2.0, -1.0), (2.0, 2.0), (0.0, 1.0), (-2.0, 2.0)])
    obs.process()
    assert not obs.is_convex[3]
    assert obs.is_convex[[0, 1, 2, 4]].all()
