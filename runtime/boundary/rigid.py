"""Certified bounds of edge margins next to rotating or accelerating motion (Claim B6, seed 000).

Where the support or an edge rotates, or their pivots accelerate differently, and they do not
share one rigid motion, the body's curve is mapped through the support's motion to the world
and into each edge's local frame; the local-frame excess f(t) is bounded over each sub-interval
by its larger endpoint value plus the interpolation error ``M2 h^2 / 8`` with M2 a bound of
|f''| (the generated formulas of :mod:`navproof.proofs.rigid`), plus a float64 rounding slack.
"""

from __future__ import annotations

import numpy as np

from navproof._generated import formulas
from navproof.boundary.edges import EdgeSet
from navproof.boundary.motion import Support
from navproof.boundary.step_length import per_agent
from navproof.core.jit import compiled_loop
from navproof.core.validation import floats_of_shape
from navproof.core.vec2 import dot2, norm2

CERTIFIED_PIECES = 8
"""Sub-intervals of the step used by the certified second-order bound of rotating edges (B6)."""
STOP_REACTION_PIECES = 4
"""Sub-intervals of the reaction phase (hold v1 relative to the support for dt) used by the
certified bound of the stop trajectory on rotating or accelerating supports or next to rotating
or accelerating edges (B6)."""
STOP_BRAKE_PIECES = 16
"""Sub-intervals of the braking phase (|v1|/a long) of the same certified bound (B6)."""


def _rotate(x: np.ndarray, y: np.ndarray, angle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c, s = np.cos(angle), np.sin(angle)
    return c * x - s * y, s * x + c * y


def local_frame_excess_m(edges: EdgeSet, support: Support, x0_m: np.ndarray,
                         v0_mps: np.ndarray, v1_mps: np.ndarray, dt_s: float | np.ndarray,
                         t_s: np.ndarray) -> np.ndarray:
    """f(t) = dot(nLocal, M_edge(t)^-1 xWorld(t)) - bLocal (m) at times ``t_s`` ((T,) or (T, N)),
    shape (T, N, K); xWorld(t) = M_support(t) y(t) with y the relative curve. <= 0 is inside.

    A body carried rigidly by the edge's own motion gets a constant f. Claim: B6.
    """
    t = np.asarray(t_s, dtype=np.float64)
    t = t[:, None, None] if t.ndim == 1 else t[:, :, None]
    dt_a = per_agent(dt_s, x0_m.shape[0])[None, :, None, None]
    y = x0_m[None, :, None, :] + formulas.accel_step_displacement(
        t=t[..., None], dt=dt_a, v0=v0_mps[None, :, None, :], v1=v1_mps[None, :, None, :])
    return _support_point_excess_m(edges, support, y, t)


def _support_point_excess_m(edges: EdgeSet, support: Support, y: np.ndarray,
                            t: np.ndarray) -> np.ndarray:
    """f (m, (T, N, K)) of support-frame points ``y`` (T, N, 1 or K, 2) at times ``t``
    (T, N or 1, 1): map through the support's rigid motion to the world, then into each edge's
    local frame. Claim: B6."""
    me, ms = edges.motion, support.motion
    ce, we, ae, oe = me.pivot_m, me.velocity_mps, me.acceleration_mps2, me.omega_radps
    cs = ms.pivot_m[:, None, :]
    ws = ms.velocity_mps[:, None, :]
    as_ = ms.acceleration_mps2[:, None, :]
    os_ = ms.omega_radps[:, None]
    half_sq = 0.5 * t * t
    # support frame -> world: x = cs + ws t + as t^2/2 + R(os t)(y - cs)
    rx, ry = _rotate(y[..., 0] - cs[..., 0], y[..., 1] - cs[..., 1], os_ * t)
    xw_x = cs[..., 0] + ws[..., 0] * t + as_[..., 0] * half_sq + rx
    xw_y = cs[..., 1] + ws[..., 1] * t + as_[..., 1] * half_sq + ry
    # world -> edge local: y = ce + R(-oe t)(x - ce - we t - ae t^2/2)
    lx, ly = _rotate(xw_x - ce[..., 0] - we[..., 0] * t - ae[..., 0] * half_sq,
                     xw_y - ce[..., 1] - we[..., 1] * t - ae[..., 1] * half_sq, -oe * t)
    # common rigid motion cancels exactly: the local curve is the relative curve itself
    same = same_motion(edges, support)
    lx = np.where(same, y[..., 0], lx + ce[..., 0])
    ly = np.where(same, y[..., 1], ly + ce[..., 1])
    n = edges.normal
    return n[..., 0] * lx + n[..., 1] * ly - edges.offset_m


def same_motion(edges: EdgeSet, support: Support) -> np.ndarray:
    """True where an edge moves with exactly the support's rigid motion (N, K): the same
    rotation rate, pivot velocity and pivot acceleration, and the same pivot where it turns."""
    me, ms = edges.motion, support.motion
    we, ws = me.velocity_mps, ms.velocity_mps[:, None, :]
    ae, as_ = me.acceleration_mps2, ms.acceleration_mps2[:, None, :]
    ce, cs = me.pivot_m, ms.pivot_m[:, None, :]
    return ((me.omega_radps == ms.omega_radps[:, None])
            & (we[..., 0] == ws[..., 0]) & (we[..., 1] == ws[..., 1])
            & (ae[..., 0] == as_[..., 0]) & (ae[..., 1] == as_[..., 1])
            & (((ce[..., 0] == cs[..., 0]) & (ce[..., 1] == cs[..., 1]))
               | (me.omega_radps == 0.0)))


def moving_frame_pairs(edges: EdgeSet, support: Support) -> np.ndarray:
    """(N, K) True where the edge's local frame moves non-uniformly relative to the support's:
    the support or the edge rotates, or their pivots accelerate differently. Elsewhere the
    relative motion is a constant-velocity translation and the translation model of B5 and
    S1/S3 (with the start velocities u and e) is exact. Claim: B6, B5, S3."""
    me, ms = edges.motion, support.motion
    shape = edges.normal.shape[:2]
    out = np.empty(shape, bool)
    _moving_frame_pairs(floats_of_shape(me.omega_radps, shape),
                        floats_of_shape(ms.omega_radps, shape[:1]),
                        floats_of_shape(me.acceleration_mps2, (*shape, 2)),
                        floats_of_shape(ms.acceleration_mps2, (shape[0], 2)), out)
    return out


@compiled_loop
def _moving_frame_pairs(omega_e, omega_s, accel_e, accel_s, out):
    """Rows of :func:`moving_frame_pairs`: either rotates, or alpha_s - alpha_e is not zero."""
    n, k = out.shape
    for i in range(n):
        turning = omega_s[i] != 0.0
        for j in range(k):
            out[i, j] = (omega_e[i, j] != 0.0 or turning
                         or accel_s[i, 0] - accel_e[i, j, 0] != 0.0
                         or accel_s[i, 1] - accel_e[i, j, 1] != 0.0)


def _pivot_accel_m(edges: EdgeSet, support: Support) -> np.ndarray:
    """|alpha_s - alpha_e| (m/s^2, (N, K)): the pivot offset's acceleration."""
    return norm2(support.motion.acceleration_mps2[:, None, :] - edges.motion.acceleration_mps2)


def rigid_curve_margin_bound_m(edges: EdgeSet, support: Support, x0_m: np.ndarray,
                               v0_mps: np.ndarray, v1_mps: np.ndarray, dt_s: float | np.ndarray,
                               *, pieces: int = CERTIFIED_PIECES) -> np.ndarray:
    """Certified lower bound (m, (N, K)) of the local-frame margin -f(t) over the whole step.

    On each of ``pieces`` sub-intervals of width h, f is at most the larger endpoint value plus
    ``M2 h^2 / 8`` where M2 bounds |f''| (interpolation error of a C^2 function). With
    f = const + m1(t).P(t) + m2(t).Q(t), |m_i| = 1 rotating at omega_e and at the relative rate
    domega, P(t) = cs - ce + (ws - we) t + (as - ae) t^2/2 the pivot offset:
    |f''| <= omega_e^2 |P| + 2|omega_e||P'| + |P''| + domega^2 |Q| + 2|domega||Q'| + |Q''|, each
    polynomial factor bounded by its coefficient magnitudes over [0, dt]. Claim: B6.
    """
    dt = per_agent(dt_s, x0_m.shape[0])
    times = np.linspace(0.0, 1.0, pieces + 1)[:, None] * dt[None, :]
    f = local_frame_excess_m(edges, support, x0_m, v0_mps, v1_mps, dt, times)
    dt = dt[:, None]
    f_hi = np.maximum(f[:-1], f[1:]).max(axis=0)
    me, ms = edges.motion, support.motion
    dw = norm2(ms.velocity_mps[:, None, :] - me.velocity_mps)
    pivot = dict(dw=dw, d_accel=_pivot_accel_m(edges, support))
    p_max = formulas.pivot_offset_bound(
        p0=norm2(ms.pivot_m[:, None, :] - me.pivot_m), horizon=dt, **pivot)
    dv = norm2(v1_mps - v0_mps)[:, None]
    v0n = norm2(v0_mps)[:, None]
    q_max = formulas.accel_curve_offset_bound(
        q0=norm2(x0_m - ms.pivot_m)[:, None], v0_norm=v0n, dv_norm=dv, dt=dt)
    m2 = formulas.rigid_second_derivative_bound(
        omega_e=np.abs(me.omega_radps), d_omega=np.abs(ms.omega_radps[:, None] - me.omega_radps),
        p_max=p_max, dp_max=formulas.pivot_speed_bound(horizon=dt, **pivot),
        ddp_max=formulas.pivot_accel_bound(d_accel=pivot["d_accel"]), q_max=q_max,
        dq_max=formulas.accel_curve_speed_bound(v0_norm=v0n, dv_norm=dv),
        ddq_max=formulas.accel_curve_accel_bound(dv_norm=dv, dt=dt))
    bound = (f_hi + formulas.interpolation_excess_bound(m2=m2, h=dt / pieces)
             + formulas.rigid_rounding_slack(ulp=np.finfo(float).eps,
                                             offset_abs=np.abs(edges.offset_m), q_max=q_max,
                                             p_max=p_max))
    return -bound


def rotating_stop_pairs(edges: EdgeSet, support: Support, *, moving: np.ndarray | None = None
                        ) -> np.ndarray | None:
    """(N, K) True for the valid walls whose stop must be certified in the edge's local frame:
    the support or the edge rotates, or their pivots accelerate differently
    (:func:`moving_frame_pairs`), and they do not share the same rigid motion. None when no
    pair moves that way (the translation model of S1/S3 is exact there: the relative motion is
    a constant-velocity translation).

    ``moving`` is :func:`moving_frame_pairs` when the caller has it already.
    Claim: B6 (a body sharing the edge's rigid motion has a constant local margin), S3, R3."""
    if moving is None:
        moving = moving_frame_pairs(edges, support)
    if not moving.any():
        return None
    return moving & edges.wall & ~same_motion(edges, support)


def rotating_stop_margin_bound_m(edges: EdgeSet, support: Support, x0_m: np.ndarray,
                                 v0_mps: np.ndarray, v1_mps: np.ndarray,
                                 dt_s: float | np.ndarray, a_mps2: np.ndarray
                                 ) -> tuple[np.ndarray, np.ndarray]:
    """Certified lower bounds (m, (N, K)) of the local-frame margin -f over the stop after the
    step, and over the hold at rest on the support afterwards (any horizon).

    Model (seed 000: on rotating or accelerating supports or edges the stop is checked with the
    relative boundary curve, not the constant-velocity stop formula): after the accelerating
    step ends at y1 (support frame) the body holds v1 relative to its support for one reaction
    step dt, then brakes at ``a`` to rest on the support, y(tau) = y1 + v1 phi(tau) with phi the
    generated ``stop_trajectory_factor`` (S1), tau in [0, dt + |v1|/a]; the support keeps its
    rigid motion throughout, and each point is mapped to the world and into each edge's local
    frame at the absolute time dt + tau.

    Stop phase: with f = const + m1(t).P(t) + m2(t).Q(t) as in :func:`rigid_curve_margin_bound_m`
    (P(t) = cs - ce + (ws - we) t + (as - ae) t^2/2, Q = y - cs), |f''| <= oe^2 |P| + 2|oe||P'|
    + |P''| + dom^2 |Q| + 2|dom||Q'| + |Q''| with |Q'| <= |v1| and |Q''| = 0 while holding,
    = a while braking. f is C1 with a piecewise-constant Q'' jump at the phase boundary, so
    each phase is bounded separately: max endpoint of each sub-interval plus M2 h^2/8.

    Hold phase (t >= dt + |v1|/a, rest on the support at y_h): the local point is
    ce + R(-oe t) P(t) + R(dom t)(y_h - cs) with P(t) = cs - ce + (ws - we) t + (as - ae) t^2/2.
    The support's term is bounded by its length where it turns relative to the edge, by its
    value otherwise. Against a rotating edge the pivot term is bounded by |P| only when the
    pivots neither drift nor accelerate apart; against an edge that does not rotate, by the
    supremum over t >= 0 of dot(n, P(t)) (generated ``hold_drift_sup``), which exists only when
    dot(n, as - ae) < 0, or dot(n, as - ae) = 0 and dot(n, ws - we) <= 0. Otherwise the hold
    cannot be certified and its bound is -inf: resting on a rotating or accelerating support is
    not resting relative to a fixed or differently moving wall, so such a stop is never labelled
    safe (R3 does not hold there; the reference there is the rest on the support, r(t) = u(t)).
    Claim: B6, S1, S3, R3.
    """
    n_agents = x0_m.shape[0]
    dt = per_agent(dt_s, n_agents)
    a = np.broadcast_to(np.asarray(a_mps2, dtype=np.float64), (n_agents,))
    speed = np.hypot(v1_mps[:, 0], v1_mps[:, 1])
    brake = speed / a
    # phi needs |c| > 0; with v1 = 0 it multiplies zero and the braking phase is empty
    unit = np.where(speed > 0.0, speed, 1.0)
    y1 = x0_m + formulas.accel_step_displacement(t=dt[:, None], dt=dt[:, None], v0=v0_mps,
                                                 v1=v1_mps)
    frac_r = np.linspace(0.0, 1.0, STOP_REACTION_PIECES + 1)[:, None]
    frac_b = np.linspace(0.0, 1.0, STOP_BRAKE_PIECES + 1)[:, None]
    tau = np.concatenate([frac_r * dt[None, :], dt[None, :] + frac_b * brake[None, :]], axis=0)
    # the generated Piecewise evaluates every branch; a tiny |v1| overflows only in branches
    # it does not select
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        phi = formulas.stop_trajectory_factor(t=tau, dt=dt[None, :], a=a[None, :],
                                              speed=unit[None, :])
    y = y1[None, :, None, :] + v1_mps[None, :, None, :] * phi[..., None, None]
    f = _support_point_excess_m(edges, support, y, (dt[None, :] + tau)[:, :, None])
    nr = STOP_REACTION_PIECES + 1
    f_r, f_b = f[:nr], f[nr:]
    hi_r = np.maximum(f_r[:-1], f_r[1:]).max(axis=0)
    hi_b = np.maximum(f_b[:-1], f_b[1:]).max(axis=0)
    me, ms = edges.motion, support.motion
    oe = np.abs(me.omega_radps)
    d_omega = np.abs(ms.omega_radps[:, None] - me.omega_radps)
    dw_vec = ms.velocity_mps[:, None, :] - me.velocity_mps
    dw = norm2(dw_vec)
    dt_e, brake_e, speed_e, a_e = dt[:, None], brake[:, None], speed[:, None], a[:, None]
    p0 = ms.pivot_m[:, None, :] - me.pivot_m
    # the pivot offset over the step, the reaction and the braking: 2 dt + |v1|/a after the start
    pivot = dict(dw=dw, d_accel=_pivot_accel_m(edges, support))
    horizon = 2.0 * dt_e + brake_e
    p_max = formulas.pivot_offset_bound(p0=norm2(p0), horizon=horizon, **pivot)
    dp_max = formulas.pivot_speed_bound(horizon=horizon, **pivot)
    ddp_max = formulas.pivot_accel_bound(d_accel=pivot["d_accel"])
    hold_shift = v1_mps * phi[-1][:, None]
    q_max = formulas.stop_curve_offset_bound(
        q0=norm2(y1 - ms.pivot_m)[:, None], speed=speed_e, dt=dt_e, a=a_e)

    def m2(ddq_max: float | np.ndarray) -> np.ndarray:
        return formulas.rigid_second_derivative_bound(omega_e=oe, d_omega=d_omega, p_max=p_max,
                                                      dp_max=dp_max, ddp_max=ddp_max,
                                                      q_max=q_max, dq_max=speed_e,
                                                      ddq_max=ddq_max)

    slack = formulas.rigid_rounding_slack(ulp=np.finfo(float).eps,
                                          offset_abs=np.abs(edges.offset_m), q_max=q_max,
                                          p_max=p_max)
    # |Q''| is 0 while holding v1 and a while braking
    excess_r = formulas.interpolation_excess_bound(m2=m2(0.0), h=dt_e / STOP_REACTION_PIECES)
    excess_b = formulas.interpolation_excess_bound(m2=m2(a_e), h=brake_e / STOP_BRAKE_PIECES)
    stop_hi = np.maximum(hi_r + excess_r, hi_b + excess_b) + slack
    # the hold: every time after the stop, from the rest point y_h on the support
    n = edges.normal
    y_h = y1 + hold_shift
    q_h = y_h - ms.pivot_m
    da_vec = ms.acceleration_mps2[:, None, :] - me.acceleration_mps2
    n_dot_dw, n_dot_da = dot2(n, dw_vec), dot2(n, da_vec)
    # an edge that does not rotate sees dot(n, P(t)) (a parabola in t), bounded above over
    # t >= 0 only if it opens downwards or is non-increasing; a rotating edge sees |P(t)|,
    # bounded only if the pivots neither drift nor accelerate apart
    still = (dw == 0.0) & (pivot["d_accel"] == 0.0)
    bounded = np.where(oe != 0.0, still, (n_dot_da < 0.0) | ((n_dot_da == 0.0)
                                                              & (n_dot_dw <= 0.0)))
    # the generated Piecewise evaluates both branches; dot(n, da) = 0 selects the start value
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        drift_sup = formulas.hold_drift_sup(n_dot_p=dot2(n, p0), n_dot_dw=n_dot_dw,
                                            n_dot_da=n_dot_da)
    term_p = np.where(oe != 0.0, norm2(p0), drift_sup)
    term_q = np.where(d_omega != 0.0, norm2(q_h)[:, None],
                      dot2(n, q_h[:, None, :]))
    hold_slack = formulas.rigid_rounding_slack(
        ulp=np.finfo(float).eps, offset_abs=np.abs(edges.offset_m), q_max=q_max,
        p_max=np.maximum(p_max, np.abs(np.where(bounded, drift_sup, 0.0))))
    hold_hi = dot2(n, me.pivot_m) - edges.offset_m + term_p + term_q + hold_slack
    hold = np.where(bounded, -hold_hi, -np.inf)
    return -stop_hi, hold
