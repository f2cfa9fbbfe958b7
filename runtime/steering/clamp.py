"""Acceleration-clamped steering: the velocity moves towards the desired one by at most
``maxAccel dt`` per step. Claim: T2.

``v' = v + clampMagnitude((desired - v) / dt, maxAccel) dt``: the change has the length
``steering_change(|desired - v|, maxAccel, dt) = min(|desired - v|, maxAccel dt)`` (generated
from :mod:`navproof.proofs.steering`), so ``v'`` lies on the segment from ``v`` to ``desired``.
"""

from __future__ import annotations

import numpy as np

from navproof._generated import formulas
from navproof.core.errors import ObligationViolation
from navproof.core.tolerances import EPS, STEERING_CHECK_REL, STEERING_REACHED_REL


def clamped_steering(velocity_mps: np.ndarray, desired_mps: np.ndarray,
                     max_accel_mps2: np.ndarray | float, dt_s: float) -> np.ndarray:
    """New velocity (m/s, (N, 2)) of one clamped steering step from ``velocity_mps`` towards
    ``desired_mps``. Claim: T2."""
    v = np.asarray(velocity_mps, dtype=np.float64)
    gap = np.asarray(desired_mps, dtype=np.float64) - v
    gap_mps = np.hypot(gap[:, 0], gap[:, 1])
    change_mps = formulas.steering_change(gap=gap_mps, max_accel=max_accel_mps2, dt=dt_s)
    scale = np.divide(change_mps, gap_mps, out=np.zeros_like(gap_mps), where=gap_mps > 0.0)
    # a reachable desired velocity (up to rounding) is taken as it is: no residue of
    # v + (d - v) s with s a rounding short of 1 keeps a stopped body creeping
    reached = scale >= 1.0 - STEERING_REACHED_REL
    return np.where(reached[:, None], desired_mps, v + gap * scale[:, None])


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
