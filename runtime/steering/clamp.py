"""Acceleration-clamped steering: the velocity moves towards the desired one by at most
``maxAccel dt`` per step. Claim: T2.

``v' = v + clampMagnitude((desired - v) / dt, maxAccel) dt``: the change has the length
``steering_change(|desired - v|, maxAccel, dt) = min(|desired - v|, maxAccel dt)`` (generated
from :mod:`navproof.proofs.steering`), so ``v'`` lies on the segment from ``v`` to ``desired``.
"""

from __future__ import annotations

import math

import numpy as np

from navproof._generated import formulas
from navproof._generated.formulas import steering_change_scalar
from navproof.core.errors import ObligationViolation
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.tolerances import EPS, STEERING_CHECK_REL, STEERING_REACHED_REL
from navproof.steering.rows import float_rows


def clamped_steering(velocity_mps: np.ndarray, desired_mps: np.ndarray,
                     max_accel_mps2: np.ndarray | float, dt_s: float) -> np.ndarray:
    """New velocity (m/s, (N, 2)) of one clamped steering step from ``velocity_mps`` towards
    ``desired_mps``: the gap's length (``hypot``, :func:`_gap_lengths`), the generated change,
    then the step (:func:`_steps`). Claim: T2."""
    v = np.asarray(velocity_mps, dtype=np.float64)
    desired = np.asarray(desired_mps, dtype=np.float64)
    # broadcast only where the shapes differ (numpy's broadcast costs more than the passes on
    # a thousand rows)
    if v.shape != desired.shape:
        v, desired = np.broadcast_arrays(v, desired)
    gap_mps = np.empty(v.shape[0])
    _gap_lengths(v, desired, gap_mps)
    change_mps = np.asarray(formulas.steering_change(
        gap=gap_mps, max_accel=max_accel_mps2, dt=dt_s), dtype=np.float64)
    if change_mps.shape != gap_mps.shape:
        change_mps = np.broadcast_to(change_mps, gap_mps.shape)
    out = np.empty(v.shape)
    _steps(v, desired, gap_mps, change_mps, 1.0 - STEERING_REACHED_REL, out)
    return out


@compiled_loop
def _gap_lengths(v, desired, out):
    """Length (m/s, ``hypot``) of every row's gap ``desired - v`` into ``out``."""
    for i in range(out.shape[0]):
        out[i] = math.hypot(desired[i, 0] - v[i, 0], desired[i, 1] - v[i, 1])


@inlined_loop
def _step_row(vx, vy, dx, dy, gap, change, reached_scale):
    """One row of :func:`clamped_steering` from ``v`` towards ``d``: ``v + (d - v) s`` with
    ``s`` the change over the gap (0 for no gap). Claim: T2."""
    scale = change / gap if gap > 0.0 else 0.0
    # a reachable desired velocity (up to rounding) is taken as it is: no residue of
    # v + (d - v) s with s a rounding short of 1 keeps a stopped body creeping
    if scale >= reached_scale:
        return dx, dy
    return vx + (dx - vx) * scale, vy + (dy - vy) * scale


@compiled_loop
def _steps(v, desired, gap, change, reached_scale, out):
    """Every row of :func:`clamped_steering` (:func:`_step_row`). Claim: T2."""
    for i in range(out.shape[0]):
        out[i, 0], out[i, 1] = _step_row(v[i, 0], v[i, 1], desired[i, 0], desired[i, 1],
                                          gap[i], change[i], reached_scale)


def speed_capped(velocity_mps: np.ndarray, cap_mps: np.ndarray) -> np.ndarray:
    """Velocities (m/s, (N, 2)) scaled down to the speed cap ``cap_mps`` (N,) where they
    exceed it (length by ``hypot``), in one compiled pass. Claim: T2, V1."""
    v = np.asarray(velocity_mps, dtype=np.float64)
    cap = np.asarray(cap_mps, dtype=np.float64)
    out = np.empty(v.shape)
    _capped_rows(v, cap if cap.shape == (v.shape[0],) else np.broadcast_to(cap, (v.shape[0],)),
                 out)
    return out


@inlined_loop
def _capped_row(vx, vy, cap):
    """One row of :func:`speed_capped`: ``v cap / |v|`` where ``|v| > cap``, else ``v``."""
    speed = math.hypot(vx, vy)
    if speed > cap:
        scale = cap / speed
        return vx * scale, vy * scale
    return vx, vy


@compiled_loop
def _capped_rows(v, cap, out):
    """Every row of :func:`speed_capped` (:func:`_capped_row`)."""
    for i in range(out.shape[0]):
        out[i, 0], out[i, 1] = _capped_row(v[i, 0], v[i, 1], cap[i])


def capped_clamped_steering(velocity_mps: np.ndarray, desired_mps: np.ndarray,
                            carry_mps: np.ndarray, cap_mps: np.ndarray,
                            max_accel_mps2: np.ndarray | float, dt_s: float
                            ) -> tuple[np.ndarray, np.ndarray]:
    """One clamped steering step (m/s, (N, 2)) from ``velocity_mps`` towards the desired
    velocity ``desired_mps - carry_mps`` capped at ``cap_mps`` (N,), and that capped desired
    velocity: :func:`speed_capped` then :func:`clamped_steering`, in one compiled pass
    (:func:`_capped_clamped_rows`, the change by the generated scalar form of
    ``steering_change``) where every input is float64 with one value per row and the step a
    float, else those two. Claim: T2, V1."""
    n = np.shape(velocity_mps)[0]
    vectors = [float_rows(a, n, 2) for a in (velocity_mps, desired_mps, carry_mps)]
    cap, accel = float_rows(cap_mps, n), float_rows(max_accel_mps2, n)
    if (isinstance(dt_s, float) and cap is not None and accel is not None
            and all(a is not None for a in vectors)):
        desired, out = np.empty((n, 2)), np.empty((n, 2))
        _capped_clamped_rows(*vectors, cap, accel, dt_s, 1.0 - STEERING_REACHED_REL, desired,
                             out)
        return out, desired
    desired = speed_capped(np.asarray(desired_mps) - carry_mps, cap_mps)
    return clamped_steering(velocity_mps, desired, max_accel_mps2, dt_s), desired


@compiled_loop
def _capped_clamped_rows(v, desired_world, carry, cap, accel, dt, reached_scale, desired,
                         out):
    """Every row of :func:`capped_clamped_steering`: the desired velocity less the carry,
    capped (:func:`_capped_row`), into ``desired``; the gap's length (``hypot``), the
    generated change and the step (:func:`_step_row`) into ``out``. Claim: T2, V1."""
    for i in range(out.shape[0]):
        dx, dy = _capped_row(desired_world[i, 0] - carry[i, 0],
                             desired_world[i, 1] - carry[i, 1], cap[i])
        desired[i, 0], desired[i, 1] = dx, dy
        gap = math.hypot(dx - v[i, 0], dy - v[i, 1])
        change = steering_change_scalar(gap=gap, max_accel=accel[i], dt=dt)
        out[i, 0], out[i, 1] = _step_row(v[i, 0], v[i, 1], dx, dy, gap, change,
                                          reached_scale)


def check_steering_step(velocity_mps: np.ndarray, new_velocity_mps: np.ndarray,
                        desired_mps: np.ndarray, max_accel_mps2: np.ndarray | float,
                        max_speed_mps: np.ndarray | float, dt_s: float) -> None:
    """Assertion mode: raise ObligationViolation("T2") when a steering step changed the
    velocity by more than ``maxAccel dt`` or left the speed cap that both ends respected (the
    margins of every agent in one compiled pass, :func:`_steering_margins`)."""
    v = np.asarray(velocity_mps, dtype=np.float64)
    new = np.asarray(new_velocity_mps, dtype=np.float64)
    n = v.shape[0]
    accel = np.asarray(max_accel_mps2, dtype=np.float64)
    cap = np.asarray(max_speed_mps, dtype=np.float64)
    # broadcast only what is not one value per row already
    accel = accel if accel.shape == (n,) else np.broadcast_to(accel, (n,))
    cap = cap if cap.shape == (n,) else np.broadcast_to(cap, (n,))
    change, limit, margin, speed_margin = np.empty((4, n))
    too_fast, over_cap = _steering_margins(
        v, new, np.asarray(desired_mps, dtype=np.float64), accel, cap, dt_s,
        STEERING_CHECK_REL, EPS, change, limit, margin, speed_margin)
    if too_fast:
        i = int(np.argmin(margin))
        raise ObligationViolation(
            "T2", "steering changed the velocity by more than maxAccel dt", agent=i,
            observed=float(change[i]), limit=float(limit[i]), margin=float(margin[i]),
            data={"velocity_mps": v[i].tolist(), "new_velocity_mps": new[i].tolist()})
    if over_cap:
        i = int(np.argmin(speed_margin))
        raise ObligationViolation(
            "T2", "steering left the speed cap although |v| and |desired| were within it",
            agent=i, observed=float(np.hypot(*new[i])), limit=float(cap[i]),
            margin=float(speed_margin[i]), data={"velocity_mps": v[i].tolist(),
                                                 "new_velocity_mps": new[i].tolist()})


@compiled_loop
def _steering_margins(v, new, desired, accel, cap, dt, check_rel, eps, change, limit, margin,
                      speed_margin):
    """Per agent of :func:`check_steering_step`: the change ``|new - v|`` (m/s), its limit
    ``maxAccel dt`` and the margin between them, and the speed cap's margin ``cap - |new|``
    where ``|v|`` and ``|desired|`` were within the cap (+inf elsewhere), lengths by
    ``hypot``; returns whether any margin falls below its tolerance
    ``check_rel (1 + cap) + eps``. Claim: T2."""
    too_fast = False
    over_cap = False
    for i in range(change.shape[0]):
        tol = check_rel * (1.0 + cap[i]) + eps
        change[i] = math.hypot(new[i, 0] - v[i, 0], new[i, 1] - v[i, 1])
        limit[i] = accel[i] * dt
        margin[i] = limit[i] - change[i]
        too_fast |= margin[i] < -tol
        covered = (math.hypot(v[i, 0], v[i, 1]) <= cap[i] + tol) \
            & (math.hypot(desired[i, 0], desired[i, 1]) <= cap[i] + tol)
        speed_margin[i] = cap[i] - math.hypot(new[i, 0], new[i, 1]) if covered else np.inf
        over_cap |= speed_margin[i] < -tol
    return too_fast, over_cap
