"""Long-horizon closed loops of the safe step: the safe label is kept where nothing in the world
changes (claim S7), overlaps recover (O6), the last fallback brakes hardest (F2), one agent's
zero budget stays its own (S6), and bodies on a turning platform far from every wall are safe
(B6 with the reference of the rest on the support)."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from navproof import boundary as b
from navproof import step as ss
from navproof._generated import formulas
from navproof.boundary.reference import reference_velocity
from navproof.orca.crowd import Crowd

WALL_SETS = ((2.0, 1.5, 0.1), (1.0, 2.0, 0.1), (4.0, 1.0, 0.05), (1.0, 1.0, 0.2))
"""(a m/s^2, Vh m/s, dt s): the four parameter sets of the wall approach of issue 11."""


def advance(x, v0, v1, t, dt, u):
    """World position after ``t`` of the step's curve (B4) on a translating support."""
    t = np.asarray(t, float)[:, None]
    return x + t * (u + v0) + (v1 - v0) * t * t / (2.0 * dt)


def advance_edges(edges, edge_velocity, t):
    """The translating edges after ``t`` of the step: each offset grows by t dot(n, e), so the
    next step sees the world the last one predicted (nothing changed, S7's premise)."""
    t = np.broadcast_to(np.asarray(t, float), edges.offset_m.shape[:1])[:, None]
    offset = edges.offset_m + t * np.einsum("nkj,nkj->nk", edges.normal, edge_velocity)
    return b.EdgeSet.build(edges.normal, offset, valid=edges.valid,
                           edge_velocity_mps=edge_velocity)


def closed_loop(x, v, pref, dt, support_u, edges, vh, a, *, max_steps):
    """Run the safe step until every body is at rest relative to its reference; return the
    labels (steps, N), the least margin of every step's curve (steps, N) and the end state."""
    n = x.shape[0]
    support = b.Support.translating(support_u)
    edge_velocity = edges.motion.velocity_mps
    labels, margins = [], []
    for _ in range(max_steps):
        inp = ss.StepInput(x, v, pref, dt, support, edges, vh, a, np.full(n, 0.3))
        res = ss.solve_safe_step(inp, assertions=True)
        labels.append(res.label.copy())
        margins.append(res.margins.edge_curve_m.min(axis=1))
        x = advance(x, v, res.velocity_mps, res.commit_time_s, dt, support_u)
        v = res.velocity_mps
        edges = advance_edges(edges, edge_velocity, res.commit_time_s)
        c = support_u + v - res.reference.r_mps
        if np.all(np.hypot(c[:, 0], c[:, 1]) < 1e-9):
            break
    return np.array(labels), np.array(margins), x, v


@pytest.mark.parametrize("a_mps2, vh_mps, dt_s", WALL_SETS)
def test_s7_lone_body_walking_at_vh_at_a_fixed_wall_is_safe_on_every_step(a_mps2, vh_mps,
                                                                         dt_s):
    start = -(3.0 * vh_mps * vh_mps / a_mps2 + 1.0)
    edges = b.EdgeSet.build(np.array([[[1.0, 0.0]]]), np.array([[0.0]]))
    labels, margins, x, v = closed_loop(
        np.array([[start, 0.0]]), np.array([[vh_mps, 0.0]]), np.array([[vh_mps, 0.0]]), dt_s,
        np.zeros((1, 2)), edges, np.array([vh_mps]), np.array([a_mps2]), max_steps=3000)
    assert labels.size > 10
    assert np.all(labels == ss.SAFE)
    assert np.all(margins >= -1e-9)
    assert np.hypot(*v[0]) < 1e-9
    assert x[0, 0] <= 1e-9


EDGE_MOTIONS = ("fixed", "riding", "own")
"""How the random walls move: fixed, riding on the body's support (e = u), or translating on
their own at a speed within the profile's edge_speed_mps range."""


def _random_batch(seed, n, edge_motion):
    """One wall per body (random normal, moving as ``edge_motion`` says), support speeds within
    the default profile's range, a body heading straight for the wall at any speed up to Vh from
    a state whose previous step would have been safe (S7's premise: margin >= K dot(n, c))."""
    rng = np.random.default_rng(seed)
    ang = rng.uniform(0, 2 * np.pi, n)
    normal = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    dt = float(rng.choice([0.005, 0.02, 0.05, 0.1]))
    a = rng.uniform(0.5, 20.0, n)
    vh = rng.uniform(1.0, 8.0, n) / rng.uniform(1.0, 3.0, n)
    u_ang = rng.uniform(0, 2 * np.pi, n)
    u = rng.uniform(0.0, 0.3, n)[:, None] * np.stack([np.cos(u_ang), np.sin(u_ang)], axis=1)
    e_ang = rng.uniform(0, 2 * np.pi, n)
    own = rng.uniform(0.0, 0.3, n)[:, None] * np.stack([np.cos(e_ang), np.sin(e_ang)], axis=1)
    e = {"fixed": np.zeros((n, 2)), "riding": u, "own": own}[edge_motion]
    speed = rng.uniform(0.0, 1.0, n) * vh
    v0 = normal * speed[:, None]
    x0 = np.zeros((n, 2))
    edges0 = b.EdgeSet.build(normal[:, None, :], np.zeros((n, 1)), edge_velocity_mps=e[:, None])
    ref = reference_velocity(edges0, b.Support.translating(u), x0, vh)
    c0 = u + v0 - ref.r_mps
    cmax = vh + np.hypot(*(u - ref.r_mps).T)
    k = formulas.brake_envelope_factor(cmax=cmax, dt=dt, a=a)
    margin = k * np.maximum(np.einsum("nj,nj->n", normal, c0), 0.0) + rng.uniform(0.0, 2.0, n)
    edges = b.EdgeSet.build(normal[:, None, :], margin[:, None], edge_velocity_mps=e[:, None])
    return x0, v0, v0.copy(), dt, u, edges, vh, a


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(EDGE_MOTIONS))
@example(0, "fixed")
@example(0, "riding")
@example(0, "own")
def test_s7_random_walls_and_supports_in_range_keep_the_safe_label(seed, edge_motion):
    x0, v0, pref, dt, u, edges, vh, a = _random_batch(seed, 24, edge_motion)
    labels, margins, _, _ = closed_loop(x0, v0, pref, dt, u, edges, vh, a, max_steps=1500)
    assert np.all(labels == ss.SAFE)
    # at or before the wall on every step (the margin of a riding edge moves with it)
    assert np.all(margins >= -1e-9)


def test_s7_stop_at_the_handoff_edge_of_a_patch():
    """The handoff's stop: P is X <= 0 (its edge to the slope Q is a wall of the safe step,
    seed 000), the body walks at P's cap straight at it and must rest at or before it."""
    patch = b.make_patch(0, np.array([[-20.0, -5.0], [0.0, -5.0], [0.0, 5.0], [-20.0, 5.0]]),
                         np.zeros(2))
    normal, offset = patch.halfplanes()
    edges = b.EdgeSet.build(normal[None], offset[None])
    labels, margins, x, v = closed_loop(
        np.array([[-12.0, 0.3]]), np.array([[2.0, 0.0]]), np.array([[2.0, 0.0]]), 0.1,
        np.zeros((1, 2)), edges, np.array([2.0]), np.array([1.0]), max_steps=3000)
    assert np.all(labels == ss.SAFE)
    assert np.all(margins >= -1e-9)
    assert x[0, 0] <= 1e-9 and np.hypot(*v[0]) < 1e-9


def test_o6_an_overlapping_pair_separates_a_little_every_step_without_a_teleport():
    dt, a = 0.1, 1.0
    crowd = Crowd(dt)
    crowd.add_agents(np.array([[-0.2, 0.0], [0.2, 0.0]]), radius=0.3, max_speed=2.0,
                     neighbor_dist=5.0, max_neighbors=4, time_horizon=2.0)
    crowd.set_pref_velocities(np.zeros((2, 2)))
    edges = b.EdgeSet.build(np.tile([[[1.0, 0.0]]], (2, 1, 1)), np.full((2, 1), 50.0))
    dist = [0.4]
    for _ in range(40):
        inp = ss.step_input_from_crowd(crowd, support=b.Support.translating(np.zeros((2, 2))),
                                       edges=edges, vh_mps=np.full(2, 2.0),
                                       accel_mps2=np.full(2, a))
        res = ss.solve_safe_step(inp, assertions=True)
        overlapping = dist[-1] < 0.6
        if overlapping:
            assert np.all(res.label == ss.OVERLAP_RECOVERY)
        v0, v1 = inp.velocity_mps, res.velocity_mps
        # no teleport: each body moves along its reachable curve
        assert np.all(np.hypot(*(v1 - v0).T) <= a * dt + 1e-9)
        crowd.position = advance(crowd.position, v0, v1, res.commit_time_s, dt, np.zeros((2, 2)))
        crowd.velocity = v1.copy()
        dist.append(float(np.hypot(*(crowd.position[1] - crowd.position[0]))))
        if overlapping:
            assert dist[-1] > dist[-2]
    assert dist[-1] >= 0.6 - 1e-9


def test_f2_brakes_hardest_against_the_wall_it_is_leaving_through():
    """On the wall, moving out at 0.1 m/s with 1 m/s along it: braking towards vStop takes
    the normal speed down by only a dt |v_n|/|v| per step; the strongest braking takes all of it
    in one step (0.1 m/s in 0.1 s at 1 m/s^2: 0.005 m out)."""
    x = np.array([[0.0, 0.0]])
    v = np.array([[0.1, 1.0]])
    edges = b.EdgeSet.build(np.array([[[1.0, 0.0]]]), np.array([[0.0]]))
    worst = 0.0
    seen = set()
    for _ in range(20):
        inp = ss.StepInput(x, v, v.copy(), 0.1, b.Support.translating(np.zeros((1, 2))), edges,
                           np.array([2.0]), np.array([1.0]), np.array([0.3]))
        res = ss.solve_safe_step(inp, assertions=True)
        seen.add(int(res.label[0]))
        if res.label[0] != ss.SAFE:
            assert res.label[0] == ss.NO_STOP_GUARANTEE
        t = np.linspace(0.0, 0.1, 101)
        curve = x[0, 0] + t * v[0, 0] + (res.velocity_mps[0, 0] - v[0, 0]) * t * t / 0.2
        worst = max(worst, float(curve.max()))
        x = advance(x, v, res.velocity_mps, res.commit_time_s, 0.1, np.zeros((1, 2)))
        v = res.velocity_mps
    assert ss.NO_STOP_GUARANTEE in seen
    assert worst <= 0.005 + 1e-9
    assert x[0, 0] <= 1e-9


def test_s6_a_zero_budget_holds_that_agent_and_leaves_the_others_alone():
    n = 3
    edges = b.EdgeSet.build(np.tile([[[1.0, 0.0]]], (n, 1, 1)), np.zeros((n, 1)))
    inp = ss.StepInput(np.array([[-5.0, 0.0], [-5.0, 2.0], [-0.5, 4.0]]),
                       np.array([[0.0, 0.0], [0.0, 0.0], [0.5, 0.0]]),
                       np.full((n, 2), 0.05), 0.1, b.Support.translating(np.zeros((n, 2))), edges,
                       np.full(n, 2.0), np.array([1.0, 0.0, 0.0]), np.full(n, 0.3))
    res = ss.solve_safe_step(inp, assertions=True)
    alone = ss.solve_safe_step(ss.StepInput(
        inp.position_m[:1], inp.velocity_mps[:1], inp.preferred_mps[:1], 0.1,
        b.Support.translating(np.zeros((1, 2))), b.EdgeSet.build(np.array([[[1.0, 0.0]]]),
                                                                  np.zeros((1, 1))),
        np.array([2.0]), np.array([1.0]), np.array([0.3])), assertions=True)
    assert res.velocity_mps[0].tolist() == alone.velocity_mps[0].tolist()
    assert res.label[0] == alone.label[0] == ss.SAFE
    # at rest with a hold that keeps the wall: the hold rule keeps it where it is, labelled
    assert res.velocity_mps[1].tolist() == [0.0, 0.0]
    assert res.label[1] == ss.SAFE and res.flags[1] & ss.FLAG_NO_BRAKING_BUDGET
    # moving with no budget to brake: the velocity is the controller's, never safe
    assert res.velocity_mps[2].tolist() == [0.5, 0.0]
    assert res.label[2] == ss.NO_STOP_GUARANTEE and res.flags[2] & ss.FLAG_NO_BRAKING_BUDGET


def test_b6_bodies_on_a_turning_platform_far_from_a_fixed_wall_are_safe():
    """Platform edges ride on the platform, the world wall X <= 8 is fixed: no constant r keeps
    both when the body's platform point moves towards the wall, but the rest on the platform
    (a reference that turns with it) is certified in the wall's frame (B6)."""
    n = 4
    x0 = np.array([[0.0, -2.0], [0.0, 2.0], [2.0, -1.0], [-2.0, -1.0]])
    rot = b.Motion.rotating(np.zeros((n, 2)), np.full(n, 0.3))
    normals = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [1.0, 0.0]])
    omega = np.array([0.3, 0.3, 0.3, 0.3, 0.0])
    motion = b.Motion(np.zeros((n, 5, 2)), np.zeros((n, 5, 2)), np.tile(omega, (n, 1)),
                      np.zeros((n, 5), np.int64))
    edges = b.EdgeSet.build(np.tile(normals, (n, 1, 1)),
                            np.tile([5.0, 5.0, 5.0, 5.0, 8.0], (n, 1)), motion=motion)
    inp = ss.StepInput(x0, np.zeros((n, 2)), np.tile([0.0, 0.5], (n, 1)), 0.1, b.Support(rot),
                       edges, np.full(n, 2.0), np.full(n, 2.0), np.full(n, 0.3))
    res = ss.solve_safe_step(inp, assertions=True)
    assert np.all(res.label == ss.SAFE)
    assert not np.any(res.flags & ss.FLAG_NO_REFERENCE)
