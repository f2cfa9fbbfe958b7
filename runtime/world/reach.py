"""Every body within reach of a step: a bound on how far each body can move in one step and the
spatial query that finds every pair whose reach disks meet, whatever ORCA's ``neighbor_dist``
and ``max_neighbors`` are. The sweep (W1), the F2 truncation, the overlap rule (O6) and the
World's agent clearance read this set instead of ORCA's neighbour list, which may be cut short
by ORCA's own range and count (they only decide which ORCA lines are built).

:mod:`navproof.orca.neighbors` answers the k nearest agents within a range (RVO2's semantics,
capped at ``max_neighbors``); this module answers "every pair closer than the sum of their
extents" with no count cap, on a uniform grid, in one compiled loop (:mod:`navproof.core.jit`).
Claim: W1, F2, O6.
"""

from __future__ import annotations

import math

import numpy as np

from navproof.boundary import Support
from navproof.core.filled import filled
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.numpy_scalars import larger, smaller
from navproof.core.parallel import run_row_pieces
from navproof.core.tolerances import EPS

REACH_PARALLEL_MIN_BODIES = 4096
"""Queries over at least this many bodies run in threads (smaller ones cost less than a
hand-off)."""

COUNTING_SORT_CELLS_PER_BODY = 4
"""Grids of at most this many cells per body (plus 1024) are ordered by a counting sort over
the cells; sparser ones by a stable comparison sort (the same order)."""

NEAREST_COVER_REL = 1e-9
"""Relative allowance on the squared distance of a body's farthest listed nearest neighbour
before its list is taken to cover every body within reach (far above any rounding of the
neighbour search's own squared distances)."""

REACH_SLACK_M = 1e-6
"""Added to every extent (m): rounding in the positions never drops a pair at contact."""


def step_reach_m(x0_m: np.ndarray, v0_rel_mps: np.ndarray, v_world_mps: np.ndarray,
                 vh_mps: np.ndarray, accel_mps2: np.ndarray, dt_s: float,
                 support: Support) -> np.ndarray:
    """Upper bound (m, (N,)) on how far each body's centre can get from its start position
    within one step of ``dt_s``, by any motion the step may commit (safe, F1-F3, a handoff's
    access curve) or the constant-velocity prediction the sweep makes of it.

    The relative velocity ramps linearly from ``v0`` (m/s) to an end velocity inside the
    reachable disk (V2) or the speed cap, so its speed stays below ``max(|v0|, Vh) + a dt``; the
    support moves its pivot by at most ``|w| dt + |alpha| dt^2 / 2`` and turns the body's arm
    ``|x0 - c|`` by at most ``min(2, |omega| dt)`` times its length. The prediction moves
    ``|v_world| dt``. Claim: W1, V2, B3, B6.
    """
    m = support.motion
    out = np.empty(x0_m.shape[0])
    _step_reaches(x0_m, v0_rel_mps, v_world_mps, vh_mps, accel_mps2, dt_s, dt_s**2,
                  m.pivot_m, m.velocity_mps, m.acceleration_mps2, m.omega_radps, out)
    return out


ARM_SKIP_M = 1e300
"""An arm whose components are both below this (m) has a finite ``hypot`` length."""


@inlined_loop
def _length(x, y):
    """``hypot(x, y)`` (m or m/s), without the call for a zero vector: the length of
    ``(+-0, +-0)`` is exactly +0."""
    return 0.0 if x == 0.0 and y == 0.0 else math.hypot(x, y)


@compiled_loop
def _step_reaches(x0, v0, vw, vh, accel, dt, dt_sq, pivot, vel, acc, omega, out):
    """Every row of :func:`step_reach_m` into ``out`` (the whole-array evaluation's operations
    in its order, lengths by ``hypot``). The arm's turn ``min(2, |omega| dt) |x0 - c|`` of a
    support that does not turn in the step (``|omega| dt`` a zero) is exactly that zero
    wherever the arm's length is finite (both components below ARM_SKIP_M): the length is not
    measured there, nor is a zero vector's (:func:`_length`). Claim: W1."""
    for i in range(out.shape[0]):
        rel_speed = larger(_length(v0[i, 0], v0[i, 1]), vh[i]) + accel[i] * dt
        moved_pivot = _length(vel[i, 0], vel[i, 1]) * dt \
            + 0.5 * _length(acc[i, 0], acc[i, 1]) * dt_sq
        angle = abs(omega[i]) * dt
        rx = x0[i, 0] - pivot[i, 0]
        ry = x0[i, 1] - pivot[i, 1]
        if angle == 0.0 and abs(rx) < ARM_SKIP_M and abs(ry) < ARM_SKIP_M:
            # min(2, +-0) is that zero, and a zero times a finite length >= 0 keeps its sign
            turn = angle
        else:
            turn = smaller(2.0, angle) * math.hypot(rx, ry)
        moved = rel_speed * dt + moved_pivot + turn
        out[i] = larger(moved, _length(vw[i, 0], vw[i, 1]) * dt)


def stopping_horizon(reach_m: np.ndarray, vh_mps: np.ndarray, carry_range_mps: np.ndarray,
                     accel_mps2: np.ndarray, dt_s: float) -> tuple[np.ndarray, float]:
    """How far (m, (N,)) each body may get before it has stopped: its step reach plus the
    distance ``c (dt + c / (2 a))`` at ``c`` = its speed cap plus its support's speed range
    (m/s), braking at ``a`` (m/s^2, at least EPS) after the step; and how long (s) the slowest
    of them may still move: ``dt`` plus the largest ``c / a`` (0 without bodies). Obstacle
    pieces within the first bound the whole step's curve (B5, EDGE_OBSTACLE); a platform must
    stay inside the corridor for the second (C1, C2). Claim: B5, C2."""
    horizon = np.empty(reach_m.shape[0])
    longest_s = _stopping_horizons(reach_m, vh_mps, carry_range_mps, accel_mps2, dt_s, EPS,
                                   horizon)
    return horizon, dt_s + longest_s


@compiled_loop
def _stopping_horizons(reach, vh, carry_range, accel, dt, eps, out):
    """Every row of :func:`stopping_horizon` into ``out``; returns the largest ``c / a`` (at
    least 0, NaN propagates as in numpy's max)."""
    longest = 0.0
    for i in range(out.shape[0]):
        speed = vh[i] + carry_range[i]
        brake = larger(accel[i], eps)
        out[i] = reach[i] + speed * (dt + speed / (2.0 * brake))
        longest = larger(longest, speed / brake)
    return longest


def executed_reach_m(x0_m: np.ndarray, mid_m: np.ndarray, x1_m: np.ndarray, *,
                     radius_m: np.ndarray | None = None, band_m: float = 0.0) -> np.ndarray:
    """Upper bound (m, (N,)) on the distance from ``x0`` of the executed curve through the start,
    middle and end points (the quadratic ``x0 + B tau + A tau^2``, tau in [0, 1]): ``|B| + |A|``;
    with ``radius_m`` (N,) the body's extent ``|B| + |A| + radius + band_m`` (m), added in that
    order. Claim: W1."""
    out = np.empty(x0_m.shape[0])
    radius = np.zeros(x0_m.shape[0]) if radius_m is None else np.asarray(radius_m,
                                                                          dtype=np.float64)
    _executed_reaches(x0_m, mid_m, x1_m, radius, band_m, out)
    return out


@compiled_loop
def executed_coefficients(x0, mid, x1, i):
    """B and A (m) of body i's executed curve x0 + B tau + A tau^2 through its start, middle
    and end points: ``B = 4 (mid - x0) - (x1 - x0)``, ``A = 2 (x1 - x0) - 4 (mid - x0)``,
    per component. Claim: W1."""
    bx = 4.0 * (mid[i, 0] - x0[i, 0]) - (x1[i, 0] - x0[i, 0])
    by = 4.0 * (mid[i, 1] - x0[i, 1]) - (x1[i, 1] - x0[i, 1])
    ax = 2.0 * (x1[i, 0] - x0[i, 0]) - 4.0 * (mid[i, 0] - x0[i, 0])
    ay = 2.0 * (x1[i, 1] - x0[i, 1]) - 4.0 * (mid[i, 1] - x0[i, 1])
    return bx, by, ax, ay


@compiled_loop
def _executed_reaches(x0, mid, x1, radius, band, out):
    """Every row of :func:`executed_reach_m` into ``out``: ``hypot(B) + hypot(A)``, plus
    ``radius`` and ``band`` (adding zeros keeps the sum's bits: it is never -0)."""
    for i in range(out.shape[0]):
        bx, by, ax, ay = executed_coefficients(x0, mid, x1, i)
        out[i] = math.hypot(bx, by) + math.hypot(ax, ay) + radius[i] + band


def bodies_within_reach(position_m: np.ndarray, extent_m: np.ndarray, *,
                        wider: tuple[np.ndarray, np.ndarray] | None = None,
                        nearest: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Every other body j with ``|x_i - x_j| <= extent_i + extent_j`` (plus REACH_SLACK_M) for
    each body i: indices (N, J) sorted by index, padded with -1; J is the largest count (0 when
    no pair meets). No range or count cap. ``extent_m`` (N,) is, for the step, the body's reach
    plus its radius. ``wider`` is the answer and the extents of an earlier query over the same
    positions: where no extent is negative or exceeds its earlier one, every pair that meets
    now met then, so the answer is that one's pairs that still meet (:func:`_narrowed`), with
    no new spatial query. ``nearest`` is each body's k nearest other bodies at these positions
    (N, K), -1 padded, and each body's k (N,) (ORCA's neighbours,
    :mod:`navproof.orca.neighbors`): where they hold every pair that can meet, the answer is
    their pairs that meet (:func:`_nearest_cover`), with no spatial query.
    Claim: W1, O6."""
    pos = np.ascontiguousarray(position_m, dtype=np.float64)
    n = pos.shape[0]
    if n < 2:
        return np.full((n, 0), -1, np.int64)
    if wider is not None:
        found, wider_extent_m = wider
        ext = np.asarray(extent_m, dtype=np.float64)
        wide = np.asarray(wider_extent_m, dtype=np.float64)
        # other shapes take a query below, whose answer this one equals
        if found.shape[0] == n and ext.shape == (n,) and wide.shape == (n,):
            kept = filled((n, found.shape[1]), -1, np.int64)
            width = _narrowed(pos, ext, wide, REACH_SLACK_M, np.ascontiguousarray(found), kept)
            if width >= 0:
                return kept if width == kept.shape[1] else kept[:, :width].copy()
    if nearest is not None and nearest[0].shape[0] == n and nearest[0].shape[1]:
        kept = np.empty(nearest[0].shape, np.int64)
        width = _nearest_cover(pos, np.asarray(extent_m, dtype=np.float64) + REACH_SLACK_M,
                               np.ascontiguousarray(nearest[0], dtype=np.int64),
                               np.asarray(nearest[1], dtype=np.int64), NEAREST_COVER_REL, kept,
                               np.empty(n, np.int64), True)
        if width >= 0:
            return kept if width == kept.shape[1] else kept[:, :width].copy()
    ext = np.empty(n)
    key = np.empty(n, np.int64)
    ny, cells = _cell_keys(pos, np.asarray(extent_m, dtype=np.float64), REACH_SLACK_M, ext,
                           key)
    if 0 < cells <= COUNTING_SORT_CELLS_PER_BODY * n + 1024:
        order, sorted_key = np.empty(n, np.int64), np.empty(n, np.int64)
        _sort_by_cell(key, cells, order, sorted_key)
    else:
        order = np.argsort(key, kind="stable").astype(np.int64)
        sorted_key = np.ascontiguousarray(key[order])
    count = np.zeros(n, np.int64)
    # each piece counts, then writes, its own rows: the same for any pieces (below the
    # threading size one piece, called directly)
    none = np.zeros((n, 0), np.int64)
    run_row_pieces(lambda lo, hi: _pairs(pos, ext, key, order, sorted_key, ny, count, none,
                                         False, lo, hi), n, min_rows=REACH_PARALLEL_MIN_BODIES)
    # numpy's max without its Python frames: the query of a small crowd runs every step
    out = filled((n, int(np.maximum.reduce(count))), -1, np.int64)
    if out.shape[1]:
        run_row_pieces(lambda lo, hi: _pairs(pos, ext, key, order, sorted_key, ny, count, out,
                                             True, lo, hi), n,
                       min_rows=REACH_PARALLEL_MIN_BODIES)
    return out


def nearest_hold_every_pair(position_m: np.ndarray, extent_m: np.ndarray,
                            nearest: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether ``nearest``, each body's k nearest other bodies at ``position_m`` (N, K), -1
    padded, and each body's k (N,) (ORCA's neighbours, :mod:`navproof.orca.neighbors`), list
    every pair :func:`bodies_within_reach` finds for ``extent_m`` (m, (N,)): its answer is
    then a part of each body's list (the test of :func:`_nearest_cover`, without the answer).
    False for fewer than two bodies. Claim: W1, O6."""
    pos = np.ascontiguousarray(position_m, dtype=np.float64)
    n = pos.shape[0]
    if n < 2 or nearest[0].shape[0] != n or nearest[0].shape[1] == 0:
        return False
    none = np.empty((0, 0), np.int64)
    return _nearest_cover(pos, np.asarray(extent_m, dtype=np.float64) + REACH_SLACK_M,
                          np.ascontiguousarray(nearest[0], dtype=np.int64),
                          np.asarray(nearest[1], dtype=np.int64), NEAREST_COVER_REL, none,
                          np.empty(0, np.int64), False) >= 0


@inlined_loop
def _insert_sorted(rows, i, count, j):
    """Body ``j`` inserted into the ascending first ``count`` entries of row ``i`` of
    ``rows`` (the later entries move up one place)."""
    at = count
    while at > 0 and rows[i, at - 1] > j:
        rows[i, at] = rows[i, at - 1]
        at -= 1
    rows[i, at] = j


@compiled_loop
def _nearest_cover(pos, ext, nearest, count, rel, kept, met_count, fill):
    """The pairs of ``nearest`` whose extent disks ``ext`` (slack included) meet, the test of
    :func:`_pairs`, each row's sorted by index into ``kept`` (-1 padded up to the largest
    count, their number into ``met_count``; neither is touched unless ``fill``); returns the
    largest count, or -1 when ``nearest``, each body's ``count[i]`` nearest other bodies (any
    order, -1 padded), may miss a pair that meets.

    A body outside i's full list is at least as far from i as the farthest listed one, at the
    squared distance ``far_sq`` (the same differences and squares as the pair test). With no
    negative extent, a pair (i, j) meets only within ``ext_i + ext_j <= ext_i + largest``, so a
    list whose ``far_sq`` (less ``rel`` of it, for a neighbour search that rounds otherwise)
    exceeds ``(ext_i + largest)^2`` holds every body i meets. A list that is not full or not
    far enough, a negative or NaN extent give -1. Claim: W1, O6."""
    largest = 0.0
    for i in range(ext.shape[0]):
        if not ext[i] >= 0.0:
            return -1
        if ext[i] > largest:
            largest = ext[i]
    width = 0
    for i in range(nearest.shape[0]):
        found = 0
        met = 0
        far_sq = -1.0
        for k in range(nearest.shape[1]):
            j = nearest[i, k]
            if j < 0:
                break
            found += 1
            ddx = pos[j, 0] - pos[i, 0]
            ddy = pos[j, 1] - pos[i, 1]
            d_sq = ddx * ddx + ddy * ddy
            if d_sq > far_sq:
                far_sq = d_sq
            reach = ext[i] + ext[j]
            if d_sq <= reach * reach:
                if fill:
                    _insert_sorted(kept, i, met, j)
                met += 1
        reach = ext[i] + largest
        if found == 0 or found != count[i] or not far_sq * (1.0 - rel) > reach * reach:
            return -1
        if fill:
            met_count[i] = met
        if met > width:
            width = met
    # the padding of the answer's columns only
    if fill:
        for i in range(nearest.shape[0]):
            for k in range(met_count[i], width):
                kept[i, k] = -1
    return width


@compiled_loop
def _narrowed(pos, extent, wider_extent, slack, found, kept):
    """The bodies of each row of ``found`` (sorted, -1 padded) whose extent disk (``extent``
    plus ``slack``, m) meets the row's body's, in order, into ``kept``; returns the largest
    count. The test is :func:`_pairs`'s. -1, with nothing written, when some extent is
    negative, NaN or beyond its earlier one ``wider_extent`` (m): a pair may meet now that did
    not then. Claim: W1."""
    for i in range(found.shape[0]):
        if not (extent[i] >= 0.0 and extent[i] <= wider_extent[i]):
            return -1
    width = 0
    for i in range(found.shape[0]):
        count = 0
        for k in range(found.shape[1]):
            j = found[i, k]
            if j < 0:
                break
            ddx = pos[j, 0] - pos[i, 0]
            ddy = pos[j, 1] - pos[i, 1]
            reach = (extent[i] + slack) + (extent[j] + slack)
            if ddx * ddx + ddy * ddy <= reach * reach:
                kept[i, count] = j
                count += 1
        width = max(width, count)
    return width


@compiled_loop
def _cell_keys(pos, extent, slack, ext, key):
    """The grid of :func:`bodies_within_reach` in one pass: every extent plus ``slack`` into
    ``ext``, cells twice the largest of them, each body's cell (column, row counted from the
    lowest occupied ones, with a free border) as ``key`` = column * rows + row; returns the
    rows per column and the number of cells (every key is below it). Claim: W1."""
    n = pos.shape[0]
    largest = -np.inf
    for i in range(n):
        ext[i] = extent[i] + slack
        if ext[i] > largest or ext[i] != ext[i]:
            largest = ext[i]
    cell = 2.0 * largest
    low_x = np.int64(np.iinfo(np.int64).max)
    low_y = np.int64(np.iinfo(np.int64).max)
    high_x = np.int64(np.iinfo(np.int64).min)
    high_y = np.int64(np.iinfo(np.int64).min)
    for i in range(n):
        cx = np.int64(np.floor(pos[i, 0] / cell))
        cy = np.int64(np.floor(pos[i, 1] / cell))
        key[i] = cx
        if cx < low_x:
            low_x = cx
        if cy < low_y:
            low_y = cy
        if cx > high_x:
            high_x = cx
        if cy > high_y:
            high_y = cy
    ny = high_y - low_y + 3
    for i in range(n):
        cy = np.int64(np.floor(pos[i, 1] / cell))
        key[i] = (key[i] - low_x + 1) * ny + (cy - low_y + 1)
    return ny, (high_x - low_x + 2) * ny


@compiled_loop
def _sort_by_cell(key, cells, order, sorted_key):
    """The bodies in increasing ``key`` (below ``cells``), ties in index order, into ``order``
    and their keys into ``sorted_key``: a counting sort, the order of a stable sort."""
    start = np.zeros(cells + 1, np.int64)
    for i in range(key.shape[0]):
        start[key[i] + 1] += 1
    for c in range(cells):
        start[c + 1] += start[c]
    for i in range(key.shape[0]):
        at = start[key[i]]
        order[at] = i
        sorted_key[at] = key[i]
        start[key[i]] = at + 1


@compiled_loop
def _pairs(pos, ext, key, order, sorted_key, ny, count, out, fill, s_lo, s_hi):
    """Count (``fill`` False) or write in increasing order (True) the bodies whose extent disk
    meets each body's, for the bodies ``order[s_lo:s_hi]`` (in cell order): the 3 x 3 cells
    around a body's own (cells are twice the largest extent). The three column ranges of
    cells move forward with the body's cell, so they are found by walking, not searching.
    Claim: W1."""
    n = sorted_key.shape[0]
    start = np.empty(3, np.int64)
    stop = np.empty(3, np.int64)
    for dx in range(3):
        if s_lo < s_hi:
            lo_key = key[order[s_lo]] + (dx - 1) * ny - 1
            start[dx] = np.searchsorted(sorted_key, lo_key)
            stop[dx] = np.searchsorted(sorted_key, lo_key + 3)
    for s in range(s_lo, s_hi):
        i = order[s]
        found = 0
        for dx in range(3):
            lo_key = key[i] + (dx - 1) * ny - 1
            a = start[dx]
            while a < n and sorted_key[a] < lo_key:
                a += 1
            b = stop[dx] if stop[dx] > a else a
            while b < n and sorted_key[b] < lo_key + 3:
                b += 1
            start[dx], stop[dx] = a, b
            for t in range(a, b):
                j = order[t]
                if j == i:
                    continue
                ddx = pos[j, 0] - pos[i, 0]
                ddy = pos[j, 1] - pos[i, 1]
                reach = ext[i] + ext[j]
                if ddx * ddx + ddy * ddy <= reach * reach:
                    if fill:
                        _insert_sorted(out, i, found, j)
                    found += 1
        count[i] = found
