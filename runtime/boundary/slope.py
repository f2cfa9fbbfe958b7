"""Slope budgets per planar patch and the acceleration-reachable velocity disk (V1, V2).

A surface cap (speed V in m/s, acceleration in m/s^2) becomes the horizontal cap ``V / k`` on a
patch with slope factor ``k = sqrt(1 + |grad h|^2)``. A newly adopted patch's budget takes effect
only from the first solve after the adoption (the budget in force when a step was planned keeps
governing that step). Candidates lie in the disk centred at the actual end velocity of the
previous step with radius ``a_active * dt``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from navproof._generated import formulas
from navproof.core.errors import InvalidInput
from navproof.core.validation import (
    check_valid_finite,
    check_valid_positive,
    check_valid_slope_factor,
    check_valid_step,
)
from navproof.core.vec2 import norm2


def slope_factor(gradient: np.ndarray) -> np.ndarray:
    """Slope factor k (1, (...)) of planar patches from height gradients (..., 2). Claim: V1."""
    g = check_valid_finite("gradient", gradient)
    return formulas.slope_factor(grad_sq=np.einsum("...j,...j->...", g, g))


def horizontal_caps(surface_speed_cap_mps: np.ndarray, surface_accel_cap_mps2: np.ndarray,
                    k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal speed cap Vh = V/k (m/s) and acceleration cap a/k (m/s^2) per patch. Claim: V1."""
    v = check_valid_positive("surface_speed_cap_mps", surface_speed_cap_mps)
    a = check_valid_positive("surface_accel_cap_mps2", surface_accel_cap_mps2)
    kk = check_valid_slope_factor("k", k)
    return (formulas.horizontal_cap(surface_cap=v, k=kk),
            formulas.horizontal_cap(surface_cap=a, k=kk))


@dataclass(frozen=True)
class SlopeBudget:
    """Per agent (N,): the slope factor in force (``k_active``), a factor adopted but not yet in
    force (``k_pending``, NaN when none), and the surface caps V (m/s) and a (m/s^2).

    Claim: V1 (the new patch's budget applies only from the first solve after adoption).
    """

    k_active: np.ndarray
    k_pending: np.ndarray
    surface_speed_cap_mps: np.ndarray
    surface_accel_cap_mps2: np.ndarray

    @staticmethod
    def start(k: np.ndarray, surface_speed_cap_mps: float | np.ndarray,
              surface_accel_cap_mps2: float | np.ndarray) -> SlopeBudget:
        """Budget on the agents' current patches (k (N,)), with nothing pending."""
        kk = check_valid_slope_factor("k", k)
        n = kk.shape[0]
        v = check_valid_positive("surface_speed_cap_mps",
                                 np.broadcast_to(surface_speed_cap_mps, (n,)).astype(float))
        a = check_valid_positive("surface_accel_cap_mps2",
                                 np.broadcast_to(surface_accel_cap_mps2, (n,)).astype(float))
        return SlopeBudget(kk.copy(), np.full(n, np.nan), v.copy(), a.copy())

    def adopt(self, mask: np.ndarray, k_new: np.ndarray) -> SlopeBudget:
        """Record an adoption of new patches (k_new) for agents in ``mask``; not yet in force."""
        kk = check_valid_slope_factor("k_new", np.broadcast_to(k_new, self.k_active.shape))
        return replace(self, k_pending=np.where(mask, kk, self.k_pending))

    def begin_solve(self) -> SlopeBudget:
        """The budget of the next solve: adopted factors come into force now."""
        pending = ~np.isnan(self.k_pending)
        return replace(self, k_active=np.where(pending, self.k_pending, self.k_active),
                       k_pending=np.full_like(self.k_pending, np.nan))

    def caps(self) -> tuple[np.ndarray, np.ndarray]:
        """(Vh m/s, a_active m/s^2) in force, (N,) each. Claim: V1."""
        return horizontal_caps(self.surface_speed_cap_mps, self.surface_accel_cap_mps2,
                               self.k_active)


def reachable_disk(v_end_mps: np.ndarray, a_active_mps2: np.ndarray, dt_s: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Centre (m/s, (N, 2)) = actual end velocity and radius (m/s, (N,)) = a_active dt of the
    acceleration-reachable disk. Claim: V2."""
    dt = check_valid_step(dt_s)
    v = check_valid_finite("v_end_mps", v_end_mps)
    a = np.asarray(a_active_mps2, dtype=np.float64)
    if np.any(~np.isfinite(a) | (a < 0.0)):
        raise InvalidInput("a_active_mps2", a.tolist(), "must be finite and >= 0")
    return v.copy(), np.broadcast_to(a * dt, v.shape[:-1]).copy()


def reach_margin_mps(v1_mps: np.ndarray, centre_mps: np.ndarray, radius_mps: np.ndarray
                     ) -> np.ndarray:
    """Signed V2 margin (m/s, (N,)): radius - |v1 - centre|, >= 0 inside the disk. Claim: V2."""
    return radius_mps - norm2(v1_mps - centre_mps)


def speed_margin_mps(v1_mps: np.ndarray, vh_mps: np.ndarray) -> np.ndarray:
    """Signed margin (m/s, (N,)) of the horizontal speed cap: Vh - |v1|. Claim: V1."""
    return vh_mps - norm2(v1_mps)
