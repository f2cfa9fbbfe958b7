"""Long-horizon closed loops of the safe step on accelerating supports (claims B6, S3, S7, R3):
a lone body on an accelerating conveyor heading for a fixed wall is never labelled safe on a
step whose executed trajectory leaves the wall's half-plane, and next to a wall sharing the
support's accelerating motion it stays safe on every step and comes to rest before the wall."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from navproof import boundary as b
from navproof import step as ss

STEPS = 150
SAMPLES = 41


def executed_world_m(x0, v0, v1, commit, dt, w, alpha, times):
    """World positions (T, 2) of the executed step written out: the body ramps from v0 to v1
    relative to the support up to the commit time, then rests on it; the support translates by
    w t + alpha t^2 / 2."""
    t = np.asarray(times)[:, None]
    tr = np.minimum(t, commit)
    rel = v0 * tr + (v1 - v0) * tr * tr / (2.0 * dt)
    return x0 + rel + w * t + 0.5 * alpha * t * t


def run(x, v, w, alpha, wall_normal, wall_offset, *, co_moving, vh, a, dt):
    """Closed loop of one body; returns (labels, least sampled clearance of each executed step,
    the end state relative to the wall)."""
    labels, clearances = [], []
    offset = wall_offset
    for _ in range(STEPS):
        support = b.Support.translating(w[None], acceleration_mps2=alpha[None])
        motion = (b.Motion.translating(w[None, None], acceleration_mps2=alpha[None, None])
                  if co_moving else None)
        edges = b.EdgeSet.build(wall_normal[None, None], np.array([[offset]]), motion=motion)
        pref = vh * wall_normal  # straight at the wall, at Vh relative to the support
        inp = ss.StepInput(x[None], v[None], pref[None], dt, support, edges, np.array([vh]),
                           np.array([a]), np.array([0.3]))
        res = ss.solve_safe_step(inp, assertions=True)
        v1, commit = res.velocity_mps[0], float(res.commit_time_s[0])
        times = np.linspace(0.0, dt, SAMPLES)
        world = executed_world_m(x, v, v1, commit, dt, w, alpha, times)
        wall_shift = (w * times[:, None] + 0.5 * alpha * times[:, None] ** 2) @ wall_normal \
            if co_moving else np.zeros(SAMPLES)
        clearances.append(float(np.min(offset + wall_shift - world @ wall_normal)))
        labels.append(int(res.label[0]))
        x = world[-1]
        if co_moving:
            offset += float(wall_shift[-1])
        v = v1 if commit >= dt else np.zeros(2)
        w = w + alpha * dt
    return np.array(labels), np.array(clearances), offset - float(x @ wall_normal)


@settings(max_examples=12, deadline=None)
@given(st.floats(0.0, 2.0 * np.pi), st.floats(-0.2, 0.2), st.floats(-0.2, 0.2),
       st.floats(-0.3, 0.3), st.floats(-0.3, 0.3), st.floats(0.5, 4.0), st.floats(0.0, 1.0))
def test_a_safe_label_on_an_accelerating_conveyor_never_crosses_a_fixed_wall(
        heading, wx, wy, ax, ay, distance, speed_share):
    n = np.array([np.cos(heading), np.sin(heading)])
    vh, a, dt = 1.5, 1.0, 0.1
    labels, clear, _ = run(np.zeros(2), speed_share * vh * n, np.array([wx, wy]),
                           np.array([ax, ay]), n, distance, co_moving=False, vh=vh, a=a, dt=dt)
    safe = labels == ss.SAFE
    assert np.all(clear[safe] >= -1e-9)


def test_a_conveyor_decelerating_towards_a_fixed_wall_is_safe_and_keeps_off_it():
    # the belt runs at 0.2 m/s towards the wall and slows at 0.3 m/s^2: the hold at rest on it
    # drifts at most 0.2^2 / 0.6 m further, so a safe stop exists and is labelled safe
    n = np.array([1.0, 0.0])
    labels, clear, gap = run(np.zeros(2), np.zeros(2), np.array([0.2, 0.0]),
                             np.array([-0.3, 0.0]), n, 2.0, co_moving=False, vh=1.5, a=1.0,
                             dt=0.1)
    assert np.mean(labels == ss.SAFE) > 0.5
    assert np.all(clear[labels == ss.SAFE] >= -1e-9)
    assert clear.min() >= -1e-9
    assert gap >= 0.0


def test_a_conveyor_accelerating_towards_a_fixed_wall_is_never_labelled_safe():
    # resting on it drifts into the wall eventually: no hold is certified (R3 does not hold)
    n = np.array([1.0, 0.0])
    labels, _, _ = run(np.zeros(2), np.zeros(2), np.array([0.0, 0.0]), np.array([0.05, 0.0]),
                       n, 3.0, co_moving=False, vh=1.5, a=1.0, dt=0.1)
    assert not np.any(labels == ss.SAFE)


@settings(max_examples=8, deadline=None)
@given(st.floats(0.0, 2.0 * np.pi), st.floats(-0.2, 0.2), st.floats(-0.2, 0.2),
       st.floats(-0.3, 0.3), st.floats(-0.3, 0.3), st.floats(0.0, 4.0))
def test_a_wall_sharing_the_accelerating_motion_keeps_the_safe_label(heading, wx, wy, ax, ay,
                                                                     extra):
    # walking at Vh from farther than its stop needs (as S7's wall approach)
    distance = 3.0 * 1.5**2 / 1.0 + 1.0 + extra
    n = np.array([np.cos(heading), np.sin(heading)])
    labels, clear, gap = run(np.zeros(2), 1.5 * n, np.array([wx, wy]), np.array([ax, ay]), n,
                             distance, co_moving=True, vh=1.5, a=1.0, dt=0.1)
    assert np.all(labels == ss.SAFE)
    assert clear.min() >= -1e-9
    assert gap >= -1e-9
