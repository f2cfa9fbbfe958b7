"""The stop after the step on rotating supports and next to rotating edges (claims B6, S1, S3,
R3, F2): certified along the local-frame curve, never by the constant-velocity stop formulas."""

import numpy as np
import pytest
from step_then_stop_curve import DT, relative_curve, rot

from navproof import boundary as b
from navproof import step as ss
from navproof.boundary.reference import reference_velocity
from navproof.boundary.stop_envelope import end_stop_margin_m


def true_world_curve(x0, v0, v1, pivot, omega, a, times):
    """World positions (T, 2) of one body on a platform turning at ``omega`` about a fixed
    ``pivot``: its support-frame step-then-stop curve turned with the platform."""
    y = relative_curve(x0, v0, v1, a, times)
    return pivot + rot(omega * np.asarray(times), y - pivot)


def platform_step(x0, v0, pref, *, pivot, omega, normal, offset, edge_motion=None, a=1.0,
                  vh=2.0):
    n = 1
    support = b.Support(b.Motion.rotating(np.array([pivot], float), np.array([omega], float)))
    motion = edge_motion if edge_motion is not None else b.Motion.translating(
        np.zeros((n, 1, 2)))
    edges = b.EdgeSet.build(np.array([[normal]], float), np.array([[offset]], float),
                            motion=motion)
    return ss.StepInput(np.array([x0], float), np.array([v0], float), np.array([pref], float),
                        DT, support, edges, np.array([vh]), np.array([a]), np.array([0.3]))


def test_curved_stop_crossing_a_fixed_wall_is_not_safe_although_translation_says_safe():
    # platform of radius 4 turning at 1 rad/s about the origin; the body at (0, -4) moves with
    # the rim at u = (4, 0) and walks slowly towards the fixed wall y <= -3.96, braking
    x0, v0, pivot, omega, a = np.array([0.0, -4.0]), np.array([0.0, 0.05]), np.zeros(2), 1.0, 1.0
    inp = platform_step(x0, v0, [0.0, 0.0], pivot=pivot, omega=omega, normal=[0.0, 1.0],
                        offset=-3.96, a=a)
    res = ss.solve_safe_step(inp, assertions=True)
    assert res.label[0] == ss.NO_STOP_GUARANTEE
    assert res.flags[0] & ss.FLAG_ROTATING_STOP_UNCERTIFIED

    # the translation model (velocities at the start position, c = u + v1 - r) accepts braking
    # to relative rest: its step-end stop margin is positive ...
    v1 = np.zeros((1, 2))
    u = inp.support.carry_mps(inp.position_m)
    ref = reference_velocity(inp.edges, inp.support, inp.position_m, inp.vh_mps)
    end = b.end_margin_m(inp.edges, inp.support, inp.position_m, inp.velocity_mps, v1, DT)
    stop = end_stop_margin_m(end, inp.edges.normal, u + v1 - ref.r_mps, inp.accel_mps2)
    assert stop[0, 0] > 0.0
    # ... and the certified step curve itself stays inside
    curve = b.curve_min_margin_m(inp.edges, inp.support, inp.position_m, inp.velocity_mps, v1,
                                 DT)
    assert curve[0, 0] >= 0.0
    # but the true curved stop trajectory crosses the wall (dense direct evaluation)
    times = np.linspace(DT, 2.0 * DT, 4001)    # reaction step; v1 = 0 needs no braking
    world = true_world_curve(x0, v0, v1[0], pivot, omega, a, times)
    assert world[:, 1].max() > -3.96 + 1e-3
    # and so does every reachable candidate: the stop is certified for none of them
    stop_b, hold_b = b.rotating_stop_margin_bound_m(inp.edges, inp.support, inp.position_m,
                                                    inp.velocity_mps, res.velocity_mps, DT,
                                                    inp.accel_mps2)
    assert min(stop_b[0, 0], hold_b[0, 0]) < 0.0


def test_slowly_rotating_platform_far_from_the_wall_stays_safe():
    x0, v0, pref = np.array([1.0, 0.0]), np.array([0.5, 0.0]), np.array([0.5, 0.0])
    inp = platform_step(x0, v0, pref, pivot=[0.0, 0.0], omega=0.05, normal=[1.0, 0.0],
                        offset=5.0)
    res = ss.solve_safe_step(inp, assertions=True)
    assert res.label[0] == ss.SAFE
    assert res.flags[0] == 0
    assert res.velocity_mps[0] == pytest.approx(pref)
    assert res.margins.end_stop_m[0, 0] > 0.0
    # the certified stop margin is below the dense true margin over stop and a long hold
    a = 1.0
    times = np.linspace(0.0, 200.0, 200001)
    world = true_world_curve(x0, v0, res.velocity_mps[0], np.zeros(2), 0.05, a, times)
    dense = 5.0 - world[:, 0].max()
    assert res.margins.end_stop_m[0, 0] <= dense + 1e-12
    assert dense > 0.0


def test_body_at_rest_with_its_own_platform_edge_keeps_constant_margins():
    pivot, omega = np.array([0.3, -0.2]), 1.0
    motion = b.Motion.rotating(np.array([[pivot]]), np.array([[omega]]))
    inp = platform_step([1.0, 0.5], [0.0, 0.0], [0.0, 0.0], pivot=pivot, omega=omega,
                        normal=[0.6, 0.8], offset=1.5, edge_motion=motion)
    assert not b.rotating_stop_pairs(inp.edges, inp.support).any()
    res = ss.solve_safe_step(inp, assertions=True)
    s = 1.5 - (0.6 * 1.0 + 0.8 * 0.5)
    assert res.label[0] == ss.SAFE
    assert res.flags[0] == 0
    assert res.velocity_mps[0] == pytest.approx([0.0, 0.0])
    assert res.margins.edge_curve_m[0, 0] == pytest.approx(s, abs=1e-12)
    assert res.margins.end_stop_m[0, 0] == pytest.approx(s, abs=1e-12)
    f = b.local_frame_excess_m(inp.edges, inp.support, inp.position_m, inp.velocity_mps,
                               res.velocity_mps, DT, np.linspace(0.0, DT, 11))
    assert np.allclose(f, -s, atol=1e-12)


def test_hold_next_to_a_drifting_rotating_edge_is_not_certified():
    # a translating support (a conveyor) beside a rotating edge: at rest on the conveyor the body
    # drifts forever relative to the edge, so no hold bound exists (R3 assumes no rotation)
    support = b.Support.translating(np.array([[0.2, 0.0]]))
    edges = b.EdgeSet.build(np.array([[[1.0, 0.0]]]), np.array([[3.0]]),
                            motion=b.Motion.rotating(np.zeros((1, 1, 2)), np.array([[0.3]])))
    pairs = b.rotating_stop_pairs(edges, support)
    assert pairs is not None and pairs.all()
    stop, hold = b.rotating_stop_margin_bound_m(edges, support, np.zeros((1, 2)),
                                                np.zeros((1, 2)), np.zeros((1, 2)), DT,
                                                np.array([1.0]))
    assert stop[0, 0] > 0.0
    assert hold[0, 0] == -np.inf


def test_nothing_rotating_needs_no_local_frame_stop():
    support = b.Support.translating(np.array([[0.2, 0.0]]))
    edges = b.EdgeSet.build(np.array([[[1.0, 0.0]]]), np.array([[3.0]]))
    assert b.rotating_stop_pairs(edges, support) is None
