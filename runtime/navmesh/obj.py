"""Wavefront OBJ import of a walkable surface (what Recast, Blender and game engines export).

``v x y z`` vertices and ``f a b c ...`` faces (``a/t/n`` forms, negative indices) are read;
other statements are ignored. ``up_axis`` names the height axis: "z" maps (x, y, z) to plan
(x, y) and height z; "y" maps (x, y, z) to plan (x, -z) and height y (a right-handed y-up file
seen from above). Faces must be planar; adjacent faces on one plane (same gradient and height)
become one patch, and each patch's gradient comes from its vertex heights (k of V1). Faces in
one ``g``/``o`` group claim one patch: a face off that group's plane is an error.
Claim: V1, C1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from navproof.navmesh.build import PlanPatch
from navproof.navmesh.mesh import MeshError

PLANE_TOL_M = 1e-6
"""A vertex farther than this (m, vertically) from its face's plane makes the face non-planar."""


def _plane(p: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Gradient (2,) and height at the origin of the plane h = h0 + g . x through the plan
    points with heights ``p`` (F, 3); None for a vertical or degenerate face."""
    a = np.column_stack([p[:, :2], np.ones(p.shape[0])])
    sol, _, rank, _ = np.linalg.lstsq(a, p[:, 2], rcond=None)
    if rank < 3:
        return None
    return sol[:2], float(sol[2])


def read_obj(path: str | Path, *, up_axis: str = "z", key: str = "navmesh.obj"
             ) -> list[PlanPatch]:
    """The planar patches of an OBJ file; MeshError naming the file and line on any defect.
    Claim: V1."""
    import shapely

    if up_axis not in ("y", "z"):
        raise MeshError(f"{key}.up_axis", up_axis, "must be 'y' or 'z'")
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise MeshError(key, str(path), f"cannot be read: {exc}") from None
    verts: list[tuple[float, float, float]] = []
    faces: list[tuple[int, list[int], str]] = []
    group = ""
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        where = f"{path}:{number}"
        if parts[0] == "v":
            try:
                xyz = [float(s) for s in parts[1:4]]
            except ValueError:
                xyz = []
            if len(xyz) != 3 or not all(np.isfinite(xyz)):
                raise MeshError(where, raw, "a vertex needs three finite numbers: v x y z")
            x, y, z = xyz
            verts.append((x, y, z) if up_axis == "z" else (x, -z, y))
        elif parts[0] == "f":
            idx = []
            for tok in parts[1:]:
                try:
                    i = int(tok.split("/", 1)[0])
                except ValueError:
                    raise MeshError(where, raw, f"face index {tok!r} is not a whole number") \
                        from None
                i = i - 1 if i > 0 else len(verts) + i
                if i < 0 or i >= len(verts) or int(tok.split("/", 1)[0]) == 0:
                    raise MeshError(where, raw, f"face index {tok!r} names no vertex defined "
                                                "before it")
                idx.append(i)
            if len(idx) < 3:
                raise MeshError(where, raw, "a face needs at least 3 vertices")
            faces.append((number, idx, group))
        elif parts[0] in ("g", "o"):
            group = " ".join(parts[1:])
    if not faces:
        raise MeshError(key, str(path), "has no faces")
    v = np.asarray(verts, dtype=np.float64)
    planes = []
    for number, idx, _ in faces:
        p = v[idx]
        plane = _plane(p)
        if plane is None:
            raise MeshError(f"{path}:{number}", idx, "face is vertical or degenerate in plan")
        g, h0 = np.round(plane[0], 12) + 0.0, round(plane[1], 12)
        err = np.abs(h0 + p[:, :2] @ g - p[:, 2]).max()
        if err > PLANE_TOL_M:
            raise MeshError(f"{path}:{number}", p.tolist(), f"non-planar face claims one patch "
                            f"(a vertex is {err:.3g} m off the face's plane)")
        poly = shapely.Polygon(p[:, :2])
        if not poly.is_valid or poly.area <= 1e-12:
            raise MeshError(f"{path}:{number}", p[:, :2].tolist(),
                            "face is self-intersecting or has zero area in plan")
        planes.append((g, h0))
    # patches: faces joined by shared edges (or one named group) on the same plane
    parent = list(range(len(faces)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def same_plane(a: int, b: int) -> bool:
        return bool(np.allclose(planes[a][0], planes[b][0], atol=1e-9)
                    and abs(planes[a][1] - planes[b][1]) <= PLANE_TOL_M)

    by_edge: dict[tuple[int, int], int] = {}
    for f, (_, idx, _) in enumerate(faces):
        for j in range(len(idx)):
            e = (min(idx[j], idx[(j + 1) % len(idx)]), max(idx[j], idx[(j + 1) % len(idx)]))
            other = by_edge.setdefault(e, f)
            if other != f and same_plane(f, other):
                parent[find(f)] = find(other)
    named: dict[str, int] = {}
    for f, (number, _, grp) in enumerate(faces):
        if not grp:
            continue
        first = named.setdefault(grp, f)
        if first != f:
            if not same_plane(f, first):
                raise MeshError(f"{path}:{number}", grp, f"non-planar face claims one patch: "
                                f"off the plane of group {grp!r} (face on line "
                                f"{faces[first][0]})")
            parent[find(f)] = find(first)
    roots = sorted({find(f) for f in range(len(faces))})
    out: list[PlanPatch] = []
    for r in roots:
        members = [f for f in range(len(faces)) if find(f) == r]
        area = shapely.union_all([shapely.Polygon(v[faces[f][1]][:, :2]) for f in members])
        g, h0 = planes[r]
        out.append(PlanPatch(f"{path.name}:patch{len(out)}", area, np.asarray(g, float), h0))
    return out
