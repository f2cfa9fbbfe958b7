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

import numpy as np

from navproof.core.jit import compiled_loop
from navproof.core.tolerances import EPS, PARALLEL_DET
from navproof.solver.closest import circle_crossing

CHUNK_ROWS = 512
"""Rows per chunk of the candidate enumeration (bounds the temporary arrays)."""
FEASIBILITY_CHUNK = 32
"""Candidates per row checked against every constraint at a time, nearest first."""


@compiled_loop
def _crossing_rows(centre_a, radius_a, centre_b, radius_b, first, second, exists):
    """:func:`navproof.solver.closest.circle_crossing` of every row, into the output arrays."""
    out = np.empty(4)
    for r in range(exists.size):
        exists[r] = circle_crossing(centre_a[r, 0], centre_a[r, 1], radius_a[r], centre_b[r, 0],
                                    centre_b[r, 1], radius_b[r], out)
        first[r, 0], first[r, 1] = out[0], out[1]
        second[r, 0], second[r, 1] = out[2], out[3]


def circle_crossings(centre_a: np.ndarray, radius_a: np.ndarray, centre_b: np.ndarray,
                     radius_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two crossing points (M, 2) of circles a and b (centres (M, 2), radii (M,), m/s) and
    whether they exist (M,); points of rows without a crossing are meaningless."""
    m = radius_a.shape[0]
    first, second = np.zeros((m, 2)), np.zeros((m, 2))
    exists = np.zeros(m, dtype=bool)
    _crossing_rows(*(np.ascontiguousarray(a, dtype=np.float64)
                     for a in (centre_a, radius_a, centre_b, radius_b)), first, second, exists)
    return first, second, exists


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


def _closest_candidates(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                        hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                        disk_valid: np.ndarray, count: int, tol: float
                        ) -> tuple[np.ndarray, np.ndarray]:
    m, k = hp_valid.shape
    d = disk_valid.shape[1]
    cands = [preferred[:, None, :]]
    ok = [np.ones((m, 1), bool)]
    n = hp_normal
    c = hp_offset
    # project on each line
    viol = np.einsum("mkj,mj->mk", n, preferred) - c
    cands.append(preferred[:, None, :] - viol[..., None] * n)
    ok.append(hp_valid)
    # project on each circle
    w = preferred[:, None, :] - disk_centre
    wl = np.hypot(w[..., 0], w[..., 1])
    unit = np.where((wl > 0.0)[..., None], w / np.where(wl > 0.0, wl, 1.0)[..., None],
                    np.array([1.0, 0.0]))
    cands.append(disk_centre + disk_radius[..., None] * unit)
    ok.append(disk_valid)
    # line-line vertices
    if k >= 2:
        ii, jj = np.triu_indices(k, 1)
        ni, nj, ci, cj = n[:, ii], n[:, jj], c[:, ii], c[:, jj]
        det = ni[..., 0] * nj[..., 1] - ni[..., 1] * nj[..., 0]
        good = np.abs(det) > PARALLEL_DET
        inv = 1.0 / np.where(good, det, 1.0)
        vx = (ci * nj[..., 1] - cj * ni[..., 1]) * inv
        vy = (ni[..., 0] * cj - nj[..., 0] * ci) * inv
        cands.append(np.stack([vx, vy], axis=-1))
        ok.append(good & hp_valid[:, ii] & hp_valid[:, jj])
    # line-circle points
    if k and d:
        dist = c[:, :, None] - np.einsum("mkj,mdj->mkd", n, disk_centre)
        foot = disk_centre[:, None, :, :] + dist[..., None] * n[:, :, None, :]
        half_sq = disk_radius[:, None, :] ** 2 - dist ** 2
        half = np.sqrt(np.maximum(half_sq, 0.0))
        tang = np.stack([-n[..., 1], n[..., 0]], axis=-1)[:, :, None, :]
        both = np.concatenate([foot + half[..., None] * tang, foot - half[..., None] * tang],
                              axis=2)
        cands.append(both.reshape(m, -1, 2))
        good = (half_sq >= 0.0) & hp_valid[:, :, None] & disk_valid[:, None, :]
        ok.append(np.concatenate([good, good], axis=2).reshape(m, -1))
    # circle-circle points
    for a in range(d):
        for b in range(a + 1, d):
            first, second, good = circle_crossings(disk_centre[:, a], disk_radius[:, a],
                                                   disk_centre[:, b], disk_radius[:, b])
            cands.append(np.stack([first, second], axis=1))
            ok.append(np.stack([good & disk_valid[:, a] & disk_valid[:, b]] * 2, axis=1))
    cand = np.concatenate(cands, axis=1)
    cok = np.concatenate(ok, axis=1) & np.all(np.isfinite(cand), axis=-1)
    # nearest first (ties in candidate order), then feasibility in chunks until each row has
    # ``count`` feasible ones: the same list as checking every candidate, without the K^3 work
    dist = np.where(cok, np.hypot(cand[..., 0] - preferred[:, None, 0],
                                  cand[..., 1] - preferred[:, None, 1]), np.inf)
    order = np.argsort(dist, axis=1, kind="stable")
    cand = np.take_along_axis(cand, order[..., None], 1)
    dist = np.take_along_axis(dist, order, 1)
    out = np.zeros((m, count, 2))
    out_dist = np.full((m, count), np.inf)
    have = np.zeros(m, np.int64)
    rows = np.arange(m)
    for start in range(0, cand.shape[1], FEASIBILITY_CHUNK):
        rows = rows[(have[rows] < count) & np.isfinite(dist[rows, start])]
        if rows.size == 0:
            break
        stop = start + FEASIBILITY_CHUNK
        chunk = cand[rows, start:stop]
        feasible = np.isfinite(dist[rows, start:stop])
        # feasibility against every constraint
        if k:
            over = (chunk[:, :, None, 0] * n[rows, None, :, 0]
                    + chunk[:, :, None, 1] * n[rows, None, :, 1]) - c[rows, None, :]
            feasible &= np.all((over <= tol) | ~hp_valid[rows, None, :], axis=2)
        for a in range(d):
            r = np.hypot(chunk[..., 0] - disk_centre[rows, a, None, 0],
                         chunk[..., 1] - disk_centre[rows, a, None, 1])
            feasible &= (r <= disk_radius[rows, a, None] + tol) | ~disk_valid[rows, a, None]
        slot = have[rows, None] + np.cumsum(feasible, axis=1) - 1
        keep_r, keep_c = np.nonzero(feasible & (slot < count))
        out[rows[keep_r], slot[keep_r, keep_c]] = chunk[keep_r, keep_c]
        out_dist[rows[keep_r], slot[keep_r, keep_c]] = dist[rows[keep_r], start + keep_c]
        have[rows] += feasible.sum(axis=1)
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
