"""Access curves, per-step integration, interruption stop points and brakes (A1–A5, H4)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from navproof.core.errors import InvalidInput, ObligationViolation
from navproof.core.tolerances import EPS
from navproof.handoff.access import (
    AccessCurve,
    BrakeCurve,
    brake_from_velocity,
    braking_distance_m,
    check_stop_within,
    plan_interrupt,
    stop_guarantee,
)

EDGE_X_M = 0.0
FOOT_X_M = -0.09


def seed_curve() -> AccessCurve:
    return AccessCurve.plan(0.09, vcap_mps=1.0, accel_mps2=1.0)


def test_seed_short_curve_peak_and_durations():
    """A1: the seed curve d = 0.09 peaks at 0.3 m/s after 0.3 s and ends at rest at d."""
    curve = seed_curve()
    assert curve.peak_speed_mps == pytest.approx(0.3)
    assert curve.accel_time_s == pytest.approx(0.3)
    assert curve.cruise_time_s == 0.0
    assert curve.total_time_s == pytest.approx(0.6)
    assert curve.speed_mps(0.0) == 0.0
    assert curve.speed_mps(curve.total_time_s) == pytest.approx(0.0, abs=1e-12)
    assert curve.position_m(curve.total_time_s) == pytest.approx(0.09)


def test_seed_state_at_interruption_time():
    """A3: at 0.2 s the curve has moved 0.02 m (X = -0.07) at 0.2 m/s."""
    curve = seed_curve()
    assert curve.position_m(0.2) == pytest.approx(0.02)
    assert FOOT_X_M + curve.position_m(0.2) == pytest.approx(-0.07)
    assert curve.speed_mps(0.2) == pytest.approx(0.2)


def test_seed_immediate_brake_stops_at_minus_005_and_reaction_step_at_minus_003():
    """A4, A5: immediate brake stops at -0.05, a 0.1 s reaction step at -0.03."""
    curve = seed_curve()
    assert FOOT_X_M + curve.stop_point_m(0.2) == pytest.approx(-0.05)
    assert FOOT_X_M + curve.stop_point_m(0.2, reaction_s=0.1) == pytest.approx(-0.03)
    brake = BrakeCurve.plan(curve.speed_mps(0.2), accel_mps2=1.0)
    assert brake.duration_s == pytest.approx(0.2)
    assert brake.distance_m == pytest.approx(0.02)


def test_seed_retry_from_minus_005():
    """A1: retry d = 0.05: 0.2236 s up to 0.2236 m/s over 0.025 m, at rest on X = 0."""
    curve = AccessCurve.plan(EDGE_X_M - (-0.05), vcap_mps=1.0, accel_mps2=1.0)
    assert curve.accel_time_s == pytest.approx(0.2236, abs=1e-4)
    assert curve.peak_speed_mps == pytest.approx(math.sqrt(0.05))
    assert curve.position_m(curve.accel_time_s) == pytest.approx(0.025)
    assert curve.total_time_s - curve.brake_start_s == pytest.approx(curve.accel_time_s)
    assert -0.05 + curve.position_m(curve.total_time_s) == pytest.approx(EDGE_X_M, abs=1e-15)
    assert curve.speed_mps(curve.total_time_s) == pytest.approx(0.0, abs=1e-12)


def test_long_curve_cruises_and_stays_capped_and_monotone():
    """A2: the long curve cruises at vCap, never exceeds it and moves monotonically to d."""
    curve = AccessCurve.plan(2.0, vcap_mps=1.0, accel_mps2=1.0)
    assert curve.accel_time_s == pytest.approx(1.0)
    assert curve.cruise_time_s == pytest.approx(1.0)
    assert curve.total_time_s == pytest.approx(3.0)
    times = np.linspace(0.0, curve.total_time_s, 301)
    positions = np.array([curve.position_m(t) for t in times])
    speeds = np.array([curve.speed_mps(t) for t in times])
    assert np.all(np.diff(positions) >= -1e-15)
    assert np.all(speeds <= 1.0 + 1e-12)
    assert positions[-1] == pytest.approx(2.0)


def test_step_displacement_integrates_each_piece_across_the_phase_boundary():
    """A3: a step straddling the peak integrates both pieces exactly."""
    curve = AccessCurve.plan(0.05, vcap_mps=1.0, accel_mps2=1.0)
    # the step [0.2, 0.3] straddles the peak at 0.2236 s
    t0, t1 = 0.2, 0.3
    exact = curve.step_displacement_m(t0, t1)
    fine = np.linspace(t0, t1, 20001)
    quadrature = np.trapezoid([curve.speed_mps(t) for t in fine], fine)
    assert exact == pytest.approx(quadrature, abs=1e-9)
    end_velocity_guess = curve.speed_mps(t1) * (t1 - t0)
    assert abs(exact - end_velocity_guess) > 1e-3
    steps = [curve.step_displacement_m(0.1 * k, 0.1 * (k + 1)) for k in range(5)]
    assert sum(steps) == pytest.approx(0.05, abs=1e-15)


@settings(max_examples=200, deadline=None)
@given(
    d=st.floats(0.0, 2.0),
    vcap=st.floats(0.05, 2.0),
    accel=st.floats(0.1, 10.0),
    frac=st.floats(0.0, 1.0),
)
@example(d=0.09, vcap=1.0, accel=1.0, frac=0.5)
@example(d=0.0, vcap=1.0, accel=1.0, frac=0.3)
@example(d=2.0, vcap=0.05, accel=10.0, frac=1.0)
def test_immediate_brake_never_passes_the_end(d, vcap, accel, frac):
    """A4: an immediate brake at any time stops at or before d."""
    curve = AccessCurve.plan(d, vcap_mps=vcap, accel_mps2=accel)
    t = frac * curve.total_time_s
    stop = curve.stop_point_m(t)
    assert stop <= d + EPS
    check_stop_within(stop_point_m=stop, length_m=d, assert_mode=True)


def test_reaction_step_near_the_peak_crosses_and_is_flagged():
    """A5: the counterexample near the peak, flagged "no stop guarantee"."""
    curve = seed_curve()
    t = 0.29
    assert FOOT_X_M + curve.stop_point_m(t, reaction_s=0.1) > EDGE_X_M
    plan = plan_interrupt(curve, t, speed_mps=curve.speed_mps(t),
                          travelled_m=curve.position_m(t), reaction_s=0.1)
    assert not plan.keeps_scheduled_deceleration
    assert not plan.guarantee.guaranteed
    assert plan.guarantee.margin_m < 0
    with pytest.raises(ObligationViolation) as info:
        check_stop_within(stop_point_m=plan.stop_point_m, length_m=curve.length_m,
                          assert_mode=True)
    assert info.value.claim_id == "A4"
    assert info.value.margin < 0


def test_scheduled_deceleration_is_kept_without_a_reaction_hold():
    """H4, A5: inside the scheduled deceleration the curve keeps braking."""
    curve = seed_curve()
    t = 0.45
    plan = plan_interrupt(curve, t, speed_mps=curve.speed_mps(t),
                          travelled_m=curve.position_m(t), reaction_s=0.1)
    assert plan.keeps_scheduled_deceleration
    assert plan.stop_point_m == pytest.approx(curve.length_m)
    assert plan.guarantee.guaranteed


def test_immediate_interrupt_plan_matches_the_generated_stop_point():
    curve = seed_curve()
    plan = plan_interrupt(curve, 0.2, speed_mps=0.2, travelled_m=0.02)
    assert plan.stop_point_m == pytest.approx(curve.stop_point_m(0.2))
    assert plan.guarantee.margin_m == pytest.approx(0.05)


def test_stop_guarantee_margin_is_signed():
    ok = stop_guarantee(remaining_m=0.05, speed_mps=0.2, accel_mps2=1.0)
    assert ok.guaranteed and ok.margin_m == pytest.approx(0.03)
    short = stop_guarantee(remaining_m=0.01, speed_mps=0.2, accel_mps2=1.0)
    assert not short.guaranteed and short.margin_m == pytest.approx(-0.01)
    assert braking_distance_m(speed_mps=0.2, accel_mps2=1.0, reaction_s=0.1) == pytest.approx(0.04)


def test_brake_steps_are_exact_and_end_at_rest():
    """A4, A3: the brake from 0.2 m/s integrates exactly per step and ends at rest."""
    brake = BrakeCurve.plan(0.2, accel_mps2=1.0)
    assert brake.step_displacement_m(0.0, 0.1) == pytest.approx(0.015)
    assert brake.step_displacement_m(0.1, 0.2) == pytest.approx(0.005)
    assert brake.step_displacement_m(0.2, 0.3) == pytest.approx(0.0, abs=1e-15)
    assert brake.speed_mps(0.1) == pytest.approx(0.1)
    assert brake.speed_mps(0.25) == pytest.approx(0.0, abs=1e-12)
    assert brake.position_m(10.0) == pytest.approx(0.02)
    assert brake.finished(0.2) and not brake.finished(0.15)


@settings(max_examples=100, deadline=None)
@given(v0=st.floats(0.0, 3.0), accel=st.floats(0.1, 10.0))
@example(v0=0.0, accel=1.0)
def test_brake_covers_the_braking_distance(v0, accel):
    brake = BrakeCurve.plan(v0, accel_mps2=accel)
    assert brake.position_m(brake.duration_s + 1.0) == pytest.approx(
        v0 * v0 / (2 * accel), abs=1e-9)
    assert brake.speed_mps(0.0) == pytest.approx(v0, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(v0=st.floats(0.01, 3.0), accel=st.floats(0.1, 10.0), frac=st.floats(0.0, 1.5))
@example(v0=0.2, accel=1.0, frac=0.5)
def test_brake_is_the_straight_constant_deceleration(v0, accel, frac):
    """A4: the mirrored access-curve evaluation equals v0 t - a t^2 / 2 (then rest)."""
    brake = BrakeCurve.plan(v0, accel_mps2=accel)
    tau = frac * v0 / accel
    t_stop = min(tau, v0 / accel)
    expected_m = v0 * t_stop - accel * t_stop**2 / 2
    assert brake.position_m(tau) == pytest.approx(expected_m, abs=1e-9)
    assert brake.speed_mps(tau) == pytest.approx(max(v0 - accel * tau, 0.0), abs=1e-9)


def test_brake_from_velocity_follows_the_actual_direction():
    motion = brake_from_velocity((0.0, -0.3), accel_mps2=1.0, start_time_s=1.0)
    disp, vel = motion.step(1.0, 1.1)
    assert disp[0] == 0.0 and disp[1] == pytest.approx(-(0.3 * 0.1 - 0.5 * 0.01))
    assert vel[1] == pytest.approx(-0.2)
    rest = brake_from_velocity((0.0, 0.0), accel_mps2=1.0, start_time_s=0.0)
    assert rest.finished(0.0)
    assert np.all(rest.step(0.0, 0.1)[0] == 0.0)


@pytest.mark.parametrize(
    ("length", "vcap", "accel", "field"),
    [(-0.1, 1.0, 1.0, "length_m"), (0.1, 0.0, 1.0, "vcap_mps"), (0.1, 1.0, 0.0, "accel_mps2"),
     (math.nan, 1.0, 1.0, "length_m"), (0.1, math.inf, 1.0, "vcap_mps")],
)
def test_bad_curve_inputs_are_rejected(length, vcap, accel, field):
    with pytest.raises(InvalidInput) as info:
        AccessCurve.plan(length, vcap_mps=vcap, accel_mps2=accel)
    assert info.value.field == field


def test_negative_time_and_backwards_step_are_rejected():
    curve = seed_curve()
    with pytest.raises(InvalidInput):
        curve.position_m(-1.0)
    with pytest.raises(InvalidInput):
        curve.step_displacement_m(0.3, 0.2)
    assert curve.position_m(-EPS / 2) == 0.0
