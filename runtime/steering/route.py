"""Steering along a route: Arrive at the last waypoint (the goal), Seek through the others.
Claim: T1, T3."""

from __future__ import annotations

import numpy as np

from navproof._generated.formulas import arrive_speed_scalar
from navproof.core.jit import compiled_loop
from navproof.steering.arrive import arrive_speed_mps
from navproof.steering.rows import float_rows
from navproof.steering.seek import direction_row, direction_to


def route_velocity(position_m: np.ndarray, target_m: np.ndarray, last: np.ndarray, *,
                   max_speed_mps: np.ndarray, max_accel_mps2: np.ndarray | float,
                   stop_range_m: np.ndarray | float, dt_s: float) -> np.ndarray:
    """Desired world velocity (m/s, (N, 2)) towards each agent's current waypoint
    ``target_m``: :func:`~navproof.steering.arrive.arrive_velocity` where it is the goal
    (``last``, (N,)), :func:`~navproof.steering.seek.seek_velocity` at ``max_speed_mps`` (N,)
    elsewhere; the direction is found once for both.

    One compiled pass (:func:`_arrive_route_rows`, Arrive's speed by the generated scalar form
    of ``arrive_speed``) where it gives numpy's bits: float64 positions, targets and per-agent
    values, and a step whose square ``dt**2`` (the formula's, Python's or numpy's power of the
    scalar) equals ``dt * dt`` (the compiled square); else the direction, numpy's formula and
    the route's pass (:func:`_route_rows`). Claim: T1, T3."""
    n = np.shape(position_m)[0]
    speed, accel, stop = (float_rows(value, n)
                          for value in (max_speed_mps, max_accel_mps2, stop_range_m))
    if (isinstance(dt_s, float) and dt_s**2 == dt_s * dt_s and speed is not None
            and accel is not None and stop is not None
            and float_rows(position_m, n, 2) is not None
            and float_rows(target_m, n, 2) is not None):
        out = np.empty((n, 2))
        _arrive_route_rows(position_m, target_m, np.asarray(last, dtype=np.bool_), speed,
                           accel, stop, dt_s, out)
        return out
    unit, dist_m = direction_to(position_m, target_m)
    arrive = arrive_speed_mps(dist_m, stop_range_m=stop_range_m, max_speed_mps=max_speed_mps,
                              max_accel_mps2=max_accel_mps2, dt_s=dt_s)
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


@compiled_loop
def _arrive_route_rows(position, target, last, max_speed, max_accel, stop_range, dt, out):
    """Every row of :func:`route_velocity` in one pass: the direction
    (:func:`~navproof.steering.seek.direction_row`) times Arrive's speed at the goal (the
    generated ``arrive_speed_scalar``), times the full speed elsewhere. Claim: T1, T3."""
    for i in range(out.shape[0]):
        ux, uy, dist = direction_row(position, target, i)
        speed = max_speed[i]
        if last[i]:
            speed = arrive_speed_scalar(dist=dist, stop_range=stop_range[i],
                                        max_speed=max_speed[i], max_accel=max_accel[i], dt=dt)
        out[i, 0] = ux * speed
        out[i, 1] = uy * speed
