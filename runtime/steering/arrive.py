"""Arrive: the desired velocity at the target, slowed by the shipped speed curve and zero
inside the stop range. Claim: T3.

``arrive_speed`` (generated from :mod:`navproof.proofs.steering`) is the speed from which the
discrete, acceleration-clamped follower (T2) can still brake to rest at the stop range; the
proof over the profile ranges is obligation T3 (the naive linear ramp is refuted there).
"""

from __future__ import annotations

import numpy as np

from navproof._generated import formulas
from navproof.steering.seek import direction_to


def arrive_speed_mps(dist_m: np.ndarray, *, stop_range_m: np.ndarray | float,
                     max_speed_mps: np.ndarray | float, max_accel_mps2: np.ndarray | float,
                     dt_s: float) -> np.ndarray:
    """Speed of the shipped Arrive curve (m/s) at distances ``dist_m`` from the target.

    Claim: T3."""
    return formulas.arrive_speed(dist=np.asarray(dist_m, dtype=np.float64),
                                 stop_range=stop_range_m, max_speed=max_speed_mps,
                                 max_accel=max_accel_mps2, dt=dt_s)


def arrive_velocity(position_m: np.ndarray, target_m: np.ndarray, *,
                    max_speed_mps: np.ndarray | float, max_accel_mps2: np.ndarray | float,
                    stop_range_m: np.ndarray | float, dt_s: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Desired velocity ``normalize(target - p) * SpeedCurve(distance)`` (m/s, (N, 2)) and the
    distances to the targets (m, (N,)); zero inside the stop range. Claim: T1, T3."""
    unit, dist_m = direction_to(position_m, target_m)
    speed = arrive_speed_mps(dist_m, stop_range_m=stop_range_m, max_speed_mps=max_speed_mps,
                             max_accel_mps2=max_accel_mps2, dt_s=dt_s)
    return unit * speed[:, None], dist_m
