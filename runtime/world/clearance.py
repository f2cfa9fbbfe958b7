"""Signed clearance between bodies over the whole executed step (the diagnostics of a World).

Each pair's relative curve is handed to the exact sweep (W1) as a body ramping against a
neighbour standing still. Only each body's least clearance is reported, so the compiled pass
(:func:`_clearance_rows`) solves a row's pairs in the order of their certified lower bounds and
stops as soon as the next bound, less a rounding allowance, exceeds the least value found: the
pairs it skips could not have been the least, and every reported value is the one the
whole-array evaluation (:func:`_clearance_by_arrays`) gives, to the bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from navproof._generated.formulas import accel_step_displacement
from navproof.boundary import Support
from navproof.core.filled import filled
from navproof.core.jit import compiled_loop
from navproof.core.numpy_scalars import larger
from navproof.core.parallel import piece_bounds, run_pieces, thread_count
from navproof.core.validation import check_valid_step
from navproof.step.sweep import (
    SWEEP_PARALLEL_MIN_PAIRS,
    _lower_bound,
    _relative_curve,
    least_distance,
    sweep_min_distance_m,
)
from navproof.world.reach import executed_coefficients

CLEARANCE_EXACT_BAND_M = 0.05
"""Pairs whose certified lower distance bound exceeds the combined radius plus this band (m)
report that bound (already more clearance than the band); closer pairs get the exact minimum.
The reported clearance is therefore exact whenever it is below the band, a certified lower
bound otherwise."""

SKIP_ALLOWANCE = 1e-9
"""Relative allowance (of the pair's coefficient lengths |d0| + |B| + |A|, plus 1 m) for the
rounding of a certified lower bound against the exact minimum it bounds: a pair is skipped only
when its bound minus this still exceeds the least clearance found in its row."""


def agent_clearance_m(x0_m: np.ndarray, mid_m: np.ndarray, x1_m: np.ndarray,
                      radius_m: np.ndarray, neighbor_idx: np.ndarray, dt_s: float, *,
                      ordered_from: int | None = None,
                      truncated: tuple[np.ndarray, Callable[[np.ndarray, np.ndarray],
                                                            np.ndarray]] | None = None,
                      split: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                      ) -> np.ndarray:
    """Signed clearance (m, (N,)) of each body to its listed neighbours over the whole step
    (the World lists every body within reach of the executed step,
    :func:`navproof.world.reach.bodies_within_reach`): the minimum distance of the two executed
    curves (quadratic in time through their start, middle and end points; exact for bodies on
    translating supports, within :func:`turning_allowance_m` on turning ones) minus the
    combined radius. The columns of ``neighbor_idx`` from
    ``ordered_from`` on list each row's bodies in order of their squared start distance from it
    (ORCA's neighbours, :mod:`navproof.orca.neighbors`; None: no such columns).

    ``truncated`` is (commit times (s, (N,)), a function giving bodies' world positions (m,
    (K, 2)) at times (s, (K,))): a body committed for less than the step ramps and then rests
    (F2), a curve that no one quadratic through three of its points follows, so every pair
    with such a body is measured piece by piece (:func:`_truncated_pairs`). ``split`` is
    (bodies (S,), times (s, (S,)), second break times (s, (S,))) of the bodies whose step was
    split at a portal (B7): their curve, from the same function, ramps up to the split time,
    then ramps again up to the second break (their commit time after the split) and rests, so
    they are measured piece by piece too. Claim: W1, F2, B7."""
    n = x0_m.shape[0]
    out = filled(n, np.inf)
    if neighbor_idx.shape[0] != n or neighbor_idx.shape[1] == 0:
        return out
    dt = float(check_valid_step(dt_s))
    if truncated is not None:
        commit_s, points_at = truncated
        cut = commit_s < dt
        first_s = second_s = commit_s
        if split is not None and split[0].size:
            # a split body's curve breaks at the split and at its second commit time
            cut = cut.copy()
            cut[split[0]] = True
            first_s, second_s = np.array(commit_s, dtype=np.float64), np.full(n, dt)
            first_s[split[0]], second_s[split[0]] = split[1], split[2]
        if np.count_nonzero(cut):
            valid = neighbor_idx >= 0
            pair_cut = valid & (cut[:, None] | cut[np.where(valid, neighbor_idx, 0)])
            rows, cols = np.nonzero(pair_cut)
            least = _truncated_pairs(x0_m, mid_m, x1_m, radius_m, first_s, second_s, cut,
                                     points_at, rows, neighbor_idx[rows, cols], dt)
            out = agent_clearance_m(x0_m, mid_m, x1_m, radius_m,
                                    np.where(pair_cut, -1, neighbor_idx), dt,
                                    ordered_from=ordered_from)
            np.minimum.at(out, rows, least)
            return out
    half_s, full_s = 0.5 * dt, dt
    # the compiled pass squares the step times as machine code does (t * t); Python's t ** 2
    # (the whole-array evaluation's) rounds differently for a few step lengths
    if half_s**2 != _square(half_s) or full_s**2 != _square(full_s):
        return _clearance_by_arrays(x0_m, mid_m, x1_m, radius_m, neighbor_idx, dt, out)
    arrays = [np.ascontiguousarray(a, dtype=np.float64) for a in (x0_m, mid_m, x1_m)]
    radius = np.ascontiguousarray(radius_m, dtype=np.float64)
    idx = np.ascontiguousarray(neighbor_idx, dtype=np.int64)
    extent = np.empty(n)
    if n == 0:
        # numpy's max refuses an empty crowd, as it always has here
        np.max(extent)
    widest = _executed_extents(*arrays, radius, extent)
    if ordered_from is None:
        ordered_from = idx.shape[1]
    threads = thread_count(idx.size, SWEEP_PARALLEL_MIN_PAIRS)
    bounds = piece_bounds(n, threads)
    run_pieces(lambda k: _clearance_rows(*arrays, radius, extent, idx, ordered_from, widest, dt,
                                         half_s, full_s, CLEARANCE_EXACT_BAND_M, bounds[k],
                                         bounds[k + 1], out),
               len(bounds) - 1, threads=threads)
    return out


def turning_allowance_m(x0_m: np.ndarray, v0_mps: np.ndarray, v1_mps: np.ndarray,
                        dt_s: float, support: Support, neighbor_idx: np.ndarray
                        ) -> np.ndarray:
    """How far (m, (N,)) each body's clearance from :func:`agent_clearance_m` may exceed the
    true one because a body of its pairs turns with its support: the sum of its own and its
    farthest-off listed neighbour's (``neighbor_idx``, -1 padded) certified bound.

    A body on a support turning at ``omega`` follows ``c(t) + R(omega t) r(t)`` (``c`` the
    pivot's quadratic path, ``r`` the arm: the support-frame ramp less the pivot, quadratic in
    t on each piece the clearance measures), which no quadratic follows. The quadratic through
    its points at the start, middle and end of a piece of length at most ``dt`` (``h = dt / 2``
    apart) is off by at most ``M3 h^3 / (9 sqrt 3)``, ``M3`` a bound of the curve's third
    derivative ``|omega|^3 |r| + 3 omega^2 |r'| + 3 |omega| |r''|`` with ``|r| <= |x0 - c| +
    dt v``, ``|r'| <= v = max(|v0|, |v1|)`` and ``|r''| <= |v1 - v0| / dt`` (the ramp, then
    rest), so a pair's distance by at most the sum of the two bounds. Zero where nothing
    turns. Claim: W1, B6."""
    m = support.motion
    omega = np.abs(m.omega_radps)
    speed = np.maximum(np.hypot(v0_mps[:, 0], v0_mps[:, 1]), np.hypot(v1_mps[:, 0], v1_mps[:, 1]))
    arm = np.hypot(x0_m[:, 0] - m.pivot_m[:, 0], x0_m[:, 1] - m.pivot_m[:, 1]) + dt_s * speed
    ramp = np.hypot(v1_mps[:, 0] - v0_mps[:, 0], v1_mps[:, 1] - v0_mps[:, 1]) / dt_s
    third = omega**3 * arm + 3.0 * omega**2 * speed + 3.0 * omega * ramp
    own = third * (0.5 * dt_s) ** 3 / (9.0 * math.sqrt(3.0))
    valid = neighbor_idx >= 0
    partner = np.where(valid, own[np.where(valid, neighbor_idx, 0)], 0.0)
    return own + partner.max(axis=1, initial=0.0)


def _truncated_pairs(x0_m: np.ndarray, mid_m: np.ndarray, x1_m: np.ndarray,
                     radius_m: np.ndarray, first_s: np.ndarray, second_s: np.ndarray,
                     cut: np.ndarray, points_at: Callable[[np.ndarray, np.ndarray], np.ndarray],
                     rows: np.ndarray, others: np.ndarray, dt: float) -> np.ndarray:
    """Clearance (m, (K,)) of the pairs ``rows``, ``others`` (K,) of which one body or both
    do not follow one quadratic over the step (``cut``; each body's curve is one quadratic up
    to its first break time ``first_s``, one up to its second ``second_s`` and one up to the
    end: a truncated body breaks at its commit time, twice, a body split at a portal at the
    split and at its second commit time): the step split at both bodies' breaks, each piece a
    quadratic of both curves (a cut body's points from ``points_at``, another body's from its
    start, middle and end) handed to the exact sweep (W1) as :func:`_clearance_by_arrays`
    hands it the whole step. Claim: W1, F2, B7."""
    first, second = np.minimum(first_s, dt), np.minimum(second_s, dt)
    times = np.sort(np.stack([np.zeros(rows.size), first[rows], second[rows], first[others],
                              second[others], np.full(rows.size, dt)], axis=1), axis=1)
    starts, ends = times[:, :-1].ravel(), times[:, 1:].ravel()
    pair = np.repeat(np.arange(rows.size), 5)
    keep = ends > starts
    pair, starts, ends = pair[keep], starts[keep], ends[keep]
    piece_s = ends - starts

    def coefficients(body: np.ndarray) -> tuple[np.ndarray, ...]:
        # the piece's start point, B and A of body's curve over the piece
        b = 4.0 * (mid_m[body] - x0_m[body]) - (x1_m[body] - x0_m[body])
        a = 2.0 * (x1_m[body] - x0_m[body]) - 4.0 * (mid_m[body] - x0_m[body])
        p = []
        for t in (starts, 0.5 * (starts + ends), ends):
            tau = (t / dt)[:, None]
            q = x0_m[body] + b * tau + a * tau * tau
            ramped = cut[body]
            if ramped.any():
                q[ramped] = points_at(body[ramped], t[ramped])
            p.append(q)
        return (p[0], 4.0 * (p[1] - p[0]) - (p[2] - p[0]),
                2.0 * (p[2] - p[0]) - 4.0 * (p[1] - p[0]))

    start_i, b_i, a_i = coefficients(rows[pair])
    start_j, b_j, a_j = coefficients(others[pair])
    comb = radius_m[rows[pair]] + radius_m[others[pair]]
    dmin, _ = sweep_min_distance_m(
        start_i, (b_i - b_j) / piece_s[:, None], np.zeros_like(b_i),
        2.0 * (a_i - a_j) / piece_s[:, None], piece_s, start_j[:, None, :],
        np.zeros((pair.size, 1, 2)), np.ones((pair.size, 1), bool),
        exact_within_m=comb[:, None] + CLEARANCE_EXACT_BAND_M)
    least = np.full(rows.size, np.inf)
    np.minimum.at(least, pair, dmin[:, 0] - comb)
    return least


def _clearance_by_arrays(x0_m: np.ndarray, mid_m: np.ndarray, x1_m: np.ndarray,
                         radius_m: np.ndarray, neighbor_idx: np.ndarray, dt: float,
                         out: np.ndarray) -> np.ndarray:
    """:func:`agent_clearance_m` over whole arrays (every pair through
    :func:`navproof.step.sweep.sweep_min_distance_m`), into ``out``."""
    valid = neighbor_idx >= 0
    rows = np.flatnonzero(valid.any(axis=1))
    if rows.size == 0:
        return out
    j = np.where(valid, neighbor_idx, 0)
    # each curve as p(tau) = x0 + B tau + A tau^2; the pair's relative curve is the difference
    b = 4.0 * (mid_m - x0_m) - (x1_m - x0_m)
    a = 2.0 * (x1_m - x0_m) - 4.0 * (mid_m - x0_m)
    db = b[:, None, :] - b[j]
    da = a[:, None, :] - a[j]
    comb = radius_m[:, None] + radius_m[j]
    k = neighbor_idx.shape[1]
    flat_x0 = np.repeat(x0_m[rows], k, axis=0)
    flat_u = (db[rows] / dt).reshape(-1, 2)
    flat_v1 = (2.0 * da[rows] / dt).reshape(-1, 2)
    dmin, _ = sweep_min_distance_m(
        flat_x0, flat_u, np.zeros_like(flat_u), flat_v1, dt,
        x0_m[j[rows]].reshape(-1, 1, 2), np.zeros((flat_x0.shape[0], 1, 2)),
        valid[rows].reshape(-1, 1),
        exact_within_m=comb[rows].reshape(-1, 1) + CLEARANCE_EXACT_BAND_M)
    out[rows] = np.min(dmin.reshape(rows.size, -1) - comb[rows], axis=1)
    return out


@compiled_loop
def _square(t):
    return t**2


@compiled_loop
def _executed_extents(x0, mid, x1, radius, out):
    """|B| + |A| (m) of every body's executed curve (how far it gets from its start) into
    ``out``; returns the widest extent plus the widest radius (m), each numpy's max (NaN if any
    is NaN), for one body or more."""
    widest_extent = -np.inf
    widest_radius = -np.inf
    for i in range(out.shape[0]):
        bx, by, ax, ay = executed_coefficients(x0, mid, x1, i)
        out[i] = math.sqrt(bx * bx + by * by) + math.sqrt(ax * ax + ay * ay)
        widest_extent = larger(widest_extent, out[i])
        widest_radius = larger(widest_radius, radius[i])
    return widest_extent + widest_radius


@compiled_loop
def _earlier_value(idx, value_of, row_lo, j, i):
    """The value (m) that row ``j`` of a piece starting at ``row_lo`` found for its pair with
    body ``i`` (NaN when it lists no such pair or did not evaluate it). Seen from ``j``, the
    pair's relative curve is the one seen from ``i`` negated component by component
    (differences of the same numbers, scaled, and the B4 displacement, odd in the end
    velocity; a zero may change its sign): every length, every coefficient of the stationary
    cubic (sums of products of two components), hence every decision and distance of the
    sweep are the same bits, and the combined radius is the same sum. Claim: W1."""
    for q in range(idx.shape[1]):
        if idx[j, q] == i and value_of[j - row_lo, q] == value_of[j - row_lo, q]:
            return value_of[j - row_lo, q]
    return np.nan


@compiled_loop
def _clearance_rows(x0, mid, x1, radius, extent, idx, ordered_from, widest, dt, half_s,
                    full_s, band, row_lo, row_hi, out):
    """Rows ``row_lo:row_hi`` of :func:`agent_clearance_m` into ``out`` (left as it is for a
    row without a neighbour). Each pair's relative curve is the one the whole-array evaluation
    hands the sweep (the difference of the two executed curves as a carry ``dB / dt`` and a
    ramp to ``2 dA / dt`` against a body at rest, through the generated B4 displacement), so
    its bound and its exact minimum are the same to the bit. A pair whose start distance
    exceeds both bodies' ``extent`` (:func:`_executed_extents`), the combined radius and the
    least clearance found so far (plus the rounding allowance) cannot be the least and is not
    evaluated; nor is a second copy of a listed pair that needs the exact minimum. A pair whose
    other body is an earlier row of the same piece, which lists this one and found the pair's
    value, takes that value (:func:`_earlier_value`) instead of evaluating it again. From
    column ``ordered_from`` on the bodies come in order of their start distance: once one is
    farther than the row's extent and radius, the ``widest`` extent plus radius of any body and
    the least clearance found (plus the rounding allowance), so is every later one, and none of
    them can be the least. Claim: W1."""
    k_count = idx.shape[1]
    # each evaluated slot's value (NaN until known), for the later rows of the piece
    value_of = np.full((row_hi - row_lo, k_count), np.nan)
    curve = np.empty((k_count, 6))
    key = np.empty(k_count)
    comb = np.empty(k_count)
    pending = np.zeros(k_count, dtype=np.bool_)
    crit = np.empty(3)
    lo = np.empty(3)
    hi = np.empty(3)
    sign_lo = np.empty(3)
    for i in range(row_lo, row_hi):
        bxi, byi, axi, ayi = executed_coefficients(x0, mid, x1, i)
        least = np.inf
        listed = False
        prune = True
        for k in range(k_count):
            pending[k] = False
            j = idx[i, k]
            if j < 0:
                continue
            listed = True
            c = radius[i] + radius[j]
            sx = x0[i, 0] - x0[j, 0]
            sy = x0[i, 1] - x0[j, 1]
            reach = extent[i] + extent[j] + c
            limit = reach + least + SKIP_ALLOWANCE * (1.0 + reach + abs(least))
            if least < np.inf and limit > 0.0 and sx * sx + sy * sy > limit * limit:
                if k >= ordered_from:
                    far = extent[i] + radius[i] + widest
                    far_limit = far + least + SKIP_ALLOWANCE * (1.0 + far + abs(least))
                    if far_limit > 0.0 and sx * sx + sy * sy > far_limit * far_limit:
                        for q in range(k + 1, k_count):
                            pending[q] = False
                        break
                continue
            if row_lo <= j < i:
                value = _earlier_value(idx, value_of, row_lo, j, i)
                if value == value:
                    value_of[i - row_lo, k] = value
                    if value < least:
                        least = value
                    continue
            bxj, byj, axj, ayj = executed_coefficients(x0, mid, x1, j)
            ux = (bxi - bxj) / dt
            uy = (byi - byj) / dt
            v1x = 2.0 * (axi - axj) / dt
            v1y = 2.0 * (ayi - ayj) / dt
            d0x, d0y, bx, by, ax, ay = _relative_curve(
                sx, sy, ux - 0.0, uy - 0.0,
                accel_step_displacement(t=half_s, dt=dt, v0=0.0, v1=v1x),
                accel_step_displacement(t=half_s, dt=dt, v0=0.0, v1=v1y),
                accel_step_displacement(t=full_s, dt=dt, v0=0.0, v1=v1x),
                accel_step_displacement(t=full_s, dt=dt, v0=0.0, v1=v1y), dt)
            bound = _lower_bound(d0x, d0y, bx, by, ax, ay)
            if not bound < c + band:
                value = (bound if bound > 0.0 else 0.0) - c
                value_of[i - row_lo, k] = value
                if value < least or value != value:
                    least = value
                continue
            duplicate = False
            for q in range(k):
                if pending[q] and idx[i, q] == j:
                    duplicate = True
            if duplicate:
                continue
            pending[k] = True
            comb[k] = c
            # a lower bound of the pair's clearance, less the rounding allowance
            size = math.hypot(d0x, d0y) + math.hypot(bx, by) + math.hypot(ax, ay)
            key[k] = bound - c - SKIP_ALLOWANCE * (1.0 + size)
            if key[k] != key[k]:
                prune = False
            curve[k, 0], curve[k, 1], curve[k, 2] = d0x, d0y, bx
            curve[k, 3], curve[k, 4], curve[k, 5] = by, ax, ay
        if not listed:
            continue
        # the exact pairs from the lowest key up, while one could still be the least
        while least == least:
            best = -1
            for k in range(k_count):
                if pending[k] and (best < 0 or key[k] < key[best]):
                    best = k
            if best < 0 or (prune and key[best] > least):
                break
            pending[best] = False
            dist, _ = least_distance(curve[best, 0], curve[best, 1], curve[best, 2],
                                     curve[best, 3], curve[best, 4], curve[best, 5], crit, lo,
                                     hi, sign_lo)
            value = dist - comb[best]
            value_of[i - row_lo, best] = value
            if value < least or value != value:
                least = value
        out[i] = least
