"""Every candidate optimum of the closest-point problem, for the rows the incremental solve
(:mod:`navproof.solver.closest`) leaves open or whose optimum fails a later check (Claim O2, V1,
V2).

The closest point of a convex set in the plane to a preferred velocity is the preferred velocity
itself, a projection on one boundary, or a point where two boundaries meet. This module lists all
of them (projections on each half-plane and disk, line-line, line-circle and circle-circle
points), keeps the feasible ones and orders them nearest first. Same constraint form as the
solver: half-planes ``dot(normal, v) <= offset`` (M, K) and disks (centre (M, D, 2), radius
(M, D)) with validity masks.
"""

from __future__ import annotations

import math

import numpy as np

from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.tolerances import EPS, PARALLEL_DET
from navproof.core.vec2 import hypot_at_most
from navproof.solver.closest import circle_crossing


def closest_candidates(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                       hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                       disk_valid: np.ndarray, *, count: int = 1, tol: float = 0.5 * EPS
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` nearest feasible optimum candidates (m/s, (M, count, 2)) of
    min |v - preferred| over the half-planes ``dot(n, v) <= offset`` (M, K) and disks (M, D),
    nearest first, with their distances (M, count) (+inf: fewer feasible candidates). The first
    finite one is the exact closest point. Claim: O2 (combined).

    Nearly parallel boundaries can put a vertex at a huge or non-finite point; such candidates
    are discarded explicitly.
    """
    return _closest_candidates(preferred, hp_normal, hp_offset, hp_valid, disk_centre,
                               disk_radius, disk_valid, count, tol)


@compiled_loop
def _dot(nx, ny, px, py):
    """numpy's ``einsum`` dot product of two 2-vectors: a sum from +0.0 (never -0.0)."""
    return (0.0 + nx * px) + ny * py


@compiled_loop
def _candidate_rows(preferred, normal, offset, hp_valid, disk_centre, disk_radius, disk_valid,
                    drop, count, tol, parallel_det, out, out_dist):
    """Every row of :func:`closest_candidates` into ``out`` (M, count, 2) and ``out_dist``
    (M, count): the candidates of valid constraints in a fixed order (the preferred velocity;
    its projection on each line; on each circle; every line-line vertex, lines ``i < j``; each
    line's two points on every circle, the ``+`` points first; every circle-circle crossing),
    the finite ones ordered nearest first (a stable sort: ties keep that order), then the first
    ``count`` feasible ones. With ``drop``, first the row's redundant constraints leave (those
    of :func:`best_candidates`); the candidates of the others keep their order."""
    m, k = hp_valid.shape
    d = disk_valid.shape[1]
    total = 1 + k + d + k * (k - 1) // 2 + 2 * k * d + d * (d - 1)
    cand = np.empty((total, 2))
    crossing = np.empty(4)
    keep = np.empty(k, dtype=np.bool_)
    kept = np.empty(k, dtype=np.int64)
    keep_disk = np.empty(d, dtype=np.bool_)
    for r in range(m):
        px, py = preferred[r, 0], preferred[r, 1]
        for i in range(k):
            keep[i] = hp_valid[r, i]
        for a in range(d):
            keep_disk[a] = disk_valid[r, a]
        if drop:
            _drop_redundant(normal[r], offset[r], disk_centre[r], disk_radius[r], disk_valid[r],
                            keep, keep_disk)
        # the kept half-planes in slot order: the loops below visit only them
        nk = 0
        for i in range(k):
            if keep[i]:
                kept[nk] = i
                nk += 1
        cand[0, 0], cand[0, 1] = px, py
        q = 1
        # project on each line
        for t in range(nk):
            i = kept[t]
            v = _dot(normal[r, i, 0], normal[r, i, 1], px, py) - offset[r, i]
            cand[q, 0], cand[q, 1] = px - v * normal[r, i, 0], py - v * normal[r, i, 1]
            q += 1
        # project on each circle
        for a in range(d):
            if keep_disk[a]:
                wx, wy = px - disk_centre[r, a, 0], py - disk_centre[r, a, 1]
                wl = math.hypot(wx, wy)
                ux, uy = (wx / wl, wy / wl) if wl > 0.0 else (1.0, 0.0)
                cand[q, 0] = disk_centre[r, a, 0] + disk_radius[r, a] * ux
                cand[q, 1] = disk_centre[r, a, 1] + disk_radius[r, a] * uy
                q += 1
        # line-line vertices
        for ti in range(nk):
            i = kept[ti]
            for tj in range(ti + 1, nk):
                j = kept[tj]
                nix, niy, njx, njy = normal[r, i, 0], normal[r, i, 1], normal[r, j, 0], \
                    normal[r, j, 1]
                det = nix * njy - niy * njx
                if not abs(det) > parallel_det:
                    continue
                ci, cj = offset[r, i], offset[r, j]
                inv = 1.0 / det
                cand[q, 0] = (ci * njy - cj * niy) * inv
                cand[q, 1] = (nix * cj - njx * ci) * inv
                q += 1
        # line-circle points
        for t in range(nk):
            i = kept[t]
            nx, ny = normal[r, i, 0], normal[r, i, 1]
            tx, ty = -ny, nx
            for sign in range(2):
                for a in range(d):
                    if not keep_disk[a]:
                        continue
                    # the line's offset from the circle's centre
                    along = offset[r, i] - _dot(nx, ny, disk_centre[r, a, 0],
                                                disk_centre[r, a, 1])
                    half_sq = disk_radius[r, a] * disk_radius[r, a] - along * along
                    if not half_sq >= 0.0:
                        continue
                    foot_x = disk_centre[r, a, 0] + along * nx
                    foot_y = disk_centre[r, a, 1] + along * ny
                    half = math.sqrt(half_sq)
                    if sign == 0:
                        cand[q, 0], cand[q, 1] = foot_x + half * tx, foot_y + half * ty
                    else:
                        cand[q, 0], cand[q, 1] = foot_x - half * tx, foot_y - half * ty
                    q += 1
        # circle-circle points
        for a in range(d):
            for b in range(a + 1, d):
                crossing[:] = 0.0
                good = circle_crossing(disk_centre[r, a, 0], disk_centre[r, a, 1],
                                       disk_radius[r, a], disk_centre[r, b, 0],
                                       disk_centre[r, b, 1], disk_radius[r, b], crossing)
                if good and keep_disk[a] and keep_disk[b]:
                    cand[q, 0], cand[q, 1] = crossing[0], crossing[1]
                    cand[q + 1, 0], cand[q + 1, 1] = crossing[2], crossing[3]
                    q += 2
        # the feasible candidates of finite distance, nearest first (of equal distances the
        # earlier in the fixed order), the first ``count`` of them kept as they are found:
        # the same as ordering every candidate and testing them in that order
        have = 0
        for t in range(q):
            cx, cy = cand[t, 0], cand[t, 1]
            if not (np.isfinite(cx) and np.isfinite(cy)):
                continue
            if not _feasible(cx, cy, normal, offset, kept, nk, disk_centre, disk_radius,
                             keep_disk, tol, r):
                continue
            gap = math.hypot(cx - px, cy - py)
            if not np.isfinite(gap) or (have == count and not gap < out_dist[r, count - 1]):
                continue
            at = have if have < count else count - 1
            while at > 0 and out_dist[r, at - 1] > gap:
                out[r, at, 0], out[r, at, 1] = out[r, at - 1, 0], out[r, at - 1, 1]
                out_dist[r, at] = out_dist[r, at - 1]
                at -= 1
            out[r, at, 0], out[r, at, 1], out_dist[r, at] = cx, cy, gap
            if have < count:
                have += 1


@inlined_loop
def _feasible(cx, cy, normal, offset, kept, nk, centre, radius, keep_disk, tol, r):
    """Whether the point (cx, cy) (m/s) meets every kept half-plane ``dot(n, v) - offset <=
    tol`` of row ``r`` (the slots ``kept[:nk]``) and lies within every kept disk's radius plus
    ``tol``."""
    for t in range(nk):
        i = kept[t]
        if not ((cx * normal[r, i, 0] + cy * normal[r, i, 1]) - offset[r, i] <= tol):
            return False
    for a in range(keep_disk.size):
        if keep_disk[a] and not hypot_at_most(cx - centre[r, a, 0], cy - centre[r, a, 1],
                                              radius[r, a] + tol):
            return False
    return True


@compiled_loop
def _drop_redundant(normal, offset, centre, radius, disk_valid, keep, keep_disk):
    """Of one row, clear in ``keep`` (K,) the half-planes containing a whole valid disk and in
    ``keep_disk`` (D,) the disks containing another valid disk (of two identical disks the
    first stays): the intersection is unchanged, so the optimum is too."""
    k, d = keep.size, keep_disk.size
    for a in range(d):
        if not disk_valid[a]:
            continue
        for i in range(k):
            reach = _dot(normal[i, 0], normal[i, 1], centre[a, 0], centre[a, 1]) + radius[a]
            if reach <= offset[i]:
                keep[i] = False
    for a in range(d):
        for c in range(d):
            if a == c or not disk_valid[c]:
                continue
            gx, gy = centre[a, 0] - centre[c, 0], centre[a, 1] - centre[c, 1]
            gap = np.sqrt(gx * gx + gy * gy)
            if gap + radius[c] <= radius[a]:
                same = gap + radius[a] <= radius[c]
                if not (same and a < c):
                    keep_disk[a] = False


def _closest_candidates(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                        hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                        disk_valid: np.ndarray, count: int, tol: float, *, drop: bool = False
                        ) -> tuple[np.ndarray, np.ndarray]:
    m = hp_valid.shape[0]
    out = np.zeros((m, count, 2))
    out_dist = np.full((m, count), np.inf)
    arrays = [np.ascontiguousarray(a, dtype=np.float64)
              for a in (preferred, hp_normal, hp_offset, disk_centre, disk_radius)]
    preferred, n, c, centre, radius = arrays
    _candidate_rows(preferred, n, c, np.ascontiguousarray(hp_valid, dtype=bool), centre, radius,
                    np.ascontiguousarray(disk_valid, dtype=bool), drop, count, tol, PARALLEL_DET,
                    out, out_dist)
    return out, out_dist


def best_candidates(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                    hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                    disk_valid: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` nearest feasible candidates per row, after dropping redundant constraints
    (a half-plane containing a whole valid disk, a disk containing another valid disk: the
    intersection is unchanged, so the optimum is too), in one compiled pass over the rows."""
    return _closest_candidates(preferred, hp_normal, hp_offset, hp_valid, disk_centre,
                               disk_radius, disk_valid, count, 0.5 * EPS, drop=True)
