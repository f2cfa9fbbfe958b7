"""The generated formulas agree with direct fine-step simulations of the trajectories.

Parameters are sampled inside the default profile's ranges; pinned examples cover zero speed,
a zero margin and the largest braking budget.
"""

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from navproof._generated import formulas as f
from navproof.specs import load_profile

PROFILE = load_profile()


def _in_range(name):
    p = PROFILE[name]
    return st.floats(float(p.min), float(p.max), allow_nan=False)


def _simulate_stop(speed, dt, a, substeps=20000):
    """Hold the speed for dt, then brake at a until rest, integrating with tiny exact steps."""
    travelled = speed * dt
    h = (speed / a) / substeps if speed > 0 else 0.0
    v = speed
    for _ in range(substeps if speed > 0 else 0):
        v_next = max(v - a * h, 0.0)
        travelled += 0.5 * (v + v_next) * h
        v = v_next
    return travelled


@settings(max_examples=40, deadline=None)
@given(speed=st.floats(0.0, 8.0), dt=_in_range("step_s"), a=_in_range("brake_budget_mps2"))
@example(speed=0.0, dt=0.1, a=1.0)
@example(speed=8.0, dt=0.1, a=20.0)
def test_stop_distance_matches_simulated_reaction_and_braking(speed, dt, a):
    simulated = _simulate_stop(speed, dt, a)
    assert np.isclose(f.stop_distance(speed=speed, dt=dt, a=a), simulated, rtol=1e-6, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    s=_in_range("initial_margin_m"),
    dt=_in_range("step_s"),
    n_dot_e=st.floats(-1.0, 1.0),
    n_dot_u=st.floats(-1.0, 1.0),
    n_dot_v0=st.floats(-3.0, 3.0),
    n_dot_v1=st.floats(-3.0, 3.0),
)
@example(s=0.05, dt=0.1, n_dot_e=0.0, n_dot_u=1.0, n_dot_v0=0.0, n_dot_v1=-0.6)
@example(s=0.0, dt=0.1, n_dot_e=0.0, n_dot_u=0.0, n_dot_v0=1.0, n_dot_v1=-1.0)
def test_accelerating_step_minimum_is_at_an_endpoint_or_the_extremum(
    s, dt, n_dot_e, n_dot_u, n_dot_v0, n_dot_v1
):
    edge = dict(s=s, dt=dt, n_dot_e=n_dot_e, n_dot_u=n_dot_u, n_dot_v0=n_dot_v0, n_dot_v1=n_dot_v1)
    # Direct simulation: integrate the ramping velocity with many small steps.
    n = 4000
    h = dt / n
    times = np.arange(n + 1) * h
    rel_v = n_dot_v0 + (n_dot_v1 - n_dot_v0) * times / dt
    normal_pos = np.concatenate([[0.0], np.cumsum(0.5 * (rel_v[1:] + rel_v[:-1]) * h)])
    normal_pos += n_dot_u * times
    simulated_margin = s + n_dot_e * times - normal_pos
    formula_margin = f.accel_margin(t=times, **edge)
    assert np.allclose(formula_margin, simulated_margin, atol=1e-9)
    # B5: the candidates {0, dt, t* when inside} contain the minimum of the whole step.
    candidates = [f.accel_margin(t=0.0, **edge), f.accel_margin(t=dt, **edge)]
    if n_dot_v1 != n_dot_v0:
        t_star = f.accel_extremum_time(
            dt=dt, n_dot_e=n_dot_e, n_dot_u=n_dot_u, n_dot_v0=n_dot_v0, n_dot_v1=n_dot_v1
        )
        if 0.0 < t_star < dt:
            candidates.append(f.accel_margin(t=t_star, **edge))
    assert min(candidates) <= simulated_margin.min() + 1e-12
    assert min(candidates) >= simulated_margin.min() - (abs(n_dot_v1 - n_dot_v0) / dt) * h * h - 1e-12


@settings(max_examples=40, deadline=None)
@given(
    d=_in_range("access_length_m"),
    vcap=_in_range("access_speed_cap_mps"),
    accel=_in_range("access_accel_mps2"),
    step=_in_range("step_s"),
)
@example(d=0.09, vcap=1.0, accel=1.0, step=0.1)
@example(d=0.0, vcap=1.0, accel=1.0, step=0.1)
@example(d=2.0, vcap=0.05, accel=10.0, step=0.005)
def test_access_curve_matches_integrated_speed(d, vcap, accel, step):
    curve = dict(d=d, vcap=vcap, accel=accel)
    total = float(f.access_total_time(**curve))
    times = np.linspace(0.0, total, 20001)
    speeds = f.access_speed(t=times, **curve)
    assert np.all(speeds <= vcap + 1e-12) and np.all(speeds >= -1e-12)
    integrated = np.concatenate([[0.0], np.cumsum(0.5 * (speeds[1:] + speeds[:-1]) * np.diff(times))])
    positions = f.access_position(t=times, **curve)
    # The trapezoid rule is exact on linear pieces; each kink of the speed costs <= accel h^2 / 8.
    h = times[1] - times[0]
    assert np.allclose(positions, integrated, rtol=0.0, atol=accel * h * h + 1e-12)
    assert np.all(np.diff(positions) >= -1e-12)  # monotone in [0, d]
    assert abs(positions[-1] - d) <= 1e-12 * max(d, 1.0)
    # A3: physics steps of the profile's length integrate every piece exactly and add up to d.
    edges = np.arange(0.0, total + step, step)
    pieces = f.access_step_displacement(t0=edges[:-1], t1=edges[1:], **curve)
    assert np.isclose(pieces.sum(), d, atol=1e-12 * max(d, 1.0) + 1e-15)
