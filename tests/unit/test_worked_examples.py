"""The seed's worked examples, computed with the generated runtime formulas (seed 000).

Each test states the example's inputs as the seed gives them and asserts the seed's numbers.
"""

import math

import pytest

from navproof._generated import formulas as f

# B3: foot x0 = -0.05, right edge X = 0 (n = +x), dt = 0.1, support u = (1, 0).
X0, DT, U = -0.05, 0.1, 1.0
S = 0.0 - X0


def _end_x(v_x, edge_speed):
    """End position of the foot; the edge moves too, so report the position and the edge."""
    return X0 + DT * (U + v_x), DT * edge_speed


def test_b3_fixed_edge_needs_v_at_most_minus_half():
    assert f.step_halfplane_offset(s=S, dt=DT, n_dot_e=0.0, n_dot_u=U) == pytest.approx(-0.5)


def test_b3_fixed_edge_v_zero_ends_outside_and_minus_point_six_inside():
    x_end, edge = _end_x(0.0, 0.0)
    assert x_end == pytest.approx(0.05) and x_end > edge
    assert f.constant_velocity_margin(s=S, t=DT, n_dot_e=0.0, n_dot_u=U, n_dot_v=0.0) == pytest.approx(-0.05)
    x_end, edge = _end_x(-0.6, 0.0)
    assert x_end == pytest.approx(-0.01)
    assert f.constant_velocity_margin(s=S, t=DT, n_dot_e=0.0, n_dot_u=U, n_dot_v=-0.6) == pytest.approx(0.01)


def test_b3_co_moving_edge_keeps_the_margin_with_v_zero():
    assert f.step_halfplane_offset(s=S, dt=DT, n_dot_e=U, n_dot_u=U) == pytest.approx(S / DT)
    margin = f.constant_velocity_margin(s=S, t=DT, n_dot_e=U, n_dot_u=U, n_dot_v=0.0)
    assert margin == pytest.approx(0.05)  # the edge moved to X = 0.1, the foot to X = 0.05


def test_b5_accelerating_to_minus_point_six_ends_at_two_centimetres_outside():
    margin = f.accel_margin(s=S, t=DT, dt=DT, n_dot_e=0.0, n_dot_u=U, n_dot_v0=0.0, n_dot_v1=-0.6)
    assert -margin == pytest.approx(0.02)  # end X = 0.02


def test_b5_needs_v1_at_most_minus_one_that_is_ten_mps2():
    bound = f.accel_step_v1_bound(s=S, dt=DT, n_dot_e=0.0, n_dot_u=U, n_dot_v0=0.0)
    assert bound == pytest.approx(-1.0)
    needed_accel = abs(bound - 0.0) / DT
    assert needed_accel == pytest.approx(10.0)
    # With a 1 m/s^2 budget the reachable v1 are within 0.1 m/s of v0: no braking solution.
    assert 0.0 - 1.0 * DT > bound


def test_b5_extremum_time_of_the_seed_curve_is_outside_the_step():
    t_star = f.accel_extremum_time(dt=DT, n_dot_e=0.0, n_dot_u=U, n_dot_v0=0.0, n_dot_v1=-0.6)
    assert t_star == pytest.approx(DT / 0.6)
    assert t_star > DT


# S6 P/Q: plane P is X <= 0, slope Q X >= 0 with height sqrt(3) X; foot X = -0.1, dt = 0.1,
# a = 1, Vh = 2; the flat plane has u = r = 0, so c = v and Cmax = Vh.
PQ = dict(s=0.1, dt=0.1, a=1.0)


def test_s6_pq_necessary_bound():
    bound = f.necessary_normal_bound(**PQ)
    assert bound == pytest.approx(math.sqrt(0.21) - 0.1)
    assert bound == pytest.approx(0.358, abs=5e-4)


def test_s6_pq_linear_envelope():
    cmax = f.envelope_speed_cap(vh=2.0, carry=0.0)
    assert cmax == 2.0
    assert f.linear_envelope_bound(cmax=cmax, **PQ) == pytest.approx(0.1 / 1.1)
    assert f.linear_envelope_bound(cmax=cmax, **PQ) == pytest.approx(0.0909, abs=5e-5)


def test_s6_pq_sliding_velocity_stays_in_p():
    v = (0.08, 1.8)
    speed = math.hypot(*v)
    assert speed == pytest.approx(1.802, abs=5e-4)
    moved = f.normal_stop_displacement(n_dot_c=v[0], speed=speed, dt=0.1, a=1.0)
    assert moved == pytest.approx(0.0801, abs=5e-5)
    assert moved <= 0.1


def test_s6_pq_two_mps_toward_q_is_rejected():
    linear = f.linear_envelope_bound(cmax=2.0, **PQ)
    assert 2.0 > linear
    assert f.normal_stop_displacement(n_dot_c=2.0, speed=2.0, dt=0.1, a=1.0) > 0.1


def test_v1_slope_q_has_k_two_and_halves_the_caps():
    k = f.slope_factor(grad_sq=3.0)  # height sqrt(3) X
    assert k == pytest.approx(2.0)
    assert f.horizontal_cap(surface_cap=4.0, k=k) == pytest.approx(2.0)


def test_r2_support_carry_against_a_point_eight_cap_is_unreachable():
    # u = (1, 0) and a fixed right wall: r = 0, so vStop = r - u = (-1, 0).
    v_stop = math.hypot(0.0 - 1.0, 0.0)
    relative_cap = f.horizontal_cap(surface_cap=0.8, k=1.0)
    assert v_stop == 1.0 > relative_cap


# A4/A5: foot X = -0.09, edge X = 0, a = 1, vCap = 1.
CURVE = dict(d=0.09, vcap=1.0, accel=1.0)


def test_a1_peak_and_timing():
    assert f.access_peak_speed(**CURVE) == pytest.approx(0.3)
    assert f.access_accel_time(**CURVE) == pytest.approx(0.3)
    assert f.access_cruise_time(**CURVE) == pytest.approx(0.0)
    assert f.access_total_time(**CURVE) == pytest.approx(0.6)


def test_a4_interrupted_at_point_two_and_braked_at_once_stops_at_minus_five_cm():
    assert f.access_position(t=0.2, **CURVE) == pytest.approx(0.02)  # X = -0.07
    assert f.access_speed(t=0.2, **CURVE) == pytest.approx(0.2)
    stop = f.interrupted_stop_point(t=0.2, dt=0.0, **CURVE)
    assert -0.09 + stop == pytest.approx(-0.05)


def test_a5_with_a_reaction_step_stops_at_minus_three_cm():
    stop = f.interrupted_stop_point(t=0.2, dt=0.1, **CURVE)
    assert -0.09 + stop == pytest.approx(-0.03)


def test_a5_a_reaction_step_at_the_peak_crosses_the_edge():
    stop = f.interrupted_stop_point(t=0.3, dt=0.1, **CURVE)
    assert stop > CURVE["d"]


def test_a_retry_from_minus_five_cm_arrives_at_rest_on_the_edge():
    retry = dict(d=0.05, vcap=1.0, accel=1.0)
    up = f.access_accel_time(**retry)
    assert up == pytest.approx(0.2236, abs=5e-5)
    assert f.access_peak_speed(**retry) == pytest.approx(math.sqrt(0.05))
    assert f.access_position(t=up, **retry) == pytest.approx(0.025)
    total = f.access_total_time(**retry)
    assert -0.05 + f.access_position(t=total, **retry) == pytest.approx(0.0, abs=1e-12)
    assert f.access_speed(t=total, **retry) == pytest.approx(0.0, abs=1e-12)


def test_a2_long_curve_cruises():
    long = dict(d=2.0, vcap=1.0, accel=1.0)
    assert f.access_cruise_time(**long) == pytest.approx(1.0)
    assert f.access_total_time(**long) == pytest.approx(3.0)
    assert f.access_position(t=3.0, **long) == pytest.approx(2.0)


def test_a3_step_displacement_straddling_the_peak():
    # [0.25, 0.35] straddles the switch from accelerating to braking at 0.3 s.
    step = f.access_step_displacement(t0=0.25, t1=0.35, **CURVE)
    exact = (0.045 - 0.5 * 0.25**2) + (0.3 * 0.05 - 0.5 * 0.05**2)
    assert step == pytest.approx(exact)
    # Never "the whole step at the end velocity".
    assert step != pytest.approx(0.1 * f.access_speed(t=0.35, **CURVE))
