"""Seek: the desired velocity straight at the target at full speed. Claim: T1."""

from __future__ import annotations

import math

import numpy as np

from navproof.core.jit import compiled_loop, inlined_loop


def direction_to(position_m: np.ndarray, target_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit directions (N, 2) from each position to its target and the distances (m, (N,)).

    At the target the direction is undefined: it is returned as zero (never a division by
    zero, never NaN). Claim: T1.
    """
    position = np.asarray(position_m, dtype=np.float64)
    target = np.asarray(target_m, dtype=np.float64)
    # broadcast only where the shapes differ (numpy's broadcast costs more than the pass on
    # a thousand rows)
    if position.shape != target.shape:
        position, target = np.broadcast_arrays(position, target)
    unit = np.empty(position.shape)
    dist_m = np.empty(position.shape[0])
    _directions(position, target, unit, dist_m)
    return unit, dist_m


@inlined_loop
def direction_row(position, target, i):
    """Row i of :func:`direction_to`: the unit direction (the offset times the reciprocal of
    its length, ``hypot``; zero where the length is not positive) and the distance (m).
    Claim: T1."""
    dx = target[i, 0] - position[i, 0]
    dy = target[i, 1] - position[i, 1]
    length = math.hypot(dx, dy)
    inv_length = 1.0 / length if length > 0.0 else 0.0
    return dx * inv_length, dy * inv_length, length


@compiled_loop
def _directions(position, target, unit, dist):
    """Every row of :func:`direction_to` (:func:`direction_row`). Claim: T1."""
    for i in range(dist.shape[0]):
        unit[i, 0], unit[i, 1], dist[i] = direction_row(position, target, i)


def seek_velocity(position_m: np.ndarray, target_m: np.ndarray,
                  max_speed_mps: np.ndarray | float) -> np.ndarray:
    """Desired velocity ``normalize(target - p) * maxSpeed`` (m/s, (N, 2)); zero at the target.

    Claim: T1.
    """
    unit, _ = direction_to(position_m, target_m)
    return unit * np.asarray(max_speed_mps, dtype=np.float64).reshape(-1, 1)
