"""Stop envelopes: reaction-plus-brake displacement and the stop half-planes of the solve.

Per agent and edge (shapes (N, K)): with ``c = u + v - r`` the velocity relative to the
reference r, holding c for one step and then braking at ``a`` moves the body
``dot(n, c) (dt + |c|/(2a))`` towards the edge (S1). The solve uses the shared linear envelope
``dot(n, u + v - r) <= s / (dt + Cmax/(2a))`` with ``Cmax = Vh + |u - r|`` (S3, S4); the
necessary bound ``sqrt((a dt)^2 + 2 a s) - a dt`` (S2) is reported as a margin.

Degenerate inputs (S6): ``a <= 0`` or non-finite velocities raise InvalidInput before any
division; ``s = 0`` is allowed (retreat and sliding stay feasible). All closed forms come from
:mod:`navproof._generated.formulas`; the solve's S3 and S7 half-plane offsets are evaluated
from the same formulas in the compiled pass of :mod:`navproof.step.constraints`.
"""

from __future__ import annotations

import math

import numpy as np

from navproof._generated import formulas
from navproof._generated.formulas import brake_envelope_factor_scalar, envelope_speed_cap
from navproof.boundary.margins import affine_root
from navproof.boundary.step_length import per_edge
from navproof.core.jit import compiled_loop
from navproof.core.tolerances import EPS
from navproof.core.validation import check_valid_budget, check_valid_finite, floats_of_shape
from navproof.core.vec2 import dot2, norm2


def envelope_speed_cap_mps(vh_mps: np.ndarray, u_mps: np.ndarray, r_mps: np.ndarray
                           ) -> np.ndarray:
    """Shared envelope speed Cmax = Vh + |u - r| (m/s, (N,)). Claim: S4."""
    carry = norm2(np.asarray(u_mps) - np.asarray(r_mps))
    return formulas.envelope_speed_cap(vh=np.asarray(vh_mps, dtype=np.float64), carry=carry)


@compiled_loop
def _cap_and_factor_rows(vh, u, r, dt, a, cmax, kfac):
    """Per agent Cmax = Vh + |u - r| (the generated ``envelope_speed_cap`` of the length
    sqrt(x x + y y), as :func:`navproof.core.vec2.norm2`) and the braking factor K of the
    generated ``brake_envelope_factor_scalar`` (s). Claim: S4, S7."""
    for i in range(cmax.size):
        x, y = u[i, 0] - r[i, 0], u[i, 1] - r[i, 1]
        cap = envelope_speed_cap(vh=vh[i], carry=math.sqrt(x * x + y * y))
        cmax[i] = cap
        kfac[i] = brake_envelope_factor_scalar(cmax=cap, dt=dt[i], a=a[i])


def envelope_cap_and_brake_factor(vh_mps: np.ndarray, u_mps: np.ndarray, r_mps: np.ndarray,
                                  dt_s: float | np.ndarray, a_mps2: np.ndarray
                                  ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`envelope_speed_cap_mps` Cmax (m/s, (N,)) and :func:`brake_envelope_factor_s` K
    (s, (N,)) of that Cmax, in one compiled pass over the agents (the same values bit for bit).
    Claim: S4, S7."""
    a = check_valid_budget("a_mps2", a_mps2)
    u = np.asarray(u_mps, dtype=np.float64)
    rows = u.shape[0]
    cmax, kfac = np.empty(rows), np.empty(rows)
    _cap_and_factor_rows(floats_of_shape(vh_mps, (rows,)), u, np.asarray(r_mps, dtype=np.float64),
                         floats_of_shape(dt_s, (rows,)), floats_of_shape(a, (rows,)), cmax, kfac)
    return cmax, kfac


def stop_displacement_m(c_mps: np.ndarray, dt_s: float, a_mps2: np.ndarray) -> np.ndarray:
    """Length (m) travelled holding |c| for dt then braking at a to rest, (N,). Claim: S1."""
    a = check_valid_budget("a_mps2", a_mps2)
    c = check_valid_finite("c_mps", c_mps)
    return formulas.stop_distance(speed=norm2(c), dt=dt_s, a=a)


def normal_stop_displacement_m(normal: np.ndarray, c_mps: np.ndarray, dt_s: float,
                               a_mps2: np.ndarray) -> np.ndarray:
    """Normal displacement (m, (N, K)) of the whole reaction-and-brake stop along each edge
    normal: dot(n, c) (dt + |c|/(2a)). Claim: S1."""
    a = check_valid_budget("a_mps2", a_mps2)
    c = check_valid_finite("c_mps", c_mps)
    return formulas.normal_stop_displacement(
        n_dot_c=dot2(normal, c[:, None, :]), speed=norm2(c)[:, None],
        dt=per_edge(dt_s), a=a[:, None])


def necessary_bound_mps(s_m: np.ndarray, dt_s: float | np.ndarray,
                        a_mps2: np.ndarray) -> np.ndarray:
    """Largest dot(n, c) (m/s) whose stop can fit in the margin s; above it no stop is safe.

    Negative margins (already outside) give NaN. Claim: S2.
    """
    a = check_valid_budget("a_mps2", a_mps2)
    s = np.asarray(s_m, dtype=np.float64)
    a_b = a[:, None] if (a.ndim == 1 and s.ndim == 2) else a
    with np.errstate(invalid="ignore"):
        dt = per_edge(dt_s) if s.ndim == 2 else dt_s
        return formulas.necessary_normal_bound(s=s, dt=dt, a=a_b)


def linear_envelope_mps(s_m: np.ndarray, dt_s: float | np.ndarray, a_mps2: np.ndarray,
                        cmax_mps: np.ndarray) -> np.ndarray:
    """Offset (m/s, (N, K)) of the stop half-plane dot(n, c) <= s / (dt + Cmax/(2a)). Claim: S3."""
    a = check_valid_budget("a_mps2", a_mps2)
    s = np.asarray(s_m, dtype=np.float64)
    return formulas.linear_envelope_bound(s=s, dt=per_edge(dt_s), a=a[:, None],
                                          cmax=np.asarray(cmax_mps, dtype=np.float64)[:, None])


def end_stop_offset_mps(normal: np.ndarray, s_m: np.ndarray, dt_s: float, a_mps2: np.ndarray,
                        cmax_mps: np.ndarray, n_dot_e: np.ndarray, u_mps: np.ndarray,
                        r_mps: np.ndarray, v0_mps: np.ndarray) -> np.ndarray:
    """Offset q (m/s, (N, K)) of ``dot(n, v1) <= q``: braking at a from the END of the
    accelerating step, with |c1| <= Cmax, stays inside: margin_end(v1) >= dot(n, c1) Cmax/(2a).

    Both sides are generated forms (B4 end margin, S1 displacement with no reaction time) and
    affine in dot(n, v1); the offset is their root. Needed because a step that decelerates
    along n travels further than the constant-velocity hold assumed by S3. Claim: S1, S3, B4.
    """
    a = check_valid_budget("a_mps2", a_mps2)
    n_dot_u = dot2(normal, u_mps[:, None, :])
    n_dot_r = dot2(normal, r_mps[:, None, :])
    n_dot_v0 = dot2(normal, v0_mps[:, None, :])

    def excess(q: float) -> np.ndarray:
        end = formulas.accel_margin(s=s_m, t=per_edge(dt_s), dt=per_edge(dt_s), n_dot_e=n_dot_e,
                                    n_dot_u=n_dot_u,
                                    n_dot_v0=n_dot_v0, n_dot_v1=q)
        brake = formulas.normal_stop_displacement(n_dot_c=q + n_dot_u - n_dot_r,
                                                  speed=np.asarray(cmax_mps)[:, None], dt=0.0,
                                                  a=a[:, None])
        return end - brake

    return affine_root(excess(0.0), excess(1.0))


def brake_envelope_factor_s(cmax_mps: np.ndarray, dt_s: float | np.ndarray,
                            a_mps2: np.ndarray) -> np.ndarray:
    """Factor K (s, (N,)) of the discrete braking envelope: max(Cmax/a - dt/2, dt/2), the least
    factor for which one step of the strongest braking releases as much envelope as it consumes
    margin (seed 000 with the step's linear ramp and the V2 radius a dt). Claim: S7."""
    a = check_valid_budget("a_mps2", a_mps2)
    return formulas.brake_envelope_factor(cmax=np.asarray(cmax_mps, dtype=np.float64),
                                          dt=np.asarray(dt_s, dtype=np.float64), a=a)


def brake_envelope_margin_m(end_margin_m: np.ndarray, normal: np.ndarray, c1_mps: np.ndarray,
                            kfac_s: np.ndarray) -> np.ndarray:
    """Signed S7 margin (m, (N, K)): margin at the step end minus K dot(n, c1), where
    c1 = u + v1 - r. Claim: S7."""
    return formulas.brake_envelope_margin(s_end=end_margin_m,
                                          n_dot_c=dot2(normal, c1_mps[:, None, :]),
                                          kfac=np.asarray(kfac_s, dtype=np.float64)[:, None])


def braking_candidate_mps(v0_mps: np.ndarray, c0_mps: np.ndarray, dt_s: np.ndarray,
                          a_mps2: np.ndarray) -> np.ndarray:
    """One step of the strongest braking along c (m/s, (N, 2)): the end velocity whose
    c = u + v - r has the generated ``braked_speed`` max(|c0| - a dt, 0) in the direction of
    c0; it lies in the reachable disk. The witness candidate of S7. Claim: S7, V2."""
    speed = np.hypot(c0_mps[:, 0], c0_mps[:, 1])
    after = formulas.braked_speed(speed=speed, dt=dt_s, a=a_mps2)
    scale = np.where(speed > 0.0, after / np.where(speed > 0.0, speed, 1.0), 0.0)
    return v0_mps - c0_mps * (1.0 - scale)[:, None]


def end_stop_margin_m(end_margin_m: np.ndarray, normal: np.ndarray, c1_mps: np.ndarray,
                      a_mps2: np.ndarray) -> np.ndarray:
    """Signed margin (m, (N, K)) left after braking at a from the step end with velocity c1
    relative to r: end margin minus max(0, dot(n, c1) |c1| / (2a)). Claim: S1, S3."""
    a = check_valid_budget("a_mps2", a_mps2)
    brake = formulas.normal_stop_displacement(
        n_dot_c=dot2(normal, c1_mps[:, None, :]),
        speed=norm2(c1_mps)[:, None], dt=0.0, a=a[:, None])
    return end_margin_m - np.maximum(brake, 0.0)


def envelope_margin_m(normal: np.ndarray, s_m: np.ndarray, c_mps: np.ndarray,
                      dt_s: float | np.ndarray,
                      a_mps2: np.ndarray, cmax_mps: np.ndarray) -> np.ndarray:
    """Signed S3 envelope margin (m, (N, K)): s - dot(n, c) (dt + Cmax/(2a)); >= 0 means the
    shared linear envelope holds. Claim: S3."""
    a = check_valid_budget("a_mps2", a_mps2)
    disp = formulas.normal_stop_displacement(
        n_dot_c=dot2(normal, c_mps[:, None, :]),
        speed=np.asarray(cmax_mps, dtype=np.float64)[:, None], dt=per_edge(dt_s), a=a[:, None])
    return s_m - disp


def hold_is_safe(normal: np.ndarray, r_mps: np.ndarray, e_mps: np.ndarray,
                 valid: np.ndarray) -> np.ndarray:
    """(N,) True where holding at the reference r never decreases any edge margin:
    dot(n, r - e) <= 0 for every valid edge (the hold rule of S6 and R3). Claim: R3, S6."""
    drift = dot2(normal, r_mps[:, None, :] - e_mps)
    return np.all(~valid | (drift <= EPS), axis=1)


__all__ = [
    "brake_envelope_factor_s",
    "brake_envelope_margin_m",
    "braking_candidate_mps",
    "check_valid_budget",
    "end_stop_margin_m",
    "end_stop_offset_mps",
    "envelope_cap_and_brake_factor",
    "envelope_margin_m",
    "envelope_speed_cap_mps",
    "hold_is_safe",
    "linear_envelope_mps",
    "necessary_bound_mps",
    "normal_stop_displacement_m",
    "stop_displacement_m",
]
