"""Simple polygons (obstacles): the check at the boundary, the exact signed distance, and the
split into convex pieces.

An obstacle is a simple polygon listed counter-clockwise (its solid on the left of every edge,
RVO2's convention for obstacles), or a segment of two vertices. Clockwise lists, zero-area
polygons and polygons whose edges cross or touch are refused: their inside is not defined the
way the clearance and the ORCA obstacle lines read it. Convex or not makes no difference here:
the inside test is the crossing number, never "left of every edge". Claim: O5, B5, C2.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.core.tolerances import EPS
from navproof.core.validation import check_valid_finite

ORIENTATION_RULE = "counter-clockwise (the solid on the left of every edge)"


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def signed_area_m2(vertices_m: np.ndarray) -> float:
    """Signed area (m^2) of a closed vertex list: positive counter-clockwise (shoelace)."""
    v = np.asarray(vertices_m, dtype=np.float64)
    return 0.5 * float(np.sum(_cross(v, np.roll(v, -1, axis=0))))


def _segments_cross(p: np.ndarray, r: np.ndarray, q: np.ndarray, s: np.ndarray) -> np.ndarray:
    """(K, K) True where segment i (p_i, p_i + r_i) and segment j (q_j, q_j + s_j) share a
    point (crossing, touching or collinear overlap), with a tolerance of EPS."""
    qp = q[None, :, :] - p[:, None, :]
    rxs = _cross(r[:, None, :], s[None, :, :])
    qpxr = _cross(qp, r[:, None, :])
    qpxs = _cross(qp, s[None, :, :])
    len_r = np.hypot(r[:, 0], r[:, 1])[:, None]
    len_s = np.hypot(s[:, 0], s[:, 1])[None, :]
    parallel = np.abs(rxs) <= EPS * len_r * len_s
    denom = np.where(parallel, 1.0, rxs)
    t, u = qpxs / denom, qpxr / denom
    tol_t, tol_u = EPS / len_r, EPS / len_s
    proper = ~parallel & (t >= -tol_t) & (t <= 1 + tol_t) & (u >= -tol_u) & (u <= 1 + tol_u)
    # parallel: collinear and the projections overlap
    collinear = parallel & (np.abs(qpxr) <= EPS * len_r)
    rr = np.maximum(np.sum(r * r, axis=1), EPS)[:, None]
    t0 = np.einsum("ijk,ik->ij", qp, r) / rr
    t1 = t0 + np.einsum("jk,ik->ij", s, r) / rr
    lo, hi = np.minimum(t0, t1), np.maximum(t0, t1)
    overlap = collinear & (hi >= -tol_t) & (lo <= 1 + tol_t)
    return proper | overlap


def check_valid_simple_polygon(field: str, vertices_m: Any) -> np.ndarray:
    """Return the vertices (P, 2) of an obstacle: a segment (P = 2) or a simple polygon listed
    counter-clockwise with a positive area; else raise InvalidInput naming ``field`` and the
    rule broken (repeated vertex, zero area, clockwise, or two edges that cross or touch).
    Claim: O5, B5."""
    v = check_valid_finite(field, vertices_m)
    if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] < 2:
        raise InvalidInput(field, np.asarray(v).tolist(),
                           "needs at least 2 vertices (x, y): a segment or a polygon")
    d = np.roll(v, -1, axis=0) - v
    if np.any(np.hypot(d[:, 0], d[:, 1]) <= EPS):
        raise InvalidInput(field, v.tolist(), "has a repeated vertex (zero-length edge)")
    if v.shape[0] == 2:
        return v
    scale = float(np.max(np.hypot(d[:, 0], d[:, 1])))
    k = v.shape[0]
    meets = _segments_cross(v, d, v, d)
    i, j = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    neighbours = (j == (i + 1) % k) | (i == (j + 1) % k) | (i == j)
    # adjacent edges share their common vertex; they must not fold back onto each other
    turn = _cross(d, np.roll(d, -1, axis=0))
    fold = (np.abs(turn) <= EPS * scale) & (np.einsum("ij,ij->i", d, np.roll(d, -1, axis=0))
                                            < 0.0)
    bad = meets & ~neighbours
    if bad.any() or fold.any():
        if fold.any():
            e = int(np.flatnonzero(fold)[0])
            rule = f"is not simple: edges {e} and {(e + 1) % k} fold back onto each other"
        else:
            a, b = (int(x) for x in np.argwhere(bad)[0])
            rule = f"is not simple: edges {a} and {b} cross or touch"
        raise InvalidInput(field, v.tolist(), rule)
    area = signed_area_m2(v)
    if abs(area) <= EPS * scale:
        raise InvalidInput(field, v.tolist(), "has zero area (its vertices are collinear)")
    if area < 0.0:
        raise InvalidInput(field, v.tolist(), f"is clockwise; obstacles must be listed "
                                              f"{ORIENTATION_RULE}")
    return v


def polygon_signed_distance_m(vertices_m: np.ndarray, x_m: np.ndarray) -> np.ndarray:
    """Exact signed distance (m, (N,)) from points ``x_m`` (N, 2) to an obstacle's boundary:
    positive outside, negative inside the solid of a simple polygon (crossing-number inside
    test, right for convex and non-convex polygons alike); a 2-vertex obstacle is a segment
    (never inside). Claim: B5, O5."""
    v = np.asarray(vertices_m, dtype=np.float64)
    x = np.asarray(x_m, dtype=np.float64)
    a = v if v.shape[0] > 2 else v[:1]
    b = np.roll(v, -1, axis=0) if v.shape[0] > 2 else v[1:2]
    ab = b - a
    ap = x[:, None, :] - a[None]
    t = np.clip((ap[..., 0] * ab[:, 0] + ap[..., 1] * ab[:, 1])
                / np.maximum((ab * ab).sum(axis=1), EPS), 0.0, 1.0)
    closest = a[None] + t[..., None] * ab[None]
    dist = np.hypot(*(x[:, None, :] - closest).transpose(2, 0, 1)).min(axis=1)
    if v.shape[0] < 3:
        return dist
    # crossing number: a ray towards +x crosses the edges whose y-range straddles the point
    ya, yb = a[None, :, 1], b[None, :, 1]
    py = x[:, None, 1]
    straddle = (ya > py) != (yb > py)
    dy = np.where(straddle, yb - ya, 1.0)
    x_cross = a[None, :, 0] + (py - ya) * (b[None, :, 0] - a[None, :, 0]) / dy
    crossings = np.count_nonzero(straddle & (x[:, None, 0] < x_cross), axis=1)
    inside = (crossings % 2) == 1
    return np.where(inside, -dist, dist)


def convex_pieces(vertices_m: np.ndarray) -> list[np.ndarray]:
    """A checked simple CCW polygon as convex CCW pieces whose union is the polygon: itself
    when convex, else its triangles (ear clipping). A segment is one piece. Claim: B5."""
    v = np.asarray(vertices_m, dtype=np.float64)
    if v.shape[0] <= 3:
        return [v]
    d = np.roll(v, -1, axis=0) - v
    if np.all(_cross(d, np.roll(d, -1, axis=0)) > 0.0):
        return [v]
    idx = list(range(v.shape[0]))
    out: list[np.ndarray] = []
    while len(idx) > 3:
        m = len(idx)
        for c in range(m):
            i0, i1, i2 = idx[c - 1], idx[c], idx[(c + 1) % m]
            p0, p1, p2 = v[i0], v[i1], v[i2]
            if _cross(p1 - p0, p2 - p1) <= EPS:
                continue  # reflex or flat corner: not an ear
            tri = np.array([p0, p1, p2])
            others = v[[j for j in idx if j not in (i0, i1, i2)]]
            if others.size and np.any(_in_triangle(tri, others)):
                continue
            out.append(tri)
            idx.pop(c)
            break
        else:
            # no ear within the tolerance (collinear runs): drop the flattest corner, whose
            # triangle has (nearly) no area
            turn = [abs(float(_cross(v[idx[c]] - v[idx[c - 1]], v[idx[(c + 1) % m]] - v[idx[c]])))
                    for c in range(m)]
            idx.pop(int(np.argmin(turn)))
    out.append(v[idx])
    return out


def _in_triangle(tri: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(M,) True for points inside or on a CCW triangle."""
    e = np.roll(tri, -1, axis=0) - tri
    side = _cross(e[None], p[:, None, :] - tri[None])
    return np.all(side >= -EPS, axis=1)
