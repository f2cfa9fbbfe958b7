"""Steering along a route: Arrive at the last waypoint (the goal), Seek through the others.
Claim: T1, T3."""

from __future__ import annotations

import numpy as np

from navproof.core.jit import compiled_loop
from navproof.steering.arrive import arrive_speed_mps
from navproof.steering.seek import direction_to


def route_velocity(position_m: np.ndarray, target_m: np.ndarray, last: np.ndarray, *,
                   max_speed_mps: np.ndarray, max_accel_mps2: np.ndarray | float,
                   stop_range_m: np.ndarray | float, dt_s: float) -> np.ndarray:
    """Desired world velocity (m/s, (N, 2)) towards each agent's current waypoint
    ``target_m``: :func:`~navproof.steering.arrive.arrive_velocity` where it is the goal
    (``last``, (N,)), :func:`~navproof.steering.seek.seek_velocity` at ``max_speed_mps`` (N,)
    elsewhere; the direction is found once for both. Claim: T1, T3."""
    unit, dist_m = direction_to(position_m, target_m)
    arrive = arrive_speed_mps(dist_m, stop_range_m=stop_range_m, max_speed_mps=max_speed_mps,
                              max_accel_mps2=max_accel_mps2, dt_s=dt_s)
    n = unit.shape[0]
    arrive = np.asarray(arrive, dtype=np.float64)
    max_speed = np.asarray(max_speed_mps, dtype=np.float64)
    # broadcast only what is not one value per row already
    out = np.empty((n, 2))
    _route_rows(unit, arrive if arrive.shape == (n,) else np.broadcast_to(arrive, (n,)),
                max_speed if max_speed.shape == (n,) else np.broadcast_to(max_speed, (n,)),
                np.asarray(last, dtype=np.bool_), out)
    return out


@compiled_loop
def _route_rows(unit, arrive_speed, max_speed, last, out):
    """Every row of :func:`route_velocity`: the unit direction times Arrive's speed at the
    goal, times the full speed elsewhere. Claim: T1, T3."""
    for i in range(out.shape[0]):
        speed = arrive_speed[i] if last[i] else max_speed[i]
        out[i, 0] = unit[i, 0] * speed
        out[i, 1] = unit[i, 1] * speed
