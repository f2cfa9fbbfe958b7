"""Edge margins of the body's curve over one step and the velocity half-planes that keep them
(seed 000): constant-velocity (B1) and accelerating (B4) step half-planes, B5 cutting planes,
the exact whole-step minimum against translating edges (B2, B5) and, next to rotating or
accelerating motion, the certified bound of :mod:`navproof.boundary.rigid` (B6).

The body's curve over one step of length ``dt`` accelerates linearly, relative to its support,
from ``v0`` to ``v1``. All closed forms come from :mod:`navproof._generated.formulas`; this
module only applies them.
"""

from __future__ import annotations

import numpy as np

from navproof._generated import formulas
from navproof.boundary.edges import EdgeSet, take_edges
from navproof.boundary.motion import Support, take_support
from navproof.boundary.rigid import (
    moving_frame_pairs,
    rigid_curve_margin_bound_m,
    same_motion,
)
from navproof.boundary.step_length import per_edge
from navproof.core.tolerances import FLAT_SLOPE_TOL
from navproof.core.vec2 import dot2


def step_halfplane_offset_mps(s_m: np.ndarray, dt_s: float | np.ndarray, n_dot_e: np.ndarray,
                              n_dot_u: np.ndarray) -> np.ndarray:
    """Offset (m/s) of the constant-velocity step half-plane dot(n, v) <= s/dt + dot(n, e - u).

    Claim: B1, B3 (each edge brings its own e).
    """
    return formulas.step_halfplane_offset(s=s_m, dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u)


def accel_halfplane_offset_mps(s_m: np.ndarray, dt_s: float | np.ndarray, n_dot_e: np.ndarray,
                               n_dot_u: np.ndarray, n_dot_v0: np.ndarray) -> np.ndarray:
    """Offset (m/s) of the continuous-acceleration step-end half-plane in v1. Claim: B4."""
    return formulas.accel_step_v1_bound(s=s_m, dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u,
                                        n_dot_v0=n_dot_v0)


def affine_root(f_at_0: np.ndarray, f_at_1: np.ndarray) -> np.ndarray:
    """Root q of an affine function f(q) given f(0) and f(1); -inf where f does not depend on q
    and is negative, +inf where it does not depend on q and is non-negative.

    Used to turn a generated margin that is affine in dot(n, v1) into the half-plane
    ``dot(n, v1) <= q`` without retyping the closed form.
    """
    slope = f_at_1 - f_at_0
    flat = np.abs(slope) <= FLAT_SLOPE_TOL
    with np.errstate(divide="ignore", invalid="ignore"):
        root = -f_at_0 / np.where(flat, 1.0, slope)
    return np.where(flat, np.where(f_at_0 >= 0.0, np.inf, -np.inf), root)


def accel_margin_at_time_offset_mps(s_m: np.ndarray, t_s: np.ndarray, dt_s: float | np.ndarray,
                                    n_dot_e: np.ndarray, n_dot_u: np.ndarray,
                                    n_dot_v0: np.ndarray) -> np.ndarray:
    """Offset q (m/s) of the cut ``dot(n, v1) <= q`` that keeps the margin at time t >= 0.

    The accelerating step's margin at a fixed time is affine and decreasing in dot(n, v1), so
    each time gives a necessary half-plane of whole-step coverage (a cutting plane at the
    interior extremum t*). Claim: B5.
    """
    def margin(q: float) -> np.ndarray:
        return formulas.accel_margin(s=s_m, t=t_s, dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u,
                                     n_dot_v0=n_dot_v0, n_dot_v1=q)

    return affine_root(margin(0.0), margin(1.0))


def accel_extremum_time_s(dt_s: float | np.ndarray, n_dot_e: np.ndarray, n_dot_u: np.ndarray,
                          n_dot_v0: np.ndarray, n_dot_v1: np.ndarray) -> np.ndarray:
    """Interior extremum time t* (s) of the accelerating margin; NaN when v1 = v0 along n or
    when t* is not strictly inside the step. Claim: B5."""
    flat = n_dot_v0 == n_dot_v1
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t_star = formulas.accel_extremum_time(dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u,
                                              n_dot_v0=n_dot_v0,
                                              n_dot_v1=np.where(flat, n_dot_v0 + 1.0, n_dot_v1))
    inside = ~flat & (t_star > 0.0) & (t_star < dt_s)
    return np.where(inside, t_star, np.nan)


def translating_curve_margins_m(s_m: np.ndarray, dt_s: float | np.ndarray, n_dot_e: np.ndarray,
                                n_dot_u: np.ndarray, n_dot_v0: np.ndarray,
                                n_dot_v1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact minimum margin (m) over [0, dt] of the accelerating curve against a translating
    edge, and the time (s) where it occurs: the minimum of the margins at 0, dt and t*.

    Claim: B2 (v0 = v1), B5 (endpoints plus interior extremum cover the whole step).
    """
    def margin(t: float | np.ndarray) -> np.ndarray:
        return formulas.accel_margin(s=s_m, t=t, dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u,
                                     n_dot_v0=n_dot_v0, n_dot_v1=n_dot_v1)

    t_star = accel_extremum_time_s(dt_s, n_dot_e, n_dot_u, n_dot_v0, n_dot_v1)
    m0 = np.broadcast_to(s_m, np.broadcast(s_m, n_dot_v1).shape)
    m_end = margin(dt_s)
    t_in = np.nan_to_num(t_star)
    m_star = np.where(np.isnan(t_star), np.inf, margin(t_in))
    # the least of the three, the first of equals (as argmin over (start, end, t*))
    start_least = (m0 <= m_end) & (m0 <= m_star)
    end_least = ~start_least & (m_end <= m_star)
    least = np.minimum(np.minimum(m0, m_end), m_star)
    return least, np.where(start_least, 0.0, np.where(end_least, dt_s, t_in))


def curve_min_margin_m(edges: EdgeSet, support: Support, x0_m: np.ndarray, v0_mps: np.ndarray,
                       v1_mps: np.ndarray, dt_s: float | np.ndarray, *,
                       exact_m: np.ndarray | None = None) -> np.ndarray:
    """Lower bound (m, (N, K)) of the edge margin over the whole step of the accelerating curve.

    Exact (endpoints + interior extremum) where the edge moves relative to the support by a
    constant-velocity translation (neither rotates, equal pivot accelerations) and for edges
    sharing the support's rigid motion; certified interval bound otherwise. Invalid edges
    give +inf. ``exact_m`` is the translating minimum of
    :func:`translating_curve_margins_from_state` when the caller has it already.
    Claim: B2, B5, B6.
    """
    exact = exact_m if exact_m is not None else translating_curve_margins_from_state(
        edges, support, x0_m, v0_mps, v1_mps, dt_s)[0]
    moving = moving_frame_pairs(edges, support)
    if not moving.any():
        return np.where(edges.valid, exact, np.inf)
    rigid_same = same_motion(edges, support) & moving
    need_bound = moving & ~rigid_same & edges.valid
    out = exact
    if rigid_same.any():
        n = edges.normal
        s = edges.initial_margin_m(x0_m)
        zeros = np.zeros_like(s)
        same_margin, _ = translating_curve_margins_m(
            s, per_edge(dt_s), zeros, zeros, dot2(n, v0_mps[:, None, :]),
            dot2(n, v1_mps[:, None, :]))
        out = np.where(rigid_same, same_margin, out)
    if need_bound.any():
        rows = np.flatnonzero(need_bound.any(axis=1))
        sub = take_edges(edges, rows)
        sup = take_support(support, rows)
        bound = rigid_curve_margin_bound_m(sub, sup, x0_m[rows], v0_mps[rows], v1_mps[rows],
                                           dt_s if np.ndim(dt_s) == 0 else np.asarray(dt_s)[rows])
        out = out.copy()
        out[rows] = np.where(need_bound[rows], bound, out[rows])
    return np.where(edges.valid, out, np.inf)


def translating_curve_margins_from_state(edges: EdgeSet, support: Support, x0_m: np.ndarray,
                                         v0_mps: np.ndarray, v1_mps: np.ndarray,
                                         dt_s: float | np.ndarray
                                         ) -> tuple[np.ndarray, np.ndarray]:
    """Exact whole-step minimum margin (m) and its time (s), (N, K), treating every motion as
    the translation at its start velocity (exact when nothing rotates and the support and edge
    accelerate equally). Claim: B5."""
    n = edges.normal
    u = support.carry_mps(x0_m)
    e = edges.edge_velocity_mps(x0_m)
    return translating_curve_margins_m(
        edges.initial_margin_m(x0_m), per_edge(dt_s), dot2(n, e),
        dot2(n, u[:, None, :]), dot2(n, v0_mps[:, None, :]),
        dot2(n, v1_mps[:, None, :]))


def end_margin_m(edges: EdgeSet, support: Support, x0_m: np.ndarray, v0_mps: np.ndarray,
                 v1_mps: np.ndarray, dt_s: float | np.ndarray) -> np.ndarray:
    """Edge margin (m, (N, K)) at the end of the accelerating step (translation model).

    Claim: B4."""
    n = edges.normal
    return accel_end_margin_m(
        edges.initial_margin_m(x0_m), per_edge(dt_s),
        dot2(n, edges.edge_velocity_mps(x0_m)), dot2(n, support.carry_mps(x0_m)[:, None, :]),
        dot2(n, v0_mps[:, None, :]), dot2(n, v1_mps[:, None, :]))


def accel_end_margin_m(s_m: np.ndarray, dt_s: float | np.ndarray, n_dot_e: np.ndarray,
                       n_dot_u: np.ndarray, n_dot_v0: np.ndarray, n_dot_v1: np.ndarray
                       ) -> np.ndarray:
    """Edge margin (m) at the end of the accelerating step from the initial margin and the
    normal components of the velocities (the same as :func:`end_margin_m`). Claim: B4."""
    return formulas.accel_margin(s=s_m, t=dt_s, dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u,
                                 n_dot_v0=n_dot_v0, n_dot_v1=n_dot_v1)
