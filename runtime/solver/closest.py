"""The one closest-point solver: the velocity nearest a preferred one in half-planes, a
max-speed disk and an optional second disk, batched over rows (Claim O2, O4, V1, V2, R1).

Constraint form (:mod:`navproof.solver.halfplanes`): half-planes ``dot(normal, v) <= offset``
with unit normals, the max-speed disk ``|v| <= max_speed`` and, optionally, a second disk
``|v - centre| <= radius`` (the safe step's reachable disk V2). Callers with another convention
convert at their edge (RVO2's directed lines: :mod:`navproof.orca.halfplanes`).

The algorithm is RVO2's incremental linear programs (van den Berg et al.), written in this form
and generalised to the second disk: the closest point of the disks first, then the half-planes in
slot order; where the point so far violates half-plane ``i``, the new optimum lies on its boundary
line ``q + t d`` (``q = offset * normal``, ``d = (-normal.y, normal.x)``), at the point of the
interval the disks and the half-planes ``j < i`` leave that is nearest the preferred velocity
(RVO2's linearProgram1/2). Where that interval is empty, ``least_violation`` runs RVO2's
linearProgram3: the velocity of the max-speed disk minimising the largest violation of the soft
half-planes (slots ``>= num_hard``) while the hard ones hold. Rows run one at a time in a compiled
loop (:mod:`navproof.core.jit`): the work of a row depends on its constraints.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.parallel import run_pieces, thread_count
from navproof.core.vec2 import hypot_at_most
from navproof.solver.halfplanes import Disks, HalfPlanes

_TINY = float(np.finfo(np.float64).tiny)
"""Smallest normal float: shorter bisector normals count as zero (their inverse overflows)."""

DISKS_APART = -1
"""Outcome of a row whose two disks do not meet (no velocity at all)."""

SOLVE_PARALLEL_MIN_ROWS = 4096
"""Rows from which a caller shares the solve between threads (:func:`solve_threads`)."""


@compiled_loop
def circle_crossing(ax, ay, ra, bx, by, rb, out):
    """The two crossing points of circles a and b (centres, radii in m/s) into ``out[0:2]`` and
    ``out[2:4]``; False (``out`` untouched) unless the centres are distinct and no farther apart
    than the radii allow. Touching circles give the touching point twice. Claim: V1, V2."""
    delta_x, delta_y = bx - ax, by - ay
    gap = math.hypot(delta_x, delta_y)
    if not (gap > 0.0 and gap <= ra + rb and gap >= abs(ra - rb)):
        return False
    along = (ra * ra - rb * rb + gap * gap) / (2.0 * gap)
    half = math.sqrt(max(ra * ra - along * along, 0.0))
    ex, ey = delta_x / gap, delta_y / gap
    base_x, base_y = ax + along * ex, ay + along * ey
    out[0], out[1] = base_x - ey * half, base_y + ex * half
    out[2], out[3] = base_x + ey * half, base_y - ex * half
    return True


@inlined_loop
def _on_line(normal, b, anchor, valid, i, max_speed, second_x, second_y, second_r, opt_x, opt_y,
             direction_opt, tol, parallel_det, out):
    """Optimum on the boundary line of half-plane ``i`` inside the disks and the valid
    half-planes ``j < i`` (RVO2's linearProgram1). Writes the point into ``out`` and returns True,
    or returns False (``out`` untouched) where nothing of the line is left. A boundary parallel
    to line ``i`` keeps all of it or none, judged at a point of line ``i``: its ``anchor``
    (:func:`closest_row_anchored`) where given, else ``b[i] * normal[i]``. Claim: O2, O4, V1,
    V2."""
    qx, qy = b[i] * normal[i, 0], b[i] * normal[i, 1]
    dx, dy = -normal[i, 1], normal[i, 0]
    # the disk's chord: distance of the line from the centre as det(d, q - c), stable for
    # lines far from the centre (bisectors of linearProgram3 pass through distant crossings)
    dot = dx * qx + dy * qy
    offset = dx * qy - dy * qx
    disc = max_speed * max_speed - offset * offset
    if not disc >= 0.0:
        return False
    sqrt_disc = math.sqrt(disc)
    t_lo = -dot - sqrt_disc
    t_hi = -dot + sqrt_disc
    if second_r < math.inf:
        wx, wy = qx - second_x, qy - second_y
        dot = dx * wx + dy * wy
        offset = dx * wy - dy * wx
        disc = second_r * second_r - offset * offset
        if not disc >= 0.0:
            return False
        sqrt_disc = math.sqrt(disc)
        t_lo = max(t_lo, -dot - sqrt_disc)
        t_hi = min(t_hi, -dot + sqrt_disc)
        # the line may cross both circles on chords that do not overlap: nothing of it is in
        # both disks, whether or not a later half-plane narrows the interval
        if t_lo > t_hi:
            return False
    for j in range(i):
        if not valid[j]:
            continue
        # dot(n_j, q + t d) <= b_j reads t * slope <= room
        slope = normal[j, 0] * dx + normal[j, 1] * dy
        room = b[j] - (normal[j, 0] * qx + normal[j, 1] * qy)
        if abs(slope) <= parallel_det:
            # parallel boundaries: all of line i or none of it
            if anchor.shape[0] > 0:
                # the room of i's anchor in j as RVO2 computes it, det(d_j, p_i - p_j) with
                # d_j = (-n_j.y, n_j.x): exactly 0 for a copy of line j, where the room of
                # b[i] n_i rounds to either sign, and RVO2's point for lines only nearly
                # parallel, whose room changes along line i
                room = (-normal[j, 1] * (anchor[i, 1] - anchor[j, 1])
                        - normal[j, 0] * (anchor[i, 0] - anchor[j, 0]))
            if room < -tol:
                return False
            continue
        t = room / slope
        if slope >= 0.0:
            t_hi = min(t_hi, t)
        else:
            t_lo = max(t_lo, t)
        if t_lo > t_hi:
            return False
    if direction_opt:
        t = t_hi if opt_x * dx + opt_y * dy > 0.0 else t_lo
    else:
        t = dx * (opt_x - qx) + dy * (opt_y - qy)
        if t < t_lo:
            t = t_lo
        elif t > t_hi:
            t = t_hi
    out[0] = qx + t * dx
    out[1] = qy + t * dy
    return True


@compiled_loop
def _second_disk(max_speed, second_x, second_y, second_r, opt_x, opt_y, tol, out):
    """Closest point of both disks to ``opt`` into ``out``, given the projection on the
    max-speed disk in ``out``: that projection when inside the second disk, else the projection
    on the second when inside the first, else the nearer crossing of the two circles. False
    where the disks do not meet. Claim: V1, V2."""
    if hypot_at_most(out[0] - second_x, out[1] - second_y, second_r + tol):
        return True
    wx, wy = opt_x - second_x, opt_y - second_y
    w_len = math.hypot(wx, wy)
    px, py = opt_x, opt_y
    if w_len > second_r:
        scale = second_r / w_len
        px, py = second_x + wx * scale, second_y + wy * scale
    if hypot_at_most(px, py, max_speed + tol):
        out[0], out[1] = px, py
        return True
    crossing = np.empty(4)
    if not circle_crossing(0.0, 0.0, max_speed, second_x, second_y, second_r, crossing):
        return False
    first = math.hypot(crossing[0] - opt_x, crossing[1] - opt_y)
    second = math.hypot(crossing[2] - opt_x, crossing[3] - opt_y)
    if first <= second:
        out[0], out[1] = crossing[0], crossing[1]
    else:
        out[0], out[1] = crossing[2], crossing[3]
    return True


@compiled_loop
def closest_row(normal, b, valid, max_speed, second_x, second_y, second_r, opt_x, opt_y,
                direction_opt, tol, parallel_det, out):
    """Closest point to ``opt`` (or furthest along the unit ``opt``) in the disks and the
    half-planes ``normal`` (K, 2), ``b`` (K,), ``valid`` (K,) of one row (RVO2's
    linearProgram2); ``second_r`` = +inf: no second disk. Writes it into ``out``; returns the
    first half-plane it could not satisfy, K where none, or DISKS_APART. For compiled callers
    that prepare their rows themselves; :func:`closest_point` runs it over rows.
    Claim: O2, V1, V2."""
    return _closest_row(normal, b, normal[:0], valid, max_speed, second_x, second_y, second_r,
                        opt_x, opt_y, direction_opt, tol, parallel_det, out)


@compiled_loop
def closest_row_anchored(normal, b, anchor, valid, max_speed, second_x, second_y, second_r,
                         opt_x, opt_y, direction_opt, tol, parallel_det, out):
    """:func:`closest_row` with ``anchor`` (K, 2): a point (m/s) on each boundary line, RVO2's
    line points, at which a boundary parallel to another is judged inside or outside it as
    RVO2 judges it. Claim: O2, O4, V1, V2."""
    return _closest_row(normal, b, anchor, valid, max_speed, second_x, second_y, second_r,
                        opt_x, opt_y, direction_opt, tol, parallel_det, out)


@inlined_loop
def _closest_row(normal, b, anchor, valid, max_speed, second_x, second_y, second_r, opt_x,
                 opt_y, direction_opt, tol, parallel_det, out):
    """:func:`closest_row_anchored`, inlined into both entries; ``anchor`` of no rows
    ((0, 2)): :func:`closest_row`, parallel boundaries judged at the points ``b * normal``.
    Claim: O2, O4, V1, V2."""
    if direction_opt:
        out[0] = opt_x * max_speed
        out[1] = opt_y * max_speed
    else:
        opt_sq = opt_x * opt_x + opt_y * opt_y
        if opt_sq > max_speed * max_speed:
            scale = 1.0 / math.sqrt(opt_sq) * max_speed
            out[0] = opt_x * scale
            out[1] = opt_y * scale
        else:
            out[0] = opt_x
            out[1] = opt_y
        if second_r < math.inf and not _second_disk(max_speed, second_x, second_y, second_r,
                                                    opt_x, opt_y, tol, out):
            return DISKS_APART
    for i in range(valid.size):
        if not valid[i]:
            continue
        if normal[i, 0] * out[0] + normal[i, 1] * out[1] - b[i] > tol:
            if not _on_line(normal, b, anchor, valid, i, max_speed, second_x, second_y, second_r,
                            opt_x, opt_y, direction_opt, tol, parallel_det, out):
                return i
    return valid.size


@compiled_loop
def least_violation_row(normal, b, valid, num_hard, begin, max_speed, tol, parallel_det, out):
    """Velocity of the max-speed disk minimising the largest soft violation (slots
    ``>= num_hard``), hard half-planes kept (RVO2's linearProgram3), for a row where
    :func:`closest_row` stopped at half-plane ``begin``: starts from ``out``, updates it and
    returns the largest soft violation reached (m/s). Claim: O4 (the degraded answer; never
    labelled feasible)."""
    return least_violation_row_anchored(normal, b, normal[:0], valid, num_hard, begin,
                                        max_speed, tol, parallel_det, out)


@compiled_loop
def least_violation_row_anchored(normal, b, anchor, valid, num_hard, begin, max_speed, tol,
                                 parallel_det, out):
    """:func:`least_violation_row` with ``anchor`` (K, 2) as :func:`closest_row_anchored` takes
    it, for a row where that stopped at ``begin``: the lines of each projected problem are
    anchored too, a hard line at its own anchor, the bisector of lines ``i`` and ``j`` at
    RVO2's point of it (the crossing ``p_i + det(d_j, p_i - p_j) / det(d_i, d_j) d_i``, or the
    midpoint of the two anchors of opposite parallel lines); ``anchor`` of no rows ((0, 2)):
    none. Claim: O4."""
    k = valid.size
    anchored = anchor.shape[0] > 0
    # the half-planes of the projected problem and their anchors, in one allocation (here:
    # few rows get this far)
    work_points = np.empty((2 * k if anchored else k, 2))
    work_normal, work_anchor = work_points[:k], work_points[k:]
    work_b = np.empty(k)
    work_valid = np.empty(k, dtype=np.bool_)
    trial = np.empty(2)
    distance = 0.0
    for i in range(begin, k):
        if not valid[i]:
            continue
        nx, ny = normal[i, 0], normal[i, 1]
        if not nx * out[0] + ny * out[1] - b[i] > distance:
            continue
        qx, qy = b[i] * nx, b[i] * ny
        dx, dy = -ny, nx
        for j in range(k):
            work_valid[j] = False
            if j < num_hard:
                work_normal[j, 0], work_normal[j, 1] = normal[j, 0], normal[j, 1]
                work_b[j] = b[j]
                work_valid[j] = valid[j]
                if anchored:
                    work_anchor[j, 0], work_anchor[j, 1] = anchor[j, 0], anchor[j, 1]
                continue
            if j >= i or not valid[j]:
                continue
            slope = normal[j, 0] * dx + normal[j, 1] * dy
            parallel = abs(slope) <= parallel_det
            if parallel and nx * normal[j, 0] + ny * normal[j, 1] > 0.0:
                # same direction: the half-planes nest, the earlier one is kept by i
                continue
            # the bisector of boundaries i and j: equal violation of both on it
            mx, my = normal[j, 0] - nx, normal[j, 1] - ny
            m_len = math.hypot(mx, my)
            if not m_len >= _TINY:
                continue
            if parallel:
                px = 0.5 * (qx + b[j] * normal[j, 0])
                py = 0.5 * (qy + b[j] * normal[j, 1])
            else:
                t = (b[j] - (normal[j, 0] * qx + normal[j, 1] * qy)) / slope
                px = qx + t * dx
                py = qy + t * dy
            inv_m_len = 1.0 / m_len
            work_normal[j, 0] = mx * inv_m_len
            work_normal[j, 1] = my * inv_m_len
            work_b[j] = work_normal[j, 0] * px + work_normal[j, 1] * py
            work_valid[j] = True
            if anchored and parallel:
                work_anchor[j, 0] = 0.5 * (anchor[i, 0] + anchor[j, 0])
                work_anchor[j, 1] = 0.5 * (anchor[i, 1] + anchor[j, 1])
            elif anchored:
                # slope is det(d_i, d_j) to the bit; d_j = (-n_j.y, n_j.x)
                along = (-normal[j, 1] * (anchor[i, 1] - anchor[j, 1])
                         - normal[j, 0] * (anchor[i, 0] - anchor[j, 0])) / slope
                work_anchor[j, 0] = anchor[i, 0] + along * dx
                work_anchor[j, 1] = anchor[i, 1] + along * dy
        if closest_row_anchored(work_normal, work_b, work_anchor, work_valid, max_speed, 0.0, 0.0,
                                math.inf, -nx, -ny, True, tol, parallel_det, trial) == k:
            # a failure here is floating-point noise only: the current result stays
            out[0] = trial[0]
            out[1] = trial[1]
        distance = nx * out[0] + ny * out[1] - b[i]
    return distance


@compiled_loop
def _solve_rows(preferred, normal, offset, valid, num_hard, max_speed, second_centre,
                second_radius, least_violation, tol, parallel_det, lo, hi, velocity, outcome,
                violation):
    """Rows ``lo:hi`` of :func:`closest_point`, written into its output arrays. Claim: O2, O4."""
    k = valid.shape[1]
    out = np.empty(2)
    for r in range(lo, hi):
        fail = closest_row(normal[r], offset[r], valid[r], max_speed[r], second_centre[r, 0],
                           second_centre[r, 1], second_radius[r], preferred[r, 0],
                           preferred[r, 1], False, tol, parallel_det, out)
        outcome[r] = fail
        violation[r] = 0.0
        if least_violation and fail >= 0 and fail < k:
            violation[r] = least_violation_row(normal[r], offset[r], valid[r], num_hard[r], fail,
                                               max_speed[r], tol, parallel_det, out)
        velocity[r, 0], velocity[r, 1] = out[0], out[1]


def solve_threads(rows: int) -> int:
    """Threads for a solve of ``rows`` rows: every available CPU from SOLVE_PARALLEL_MIN_ROWS
    rows on, else one (each row's answer is the same either way)."""
    return thread_count(rows, SOLVE_PARALLEL_MIN_ROWS)


def solve_in_pieces(rows_task: Callable[..., None], m: int, k: int, *, threads: int
                    ) -> ClosestResult:
    """Run ``rows_task(lo, hi, velocity, outcome, violation)`` over ``m`` rows of ``k``
    half-planes in pieces on up to ``threads`` threads and collect its outputs."""
    velocity = np.empty((m, 2))
    outcome = np.empty(m, dtype=np.int64)
    violation = np.empty(m)
    pieces = max(1, min(16, m // 1024)) if threads > 1 else 1
    if pieces == 1:
        # the one piece, called directly
        rows_task(0, m, velocity, outcome, violation)
    else:
        bounds = [m * i // pieces for i in range(pieces + 1)]
        run_pieces(lambda i: rows_task(bounds[i], bounds[i + 1], velocity, outcome, violation),
                   pieces, threads=threads)
    return ClosestResult(velocity, outcome == k,
                         np.where((outcome >= 0) & (outcome < k), outcome, -1), violation)


@dataclass(frozen=True)
class ClosestResult:
    """Outcome of :func:`closest_point` per row.

    ``velocity`` (M, 2) m/s; ``feasible`` (M,) True where it is the exact closest point of all
    constraints; ``fail_slot`` (M,) the half-plane where the exact solve stopped, -1 where it
    did not (feasible, or the two disks do not meet); ``fallback_violation`` (M,) largest soft
    violation left by the least-violation fallback (m/s; 0 without it). Without the fallback the
    velocity of an infeasible row is meaningless. Claim: O2, O4.
    """

    velocity: np.ndarray
    feasible: np.ndarray
    fail_slot: np.ndarray
    fallback_violation: np.ndarray


def closest_point(preferred_mps: np.ndarray, planes: HalfPlanes, max_speed_mps: np.ndarray, *,
                  second_centre_mps: np.ndarray | None = None,
                  second_radius_mps: np.ndarray | None = None,
                  num_hard: np.ndarray | None = None, least_violation: bool = False,
                  tol_mps: float, parallel_det: float, threads: int = 1) -> ClosestResult:
    """Velocity (m/s, (M, 2)) closest to ``preferred_mps`` (M, 2) inside ``planes`` (M, K), the
    max-speed disk of radius ``max_speed_mps`` (M,; +inf: none) and, if given, the second disk
    (centre (M, 2), radius (M,); +inf: none).

    A half-plane counts as violated beyond ``tol_mps``; two boundaries whose normals' determinant
    is at most ``parallel_det`` are parallel. With ``least_violation`` a row whose half-planes
    leave nothing gets RVO2's linearProgram3 answer (soft slots ``>= num_hard`` (M,) relaxed
    evenly, the second disk ignored), labelled infeasible. ``threads`` > 1 shares the rows between
    that many threads (each row's answer is the same either way). Claim: O1, O2, O4, V1, V2.
    """
    preferred = np.ascontiguousarray(preferred_mps, dtype=np.float64)
    m = preferred.shape[0]
    normal = np.ascontiguousarray(planes.normal, dtype=np.float64)
    offset = np.ascontiguousarray(planes.offset, dtype=np.float64)
    valid = np.ascontiguousarray(planes.valid, dtype=bool)
    max_speed = _rows(max_speed_mps, m)
    centre = (np.zeros((m, 2)) if second_centre_mps is None
              else np.ascontiguousarray(second_centre_mps, dtype=np.float64))
    radius = np.full(m, np.inf) if second_radius_mps is None else _rows(second_radius_mps, m)
    hard = (np.zeros(m, dtype=np.int64) if num_hard is None
            else np.ascontiguousarray(num_hard, dtype=np.int64))
    tol, parallel = float(tol_mps), float(parallel_det)
    return solve_in_pieces(
        lambda lo, hi, *outputs: _solve_rows(preferred, normal, offset, valid, hard, max_speed,
                                             centre, radius, least_violation, tol, parallel, lo,
                                             hi, *outputs),
        m, valid.shape[1], threads=threads)


def _rows(value: np.ndarray | float, m: int) -> np.ndarray:
    """``value`` as a contiguous float64 array (M,), broadcast only where its shape differs
    (numpy's broadcast costs more than a small solve's rows)."""
    arr = np.asarray(value, dtype=np.float64)
    return np.ascontiguousarray(arr if arr.shape == (m,) else np.broadcast_to(arr, (m,)))


def closest_in_disks(preferred_mps: np.ndarray, planes: HalfPlanes, disks: Disks, *,
                     tol_mps: float, parallel_det: float, threads: int = 1) -> ClosestResult:
    """:func:`closest_point` with the disks as one :class:`Disks` value (M, D <= 2): slot 0 the
    max-speed disk about the origin, slot 1 the second disk; a disk not valid in a row is no
    constraint there. Claim: O2, V1, V2."""
    d = disks.valid.shape[1]
    if d > 2:
        raise ValueError("closest_in_disks takes at most two disks")
    if d == 0:
        raise ValueError("closest_in_disks takes the max-speed disk")
    m = disks.valid.shape[0]
    max_speed, second_centre, second_radius = np.empty(m), np.empty((m, 2)), np.empty(m)
    if not _disk_columns(np.asarray(disks.centre, dtype=np.float64),
                         np.asarray(disks.radius, dtype=np.float64),
                         np.asarray(disks.valid, dtype=bool), max_speed, second_centre,
                         second_radius):
        raise ValueError("the first disk is the max-speed disk: its centre is the origin")
    second = d == 2
    return closest_point(preferred_mps, planes, max_speed,
                         second_centre_mps=second_centre if second else None,
                         second_radius_mps=second_radius if second else None, tol_mps=tol_mps,
                         parallel_det=parallel_det, threads=threads)


@compiled_loop
def _disk_columns(centre, radius, valid, max_speed, second_centre, second_radius):
    """The disks (M, D) of :func:`closest_in_disks` as :func:`closest_point` takes them, in
    one pass: the max-speed radius and, with a second slot, the second disk's centre and radius
    (+inf where a slot is not valid). False where a valid max-speed disk is not centred on the
    origin."""
    second = valid.shape[1] == 2
    centred = True
    for r in range(valid.shape[0]):
        if valid[r, 0] and (centre[r, 0, 0] != 0.0 or centre[r, 0, 1] != 0.0):
            centred = False
        max_speed[r] = radius[r, 0] if valid[r, 0] else np.inf
        if second:
            second_centre[r, 0], second_centre[r, 1] = centre[r, 1, 0], centre[r, 1, 1]
            second_radius[r] = radius[r, 1] if valid[r, 1] else np.inf
    return centred
