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

from navproof.core.jit import compiled_loop
from navproof.core.tolerances import EPS, PARALLEL_DET
from navproof.solver.closest import circle_crossing

CHUNK_ROWS = 512
"""Rows per chunk of the candidate enumeration (bounds the temporary arrays)."""


def closest_candidates(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                       hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                       disk_valid: np.ndarray, *, count: int = 1, tol: float = 0.5 * EPS
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` nearest feasible optimum candidates (m/s, (M, count, 2)) of
    min |v - preferred| over the half-planes ``dot(n, v) <= offset`` (M, K) and disks (M, D),
    nearest first, with their distances (M, count) (+inf: fewer feasible candidates). The first
    finite one is the exact closest point. Claim: O2 (combined).

    Nearly parallel boundaries can put a vertex at a huge or non-finite point; such candidates
    are discarded explicitly, so floating-point warnings are silenced here.
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _closest_candidates(preferred, hp_normal, hp_offset, hp_valid, disk_centre,
                                   disk_radius, disk_valid, count, tol)


@compiled_loop
def _candidate_rows(preferred, normal, offset, hp_valid, violation, disk_centre, disk_radius,
                    disk_valid, line_to_centre, count, tol, parallel_det, out, out_dist):
    """Every row of :func:`closest_candidates` into ``out`` (M, count, 2) and ``out_dist``
    (M, count): the candidates in a fixed order (the preferred velocity; its projection on
    each line, ``violation`` (M, K) its signed violation; on each circle; every line-line
    vertex, lines ``i < j``; each line's two points on every circle, ``line_to_centre``
    (M, K, D) the line's offset from the circle's centre, the ``+`` points first; every
    circle-circle crossing), the finite ones of valid constraints ordered nearest first (a
    stable sort: ties keep that order), then the first ``count`` feasible ones."""
    m, k = hp_valid.shape
    d = disk_valid.shape[1]
    total = 1 + k + d + k * (k - 1) // 2 + 2 * k * d + d * (d - 1)
    cand = np.empty((total, 2))
    ok = np.empty(total, dtype=np.bool_)
    dist = np.empty(total)
    crossing = np.empty(4)
    for r in range(m):
        px, py = preferred[r, 0], preferred[r, 1]
        cand[0, 0], cand[0, 1], ok[0] = px, py, True
        q = 1
        # project on each line
        for i in range(k):
            v = violation[r, i]
            cand[q, 0], cand[q, 1] = px - v * normal[r, i, 0], py - v * normal[r, i, 1]
            ok[q] = hp_valid[r, i]
            q += 1
        # project on each circle
        for a in range(d):
            wx, wy = px - disk_centre[r, a, 0], py - disk_centre[r, a, 1]
            wl = math.hypot(wx, wy)
            ux, uy = (wx / wl, wy / wl) if wl > 0.0 else (1.0, 0.0)
            cand[q, 0] = disk_centre[r, a, 0] + disk_radius[r, a] * ux
            cand[q, 1] = disk_centre[r, a, 1] + disk_radius[r, a] * uy
            ok[q] = disk_valid[r, a]
            q += 1
        # line-line vertices
        for i in range(k):
            for j in range(i + 1, k):
                nix, niy, njx, njy = normal[r, i, 0], normal[r, i, 1], normal[r, j, 0], \
                    normal[r, j, 1]
                ci, cj = offset[r, i], offset[r, j]
                det = nix * njy - niy * njx
                good = abs(det) > parallel_det
                inv = 1.0 / (det if good else 1.0)
                cand[q, 0] = (ci * njy - cj * niy) * inv
                cand[q, 1] = (nix * cj - njx * ci) * inv
                ok[q] = good and hp_valid[r, i] and hp_valid[r, j]
                q += 1
        # line-circle points
        for i in range(k):
            nx, ny = normal[r, i, 0], normal[r, i, 1]
            tx, ty = -ny, nx
            for sign in range(2):
                for a in range(d):
                    along = line_to_centre[r, i, a]
                    foot_x = disk_centre[r, a, 0] + along * nx
                    foot_y = disk_centre[r, a, 1] + along * ny
                    half_sq = disk_radius[r, a] * disk_radius[r, a] - along * along
                    half = math.sqrt(half_sq if not half_sq < 0.0 else 0.0)
                    if sign == 0:
                        cand[q, 0], cand[q, 1] = foot_x + half * tx, foot_y + half * ty
                    else:
                        cand[q, 0], cand[q, 1] = foot_x - half * tx, foot_y - half * ty
                    ok[q] = half_sq >= 0.0 and hp_valid[r, i] and disk_valid[r, a]
                    q += 1
        # circle-circle points
        for a in range(d):
            for b in range(a + 1, d):
                crossing[:] = 0.0
                good = circle_crossing(disk_centre[r, a, 0], disk_centre[r, a, 1],
                                       disk_radius[r, a], disk_centre[r, b, 0],
                                       disk_centre[r, b, 1], disk_radius[r, b], crossing)
                good = good and disk_valid[r, a] and disk_valid[r, b]
                cand[q, 0], cand[q, 1], ok[q] = crossing[0], crossing[1], good
                cand[q + 1, 0], cand[q + 1, 1], ok[q + 1] = crossing[2], crossing[3], good
                q += 2
        for t in range(total):
            finite = ok[t] and np.isfinite(cand[t, 0]) and np.isfinite(cand[t, 1])
            dist[t] = math.hypot(cand[t, 0] - px, cand[t, 1] - py) if finite else np.inf
        # nearest first, then the first ``count`` feasible ones
        have = 0
        for t in np.argsort(dist, kind="mergesort"):
            if have == count or not np.isfinite(dist[t]):
                break
            cx, cy = cand[t, 0], cand[t, 1]
            feasible = True
            for i in range(k):
                if hp_valid[r, i] and not ((cx * normal[r, i, 0] + cy * normal[r, i, 1])
                                           - offset[r, i] <= tol):
                    feasible = False
            for a in range(d):
                if disk_valid[r, a] and not (math.hypot(cx - disk_centre[r, a, 0],
                                                        cy - disk_centre[r, a, 1])
                                             <= disk_radius[r, a] + tol):
                    feasible = False
            if feasible:
                out[r, have, 0], out[r, have, 1], out_dist[r, have] = cx, cy, dist[t]
                have += 1


def _closest_candidates(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                        hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                        disk_valid: np.ndarray, count: int, tol: float
                        ) -> tuple[np.ndarray, np.ndarray]:
    m = hp_valid.shape[0]
    out = np.zeros((m, count, 2))
    out_dist = np.full((m, count), np.inf)
    arrays = [np.ascontiguousarray(a, dtype=np.float64)
              for a in (preferred, hp_normal, hp_offset, disk_centre, disk_radius)]
    preferred, n, c, centre, radius = arrays
    # the dot products of numpy's einsum, as the enumeration has always taken them
    violation = np.einsum("mkj,mj->mk", n, preferred) - c
    line_to_centre = c[:, :, None] - np.einsum("mkj,mdj->mkd", n, centre)
    _candidate_rows(preferred, n, c, np.ascontiguousarray(hp_valid, dtype=bool), violation,
                    centre, radius, np.ascontiguousarray(disk_valid, dtype=bool),
                    np.ascontiguousarray(line_to_centre), count, tol, PARALLEL_DET, out,
                    out_dist)
    return out, out_dist


def drop_redundant(hp_normal: np.ndarray, hp_offset: np.ndarray, hp_valid: np.ndarray,
                    disk_centre: np.ndarray, disk_radius: np.ndarray, disk_valid: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Remove constraints that cannot change the feasible set, then pack each row's remaining
    half-planes to the front. A half-plane containing a whole valid disk, and a disk containing
    another valid disk, are redundant (the intersection is unchanged, so the optimum is too)."""
    hv = hp_valid.copy()
    for a in range(disk_valid.shape[1]):
        reach = np.einsum("mkj,mj->mk", hp_normal, disk_centre[:, a]) + disk_radius[:, a, None]
        hv &= ~(disk_valid[:, a, None] & (reach <= hp_offset))
    dv = disk_valid.copy()
    for a in range(dv.shape[1]):
        for c in range(dv.shape[1]):
            if a == c:
                continue
            gap = np.linalg.norm(disk_centre[:, a] - disk_centre[:, c], axis=1)
            inner = disk_valid[:, c] & (gap + disk_radius[:, c] <= disk_radius[:, a])
            # keep one of two identical disks
            same = inner & (gap + disk_radius[:, a] <= disk_radius[:, c])
            dv[:, a] &= ~(inner & ~(same & (a < c)))
    order = np.argsort(~hv, axis=1, kind="stable")
    width = int(hv.sum(axis=1).max(initial=0))
    order = order[:, :width]
    return (np.take_along_axis(hp_normal, order[..., None], 1),
            np.take_along_axis(hp_offset, order, 1), np.take_along_axis(hv, order, 1), dv)


def best_candidates(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                     hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                     disk_valid: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` nearest feasible candidates per row, in chunks of CHUNK_ROWS rows, after
    dropping redundant constraints."""
    m = preferred.shape[0]
    out = np.zeros((m, count, 2))
    dist = np.full((m, count), np.inf)
    for start in range(0, m, CHUNK_ROWS):
        sl = slice(start, min(start + CHUNK_ROWS, m))
        hn, ho, hv, dv = drop_redundant(hp_normal[sl], hp_offset[sl], hp_valid[sl],
                                         disk_centre[sl], disk_radius[sl], disk_valid[sl])
        out[sl], dist[sl] = closest_candidates(preferred[sl], hn, ho, hv, disk_centre[sl],
                                               disk_radius[sl], dv, count=count)
    return out, dist
