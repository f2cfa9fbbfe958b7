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
from navproof.core.errors import ObligationViolation
from navproof.core.jit import compiled_loop
from navproof.core.tolerances import EPS, STEERING_CHECK_REL, STEERING_REACHED_REL


def clamped_steering(velocity_mps: np.ndarray, desired_mps: np.ndarray,
                     max_accel_mps2: np.ndarray | float, dt_s: float) -> np.ndarray:
    """New velocity (m/s, (N, 2)) of one clamped steering step from ``velocity_mps`` towards
    ``desired_mps``: the gap's length (``hypot``, :func:`_gap_lengths`), the generated change,
    then the step (:func:`_steps`). Claim: T2."""
    v, desired = np.broadcast_arrays(np.asarray(velocity_mps, dtype=np.float64),
                                     np.asarray(desired_mps, dtype=np.float64))
    gap_mps = np.empty(v.shape[0])
    _gap_lengths(v, desired, gap_mps)
    change_mps = np.broadcast_to(np.asarray(formulas.steering_change(
        gap=gap_mps, max_accel=max_accel_mps2, dt=dt_s), dtype=np.float64), gap_mps.shape)
    out = np.empty(v.shape)
    _steps(v, desired, gap_mps, change_mps, 1.0 - STEERING_REACHED_REL, out)
    return out


@compiled_loop
def _gap_lengths(v, desired, out):
    """Length (m/s, ``hypot``) of every row's gap ``desired - v`` into ``out``."""
    for i in range(out.shape[0]):
        out[i] = math.hypot(desired[i, 0] - v[i, 0], desired[i, 1] - v[i, 1])


@compiled_loop
def _steps(v, desired, gap, change, reached_scale, out):
    """Every row of :func:`clamped_steering`: ``v + (desired - v) s`` with ``s`` the change
    over the gap (0 for no gap). Claim: T2."""
    for i in range(out.shape[0]):
        scale = change[i] / gap[i] if gap[i] > 0.0 else 0.0
        # a reachable desired velocity (up to rounding) is taken as it is: no residue of
        # v + (d - v) s with s a rounding short of 1 keeps a stopped body creeping
        if scale >= reached_scale:
            out[i, 0] = desired[i, 0]
            out[i, 1] = desired[i, 1]
        else:
            out[i, 0] = v[i, 0] + (desired[i, 0] - v[i, 0]) * scale
            out[i, 1] = v[i, 1] + (desired[i, 1] - v[i, 1]) * scale


def speed_capped(velocity_mps: np.ndarray, cap_mps: np.ndarray) -> np.ndarray:
    """Velocities (m/s, (N, 2)) scaled down to the speed cap ``cap_mps`` (N,) where they
    exceed it (length by ``hypot``), in one compiled pass. Claim: T2, V1."""
    v = np.asarray(velocity_mps, dtype=np.float64)
    out = np.empty(v.shape)
    _capped_rows(v, np.broadcast_to(np.asarray(cap_mps, dtype=np.float64), (v.shape[0],)), out)
    return out


@compiled_loop
def _capped_rows(v, cap, out):
    """Every row of :func:`speed_capped`: ``v cap / |v|`` where ``|v| > cap``, else ``v``."""
    for i in range(out.shape[0]):
        speed = math.hypot(v[i, 0], v[i, 1])
        if speed > cap[i]:
            scale = cap[i] / speed
            out[i, 0] = v[i, 0] * scale
            out[i, 1] = v[i, 1] * scale
        else:
            out[i, 0] = v[i, 0]
            out[i, 1] = v[i, 1]


def check_steering_step(velocity_mps: np.ndarray, new_velocity_mps: np.ndarray,
                        desired_mps: np.ndarray, max_accel_mps2: np.ndarray | float,
                        max_speed_mps: np.ndarray | float, dt_s: float) -> None:
    """Assertion mode: raise ObligationViolation("T2") when a steering step changed the
    velocity by more than ``maxAccel dt`` or left the speed cap that both ends respected."""
    v = np.asarray(velocity_mps, dtype=np.float64)
    new = np.asarray(new_velocity_mps, dtype=np.float64)
    n = v.shape[0]
    accel = np.broadcast_to(np.asarray(max_accel_mps2, dtype=np.float64), (n,))
    cap = np.broadcast_to(np.asarray(max_speed_mps, dtype=np.float64), (n,))
    change = np.hypot(*(new - v).T)
    limit = accel * dt_s
    tol = STEERING_CHECK_REL * (1.0 + cap) + EPS
    margin = limit - change
    if np.any(margin < -tol):
        i = int(np.argmin(margin))
        raise ObligationViolation(
            "T2", "steering changed the velocity by more than maxAccel dt", agent=i,
            observed=float(change[i]), limit=float(limit[i]), margin=float(margin[i]),
            data={"velocity_mps": v[i].tolist(), "new_velocity_mps": new[i].tolist()})
    speed_before = np.hypot(*v.T)
    desired_speed = np.hypot(*np.asarray(desired_mps, dtype=np.float64).T)
    covered = (speed_before <= cap + tol) & (desired_speed <= cap + tol)
    speed_margin = np.where(covered, cap - np.hypot(*new.T), np.inf)
    if np.any(speed_margin < -tol):
        i = int(np.argmin(speed_margin))
        raise ObligationViolation(
            "T2", "steering left the speed cap although |v| and |desired| were within it",
            agent=i, observed=float(np.hypot(*new[i])), limit=float(cap[i]),
            margin=float(speed_margin[i]), data={"velocity_mps": v[i].tolist(),
                                                 "new_velocity_mps": new[i].tolist()})
