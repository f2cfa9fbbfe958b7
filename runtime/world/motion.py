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

from dataclasses import dataclass

import numpy as np

from navproof._generated import formulas
from navproof.boundary import Support


@dataclass(frozen=True)
class Executed:
    """Executed end state of N bodies: positions (m), velocities relative to the support and in
    the world (m/s), and the relative curve's support-frame points at tau = 1/2 and 1 of the
    executed part (for the clearance measurement)."""

    position_m: np.ndarray
    velocity_rel_mps: np.ndarray
    velocity_world_mps: np.ndarray


def _rotate(v: np.ndarray, angle: np.ndarray) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([c * v[:, 0] - s * v[:, 1], s * v[:, 0] + c * v[:, 1]], axis=1)


def support_to_world(support: Support, y_m: np.ndarray, t_s: np.ndarray | float) -> np.ndarray:
    """World position (m, (N, 2)) at time ``t_s`` of support-frame points ``y_m`` (N, 2)."""
    m = support.motion
    t = np.asarray(t_s, dtype=np.float64)
    t = t[:, None] if t.ndim else t
    return (m.pivot_m + m.velocity_mps * t + 0.5 * m.acceleration_mps2 * t * t
            + _rotate(y_m - m.pivot_m, m.omega_radps * np.squeeze(t)))


def relative_curve_m(x0_m: np.ndarray, v0_mps: np.ndarray, v1_mps: np.ndarray, dt_s: float,
                     commit_s: np.ndarray, t_s: np.ndarray | float) -> np.ndarray:
    """Support-frame point (m, (N, 2)) at time ``t_s`` of the executed relative curve: the B4
    ramp up to the commit time, then at rest on the support. Claim: B4, F2."""
    t = np.minimum(np.broadcast_to(np.asarray(t_s, dtype=np.float64), commit_s.shape), commit_s)
    return x0_m + formulas.accel_step_displacement(t=t[:, None], dt=dt_s, v0=v0_mps, v1=v1_mps)


def execute(x0_m: np.ndarray, v0_mps: np.ndarray, v1_mps: np.ndarray, commit_s: np.ndarray,
            dt_s: float, support: Support) -> Executed:
    """Execute one step of N bodies (see the module docstring). Claim: T4, B4, B6, F2."""
    y_end = relative_curve_m(x0_m, v0_mps, v1_mps, dt_s, commit_s, dt_s)
    full = commit_s >= dt_s
    v_end = np.where(full[:, None], v1_mps, 0.0)
    m = support.motion
    position = support_to_world(support, y_end, dt_s)
    v_rel = _rotate(v_end, m.omega_radps * dt_s)
    pivot_end = m.pivot_m + m.velocity_mps * dt_s + 0.5 * m.acceleration_mps2 * dt_s**2
    rel = position - pivot_end
    carry = (m.velocity_mps + m.acceleration_mps2 * dt_s
             + m.omega_radps[:, None] * np.stack([-rel[:, 1], rel[:, 0]], axis=1))
    return Executed(position, v_rel, carry + v_rel)
