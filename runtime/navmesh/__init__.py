"""Navigation meshes: convex polygons with portals, built from level geometry or OBJ files,
eroded per body radius, with A* corridors and funnel routes. Claim: C1, C2, C4, C5."""

from navproof.navmesh.build import (
    MeshCache,
    PlanPatch,
    check_polygon,
    eroded_mesh,
    mesh_from_outline,
    walkable_area,
)
from navproof.navmesh.merge import merge_convex, merge_pair
from navproof.navmesh.mesh import LOCATE_TOL_M, MeshError, NavMesh, build_mesh
from navproof.navmesh.obj import read_obj
from navproof.navmesh.route import NoRoute, Route, Router, funnel

__all__ = [
    "LOCATE_TOL_M",
    "MeshCache",
    "MeshError",
    "NavMesh",
    "NoRoute",
    "PlanPatch",
    "Route",
    "Router",
    "build_mesh",
    "check_polygon",
    "eroded_mesh",
    "funnel",
    "merge_convex",
    "merge_pair",
    "mesh_from_outline",
    "read_obj",
    "walkable_area",
]
