"""Exact closest point to a preferred velocity in half-planes and up to two disks (Claim O2,
V1, V2), batched over rows.

One convention: a half-plane is ``dot(normal, v) <= offset`` with a unit ``normal`` (M, K, 2)
and ``offset`` (M, K) in m/s, with a validity mask (M, K); a disk is a centre (M, D, 2) and a
radius (M, D) in m/s with a mask (M, D). :func:`closest_point` is the incremental solve (RVO2's
linear programs generalised to two disks); :func:`closest_candidates` enumerates every candidate
point (projections, line-line, line-circle and circle-circle points) and decides the rows the
incremental solve leaves open.
"""

from __future__ import annotations

import numpy as np

from navproof.core.tolerances import EPS, PARALLEL_DET
from navproof.solver.on_line import disk_interval, halfplane_interval, nearest_on_line

CHUNK_ROWS = 512
"""Rows per chunk of the candidate enumeration (bounds the temporary arrays)."""
FEASIBILITY_CHUNK = 32
"""Candidates per row checked against every constraint at a time, nearest first."""


def circle_crossings(centre_a: np.ndarray, radius_a: np.ndarray, centre_b: np.ndarray,
                     radius_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two crossing points (M, 2) of circles a and b (centres (M, 2), radii (M,)) and
    whether they exist (M,): distinct centres no farther apart than the radii allow. Where two
    circles touch, both points are the touching point."""
    delta = centre_b - centre_a
    dd = np.hypot(delta[:, 0], delta[:, 1])
    exists = (dd > 0.0) & (dd <= radius_a + radius_b) & (dd >= np.abs(radius_a - radius_b))
    dsafe = np.where(dd > 0.0, dd, 1.0)
    along = (radius_a * radius_a - radius_b * radius_b + dd * dd) / (2.0 * dsafe)
    h = np.sqrt(np.maximum(radius_a * radius_a - along * along, 0.0))
    ex = delta / dsafe[:, None]
    base = centre_a + along[:, None] * ex
    perp = np.stack([-ex[:, 1], ex[:, 0]], axis=1) * h[:, None]
    return base + perp, base - perp, exists


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


def closest_point(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                  hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                  disk_valid: np.ndarray, *, tol: float = 0.5 * EPS
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Exact closest point (m/s, (M, 2)) to ``preferred`` in the intersection of at most two
    disks (M, D <= 2) and the half-planes ``dot(n, v) <= offset`` (M, K) with unit normals, and
    whether it was found (M,). Claim: O2 (combined), V1, V2.

    Incremental, like RVO2's linear programs: the closest point of the disks first, then the
    half-planes in slot order; where the point so far violates half-plane i, the new optimum
    lies on line i (strictly convex objective, convex set), the closest point of the interval
    the disks and the half-planes j < i leave on it. A row is reported not found when that
    interval or the disks' intersection is empty; :func:`closest_candidates` decides those rows.
    The loop runs over the slot index only, never over rows.
    """
    if disk_valid.shape[1] > 2:
        raise ValueError("closest_point takes at most two disks")
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _closest_point(preferred, hp_normal, hp_offset, hp_valid, disk_centre,
                              disk_radius, disk_valid, tol)


def _project_on_disk(p: np.ndarray, centre: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Closest point of the disk (centre (M, 2), radius (M,)) to p (M, 2)."""
    w = p - centre
    wl = np.hypot(w[:, 0], w[:, 1])
    outside = wl > radius
    scale = np.where(outside, radius / np.where(outside, wl, 1.0), 1.0)
    return centre + w * scale[:, None]


def _in_disk(v: np.ndarray, centre: np.ndarray, radius: np.ndarray, valid: np.ndarray,
             tol: float) -> np.ndarray:
    return ~valid | (np.hypot(v[:, 0] - centre[:, 0], v[:, 1] - centre[:, 1]) <= radius + tol)


def _closest_point(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                   hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                   disk_valid: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    m, k = hp_valid.shape
    pad = 2 - disk_valid.shape[1]
    centre = np.concatenate([disk_centre, np.zeros((m, pad, 2))], axis=1)
    radius = np.concatenate([disk_radius, np.ones((m, pad))], axis=1)
    dvalid = np.concatenate([disk_valid, np.zeros((m, pad), bool)], axis=1)
    # closest point of the disks: the projection on disk a when inside disk b, else the
    # projection on b when inside a, else the nearer crossing of the two circles
    result = np.where(dvalid[:, 0, None], _project_on_disk(preferred, centre[:, 0], radius[:, 0]),
                      preferred)
    found = _in_disk(result, centre[:, 1], radius[:, 1], dvalid[:, 1], tol)
    rest = np.flatnonzero(~found)
    if rest.size:
        ca, cb, ra, rb = centre[rest, 0], centre[rest, 1], radius[rest, 0], radius[rest, 1]
        va, vb, p = dvalid[rest, 0], dvalid[rest, 1], preferred[rest]
        on_b = np.where(vb[:, None], _project_on_disk(p, cb, rb), p)
        b_ok = _in_disk(on_b, ca, ra, va, tol)
        first, second, crossing = circle_crossings(ca, ra, cb, rb)
        nearer = (np.hypot(*(first - p).T) <= np.hypot(*(second - p).T))
        cross = np.where(nearer[:, None], first, second)
        cross_ok = va & vb & crossing
        result[rest] = np.where(b_ok[:, None], on_b, cross)
        found[rest] = b_ok | cross_ok
    n, c = hp_normal, hp_offset
    # violated half-planes of every row at once; refreshed only for the rows that move
    pending = found[:, None] & hp_valid & (
        n[..., 0] * result[:, 0, None] + n[..., 1] * result[:, 1, None] - c > tol)
    for i in range(k):
        rows = np.flatnonzero(pending[:, i])
        if rows.size == 0:
            continue
        # line i: v = c_i n_i + t d_i with d_i the unit direction along it
        nx, ny, ci = n[rows, i, 0], n[rows, i, 1], c[rows, i]
        qx, qy = ci * nx, ci * ny
        dx, dy = -ny, nx
        t_lo = np.full(rows.size, -np.inf)
        t_hi = np.full(rows.size, np.inf)
        ok = np.ones(rows.size, bool)
        for disk in range(2):
            inside, lo, hi = disk_interval(qx, qy, dx, dy, centre[rows, disk, 0],
                                           centre[rows, disk, 1], radius[rows, disk])
            use = dvalid[rows, disk]
            ok &= ~use | inside
            t_lo = np.where(use, np.maximum(t_lo, lo), t_lo)
            t_hi = np.where(use, np.minimum(t_hi, hi), t_hi)
        if i:
            ok_j, lo_j, hi_j = halfplane_interval(
                qx[:, None], qy[:, None], dx[:, None], dy[:, None], n[rows, :i, 0],
                n[rows, :i, 1], c[rows, :i], hp_valid[rows, :i], parallel_det=PARALLEL_DET,
                tol=tol, axis=1)
            ok &= ok_j
            t_lo, t_hi = np.maximum(t_lo, lo_j), np.minimum(t_hi, hi_j)
        ok &= t_lo <= t_hi
        moved = nearest_on_line(qx, qy, dx, dy, preferred[rows], t_lo, t_hi)
        result[rows] = moved
        found[rows[~ok]] = False
        later = n[rows, i + 1:]
        pending[rows, i + 1:] = ok[:, None] & hp_valid[rows, i + 1:] & (
            later[..., 0] * moved[:, 0, None] + later[..., 1] * moved[:, 1, None]
            - c[rows, i + 1:] > tol)
    return result, found


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
