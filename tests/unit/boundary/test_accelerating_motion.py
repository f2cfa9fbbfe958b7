"""Accelerating supports and edges (claim B6, with B5, S1, S3, R3): the certified local-frame
bound covers the true excess of the step and of the stop after it, the hold at rest on an
accelerating support is certified only where its drift is bounded, and a shared accelerating
motion cancels exactly."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from step_then_stop_curve import DT, relative_curve, rot

from navproof import boundary as b
from navproof.core.errors import InvalidInput


def true_excess(y, times, sup, edge, normal, offset):
    """dot(n, local point) - b (T,) of support-frame points ``y`` (T, 2): each motion is
    (pivot, velocity, acceleration, omega); support frame -> world -> the edge's local frame."""
    t = np.asarray(times)[:, None]
    cs, ws, as_, os_ = sup
    ce, we, ae, oe = edge
    x = cs + ws * t + 0.5 * as_ * t * t + rot(os_ * t[:, 0], y - cs)
    local = ce + rot(-oe * t[:, 0], x - ce - we * t - 0.5 * ae * t * t)
    return local @ normal - offset


def one_pair(sup, edge, normal, offset):
    cs, ws, as_, os_ = sup
    ce, we, ae, oe = edge
    support = b.Support(b.Motion.rotating(np.array([cs]), np.array([os_]),
                                          velocity_mps=np.array([ws]),
                                          acceleration_mps2=np.array([as_])))
    edges = b.EdgeSet.build(np.array([[normal]]), np.array([[offset]]),
                            motion=b.Motion.rotating(np.array([[ce]]), np.array([[oe]]),
                                                     velocity_mps=np.array([[we]]),
                                                     acceleration_mps2=np.array([[ae]])))
    return support, edges


coord = st.floats(-3.0, 3.0)
vec = st.tuples(coord, coord).map(np.array)
small = st.tuples(st.floats(-0.5, 0.5), st.floats(-0.5, 0.5)).map(np.array)
accel = st.tuples(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0)).map(np.array)
rate = st.one_of(st.just(0.0), st.floats(-1.0, 1.0))
angle = st.floats(0.0, 2.0 * np.pi)


@st.composite
def accelerating_case(draw):
    """A support and an edge of which at least one accelerates (and may also rotate)."""
    sup = (draw(vec), draw(small), draw(accel), draw(rate))
    edge = (draw(vec), draw(small), draw(accel), draw(rate))
    if not (np.any(sup[2] != edge[2])):
        sup = (sup[0], sup[1], sup[2] + np.array([0.5, 0.0]), sup[3])
    th = draw(angle)
    normal = np.array([np.cos(th), np.sin(th)])
    return sup, edge, normal, draw(st.floats(-2.0, 4.0)), draw(vec), draw(small), draw(small)


@settings(max_examples=60, deadline=None)
@given(accelerating_case())
def test_certified_step_bound_covers_the_sampled_true_excess(case):
    sup, edge, normal, offset, x0, v0, v1 = case
    support, edges = one_pair(sup, edge, normal, offset)
    assert b.moving_frame_pairs(edges, support).all()
    bound = b.rigid_curve_margin_bound_m(edges, support, x0[None], v0[None], v1[None], DT)
    times = np.linspace(0.0, DT, 2001)
    y = relative_curve(x0, v0, v1, 1.0, times)
    worst = true_excess(y, times, sup, edge, normal, offset).max()
    assert bound[0, 0] <= -worst + 1e-12
    # the runtime's own evaluation of f agrees with the written-out one
    f = b.local_frame_excess_m(edges, support, x0[None], v0[None], v1[None], DT, times[::200])
    assert f[:, 0, 0] == pytest.approx(true_excess(y[::200], times[::200], sup, edge, normal,
                                                   offset), abs=1e-9)
    # and the whole-step margin of B5/B6 takes this bound, never the translation model alone
    curve = b.curve_min_margin_m(edges, support, x0[None], v0[None], v1[None], DT)
    assert curve[0, 0] == bound[0, 0]


@settings(max_examples=60, deadline=None)
@given(accelerating_case(), st.floats(0.5, 4.0))
def test_certified_stop_and_hold_cover_the_sampled_true_excess(case, a):
    sup, edge, normal, offset, x0, v0, v1 = case
    support, edges = one_pair(sup, edge, normal, offset)
    stop, hold = b.rotating_stop_margin_bound_m(edges, support, x0[None], v0[None], v1[None],
                                                DT, np.array([a]))
    brake = float(np.hypot(*v1)) / a
    times = np.linspace(DT, 2.0 * DT + brake, 4001)
    y = relative_curve(x0, v0, v1, a, times)
    worst = true_excess(y, times, sup, edge, normal, offset).max()
    assert stop[0, 0] <= -worst + 1e-12
    if hold[0, 0] > -np.inf:
        # a finite hold bound holds at every later time (sampled far past the drift's vertex)
        late = 2.0 * DT + brake + np.concatenate([np.linspace(0.0, 20.0, 4001),
                                                  np.geomspace(20.0, 1e4, 2000)])
        y_h = relative_curve(x0, v0, v1, a, late[:1])[0]
        hold_true = true_excess(np.broadcast_to(y_h, (late.size, 2)), late, sup, edge, normal,
                                offset).max()
        assert hold[0, 0] <= -hold_true + 1e-9


def test_same_motion_compares_the_acceleration_too():
    motion = dict(velocity_mps=np.array([[0.2, 0.0]]), acceleration_mps2=np.array([[0.3, 0.0]]))
    support = b.Support(b.Motion.rotating(np.zeros((1, 2)), np.array([0.4]), **motion))
    for edge_accel, same in (([0.3, 0.0], True), ([0.3, 0.1], False), ([0.0, 0.0], False)):
        edges = b.EdgeSet.build(np.array([[[1.0, 0.0]]]), np.array([[2.0]]),
                                motion=b.Motion.rotating(
                                    np.zeros((1, 1, 2)), np.array([[0.4]]),
                                    velocity_mps=np.array([[[0.2, 0.0]]]),
                                    acceleration_mps2=np.array([[edge_accel]])))
        assert bool(b.rigid.same_motion(edges, support)[0, 0]) is same
        pairs = b.rotating_stop_pairs(edges, support)
        assert pairs is not None and bool(pairs[0, 0]) is not same


def test_a_shared_accelerating_rotating_motion_gives_a_constant_local_margin():
    sup = (np.array([0.3, -0.2]), np.array([0.1, 0.2]), np.array([0.5, -0.4]), 0.7)
    support, edges = one_pair(sup, sup, np.array([0.6, 0.8]), 1.5)
    x0 = np.array([[1.0, 0.5]])
    s = 1.5 - (0.6 * 1.0 + 0.8 * 0.5)
    assert not b.rotating_stop_pairs(edges, support).any()
    f = b.local_frame_excess_m(edges, support, x0, np.zeros((1, 2)), np.zeros((1, 2)), DT,
                               np.linspace(0.0, DT, 11))
    assert np.allclose(f, -s, atol=1e-12)
    # the written-out world motion agrees: a body at rest on it keeps its margin
    times = np.linspace(0.0, 50.0, 501)
    y = np.broadcast_to(x0[0], (times.size, 2))
    assert np.allclose(true_excess(y, times, sup, sup, np.array([0.6, 0.8]), 1.5), -s,
                       atol=1e-9)
    curve = b.curve_min_margin_m(edges, support, x0, np.zeros((1, 2)), np.zeros((1, 2)), DT)
    assert curve[0, 0] == pytest.approx(s, abs=1e-12)


def test_equal_accelerations_without_rotation_keep_the_exact_translation_model():
    # the relative motion is a constant-velocity translation: no local-frame work needed
    support = b.Support.translating(np.array([[0.2, 0.0]]), acceleration_mps2=np.array([[0.5,
                                                                                        0.1]]))
    edges = b.EdgeSet.build(np.array([[[1.0, 0.0]]]), np.array([[3.0]]),
                            motion=b.Motion.translating(np.array([[[0.0, 0.1]]]),
                                                        acceleration_mps2=np.array([[[0.5,
                                                                                      0.1]]])))
    assert b.rotating_stop_pairs(edges, support) is None
    assert not b.moving_frame_pairs(edges, support).any()


def test_an_accelerating_conveyor_beside_a_fixed_wall_takes_the_local_frame_path():
    support = b.Support.translating(np.array([[0.2, 0.0]]), acceleration_mps2=np.array([[0.5,
                                                                                        0.0]]))
    edges = b.EdgeSet.build(np.array([[[1.0, 0.0], [-1.0, 0.0]]]), np.array([[3.0, 3.0]]))
    pairs = b.rotating_stop_pairs(edges, support)
    assert pairs is not None and pairs.all()


def _hold(sup_velocity, sup_accel, normal, *, edge_omega=0.0, offset=3.0):
    support = b.Support.translating(np.array([sup_velocity], float),
                                    acceleration_mps2=np.array([sup_accel], float))
    edges = b.EdgeSet.build(np.array([[normal]], float), np.array([[offset]]),
                            motion=b.Motion.rotating(np.zeros((1, 1, 2)),
                                                     np.array([[edge_omega]])))
    _, hold = b.rotating_stop_margin_bound_m(edges, support, np.zeros((1, 2)), np.zeros((1, 2)),
                                             np.zeros((1, 2)), DT, np.array([1.0]))
    return hold[0, 0]


def test_hold_on_a_conveyor_decelerating_away_from_the_wall_is_its_drift_vertex():
    # u(t) = 0.2 - 0.5 t towards the wall x <= 3: the body drifts 0.2^2 / (2 0.5) = 0.04 m
    # towards it before the belt turns back
    assert _hold([0.2, 0.0], [-0.5, 0.0], [1.0, 0.0]) == pytest.approx(3.0 - 0.04, abs=1e-12)
    # moving away and accelerating away: the start is the closest point
    assert _hold([-0.2, 0.0], [-0.5, 0.0], [1.0, 0.0]) == pytest.approx(3.0, abs=1e-12)
    # accelerating along the wall, moving away from it: the start too
    assert _hold([-0.2, 0.0], [0.0, 0.5], [1.0, 0.0]) == pytest.approx(3.0, abs=1e-12)


def test_hold_drifting_or_accelerating_towards_a_wall_is_never_certified():
    assert _hold([0.0, 0.0], [0.01, 0.0], [1.0, 0.0], offset=1e6) == -np.inf
    assert _hold([0.01, 0.0], [0.0, 0.5], [1.0, 0.0], offset=1e6) == -np.inf
    # a rotating edge beside an accelerating support: |P(t)| grows without bound
    assert _hold([0.0, 0.0], [-0.5, 0.0], [1.0, 0.0], edge_omega=0.1, offset=1e6) == -np.inf


@pytest.mark.parametrize("value, rule", [([np.nan, 0.0], "finite"), ([np.inf, 0.0], "finite"),
                                         ([[1.0, 0.0, 0.0]], "broadcast")])
def test_motion_refuses_a_bad_acceleration(value, rule):
    with pytest.raises(InvalidInput, match="acceleration_mps2") as err:
        b.Motion.translating(np.zeros((1, 2)), acceleration_mps2=np.array([value], float))
    assert rule in str(err.value)
    with pytest.raises(InvalidInput, match="acceleration_mps2"):
        b.Support.translating(np.zeros((1, 2)), acceleration_mps2=np.array([value], float))
    with pytest.raises(InvalidInput, match="acceleration_mps2"):
        b.Motion(np.zeros((1, 2)), np.zeros((1, 2)), np.zeros(1), np.zeros(1, np.int64),
                 np.array([value], float))


def test_motion_acceleration_defaults_to_zero_and_counts_as_moving():
    m = b.Motion.translating(np.zeros((2, 2)))
    assert np.array_equal(m.acceleration_mps2, np.zeros((2, 2)))
    assert list(m.kind) == [b.MOTION_FIXED, b.MOTION_FIXED]
    acc = b.Motion.translating(np.zeros((1, 2)), acceleration_mps2=np.array([[0.0, 0.2]]))
    assert acc.kind[0] == b.MOTION_TRANSLATING
    # the largest pivot speed over the step is at one of its ends
    w = b.Motion.translating(np.array([[0.3, 0.0]]), acceleration_mps2=np.array([[-1.0, 0.0]]))
    assert w.pivot_speed_range_mps(0.1)[0] == pytest.approx(0.3)
    assert w.pivot_speed_range_mps(1.0)[0] == pytest.approx(0.7)
