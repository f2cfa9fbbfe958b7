"""Exact minimum distance over one step between a body's accelerating curve and its neighbours.

The body moves (world frame) as ``x(t) = x0 + (u + v0) t + (v1 - v0) t^2 / (2 dt)``; each
neighbour's prediction is ``y(t) = y0 + w t``. The relative position is the quadratic curve
``d(tau) = d0 + B tau + A tau^2`` in the step fraction ``tau = t / dt``, and ``|d|^2`` is a quartic
whose critical points are the roots of a cubic. The cubic is split at the roots of its own
derivative (a quadratic) into monotone pieces, and each sign change is bracketed by bisection to
machine precision; the minimum is taken over the endpoints and these roots. Nothing is sampled.
"""

from __future__ import annotations

import numpy as np

from navproof._generated import formulas
from navproof.core.bisection import bisect
from navproof.core.tolerances import EPS
from navproof.core.validation import check_valid_step
from navproof.core.vec2 import dot2


def _cubic(c3: np.ndarray, c2: np.ndarray, c1: np.ndarray, c0: np.ndarray,
           x: np.ndarray) -> np.ndarray:
    return ((c3 * x + c2) * x + c1) * x + c0


def _quadratic_roots_in_unit(q2: np.ndarray, q1: np.ndarray, q0: np.ndarray) -> np.ndarray:
    """Real roots (..., 2) in (0, 1) of q2 x^2 + q1 x + q0 (NaN where absent), stable form."""
    disc = q1 * q1 - 4.0 * q2 * q0
    sq = np.sqrt(np.maximum(disc, 0.0))
    # citardauq: avoid cancellation between -q1 and sq
    qq = -0.5 * (q1 + np.where(q1 >= 0.0, sq, -sq))
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = np.where(q2 != 0.0, qq / q2, np.where(q1 != 0.0, -q0 / q1, np.nan))
        r2 = np.where((q2 != 0.0) & (qq != 0.0), q0 / qq, np.nan)
    roots = np.stack([r1, r2], axis=-1)
    real = (disc >= 0.0)[..., None] | (q2 == 0.0)[..., None]
    inside = real & (roots > 0.0) & (roots < 1.0)
    return np.where(inside, roots, np.nan)


def _cubic_roots_in_unit(c3: np.ndarray, c2: np.ndarray, c1: np.ndarray, c0: np.ndarray
                         ) -> np.ndarray:
    """All real roots (..., 3) in [0, 1] of the cubic (NaN where absent), by bisection on the
    monotone pieces between the roots of its derivative."""
    turns = np.sort(_quadratic_roots_in_unit(3.0 * c3, 2.0 * c2, c1), axis=-1)
    turns = np.where(np.isnan(turns), 1.0, turns)
    edges = np.concatenate([np.zeros(turns.shape[:-1] + (1,)), turns,
                            np.ones(turns.shape[:-1] + (1,))], axis=-1)
    lo, hi = edges[..., :-1], edges[..., 1:]
    c3e, c2e, c1e, c0e = (c[..., None] for c in (c3, c2, c1, c0))
    f_lo = _cubic(c3e, c2e, c1e, c0e, lo)
    f_hi = _cubic(c3e, c2e, c1e, c0e, hi)
    bracket = (np.sign(f_lo) * np.sign(f_hi) <= 0.0) & (hi > lo)
    # the sign at lo never changes while bisecting: lo only moves to points of the same sign
    sign_lo = np.sign(f_lo)
    lo, hi = bisect(lo, hi, lambda mid: sign_lo * np.sign(_cubic(c3e, c2e, c1e, c0e, mid)) <= 0.0)
    return np.where(bracket, 0.5 * (lo + hi), np.nan)


def _relative_curve_coefficients(u_mps: np.ndarray, v0_mps: np.ndarray, v1_mps: np.ndarray,
                                 dt_c: np.ndarray | float, other_velocity_mps: np.ndarray,
                                 shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients B, A (m) of the relative curve d(tau) - d0 = B tau + A tau^2, tau = t / dt.

    The body's displacement is the generated B4 curve; a quadratic is fixed exactly by its values
    at tau = 1/2 and 1 (with 0 at tau = 0): B = 4 p(1/2) - p(1), A = 2 p(1) - 4 p(1/2).
    Claim: W1.
    """
    v0 = v0_mps[:, None, :]
    v1 = v1_mps[:, None, :]
    carry = u_mps[:, None, :] - other_velocity_mps
    carry *= dt_c
    # in place where possible (these are the largest temporaries of the step): same operations
    half = formulas.accel_step_displacement(t=0.5 * dt_c, dt=dt_c, v0=v0, v1=v1) + 0.5 * carry
    full = carry
    full += formulas.accel_step_displacement(t=dt_c, dt=dt_c, v0=v0, v1=v1)
    half *= 4.0
    b = half - full
    full *= 2.0
    full -= half
    return np.broadcast_to(b, shape), np.broadcast_to(full, shape)


def _critical_times(d0: np.ndarray, b: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Step fractions (..., 3) in [0, 1] where |d0 + b tau + a tau^2|^2 is stationary (NaN pad).

    The derivative of |d|^2 / 2 in tau is 2 aa tau^3 + 3 ab tau^2 + (bb + 2 ad) tau + bd.
    """
    aa = dot2(a, a)
    ab = dot2(a, b)
    bb = dot2(b, b)
    ad = dot2(a, d0)
    bd = dot2(b, d0)
    return _cubic_roots_in_unit(2.0 * aa, 3.0 * ab, bb + 2.0 * ad, bd)


def _pair_minimum(d0: np.ndarray, b: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact minimum of |d0 + b tau + a tau^2| over tau in [0, 1] and its tau, pairs (P, 2)."""
    roots = _critical_times(d0, b, a)
    taus = np.concatenate([np.zeros(d0.shape[:-1] + (1,)), np.ones(d0.shape[:-1] + (1,)),
                           roots], axis=-1)
    taus_f = np.nan_to_num(taus, nan=0.0)
    pos = (d0[..., None, :] + b[..., None, :] * taus_f[..., None]
           + a[..., None, :] * (taus_f ** 2)[..., None])
    dist = np.where(np.isnan(taus), np.inf, np.hypot(pos[..., 0], pos[..., 1]))
    which = np.argmin(dist, axis=-1)
    return (np.take_along_axis(dist, which[..., None], -1)[..., 0],
            np.take_along_axis(taus_f, which[..., None], -1)[..., 0])


def sweep_min_distance_m(x0_m: np.ndarray, u_mps: np.ndarray, v0_mps: np.ndarray,
                         v1_mps: np.ndarray, dt_s: float | np.ndarray,
                         other_position_m: np.ndarray, other_velocity_mps: np.ndarray,
                         valid: np.ndarray, *, exact_within_m: np.ndarray | None = None
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Minimum centre distance (m, (N, J)) over [0, dt] between each body's accelerating curve
    and each neighbour's constant-velocity prediction, and the time (s) where it occurs.

    Exact for every pair, or, when ``exact_within_m`` (N, J) is given, exact for the pairs whose
    certified lower bound |d0| - |B| - |A| (the relative curve cannot move further than its
    coefficient lengths) is below it and that certified lower bound (time 0) for the others.
    ``x0_m, u_mps, v0_mps, v1_mps`` (N, 2); ``other_*`` (N, J, 2) world; invalid pairs give +inf.
    Claim: W1.
    """
    dt = check_valid_step(dt_s)
    d0 = x0_m[:, None, :] - other_position_m
    dt_c = dt if np.ndim(dt) == 0 else np.asarray(dt)[:, None, None]
    b, a = _relative_curve_coefficients(u_mps, v0_mps, v1_mps, dt_c, other_velocity_mps, d0.shape)
    lower = (np.hypot(d0[..., 0], d0[..., 1]) - np.hypot(b[..., 0], b[..., 1])
             - np.hypot(a[..., 0], a[..., 1]))
    need = valid if exact_within_m is None else valid & (lower < exact_within_m)
    dmin = np.where(valid, np.maximum(lower, 0.0), np.inf)
    tau = np.zeros(valid.shape)
    if need.any():
        dm, tm = _pair_minimum(d0[need], b[need], a[need])
        dmin[need] = dm
        tau[need] = tm
    tmin = tau * (dt if np.ndim(dt) == 0 else np.asarray(dt)[:, None])
    return dmin, np.where(valid, tmin, 0.0)


def sweep_margin_m(min_distance_m: np.ndarray, start_distance_m: np.ndarray,
                   combined_radius_m: np.ndarray) -> np.ndarray:
    """Signed W1 margin (m, (N, J)): min distance minus the combined radius.

    Pairs already overlapping at the start of the step (ORCA's O6 case) cannot reach the
    combined radius in one step; for them the margin is how much the step keeps from getting
    any closer: min distance minus start distance. Claim: W1.
    """
    overlap = start_distance_m < combined_radius_m
    return np.where(overlap, min_distance_m - start_distance_m,
                    min_distance_m - combined_radius_m)


def sweep_passes(margin_m: np.ndarray) -> np.ndarray:
    """(N,) True where every neighbour's W1 margin is >= -EPS. Claim: W1."""
    return np.all(margin_m >= -EPS, axis=-1)


def first_contact_time_s(x0_m: np.ndarray, u_mps: np.ndarray, v0_mps: np.ndarray,
                         v1_mps: np.ndarray, dt_s: float, other_position_m: np.ndarray,
                         other_velocity_mps: np.ndarray, valid: np.ndarray,
                         combined_radius_m: np.ndarray) -> np.ndarray:
    """Largest time (s, (N,)) in [0, dt] up to which no neighbour comes within the combined
    radius (or, for an overlapping pair, closer than at the start): the truncation of F2.

    Exact: the first root in the step of the quartic |d|^2 - R^2, found by bisection on the
    monotone pieces of |d|^2 between its critical points. Claim: W1, F2.
    """
    dt = check_valid_step(dt_s)
    n, j = valid.shape
    d0 = x0_m[:, None, :] - other_position_m
    start = np.hypot(d0[..., 0], d0[..., 1])
    limit = np.where(start < combined_radius_m, start, combined_radius_m)
    dt_c = dt if np.ndim(dt) == 0 else np.asarray(dt)[:, None, None]
    b, a = _relative_curve_coefficients(u_mps, v0_mps, v1_mps, dt_c, other_velocity_mps, d0.shape)
    crit = np.sort(np.nan_to_num(_critical_times(d0, b, a), nan=1.0), axis=-1)

    def gap(tau: np.ndarray) -> np.ndarray:
        p = d0 + b * tau[..., None] + a * (tau ** 2)[..., None]
        return dot2(p, p) - limit ** 2

    # squared-distance tolerance: EPS of distance at the scale of the limit
    tol_sq = EPS * (2.0 * limit + EPS)
    first = np.ones((n, j))
    prev = np.zeros((n, j))
    found = np.zeros((n, j), bool)
    for idx in range(crit.shape[-1] + 1):
        nxt = crit[..., idx] if idx < crit.shape[-1] else np.ones((n, j))
        g_prev, g_next = gap(prev), gap(nxt)
        enter = ~found & (g_prev >= -tol_sq) & (g_next < -tol_sq) & (nxt > prev)
        # bisect to the last instant still at or beyond the limit: truncation is conservative
        lo, _ = bisect(prev, nxt, lambda mid: gap(mid) < 0.0)
        first = np.where(enter, lo, first)
        found |= enter
        prev = np.maximum(prev, nxt)
    first = np.where(valid, first, 1.0)
    return np.min(first, axis=1) * dt
