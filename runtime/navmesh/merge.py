"""Merging triangles into convex polygons (Hertel-Mehlhorn): remove a shared edge whenever the
union of its two polygons stays strictly convex, and never across a change of gradient or
patch. Claim: C1.

A merge joins polygon ``a`` (running u -> v along the shared edge) and ``b`` (running v -> u):
the merged vertex cycle is a from v round to u followed by b's vertices strictly between u and
v. Every vertex of either polygon is kept and only the two corners at u and v change, so the
union is convex exactly when those two corners turn left.
"""

from __future__ import annotations

import numpy as np

CONVEX_TOL = 1e-12
"""A merged corner must turn left by more than this (relative cross product): no straight or
reflex corner, so every edge of a merged polygon is an edge of one of its pieces."""


def _turn(v: np.ndarray, a: int, b: int, c: int) -> float:
    d1 = v[b] - v[a]
    d2 = v[c] - v[b]
    scale = float(np.hypot(*d1) * np.hypot(*d2)) or 1.0
    return float(d1[0] * d2[1] - d1[1] * d2[0]) / scale


def merge_pair(v: np.ndarray, a: list[int], b: list[int], u: int, w: int) -> list[int] | None:
    """The merged vertex cycle of CCW polygons ``a`` (containing edge u -> w) and ``b``
    (containing w -> u), or None when the union is not strictly convex. Claim: C1."""
    ia = a.index(u)
    if a[(ia + 1) % len(a)] != w:
        return None
    ib = b.index(w)
    if b[(ib + 1) % len(b)] != u:
        return None
    a_rot = a[ia + 1:] + a[:ia + 1]          # w ... u
    b_rot = b[ib + 1:] + b[:ib + 1]          # u ... w
    merged = a_rot + b_rot[1:-1]
    # corners at u (end of a_rot) and w (start of a_rot)
    iu = len(a_rot) - 1
    m = len(merged)
    if _turn(v, merged[iu - 1], merged[iu], merged[(iu + 1) % m]) <= CONVEX_TOL:
        return None
    if _turn(v, merged[-1], merged[0], merged[1]) <= CONVEX_TOL:
        return None
    return merged


def merge_convex(v: np.ndarray, polygons: list[list[int]], group: np.ndarray, *,
                 max_vertices: int = 12) -> tuple[list[list[int]], np.ndarray]:
    """Hertel-Mehlhorn merge of CCW convex polygons (vertex-index cycles over ``v``) whose
    ``group`` (patch / gradient id) is equal; longest shared edges first. Returns the merged
    polygons and their groups. Claim: C1."""
    polys: list[list[int] | None] = [list(p) for p in polygons]
    owner: dict[tuple[int, int], int] = {}
    for i, p in enumerate(polygons):
        for j in range(len(p)):
            owner[(p[j], p[(j + 1) % len(p)])] = i
    shared = [(a, b) for (a, b) in owner if (b, a) in owner and a < b]
    shared.sort(key=lambda e: -float(np.hypot(*(v[e[0]] - v[e[1]]))))
    for a, b in shared:
        pa, pb = owner.get((a, b)), owner.get((b, a))
        if pa is None or pb is None or pa == pb or group[pa] != group[pb]:
            continue
        poly_a, poly_b = polys[pa], polys[pb]
        if poly_a is None or poly_b is None:
            continue
        if len(poly_a) + len(poly_b) - 2 > max_vertices:
            continue
        merged = merge_pair(v, poly_a, poly_b, a, b)
        if merged is None:
            continue
        polys[pa] = merged
        polys[pb] = None
        del owner[(a, b)], owner[(b, a)]
        for j in range(len(merged)):
            owner[(merged[j], merged[(j + 1) % len(merged)])] = pa
    keep = [i for i, p in enumerate(polys) if p is not None]
    return [polys[i] for i in keep], np.asarray(group)[keep]  # type: ignore[misc]
