"""Seek: the desired velocity straight at the target at full speed. Claim: T1."""

from __future__ import annotations

import numpy as np


def direction_to(position_m: np.ndarray, target_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit directions (N, 2) from each position to its target and the distances (m, (N,)).

    At the target the direction is undefined: it is returned as zero (never a division by
    zero, never NaN). Claim: T1.
    """
    delta = np.asarray(target_m, dtype=np.float64) - np.asarray(position_m, dtype=np.float64)
    dist_m = np.hypot(delta[:, 0], delta[:, 1])
    away = dist_m > 0.0
    inv_dist = np.divide(1.0, dist_m, out=np.zeros_like(dist_m), where=away)
    return delta * inv_dist[:, None], dist_m


def seek_velocity(position_m: np.ndarray, target_m: np.ndarray,
                  max_speed_mps: np.ndarray | float) -> np.ndarray:
    """Desired velocity ``normalize(target - p) * maxSpeed`` (m/s, (N, 2)); zero at the target.

    Claim: T1.
    """
    unit, _ = direction_to(position_m, target_m)
    return unit * np.asarray(max_speed_mps, dtype=np.float64).reshape(-1, 1)
