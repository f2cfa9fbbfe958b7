"""Building a navigation mesh from level geometry: walkable planar patches minus holes, eroded
by the body radius (C2), triangulated with constraints, merged into convex polygons per patch
(C1). Claim: C1, C2.

Geometry uses shapely (GEOS): validity, the difference with the holes, the erosion
``buffer(-r)`` and the constrained Delaunay triangulation (``constrained_delaunay_triangles``,
GEOS 3.10+). Round erosion joins are approximated by chords; the erosion distance is enlarged
by ``1 / cos(pi / (4 quad_segs))`` so that every chord stays at least ``r`` from the walls
(conservative: the eroded mesh is inside the exact one).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from navproof.navmesh.merge import merge_convex
from navproof.navmesh.mesh import MeshError, NavMesh, build_mesh

QUAD_SEGS = 4
"""Chords per quarter circle of a rounded erosion corner."""
CHORD_FACTOR = 1.0 / math.cos(math.pi / (4 * QUAD_SEGS))
"""Erosion distance / body radius: the chords of a rounded corner keep the full radius."""
GRID_DECIMALS = 9
"""Vertex coordinates are welded on this many decimals (m)."""


@dataclass(frozen=True)
class PlanPatch:
    """A planar walkable patch in plan: its shapely polygon, height gradient (dh/dx, dh/dy)
    and height at the origin (m); ``name`` for errors. Claim: V1."""

    name: str
    area: Any  # a shapely geometry
    gradient: np.ndarray
    height0_m: float
    cost: float = 1.0


def check_polygon(key: str, points: object) -> Any:
    """A valid shapely polygon of ``points`` ((P, 2), either orientation); MeshError naming
    ``key`` for self-intersections or zero area."""
    import shapely

    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[1] != 2 or pts.shape[0] < 3 or not np.all(np.isfinite(pts)):
        raise MeshError(key, np.asarray(points).tolist(), "must be at least 3 finite points "
                                                          "[x, y]")
    poly = shapely.Polygon(pts)
    if not poly.is_valid:
        raise MeshError(key, pts.tolist(), "must be a simple polygon (" +
                        shapely.is_valid_reason(poly) + ")")
    if poly.area <= 1e-12:
        raise MeshError(key, pts.tolist(), "has zero area")
    return shapely.geometry.polygon.orient(poly, 1.0)


def walkable_area(walkable: object, holes: Sequence[object], *, key: str = "navmesh"
                  ) -> Any:
    """The walkable polygon minus the union of the holes (holes may touch the boundary and
    overlap each other); MeshError for a hole entirely outside the walkable polygon."""
    import shapely

    outer = check_polygon(f"{key}.walkable", walkable)
    hs = [check_polygon(f"{key}.holes[{i}]", h) for i, h in enumerate(holes)]
    for i, h in enumerate(hs):
        if not outer.intersects(h) or outer.intersection(h).area <= 1e-12:
            raise MeshError(f"{key}.holes[{i}]", np.asarray(holes[i]).tolist(),
                            "lies entirely outside the walkable polygon")
    if not hs:
        return outer
    return outer.difference(shapely.union_all(hs))


def eroded_mesh(patches: list[PlanPatch], radius_m: float, *, key: str = "navmesh",
                holes: object = None) -> NavMesh:
    """The navigation mesh of bodies of radius ``radius_m``: the union of the patches (minus
    ``holes``), eroded, triangulated per patch with shared vertices on patch borders, merged
    into convex polygons within each patch. Claim: C1, C2."""
    import shapely

    if not (radius_m >= 0.0 and math.isfinite(radius_m)):
        raise MeshError(f"{key}.radius_m", radius_m, "must be finite and >= 0")
    union = shapely.union_all([p.area for p in patches])
    if holes is not None:
        union = union.difference(holes)
    eroded = union.buffer(-radius_m * CHORD_FACTOR, quad_segs=QUAD_SEGS) if radius_m > 0 \
        else union
    eroded = shapely.set_precision(eroded, 10.0 ** -GRID_DECIMALS)
    if eroded.is_empty or eroded.area <= 1e-12:
        raise MeshError(f"{key}.radius_m", radius_m, "erodes the whole walkable area away "
                                                      "(nothing is wide enough for the body)")
    # pieces of every patch, noded together so that neighbouring pieces share border vertices
    pieces = [shapely.set_precision(p.area.intersection(eroded), 10.0 ** -GRID_DECIMALS)
              for p in patches]
    lines = shapely.union_all([shapely.boundary(g) for g in pieces if not g.is_empty])
    faces = list(shapely.polygonize(shapely.get_parts(lines)).geoms)
    verts: dict[tuple[float, float], int] = {}
    tris: list[list[int]] = []
    group: list[int] = []
    for face in faces:
        rep = face.representative_point()
        owner = next((i for i, g in enumerate(pieces) if g.covers(rep)), None)
        if owner is None or not eroded.covers(rep):
            continue  # a hole of the walkable area
        face = shapely.geometry.polygon.orient(face, 1.0)
        for tri in shapely.get_parts(shapely.constrained_delaunay_triangles(face)):
            coords = np.asarray(tri.exterior.coords)[:3]
            ids = []
            for x, y in np.round(coords, GRID_DECIMALS):
                ids.append(verts.setdefault((float(x), float(y)), len(verts)))
            a, b, c = (np.array(k) for k in ((coords[0]), (coords[1]), (coords[2])))
            area2 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
            if abs(area2) <= 1e-14:
                continue
            if area2 < 0:
                ids = [ids[0], ids[2], ids[1]]
            tris.append(ids)
            group.append(owner)
    v = np.array(list(verts.keys()), dtype=np.float64).reshape(-1, 2)
    polys, grp = merge_convex(v, tris, np.asarray(group, np.int64))
    grad = np.array([patches[g].gradient for g in grp], dtype=np.float64).reshape(-1, 2)
    h0 = np.array([patches[g].height0_m for g in grp], dtype=np.float64)
    cost = np.array([patches[g].cost for g in grp], dtype=np.float64)
    return build_mesh(v, [np.asarray(p) for p in polys], gradient=grad, height0_m=h0,
                      cost=cost, patch=grp, source=key)


def mesh_from_outline(walkable: object, holes: list[object] | None = None, *,
                      radius_m: float = 0.0, key: str = "navmesh") -> NavMesh:
    """Flat mesh of a walkable outer polygon with holes, eroded by ``radius_m``. Claim: C2."""
    area = walkable_area(walkable, list(holes or []), key=key)
    return eroded_mesh([PlanPatch("walkable", area, np.zeros(2), 0.0)], radius_m, key=key)


class MeshCache:
    """One eroded mesh per distinct body radius, built once from the same geometry."""

    def __init__(self, patches: list[PlanPatch], *, key: str = "navmesh") -> None:
        self.patches = patches
        self.key = key
        self._meshes: dict[float, NavMesh] = {}

    def mesh(self, radius_m: float) -> NavMesh:
        """The mesh eroded by ``radius_m`` (built on first use)."""
        r = float(radius_m)
        if r not in self._meshes:
            self._meshes[r] = eroded_mesh(self.patches, r, key=self.key)
        return self._meshes[r]

    @property
    def uneroded(self) -> NavMesh:
        """The walkable area itself (radius 0): tells a radius that separates two points from
        points that were never connected."""
        return self.mesh(0.0)
