"""Exact minimum distance over one step between a body's accelerating curve and its neighbours.

The body moves (world frame) as ``x(t) = x0 + (u + v0) t + (v1 - v0) t^2 / (2 dt)`` (on a
support accelerating at alpha the callers pass ``v1 + alpha dt``, which adds the support's
``alpha t^2 / 2``); each neighbour's prediction is ``y(t) = y0 + w t``. The relative position
is the quadratic curve ``d(tau) = d0 + B tau + A tau^2`` in the step fraction ``tau = t / dt``,
and ``|d|^2`` is a quartic whose critical points are the roots of a cubic. The cubic is split at
the roots of its own derivative (a quadratic) into monotone pieces, and each sign change is
bracketed by bisection to machine precision; the minimum is taken over the endpoints and these
roots. Nothing is sampled.

Only pieces whose ends bracket a sign change are bisected (the others hold no root), and the
bisections of a block of rows run side by side: every bracket takes the same BISECTION_STEPS
halvings as on its own, so the roots, distances and times are the same to the bit, but the
processor overlaps independent brackets instead of waiting on one. Pairs whose certified
lower bound |d0| - |B| - |A| clears ``exact_within_m`` skip the roots altogether. Large sweeps
run their rows in pieces on every available CPU (:mod:`navproof.core.parallel`); a row's values
do not depend on the piece or thread that computes them.
"""

from __future__ import annotations

import math

import numpy as np

from navproof._generated.formulas import accel_step_displacement
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.parallel import piece_bounds, run_pieces, thread_count
from navproof.core.tolerances import BISECTION_STEPS, EPS
from navproof.core.validation import check_valid_step
from navproof.core.vec2 import HYPOT_DECIDED_MAX, HYPOT_DECIDED_MIN, HYPOT_SIDE_SLACK
from navproof.step.hypot import usual_hypot, usual_hypot_is_the_library

SWEEP_BLOCK_ROWS = 64
"""Rows of pairs whose brackets are bisected side by side (bounds the loop's scratch memory)."""

SWEEP_PARALLEL_MIN_PAIRS = 16384
"""Sweeps of at least this many pairs run in threads (smaller ones cost less than a hand-off)."""


@compiled_loop
def _cubic(c3, c2, c1, c0, x):
    return ((c3 * x + c2) * x + c1) * x + c0


@compiled_loop
def _sign(x):
    """np.sign of a float: -1, 0 or 1 (NaN stays NaN)."""
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    return x


@compiled_loop
def _unit_root(root, real):
    """``root`` where it is real and in (0, 1), else NaN."""
    return root if real and root > 0.0 and root < 1.0 else np.nan


@compiled_loop
def _quadratic_roots_in_unit(q2, q1, q0):
    """Real roots in (0, 1) of q2 x^2 + q1 x + q0 (NaN where absent), stable form."""
    disc = q1 * q1 - 4.0 * q2 * q0
    sq = math.sqrt(disc if disc > 0.0 else 0.0)
    # citardauq: avoid cancellation between -q1 and sq
    qq = -0.5 * (q1 + (sq if q1 >= 0.0 else -sq))
    if q2 != 0.0:
        r1 = qq / q2
    elif q1 != 0.0:
        r1 = -q0 / q1
    else:
        r1 = np.nan
    r2 = q0 / qq if q2 != 0.0 and qq != 0.0 else np.nan
    real = disc >= 0.0 or q2 == 0.0
    return _unit_root(r1, real), _unit_root(r2, real)


@compiled_loop
def _monotone_pieces(c3, c2, c1, c0, lo_out, hi_out, sign_out, at):
    """The pieces of [0, 1] between the roots of the cubic's derivative (a quadratic) on which
    the cubic changes sign: their ends and the sign of the cubic at the lower end, into
    ``lo_out, hi_out, sign_out`` from index ``at`` on. Returns the bit set of the pieces (0, 1,
    2, in order) written. Each holds one root, which bisection from these ends finds."""
    t1, t2 = _quadratic_roots_in_unit(3.0 * c3, 2.0 * c2, c1)
    if t1 > t2 or t1 != t1:
        # sorted, NaN last
        t1, t2 = t2, t1
    edges = (0.0, 1.0 if t1 != t1 else t1, 1.0 if t2 != t2 else t2, 1.0)
    found = 0
    for piece in range(3):
        lo, hi = edges[piece], edges[piece + 1]
        f_lo = _cubic(c3, c2, c1, c0, lo)
        f_hi = _cubic(c3, c2, c1, c0, hi)
        if _sign(f_lo) * _sign(f_hi) <= 0.0 and hi > lo:
            lo_out[at] = lo
            hi_out[at] = hi
            # the sign at lo never changes while bisecting: lo only moves to points of that sign
            sign_out[at] = _sign(f_lo)
            at += 1
            found |= 1 << piece
    return found


@compiled_loop
def _halve(c3, c2, c1, c0, sign_lo, lo, hi):
    """One bisection step of the bracket [lo, hi] of a root of the cubic whose sign at lo is
    ``sign_lo``: the half that keeps the sign change."""
    mid = 0.5 * (lo + hi)
    if sign_lo * _sign(_cubic(c3, c2, c1, c0, mid)) <= 0.0:
        return lo, mid
    return mid, hi


@compiled_loop
def _bisect_all(c3, c2, c1, c0, sign_lo, lo, hi, count):
    """BISECTION_STEPS halvings of each of the first ``count`` brackets ``[lo, hi]`` of the
    cubics ``c3 x^3 + c2 x^2 + c1 x + c0`` (one array per coefficient), in place. The brackets
    are independent, so the halvings of many run side by side in the processor's vector units
    (the same steps as one by one)."""
    for _ in range(BISECTION_STEPS):
        for w in range(count):
            lo[w], hi[w] = _halve(c3[w], c2[w], c1[w], c0[w], sign_lo[w], lo[w], hi[w])


@compiled_loop
def _stationary_cubic(d0x, d0y, bx, by, ax, ay):
    """Coefficients (highest power first) of the derivative of |d0 + b tau + a tau^2|^2 / 2
    in tau: 2 aa tau^3 + 3 ab tau^2 + (bb + 2 ad) tau + bd."""
    aa = ax * ax + ay * ay
    ab = ax * bx + ay * by
    bb = bx * bx + by * by
    ad = ax * d0x + ay * d0y
    bd = bx * d0x + by * d0y
    return 2.0 * aa, 3.0 * ab, bb + 2.0 * ad, bd


@compiled_loop
def _critical_times(d0x, d0y, bx, by, ax, ay, out, lo, hi, sign_lo):
    """Step fractions in [0, 1] where |d0 + b tau + a tau^2|^2 is stationary, into ``out`` (3,)
    (NaN pad): the roots of :func:`_stationary_cubic` on its monotone pieces, by
    BISECTION_STEPS halvings of each bracket. ``lo, hi, sign_lo`` (3,) scratch."""
    c3, c2, c1, c0 = _stationary_cubic(d0x, d0y, bx, by, ax, ay)
    found = _monotone_pieces(c3, c2, c1, c0, lo, hi, sign_lo, 0)
    at = 0
    for piece in range(3):
        out[piece] = np.nan
        if found & (1 << piece):
            a, b = lo[at], hi[at]
            for _ in range(BISECTION_STEPS):
                a, b = _halve(c3, c2, c1, c0, sign_lo[at], a, b)
            out[piece] = 0.5 * (a + b)
            at += 1


@compiled_loop
def _relative_curve(d0x, d0y, wx, wy, half_x, half_y, full_x, full_y, dt):
    """Relative curve of a body starting ``d0`` (m) from its neighbour, with relative carry
    ``w`` (m/s) and B4 displacements ``half, full`` (m) at tau = 1/2 and 1: d0 and the
    coefficients B, A (m) of d(tau) - d0 = B tau + A tau^2, tau = t / dt. A quadratic is fixed
    exactly by its values at tau = 1/2 and 1 (with 0 at tau = 0): B = 4 p(1/2) - p(1),
    A = 2 p(1) - 4 p(1/2). Claim: W1."""
    carry_x = wx * dt
    carry_y = wy * dt
    half_x = (half_x + 0.5 * carry_x) * 4.0
    half_y = (half_y + 0.5 * carry_y) * 4.0
    full_x = carry_x + full_x
    full_y = carry_y + full_y
    return (d0x, d0y, half_x - full_x, half_y - full_y, full_x * 2.0 - half_x,
            full_y * 2.0 - half_y)


@compiled_loop
def _pair_curve(x0, u, other_p, other_v, disp_half, disp_full, dt, i, j):
    """:func:`_relative_curve` of pair (i, j): the body's displacement is the generated B4
    curve (its values at tau = 1/2 and 1 are given per agent). Claim: W1."""
    return _relative_curve(x0[i, 0] - other_p[i, j, 0], x0[i, 1] - other_p[i, j, 1],
                           u[i, 0] - other_v[i, j, 0], u[i, 1] - other_v[i, j, 1],
                           disp_half[i, 0], disp_half[i, 1], disp_full[i, 0], disp_full[i, 1],
                           dt)


@compiled_loop
def _lower_bound(d0x, d0y, bx, by, ax, ay):
    """Certified lower bound (m) of |d0 + B tau + A tau^2| over tau in [0, 1]: the curve cannot
    move further than its coefficients, |d0| - |B| - |A|. Claim: W1."""
    return math.hypot(d0x, d0y) - math.hypot(bx, by) - math.hypot(ax, ay)


@compiled_loop
def _block_lower_bounds(curve, count, lower, usual):
    """:func:`_lower_bound` of the first ``count`` curves (d0x, d0y, Bx, By, Ax, Ay: the rows
    of ``curve`` (6, count or more)) into ``lower``, to the bit: where ``usual`` (this C
    library's hypot is :func:`navproof.step.hypot.usual_hypot`'s common path,
    :func:`navproof.step.hypot.usual_hypot_is_the_library`), the lengths of usual vectors side
    by side in the vector units, then :func:`_lower_bound` itself for the curves with another
    vector; else :func:`_lower_bound` for every curve. Claim: W1."""
    unusual = 0
    if usual:
        for p in range(count):
            h_d, d_ok = usual_hypot(curve[0, p], curve[1, p])
            h_b, b_ok = usual_hypot(curve[2, p], curve[3, p])
            h_a, a_ok = usual_hypot(curve[4, p], curve[5, p])
            # NaN where a length is not usual: found again below
            lower[p] = h_d - h_b - h_a if d_ok and b_ok and a_ok else np.nan
            unusual += 0 if d_ok and b_ok and a_ok else 1
        if unusual == 0:
            return
    for p in range(count):
        if not usual or lower[p] != lower[p]:
            lower[p] = _lower_bound(curve[0, p], curve[1, p], curve[2, p], curve[3, p],
                                    curve[4, p], curve[5, p])


@compiled_loop
def _closest(d0x, d0y, bx, by, ax, ay, r0, r1, r2):
    """Least |d0 + B tau + A tau^2| (m) over the ends tau = 0, 1 and the stationary points
    ``r0, r1, r2`` (NaN where absent), and its step fraction (the first of equal ones)."""
    best, best_tau = math.hypot(d0x, d0y), 0.0
    for k in range(4):
        tau = 1.0 if k == 0 else (r0 if k == 1 else (r1 if k == 2 else r2))
        if tau != tau:
            continue
        tau_sq = tau * tau
        dist = math.hypot(d0x + bx * tau + ax * tau_sq, d0y + by * tau + ay * tau_sq)
        if dist < best:
            best, best_tau = dist, tau
    return best, best_tau


@compiled_loop
def least_distance(d0x, d0y, bx, by, ax, ay, crit, lo, hi, sign_lo):
    """Exact least |d0 + B tau + A tau^2| (m) over tau in [0, 1] and its step fraction, for one
    pair (the value :func:`sweep_min_distance_m` gives the pair when solved exactly, to the
    bit). ``crit, lo, hi, sign_lo`` (3,) scratch. Claim: W1."""
    _critical_times(d0x, d0y, bx, by, ax, ay, crit, lo, hi, sign_lo)
    return _closest(d0x, d0y, bx, by, ax, ay, crit[0], crit[1], crit[2])


@inlined_loop
def _margin(min_distance, start, combined):
    """W1 margin (m) of a valid pair of :func:`sweep_margin_m`: its min distance less the start
    distance where the pair overlaps at the start, else less the combined radius."""
    if start < combined:
        return min_distance - start
    return min_distance - combined


@compiled_loop
def _pair_brackets(curve, p, c3s, c2s, c1s, c0s, lo, hi, sign_lo, slot, count, roots):
    """The brackets of the stationary points of pair ``p`` of a sweep block (its curve in column
    ``p`` of ``curve`` (6, P)): the coefficients of :func:`_stationary_cubic`, each monotone
    piece's ends and sign (:func:`_monotone_pieces`) and the pair's slot ``3 p + piece``, from
    index ``count`` on; ``roots[p]`` NaN until bisected. Returns the new count. A call of its
    own, so the loop over a block's pairs, most of them settled by their certified bound, stays
    small. Claim: W1."""
    c3, c2, c1, c0 = _stationary_cubic(curve[0, p], curve[1, p], curve[2, p], curve[3, p],
                                       curve[4, p], curve[5, p])
    found = _monotone_pieces(c3, c2, c1, c0, lo, hi, sign_lo, count)
    for piece in range(3):
        roots[p, piece] = np.nan
        if found & (1 << piece):
            c3s[count], c2s[count], c1s[count], c0s[count] = c3, c2, c1, c0
            slot[count] = 3 * p + piece
            count += 1
    return count


@compiled_loop
def _sweep_pairs(x0, u, other_p, other_v, disp_half, disp_full, dt, valid, exact_within,
                 start, combined, band, usual, row_lo, row_hi, dmin, tmin, passes):
    """Rows ``row_lo:row_hi`` of :func:`sweep_min_distance_m`, into ``dmin`` and ``tmin``, or
    of :func:`pair_margins_m`. Claim: W1.

    ``dt`` (N,) per agent; ``exact_within`` (N, J), or (0, 0) for exact everywhere, or, with
    ``combined`` (N, J) given (not (0, 0)), the pair's combined radius plus ``band`` (m). With
    ``combined`` given, ``dmin`` receives each pair's W1 margin (:func:`_margin` with ``start``;
    +inf for pairs not valid) instead of its distance and ``passes`` (N,) whether every margin
    of the row is >= -EPS; ``tmin`` of shape (0, 0) is not written. Rows are taken
    SWEEP_BLOCK_ROWS at a time: first every pair's curve, its certified lower bound and, for
    the pairs to be solved exactly, the brackets of the stationary points; then all brackets'
    bisections side by side; then each exact pair's least distance over the ends and its
    stationary points. A block's curves are written first and their certified lower bounds
    taken in one pass (:func:`_block_lower_bounds`, by ``usual``) before any pair is
    decided."""
    j_count = valid.shape[1]
    block = SWEEP_BLOCK_ROWS
    cap = block * j_count
    curve = np.empty((6, cap))
    lower_at = np.empty(cap)
    exact = np.zeros(cap, dtype=np.bool_)
    roots = np.empty((cap, 3))
    c3s = np.empty(3 * cap)
    c2s = np.empty(3 * cap)
    c1s = np.empty(3 * cap)
    c0s = np.empty(3 * cap)
    lo = np.empty(3 * cap)
    hi = np.empty(3 * cap)
    sign_lo = np.empty(3 * cap)
    slot = np.empty(3 * cap, dtype=np.int64)
    margins = combined.shape[0] > 0
    times = tmin.shape[0] > 0
    for first in range(row_lo, row_hi, block):
        last = min(first + block, row_hi)
        for i in range(first, last):
            for j in range(j_count):
                p = (i - first) * j_count + j
                if valid[i, j]:
                    (curve[0, p], curve[1, p], curve[2, p], curve[3, p], curve[4, p],
                     curve[5, p]) = _pair_curve(x0, u, other_p, other_v, disp_half, disp_full,
                                                dt[i], i, j)
                else:
                    # a stand-in of the common path, never read
                    for c in range(6):
                        curve[c, p] = 1.0
        _block_lower_bounds(curve, (last - first) * j_count, lower_at, usual)
        count = 0
        for i in range(first, last):
            for j in range(j_count):
                p = (i - first) * j_count + j
                exact[p] = False
                if not valid[i, j]:
                    dmin[i, j] = np.inf
                    if times:
                        tmin[i, j] = 0.0
                    continue
                lower = lower_at[p]
                if margins:
                    far = not lower < combined[i, j] + band
                else:
                    far = exact_within.shape[0] > 0 and not lower < exact_within[i, j]
                if far:
                    # certified lower bound: the curve cannot move further than its coefficients
                    least = lower if lower > 0.0 else 0.0
                    dmin[i, j] = _margin(least, start[i, j], combined[i, j]) if margins else least
                    if times:
                        tmin[i, j] = 0.0
                    continue
                exact[p] = True
                count = _pair_brackets(curve, p, c3s, c2s, c1s, c0s, lo, hi, sign_lo, slot,
                                       count, roots)
        _bisect_all(c3s, c2s, c1s, c0s, sign_lo, lo, hi, count)
        for w in range(count):
            roots[slot[w] // 3, slot[w] % 3] = 0.5 * (lo[w] + hi[w])
        for i in range(first, last):
            for j in range(j_count):
                p = (i - first) * j_count + j
                if not exact[p]:
                    continue
                # exact: the least distance over the ends and the stationary points
                d0x, d0y, bx, by = curve[0, p], curve[1, p], curve[2, p], curve[3, p]
                ax, ay = curve[4, p], curve[5, p]
                best, best_tau = _closest(d0x, d0y, bx, by, ax, ay, roots[p, 0], roots[p, 1],
                                          roots[p, 2])
                dmin[i, j] = _margin(best, start[i, j], combined[i, j]) if margins else best
                if times:
                    tmin[i, j] = best_tau * dt[i]
        if margins:
            for i in range(first, last):
                passes[i] = _row_at_least(dmin, i, -EPS)


@compiled_loop
def _gap_sq(d0x, d0y, bx, by, ax, ay, limit_sq, tau):
    """|d0 + B tau + A tau^2|^2 - limit^2 (m^2)."""
    tau_sq = tau * tau
    px = d0x + bx * tau + ax * tau_sq
    py = d0y + by * tau + ay * tau_sq
    return px * px + py * py - limit_sq


@inlined_loop
def _clear_of_limit(start, bx, by, ax, ay, limit):
    """Whether a pair starting ``start`` = hypot(d0) (m) apart surely stays beyond ``limit`` (m)
    in every evaluation of :func:`_first_contact`: its certified lower bound |d0| - |B| - |A|
    exceeds ``limit`` by HYPOT_SIDE_SLACK of the scale S = |d0| + |B| + |A|, for a limit of at
    least HYPOT_DECIDED_MIN and S at most HYPOT_DECIDED_MAX. Then |d(tau)| >= limit (1 + 1e-9)
    exactly at every tau in [0, 1]; the rounded point d0 + B tau + A tau^2 errs by at most a few
    units in the last place of S and the bound's own roundings by a few more, so every evaluated
    squared distance (a few units in the last place above) exceeds the rounded limit squared and
    every gap of :func:`_gap_sq` is >= 0 > -tol_sq: no piece is bisected and the fraction stays 1.
    Products that underflow err by less than 1e-300, far below the slack. NaN never decides.
    Claim: W1, F2."""
    if not limit >= HYPOT_DECIDED_MIN:
        return False
    h_b = math.hypot(bx, by)
    h_a = math.hypot(ax, ay)
    scale = start + h_b + h_a
    if not scale <= HYPOT_DECIDED_MAX:
        return False
    return start - h_b - h_a - limit > HYPOT_SIDE_SLACK * scale


@compiled_loop
def _first_contact(x0, u, other_p, other_v, disp_half, disp_full, dt, valid, combined_r,
                   first):
    """Step fraction of every pair of :func:`first_contact_time_s` into ``first`` (1 when
    never, or not valid). Claim: W1, F2."""
    n, j_count = valid.shape
    crit = np.empty(3)
    piece_lo = np.empty(3)
    piece_hi = np.empty(3)
    piece_sign = np.empty(3)
    for i in range(n):
        for j in range(j_count):
            first[i, j] = 1.0
            if not valid[i, j]:
                continue
            d0x, d0y, bx, by, ax, ay = _pair_curve(x0, u, other_p, other_v, disp_half,
                                                   disp_full, dt[i], i, j)
            start = math.hypot(d0x, d0y)
            limit = start if start < combined_r[i, j] else combined_r[i, j]
            if _clear_of_limit(start, bx, by, ax, ay, limit):
                continue
            limit_sq = limit * limit
            # squared-distance tolerance: EPS of distance at the scale of the limit
            tol_sq = EPS * (2.0 * limit + EPS)
            _critical_times(d0x, d0y, bx, by, ax, ay, crit, piece_lo, piece_hi, piece_sign)
            for k in range(3):
                if crit[k] != crit[k]:
                    crit[k] = 1.0
            crit.sort()
            prev = 0.0
            for k in range(4):
                nxt = crit[k] if k < 3 else 1.0
                if (_gap_sq(d0x, d0y, bx, by, ax, ay, limit_sq, prev) >= -tol_sq
                        and _gap_sq(d0x, d0y, bx, by, ax, ay, limit_sq, nxt) < -tol_sq
                        and nxt > prev):
                    # bisect to the last instant still at or beyond the limit: truncation is
                    # conservative
                    lo, hi = prev, nxt
                    for _ in range(BISECTION_STEPS):
                        mid = 0.5 * (lo + hi)
                        if _gap_sq(d0x, d0y, bx, by, ax, ay, limit_sq, mid) < 0.0:
                            hi = mid
                        else:
                            lo = mid
                    first[i, j] = lo
                    break
                prev = max(prev, nxt)


def _step_displacements(v0_mps: np.ndarray, v1_mps: np.ndarray, dt: float | np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The body's generated B4 displacement (m, (N, 2)) at half and the whole step, and the
    step (s) per agent (N,), in one compiled pass over the rows. Claim: B4, W1."""
    n = v0_mps.shape[0]
    dt_rows = _contiguous(dt, (n,))
    half, full = np.empty((n, 2)), np.empty((n, 2))
    _displacements(np.ascontiguousarray(v0_mps, dtype=np.float64),
                   np.ascontiguousarray(v1_mps, dtype=np.float64), dt_rows, half, full)
    return half, full, dt_rows


@compiled_loop
def _displacements(v0, v1, dt, half, full):
    """Rows of :func:`_step_displacements`: ``accel_step_displacement`` at t = dt / 2 and
    t = dt, per axis."""
    for i in range(dt.size):
        d = dt[i]
        for c in range(2):
            half[i, c] = accel_step_displacement(t=0.5 * d, dt=d, v0=v0[i, c], v1=v1[i, c])
            full[i, c] = accel_step_displacement(t=d, dt=d, v0=v0[i, c], v1=v1[i, c])


def _pairs(x0_m: np.ndarray, u_mps: np.ndarray, other_position_m: np.ndarray,
           other_velocity_mps: np.ndarray) -> tuple[np.ndarray, ...]:
    """The per-pair inputs as contiguous float64 arrays for the compiled loops."""
    return tuple(_contiguous(arr, shape)
                 for arr, shape in ((x0_m, x0_m.shape), (u_mps, x0_m.shape),
                                    (other_position_m, other_position_m.shape),
                                    (other_velocity_mps, other_position_m.shape)))


def _contiguous(value: np.ndarray | float, shape: tuple[int, ...],
                dtype: type = np.float64) -> np.ndarray:
    """``value`` as a C-contiguous array of ``shape`` and ``dtype`` for the compiled loops,
    broadcast only where its shape differs (numpy's broadcast costs more than these small
    arrays at a thousand agents)."""
    arr: np.ndarray = np.asarray(value, dtype=dtype)
    return np.ascontiguousarray(arr if arr.shape == shape else np.broadcast_to(arr, shape))


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
    One compiled loop over the pairs, in pieces of rows on up to :func:`thread_count` threads
    (each row's values do not depend on the piece or thread that computes them). Claim: W1.
    """
    dt = check_valid_step(dt_s)
    disp_half, disp_full, dt_rows = _step_displacements(v0_mps, v1_mps, dt)
    valid = np.ascontiguousarray(valid, dtype=bool)
    within = (np.zeros((0, 0)) if exact_within_m is None
              else _contiguous(exact_within_m, valid.shape))
    dmin = np.empty(valid.shape)
    tmin = np.empty(valid.shape)
    _run_sweep((*_pairs(x0_m, u_mps, other_position_m, other_velocity_mps), disp_half,
                disp_full, dt_rows, valid, within, _NO_PAIRS, _NO_PAIRS, 0.0),
               (dmin, tmin, _NO_ROWS))
    return dmin, tmin


_NO_PAIRS = np.zeros((0, 0))
"""Stand-in for per-pair inputs or outputs a sweep does not take or write."""
_NO_ROWS = np.zeros(0, dtype=np.bool_)
"""Stand-in for the per-row verdicts of a sweep that does not give them."""


def _run_sweep(args: tuple, outputs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    """:func:`_sweep_pairs` over every row of ``args``' ``valid`` (N, J), in pieces of rows on
    up to :func:`thread_count` threads."""
    n = args[7].shape[0]
    usual = usual_hypot_is_the_library()
    threads = thread_count(args[7].size, SWEEP_PARALLEL_MIN_PAIRS)
    if threads == 1:
        # the one piece, called directly
        _sweep_pairs(*args, usual, 0, n, *outputs)
        return
    bounds = piece_bounds(n, threads)
    run_pieces(lambda k: _sweep_pairs(*args, usual, bounds[k], bounds[k + 1], *outputs),
               len(bounds) - 1, threads=threads)


def pair_margins_m(x0_m: np.ndarray, u_mps: np.ndarray, v0_mps: np.ndarray,
                   v1_mps: np.ndarray, dt_s: float | np.ndarray, other_position_m: np.ndarray,
                   other_velocity_mps: np.ndarray, valid: np.ndarray, start_m: np.ndarray,
                   combined_radius_m: np.ndarray, exact_band_m: float, *, times: bool = False
                   ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The W1 margins (m, (N, J)) of :func:`sweep_margin_m` of the minimum distances
    :func:`sweep_min_distance_m` gives with ``exact_within_m = combined_radius_m +
    exact_band_m``, with each pair's start distance ``start_m`` and combined radius (N, J);
    the time (s) of each minimum where ``times`` (else None); and per row whether every margin
    is >= -EPS (:func:`sweep_passes`). The same values, to the bit, from one compiled loop over
    the pairs that applies the margin rule as it goes (no distances, exactness limits or times
    stored between passes). Claim: W1."""
    dt = check_valid_step(dt_s)
    disp_half, disp_full, dt_rows = _step_displacements(v0_mps, v1_mps, dt)
    valid = np.ascontiguousarray(valid, dtype=bool)
    margin = np.empty(valid.shape)
    t_min = np.empty(valid.shape) if times else None
    passes = np.empty(valid.shape[0], dtype=np.bool_)
    _run_sweep((*_pairs(x0_m, u_mps, other_position_m, other_velocity_mps), disp_half,
                disp_full, dt_rows, valid, _NO_PAIRS, _contiguous(start_m, valid.shape),
                _contiguous(combined_radius_m, valid.shape), float(exact_band_m)),
               (margin, _NO_PAIRS if t_min is None else t_min, passes))
    return margin, t_min, passes


def gathered_pair_margins_m(rows: np.ndarray, x0_m: np.ndarray, u_mps: np.ndarray,
                            v0_mps: np.ndarray, v1_mps: np.ndarray, alpha_mps2: np.ndarray,
                            dt_s: np.ndarray, other_position_m: np.ndarray,
                            other_velocity_mps: np.ndarray, valid: np.ndarray,
                            start_m: np.ndarray, combined_radius_m: np.ndarray,
                            exact_band_m: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pair_margins_m` (margins (m, (R, J)) and per-row verdicts (R,), no times) of the
    agents ``rows`` (R,) (indices into the per-agent arrays (N, ...), float64 and bool as a
    validated step input holds them, ``dt_s`` (N,) finite and > 0) with end velocities
    ``v1_mps`` (R, 2) made the sweep's by the support's pivot acceleration ``alpha_mps2`` (N, 2):
    v1 + alpha dt (as :func:`navproof.step.verify.sweep_end_velocity_mps`). One compiled pass
    gathers the rows and their displacements instead of a numpy gather per array; the same
    values to the bit. Claim: W1."""
    r, j = rows.size, valid.shape[1]
    x0, u, v0, half, full = (np.empty((r, 2)) for _ in range(5))
    dt = np.empty(r)
    position, velocity = np.empty((r, j, 2)), np.empty((r, j, 2))
    row_valid = np.empty((r, j), dtype=np.bool_)
    start, combined = np.empty((r, j)), np.empty((r, j))
    _gather_sweep_rows(rows, x0_m, u_mps, v0_mps, v1_mps, alpha_mps2, dt_s, other_position_m,
                       other_velocity_mps, valid, start_m, combined_radius_m, x0, u, v0, half,
                       full, dt, position, velocity, row_valid, start, combined)
    margin = np.empty((r, j))
    passes = np.empty(r, dtype=np.bool_)
    _run_sweep((x0, u, position, velocity, half, full, dt, row_valid, _NO_PAIRS, start,
                combined, float(exact_band_m)), (margin, _NO_PAIRS, passes))
    return margin, passes


@compiled_loop
def _gather_sweep_rows(rows, x0_all, u_all, v0_all, v1, alpha, dt_all, position_all,
                       velocity_all, valid_all, start_all, combined_all, x0, u, v0, half, full,
                       dt, position, velocity, valid, start, combined):
    """Rows of :func:`gathered_pair_margins_m`: agent ``rows[i]``'s values into row ``i``, its
    sweep end velocity v1 + alpha dt and the generated ``accel_step_displacement`` at t = dt / 2
    and t = dt per axis (as :func:`_displacements`)."""
    for i in range(rows.size):
        a = rows[i]
        d = dt_all[a]
        dt[i] = d
        for c in range(2):
            x0[i, c], u[i, c], v0[i, c] = x0_all[a, c], u_all[a, c], v0_all[a, c]
            v_end = v1[i, c] + alpha[a, c] * d
            half[i, c] = accel_step_displacement(t=0.5 * d, dt=d, v0=v0[i, c], v1=v_end)
            full[i, c] = accel_step_displacement(t=d, dt=d, v0=v0[i, c], v1=v_end)
        for k in range(valid.shape[1]):
            valid[i, k] = valid_all[a, k]
            start[i, k], combined[i, k] = start_all[a, k], combined_all[a, k]
            for c in range(2):
                position[i, k, c] = position_all[a, k, c]
                velocity[i, k, c] = velocity_all[a, k, c]


@compiled_loop
def _sweep_margins(min_distance, start, combined, valid, out):
    """Every pair of :func:`sweep_margin_m` (flat arrays), +inf where not ``valid``."""
    for i in range(out.size):
        out[i] = _margin(min_distance[i], start[i], combined[i]) if valid[i] else np.inf


def sweep_margin_m(min_distance_m: np.ndarray, start_distance_m: np.ndarray,
                   combined_radius_m: np.ndarray, valid: np.ndarray | None = None, *,
                   out: np.ndarray | None = None) -> np.ndarray:
    """Signed W1 margin (m, (N, J)): min distance minus the combined radius; +inf for pairs not
    ``valid`` (if given). One compiled pass over the pairs, into ``out`` if given (a contiguous
    float64 array of the result's shape; ``min_distance_m`` itself may be it: each pair is read
    before it is written).

    Pairs already overlapping at the start of the step (ORCA's O6 case) cannot reach the
    combined radius in one step; for them the margin is how much the step keeps from getting
    any closer: min distance minus start distance. Claim: W1.
    """
    arrays: tuple[np.ndarray, ...] = (
        np.asarray(min_distance_m, dtype=np.float64),
        np.asarray(start_distance_m, dtype=np.float64),
        np.asarray(combined_radius_m, dtype=np.float64),
        np.ones((), bool) if valid is None else np.asarray(valid, dtype=bool))
    if any(a.shape != arrays[0].shape for a in arrays):
        arrays = tuple(np.broadcast_arrays(*arrays))
    if out is None:
        out = np.empty(arrays[0].shape)
    _sweep_margins(*(np.ascontiguousarray(a).reshape(-1) for a in arrays), out.reshape(-1))
    return out


def sweep_passes(margin_m: np.ndarray) -> np.ndarray:
    """(N,) True where every neighbour's W1 margin is >= -EPS: one compiled pass over the rows
    (numpy reduces the short neighbour axis slowly). Claim: W1."""
    margin = np.asarray(margin_m, dtype=np.float64)
    out = np.empty(margin.shape[:-1], dtype=np.bool_)
    if margin.shape[-1] == 0:
        out.fill(True)
        return out
    _all_at_least(np.ascontiguousarray(margin).reshape(-1, margin.shape[-1]), -EPS,
                  out.reshape(-1))
    return out


@inlined_loop
def _row_at_least(values, i, floor):
    """Every entry of row ``i`` of ``values`` (R, J) >= ``floor`` (NaN is not)."""
    for j in range(values.shape[1]):
        if not values[i, j] >= floor:
            return False
    return True


@compiled_loop
def _all_at_least(values, floor, out):
    """Per row of ``values`` (R, J): every entry >= ``floor`` (NaN is not)."""
    for i in range(out.size):
        out[i] = _row_at_least(values, i, floor)


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
    disp_half, disp_full, dt_rows = _step_displacements(v0_mps, v1_mps, dt)
    valid = np.ascontiguousarray(valid, dtype=bool)
    first = np.empty(valid.shape)
    _first_contact(*_pairs(x0_m, u_mps, other_position_m, other_velocity_mps), disp_half,
                   disp_full, dt_rows, valid,
                   _contiguous(combined_radius_m, valid.shape), first)
    return np.min(first, axis=1) * dt
