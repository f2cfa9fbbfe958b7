"""The navigation mesh: convex CCW polygons over shared vertices, shared edges as portals, a
height gradient (the planar patch of V1) and an area cost per polygon, islands, and point
location of many points at once. Claim: C1, C2, C4.

Edge ``j`` of polygon ``p`` runs from its vertex ``j`` to vertex ``j + 1``; ``neighbor[p, j]``
is the polygon across it (a portal) or -1 (a wall). Polygons are already eroded by the body
radius (C2): their edges are centre-space boundaries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.core.jit import compiled_loop
from navproof.core.tolerances import EPS

LOCATE_TOL_M = 1e-7
"""A point this close (m) outside a polygon's edge still counts as in it (point location)."""


class MeshError(InvalidInput):
    """A mesh (or its source geometry) breaks a rule; names the part, the value and the rule."""


@dataclass(frozen=True)
class NavMesh:
    """Convex CCW polygons over ``vertices_m`` (V, 2), padded per polygon to K corners.

    ``poly_vertex`` (P, K) vertex indices (-1 padding), ``poly_count`` (P,), ``neighbor`` (P, K)
    polygon across each edge (-1: wall), ``gradient`` (P, 2) dh/dx, dh/dy of each polygon's
    plane, ``height0_m`` (P,) its height at the origin, ``cost`` (P,) area cost (>= 1, the
    factor on distance in A*), ``island`` (P,) connected component, ``patch`` (P,) planar patch
    id, half-plane tables ``normal`` (P, K, 2) and ``offset_m`` (P, K). Claim: C1, C2.
    """

    vertices_m: np.ndarray
    poly_vertex: np.ndarray
    poly_count: np.ndarray
    neighbor: np.ndarray
    gradient: np.ndarray
    height0_m: np.ndarray
    cost: np.ndarray
    island: np.ndarray
    patch: np.ndarray
    normal: np.ndarray
    offset_m: np.ndarray
    centroid_m: np.ndarray
    grid_origin_m: np.ndarray
    grid_cell_m: float
    grid_shape: tuple[int, int]
    grid_start: np.ndarray
    grid_poly: np.ndarray

    @property
    def count(self) -> int:
        return int(self.poly_count.shape[0])

    def polygon(self, p: int) -> np.ndarray:
        """Vertices (k, 2) of polygon ``p`` (CCW)."""
        return self.vertices_m[self.poly_vertex[p, : self.poly_count[p]]]

    def portal(self, p: int, j: int) -> tuple[np.ndarray, np.ndarray]:
        """End points (a, b) of edge j of polygon p (a -> b runs CCW around p)."""
        k = int(self.poly_count[p])
        return (self.vertices_m[self.poly_vertex[p, j]],
                self.vertices_m[self.poly_vertex[p, (j + 1) % k]])

    def locate(self, x_m: np.ndarray, tol_m: float = LOCATE_TOL_M) -> np.ndarray:
        """Index (N,) of a polygon containing each point (within ``tol_m``), -1 off the mesh.

        One compiled pass over the points: the grid cell's candidate polygons, then their
        half-planes. Claim: C4.
        """
        x = np.ascontiguousarray(np.asarray(x_m, dtype=np.float64).reshape(-1, 2))
        return _locate(x, self.grid_origin_m, self.grid_cell_m, self.grid_shape[0],
                       self.grid_shape[1], self.grid_start, self.grid_poly, self.normal,
                       self.offset_m, self.poly_count, tol_m)

    def distance_outside_m(self, x_m: np.ndarray) -> np.ndarray:
        """Distance (m, (N,)) from each point to the mesh (0 inside)."""
        import shapely

        x = np.asarray(x_m, dtype=np.float64).reshape(-1, 2)
        area = shapely.union_all([shapely.Polygon(self.polygon(p)) for p in range(self.count)])
        return shapely.distance(area, shapely.points(x))

    def height_m(self, p: np.ndarray, x_m: np.ndarray) -> np.ndarray:
        """Height (m, (N,)) of points on polygons ``p`` (their planes)."""
        return self.height0_m[p] + np.einsum("nj,nj->n", self.gradient[p], x_m)


def _polygon_halfplanes(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from navproof.boundary.patches import polygon_halfplanes

    return polygon_halfplanes(v)


def build_mesh(vertices_m: np.ndarray, polygons: list[np.ndarray], *,
               gradient: np.ndarray | None = None, height0_m: np.ndarray | None = None,
               cost: np.ndarray | None = None, patch: np.ndarray | None = None,
               source: str = "mesh") -> NavMesh:
    """A validated :class:`NavMesh` from shared vertices and polygon vertex-index lists.

    Rules (MeshError naming the polygon): every polygon strictly convex CCW, no edge shared by
    more than two polygons, two polygons sharing an edge run it in opposite directions, and no
    T-junction (a vertex strictly inside another polygon's unshared edge). Claim: C1.
    """
    v = np.asarray(vertices_m, dtype=np.float64).reshape(-1, 2)
    n_poly = len(polygons)
    if n_poly == 0:
        raise MeshError(f"{source}.polygons", 0, "the mesh needs at least one polygon")
    k = max(len(p) for p in polygons)
    pv = np.full((n_poly, k), -1, np.int64)
    count = np.zeros(n_poly, np.int64)
    for i, poly in enumerate(polygons):
        idx = np.asarray(poly, np.int64)
        pts = v[idx]
        d = np.roll(pts, -1, axis=0) - pts
        turn = d[:, 0] * np.roll(d, -1, axis=0)[:, 1] - d[:, 1] * np.roll(d, -1, axis=0)[:, 0]
        if idx.size < 3 or np.any(np.hypot(d[:, 0], d[:, 1]) <= EPS) or np.any(turn <= 0.0):
            raise MeshError(f"{source}.polygons[{i}]", pts.tolist(),
                            "must be a strictly convex counter-clockwise polygon")
        pv[i, : idx.size] = idx
        count[i] = idx.size
    neighbor = np.full((n_poly, k), -1, np.int64)
    edges: dict[tuple[int, int], tuple[int, int]] = {}
    for i in range(n_poly):
        c = int(count[i])
        for j in range(c):
            a, b = int(pv[i, j]), int(pv[i, (j + 1) % c])
            if (a, b) in edges:
                raise MeshError(f"{source}.polygons[{i}]", [a, b], "edge already used in the "
                                f"same direction by polygon {edges[(a, b)][0]} (overlap or "
                                f"wrong winding)")
            edges[(a, b)] = (i, j)
    for (a, b), (i, j) in edges.items():
        other = edges.get((b, a))
        if other is not None:
            neighbor[i, j] = other[0]
    _check_t_junctions(v, pv, count, neighbor, source)
    normal = np.zeros((n_poly, k, 2))
    offset = np.full((n_poly, k), np.inf)
    centroid = np.zeros((n_poly, 2))
    for i in range(n_poly):
        pts = v[pv[i, : count[i]]]
        nn, bb = _polygon_halfplanes(pts)
        normal[i, : count[i]], offset[i, : count[i]] = nn, bb
        centroid[i] = pts.mean(axis=0)
    grad = np.zeros((n_poly, 2)) if gradient is None else np.asarray(gradient, float)
    h0 = np.zeros(n_poly) if height0_m is None else np.asarray(height0_m, float)
    cst = np.ones(n_poly) if cost is None else np.asarray(cost, float)
    if np.any(~np.isfinite(cst) | (cst < 1.0)):
        i = int(np.flatnonzero(~np.isfinite(cst) | (cst < 1.0))[0])
        raise MeshError(f"{source}.cost[{i}]", float(cst[i]), "an area cost must be >= 1")
    island = _islands(neighbor)
    pat = island.copy() if patch is None else np.asarray(patch, np.int64)
    origin, cell, shape, start, cand = _grid(v, pv, count)
    return NavMesh(v, pv, count, neighbor, grad, h0, cst, island, pat, normal, offset, centroid,
                   origin, cell, shape, start, cand)


def _check_t_junctions(v: np.ndarray, pv: np.ndarray, count: np.ndarray,
                       neighbor: np.ndarray, source: str) -> None:
    """MeshError when a mesh vertex lies strictly inside an unshared edge (a T-junction: the
    two polygons touch along a segment but share no portal). Claim: C1."""
    rows, cols = np.nonzero((neighbor < 0) & (np.arange(pv.shape[1])[None] < count[:, None]))
    if rows.size == 0:
        return
    a = v[pv[rows, cols]]
    b = v[pv[rows, (cols + 1) % count[rows]]]
    used = np.unique(pv[pv >= 0])
    pts = v[used]
    chunk = max(1, 2_000_000 // max(1, pts.shape[0]))
    for s in range(0, rows.size, chunk):
        aa, bb = a[s:s + chunk], b[s:s + chunk]
        ab = bb - aa
        length2 = np.maximum((ab * ab).sum(axis=1), EPS)
        ap = pts[None] - aa[:, None]
        t = (ap[..., 0] * ab[:, None, 0] + ap[..., 1] * ab[:, None, 1]) / length2[:, None]
        cross = ap[..., 0] * ab[:, None, 1] - ap[..., 1] * ab[:, None, 0]
        tol = 1e-9 * np.sqrt(length2)[:, None] * (1.0 + np.abs(pts).max())
        hit = (t > 1e-9) & (t < 1.0 - 1e-9) & (np.abs(cross) <= tol * np.sqrt(length2)[:, None])
        if hit.any():
            e, q = np.argwhere(hit)[0]
            i = int(rows[s + e])
            raise MeshError(f"{source}.polygons[{i}]", pts[q].tolist(),
                            "T-junction: this vertex lies inside the polygon's unshared edge "
                            f"{aa[e].tolist()}-{bb[e].tolist()}; split the edge so both "
                            "polygons share it")


def _islands(neighbor: np.ndarray) -> np.ndarray:
    """Connected component (P,) of every polygon over its portals."""
    n = neighbor.shape[0]
    label = np.full(n, -1, np.int64)
    current = 0
    for seed in range(n):
        if label[seed] >= 0:
            continue
        stack = [seed]
        label[seed] = current
        while stack:
            p = stack.pop()
            for q in neighbor[p]:
                if q >= 0 and label[q] < 0:
                    label[q] = current
                    stack.append(int(q))
        current += 1
    return label


def _grid(v: np.ndarray, pv: np.ndarray, count: np.ndarray
          ) -> tuple[np.ndarray, float, tuple[int, int], np.ndarray, np.ndarray]:
    """A uniform grid over the mesh: for every cell the polygons whose bounding box meets it
    (CSR: ``start`` (cells + 1,), ``poly``)."""
    n = count.shape[0]
    lo = np.full((n, 2), np.inf)
    hi = np.full((n, 2), -np.inf)
    for j in range(pv.shape[1]):
        on = j < count
        pts = v[np.where(on, pv[:, j], 0)]
        lo = np.where(on[:, None], np.minimum(lo, pts), lo)
        hi = np.where(on[:, None], np.maximum(hi, pts), hi)
    origin = lo.min(axis=0)
    extent = np.maximum(hi.max(axis=0) - origin, EPS)
    cell = float(max(np.sqrt(extent[0] * extent[1] / n), np.median(hi - lo), EPS))
    shape = (int(extent[0] // cell) + 1, int(extent[1] // cell) + 1)
    i0 = np.clip(((lo - origin) // cell).astype(np.int64), 0, None)
    i1 = np.minimum(((hi - origin) // cell).astype(np.int64), np.array(shape) - 1)
    cells, polys = [], []
    for p in range(n):
        gx, gy = np.meshgrid(np.arange(i0[p, 0], i1[p, 0] + 1), np.arange(i0[p, 1], i1[p, 1] + 1))
        ids = (gx * shape[1] + gy).ravel()
        cells.append(ids)
        polys.append(np.full(ids.size, p, np.int64))
    c = np.concatenate(cells)
    q = np.concatenate(polys)
    order = np.argsort(c, kind="stable")
    start = np.searchsorted(c[order], np.arange(shape[0] * shape[1] + 1))
    return origin, cell, shape, start.astype(np.int64), q[order]


@compiled_loop
def _locate(x, origin, cell, nx, ny, start, cand, normal, offset, count, tol):  # noqa: ANN001
    n = x.shape[0]
    out = np.full(n, -1, np.int64)
    for i in range(n):
        cx = int(np.floor((x[i, 0] - origin[0]) / cell))
        cy = int(np.floor((x[i, 1] - origin[1]) / cell))
        if cx < 0 or cy < 0 or cx >= nx or cy >= ny:
            # points within tol of the outer edge still reach the border cells
            cx = min(max(cx, 0), nx - 1)
            cy = min(max(cy, 0), ny - 1)
        c = cx * ny + cy
        for s in range(start[c], start[c + 1]):
            p = cand[s]
            inside = True
            for j in range(count[p]):
                if normal[p, j, 0] * x[i, 0] + normal[p, j, 1] * x[i, 1] > offset[p, j] + tol:
                    inside = False
                    break
            if inside:
                out[i] = p
                break
    return out
