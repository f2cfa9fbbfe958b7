"""The motion controller: executes the committed velocity over the step the way the safe step
verified it, and reports the executed state the next step reads. Claim: T4, B4, B6, F2.

Relative to its support the body ramps linearly from ``v0`` to ``v1`` (the B4 curve, generated
``accel_step_displacement``) for the commit time ``tc`` of the step (``dt`` unless F2 truncated
it at the first sweep contact; the contact stops the body, which rests on its support for the
remainder). The support carries the body over the whole step: ``x = c + w t + alpha t^2 / 2 +
R(omega t)(y - c)``. On a rotating support the relative velocity turns with it, so the next
step's ``v0`` is ``R(omega dt) v(tc)`` (the rotation carry), and the executed world velocity is
the support's point velocity at the end of the step (pivot velocity ``w + alpha dt``) at the end
position plus that.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navproof._generated.formulas import accel_step_displacement
from navproof.boundary import Support
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.numpy_scalars import smaller


@dataclass(frozen=True)
class Executed:
    """Executed end state of N bodies: positions (m), velocities relative to the support and in
    the world (m/s), and the world positions (m) at the middle of the step (for the clearance
    measurement)."""

    position_m: np.ndarray
    velocity_rel_mps: np.ndarray
    velocity_world_mps: np.ndarray
    mid_m: np.ndarray
    mid_end_m: np.ndarray
    """The middle and end positions as one array (2, N, 2), whose rows ``mid_m`` and
    ``position_m`` are (the wall clearances measure both in one pass)."""


def execute(x0_m: np.ndarray, v0_mps: np.ndarray, v1_mps: np.ndarray, commit_s: np.ndarray,
            dt_s: float, support: Support) -> Executed:
    """Execute one step of N bodies (see the module docstring), in one compiled pass over
    them (:func:`_executed_rows`); the rotation angles' cosines and sines by numpy (none
    where nothing turns).
    Claim: T4, B4, B6, F2."""
    m = support.motion
    half_s = 0.5 * dt_s
    n = x0_m.shape[0]
    # a rate that is not zero (NaN included): numpy's count of them tells what any() tells,
    # at a fraction of its cost
    turning = np.count_nonzero(m.omega_radps) > 0 or not math.isfinite(dt_s)
    if turning:
        turn_full = m.omega_radps * dt_s
        turn_half = m.omega_radps * half_s
        cos_full, sin_full = np.cos(turn_full), np.sin(turn_full)
        cos_half, sin_half = np.cos(turn_half), np.sin(turn_half)
    else:
        # the pass takes each angle itself (see _executed_rows)
        cos_full = sin_full = cos_half = sin_half = _NO_ANGLES
    mid_end = np.empty((2, n, 2))
    mid, position = mid_end
    v_rel, v_world = np.empty((2, n, 2))
    _executed_rows(x0_m, v0_mps, v1_mps, commit_s, dt_s, dt_s**2, half_s, m.pivot_m,
                   m.velocity_mps, m.acceleration_mps2, m.omega_radps, turning, cos_full,
                   sin_full, cos_half, sin_half, position, v_rel, v_world, mid)
    return Executed(position, v_rel, v_world, mid, mid_end)


_NO_ANGLES = np.empty(0)
"""The cosines and sines :func:`execute` hands its pass where nothing turns (not read)."""


@inlined_loop
def _relative_point(x0, v0, v1, commit, dt, t, i, axis):
    """Support-frame coordinate ``axis`` (m) at time ``t`` of body i's executed relative curve:
    the B4 ramp up to the commit time, then at rest on the support. Claim: B4, F2."""
    tt = smaller(t, commit[i])
    return x0[i, axis] + accel_step_displacement(t=tt, dt=dt, v0=v0[i, axis], v1=v1[i, axis])


@inlined_loop
def _world_point(x0, v0, v1, commit, dt, t, pivot, vel, acc, c, s, i):
    """World position (m) at time ``t`` of body i's executed curve: its support-frame point
    (:func:`_relative_point`) carried by the support, ``c + w t + alpha t^2 / 2 +
    R(omega t)(y - c)`` with ``c, s`` the cosine and sine of ``omega t``. Claim: T4, B4, F2."""
    px, py = pivot[i, 0], pivot[i, 1]
    rx = _relative_point(x0, v0, v1, commit, dt, t, i, 0) - px
    ry = _relative_point(x0, v0, v1, commit, dt, t, i, 1) - py
    return (px + vel[i, 0] * t + 0.5 * acc[i, 0] * t * t + (c * rx - s * ry),
            py + vel[i, 1] * t + 0.5 * acc[i, 1] * t * t + (s * rx + c * ry))


@compiled_loop
def _executed_rows(x0, v0, v1, commit, dt, dt_sq, half, pivot, vel, acc, omega, turning,
                   cos_full, sin_full, cos_half, sin_half, position, v_rel, v_world, mid):
    """Every body of :func:`execute`: the executed curve's world points at ``dt`` and ``half``
    (:func:`_world_point`), the end velocity relative to the support turned by the rotation
    carry, and the world velocity at the end (the support's point velocity there plus that).
    The angles' cosines and sines come from numpy where a support ``turning`` (or a step that
    is not finite); elsewhere every angle ``omega t`` is +0 or -0, whose cosine is 1 and whose
    sine is the angle itself, exactly (IEEE 754). Claim: T4, B4, B6, F2."""
    for i in range(x0.shape[0]):
        px, py = pivot[i, 0], pivot[i, 1]
        if turning:
            c, s = cos_full[i], sin_full[i]
            c_half, s_half = cos_half[i], sin_half[i]
        else:
            c, s = 1.0, omega[i] * dt
            c_half, s_half = 1.0, omega[i] * half
        position[i, 0], position[i, 1] = _world_point(x0, v0, v1, commit, dt, dt, pivot, vel,
                                                      acc, c, s, i)
        # at rest after a truncated commit (F2), turned with the support (rotation carry)
        full = commit[i] >= dt
        ex = v1[i, 0] if full else 0.0
        ey = v1[i, 1] if full else 0.0
        v_rel[i, 0] = c * ex - s * ey
        v_rel[i, 1] = s * ex + c * ey
        ox = position[i, 0] - (px + vel[i, 0] * dt + 0.5 * acc[i, 0] * dt_sq)
        oy = position[i, 1] - (py + vel[i, 1] * dt + 0.5 * acc[i, 1] * dt_sq)
        v_world[i, 0] = vel[i, 0] + acc[i, 0] * dt + omega[i] * -oy + v_rel[i, 0]
        v_world[i, 1] = vel[i, 1] + acc[i, 1] * dt + omega[i] * ox + v_rel[i, 1]
        mid[i, 0], mid[i, 1] = _world_point(x0, v0, v1, commit, dt, half, pivot, vel, acc,
                                            c_half, s_half, i)


@compiled_loop
def _points_at(x0, v0, v1, commit, dt, pivot, vel, acc, rows, t, cos, sin, out):
    """:func:`_world_point` of body ``rows[k]`` at time ``t[k]`` into ``out[k]``."""
    for k in range(rows.shape[0]):
        out[k, 0], out[k, 1] = _world_point(x0, v0, v1, commit, dt, t[k], pivot, vel, acc,
                                            cos[k], sin[k], rows[k])


def executed_points_m(x0_m: np.ndarray, v0_mps: np.ndarray, v1_mps: np.ndarray,
                      commit_s: np.ndarray, dt_s: float, support: Support, rows: np.ndarray,
                      t_s: np.ndarray) -> np.ndarray:
    """World positions (m, (K, 2)) of bodies ``rows`` (K,) at times ``t_s`` (K,) of the step
    :func:`execute` runs, by the same compiled point formula (:func:`_world_point`; the
    rotation angles' cosines and sines by numpy, as there): the B4 ramp up to the commit time,
    at rest on the support after it, carried by the support. Unlike the start, middle and end
    points, these follow a truncated step's curve on both sides of its commit time (F2).
    Claim: T4, B4, F2, W1."""
    m = support.motion
    at = np.ascontiguousarray(rows, dtype=np.int64)
    t = np.ascontiguousarray(t_s, dtype=np.float64)
    turn = m.omega_radps[at] * t
    out = np.empty((at.size, 2))
    _points_at(*(np.ascontiguousarray(a, dtype=np.float64) for a in (
        x0_m, v0_mps, v1_mps, commit_s)), float(dt_s),
        *(np.ascontiguousarray(a, dtype=np.float64) for a in (
            m.pivot_m, m.velocity_mps, m.acceleration_mps2)), at, t, np.cos(turn),
        np.sin(turn), out)
    return out
