"""Seek (T1), clamped steering (T2) and Arrive (T3) on the runtime, vectorised over agents."""

import numpy as np
import pytest

from navproof import InvalidInput, ObligationViolation
from navproof.steering import (
    SteeringParams,
    arrive_velocity,
    check_steering_step,
    clamped_steering,
    seek_velocity,
)
from navproof.steering.arrive import arrive_speed_mps


def test_t1_seek_points_at_the_target_at_full_speed():
    desired = seek_velocity(np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[3.0, 4.0], [1.0, 0.0]]),
                            2.0)
    np.testing.assert_allclose(desired, [[1.2, 1.6], [0.0, -2.0]])


def test_t1_seek_at_the_target_is_zero_not_nan():
    with np.errstate(all="raise"):
        desired = seek_velocity(np.array([[5.0, -2.0]]), np.array([[5.0, -2.0]]), 3.0)
    assert desired.tolist() == [[0.0, 0.0]]


def test_t2_a_reachable_desired_velocity_is_reached_in_one_step():
    new = clamped_steering(np.array([[1.0, 0.0]]), np.array([[1.05, 0.0]]), 1.0, 0.1)
    np.testing.assert_allclose(new, [[1.05, 0.0]])


def test_t2_a_far_desired_velocity_is_approached_by_max_accel_dt():
    v = np.array([[0.0, 0.0], [1.0, 1.0]])
    desired = np.array([[2.0, 0.0], [1.0, 1.0]])
    new = clamped_steering(v, desired, np.array([2.0, 2.0]), 0.1)
    np.testing.assert_allclose(new, [[0.2, 0.0], [1.0, 1.0]])


def test_t2_check_names_the_claim_when_the_change_is_too_large():
    with pytest.raises(ObligationViolation) as info:
        check_steering_step(np.zeros((1, 2)), np.array([[0.5, 0.0]]), np.array([[2.0, 0.0]]),
                            1.0, 2.0, 0.1)
    assert info.value.claim_id == "T2"
    assert info.value.margin == pytest.approx(-0.4)


def test_t3_arrive_is_zero_inside_the_stop_range_and_capped_far_away():
    speed = arrive_speed_mps(np.array([0.0, 0.05, 0.1, 100.0]), stop_range_m=0.1,
                             max_speed_mps=2.0, max_accel_mps2=1.0, dt_s=0.1)
    assert speed[:3].tolist() == [0.0, 0.0, 0.0]
    assert speed[3] == 2.0


@pytest.mark.parametrize(("accel", "vmax", "dt", "stop"), [
    (1.0, 2.0, 0.1, 0.1), (0.5, 8.0, 0.1, 0.02), (20.0, 8.0, 0.1, 0.02), (20.0, 0.1, 0.005, 0.02),
])
def test_t3_the_discrete_follower_comes_to_rest_inside_the_stop_range(accel, vmax, dt, stop):
    x = np.array([[10.0, 0.0], [0.5, 0.0], [0.0, 0.0]])
    target = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    v = np.zeros((3, 2))
    closest = np.full(3, np.inf)
    for _ in range(int(200.0 / dt)):
        desired, _ = arrive_velocity(x, target, max_speed_mps=vmax, max_accel_mps2=accel,
                                     stop_range_m=stop, dt_s=dt)
        new = clamped_steering(v, desired, accel, dt)
        check_steering_step(v, new, desired, accel, vmax, dt)
        v = new
        x = x + v * dt
        closest = np.minimum(closest, x[:, 0])
    assert np.all(np.hypot(*v.T) == 0.0)
    assert np.all(np.abs(x[:, 0]) <= stop)
    assert np.all(closest >= -stop)  # never passed the target by more than the stop range


def test_t3_the_naive_linear_ramp_overshoots():
    accel, vmax, dt, stop = 1.0, 2.0, 0.1, 0.1
    slow_radius = 0.5 * vmax**2 / (2 * accel)
    from navproof._generated import formulas

    # 1-D: target at 0, the body starts at rest at x = 10 and moves with velocity vx
    x, vx, lowest = 10.0, 0.0, np.inf
    for _ in range(2000):
        desired = -np.sign(x) * formulas.linear_ramp_speed(dist=abs(x), max_speed=vmax,
                                                           slow_radius=slow_radius)
        vx = vx + np.clip(desired - vx, -accel * dt, accel * dt)
        x = x + vx * dt
        lowest = min(lowest, x)
    assert lowest < -stop


def test_steering_params_come_from_the_profile_and_are_range_checked():
    params = SteeringParams.from_profile()
    assert params.max_accel_mps2 == 1.0 and params.stop_range_m == 0.1
    with pytest.raises(InvalidInput, match="stop_range_m"):
        SteeringParams.from_profile(stop_range_m=5.0)
