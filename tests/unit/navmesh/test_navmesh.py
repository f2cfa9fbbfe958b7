"""Navigation meshes: building, merging, point location, routes and bad input. Claim: C1, C2, C4, C5."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from navproof.navmesh import (
    MeshCache,
    MeshError,
    NoRoute,
    PlanPatch,
    Router,
    build_mesh,
    eroded_mesh,
    merge_pair,
    mesh_from_outline,
    read_obj,
    walkable_area,
)
from navproof.navmesh.build import CHORD_FACTOR, QUAD_SEGS

ROOM = [[-2.0, -6.0], [12.0, -6.0], [12.0, 6.0], [-2.0, 6.0]]
CUP = [[1.0, 2.0], [3.4, 2.0], [3.4, -2.0], [1.0, -2.0], [1.0, -2.4], [3.8, -2.4], [3.8, 2.4],
       [1.0, 2.4]]
MAZE_HOLES = [
    [[2.0, -6.0], [2.5, -6.0], [2.5, 3.0], [2.0, 3.0]],
    [[5.0, -3.0], [5.5, -3.0], [5.5, 6.0], [5.0, 6.0]],
    [[8.0, -6.0], [8.5, -6.0], [8.5, 3.0], [8.0, 3.0]],
]


@pytest.fixture(scope="module")
def cup_mesh():
    return mesh_from_outline(ROOM, [CUP], radius_m=0.4)


@pytest.fixture(scope="module")
def maze_mesh():
    return mesh_from_outline(ROOM, MAZE_HOLES, radius_m=0.3)


def _area(mesh):
    return shapely.union_all([shapely.Polygon(mesh.polygon(p)) for p in range(mesh.count)])


def test_mesh_polygons_are_convex_ccw_and_cover_the_eroded_area(cup_mesh):
    area = walkable_area(ROOM, [CUP])
    exact = area.buffer(-0.4 * CHORD_FACTOR, quad_segs=QUAD_SEGS)
    union = _area(cup_mesh)
    assert abs(union.area - exact.area) <= 1e-6 * exact.area
    # every polygon is inside the exact erosion (the body keeps its radius from every wall)
    assert union.difference(area.buffer(-0.4 + 1e-9)).area <= 1e-9
    for p in range(cup_mesh.count):
        v = cup_mesh.polygon(p)
        d = np.roll(v, -1, axis=0) - v
        turn = d[:, 0] * np.roll(d, -1, axis=0)[:, 1] - d[:, 1] * np.roll(d, -1, axis=0)[:, 0]
        assert np.all(turn > 0.0)
    # merging reduced the triangles to fewer convex pieces
    assert cup_mesh.poly_count.max() > 3


def test_portals_are_shared_both_ways(cup_mesh):
    m = cup_mesh
    for p in range(m.count):
        for j in range(m.poly_count[p]):
            q = m.neighbor[p, j]
            if q < 0:
                continue
            a, b = m.portal(p, j)
            back = [k for k in range(m.poly_count[q]) if m.neighbor[q, k] == p]
            assert back
            qa, qb = m.portal(q, back[0])
            assert np.allclose(a, qb) and np.allclose(b, qa)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_point_location_agrees_with_shapely(maze_mesh, seed):
    rng = np.random.default_rng(seed)
    pts = rng.uniform([-3.0, -7.0], [13.0, 7.0], size=(400, 2))
    found = maze_mesh.locate(pts, tol_m=0.0)
    area = _area(maze_mesh)
    inside = shapely.contains_xy(area, pts[:, 0], pts[:, 1])
    boundary = shapely.distance(area.boundary, shapely.points(pts)) <= 1e-9
    ok = (found >= 0) == inside
    assert np.all(ok | boundary)
    hit = found >= 0
    for i in np.flatnonzero(hit):
        assert shapely.Polygon(maze_mesh.polygon(found[i])).buffer(1e-9).contains(
            shapely.Point(pts[i]))


def _corridor_area(mesh, corridor):
    return shapely.union_all([shapely.Polygon(mesh.polygon(p)) for p in corridor])


def _portals(mesh, corridor):
    out = []
    for p, q in zip(corridor[:-1], corridor[1:], strict=True):
        j = int(np.flatnonzero(mesh.neighbor[p, : mesh.poly_count[p]] == q)[0])
        out.append(mesh.portal(p, j))
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_route_corners_in_corridor_and_shortest(maze_mesh, seed):
    rng = np.random.default_rng(seed)
    router = Router(maze_mesh)
    area = _area(maze_mesh)
    pts = []
    while len(pts) < 2:
        x = rng.uniform([-2.0, -6.0], [12.0, 6.0])
        if maze_mesh.locate(x[None])[0] >= 0:
            pts.append(x)
    route = router.route(pts[0], pts[1])
    corridor_area = _corridor_area(maze_mesh, route.corridor)
    corners = shapely.points(route.corners_m)
    assert np.all(shapely.distance(corridor_area, corners) <= 1e-7)
    # the polyline itself stays inside the corridor
    if route.corners_m.shape[0] > 1:
        line = shapely.LineString(route.corners_m)
        assert corridor_area.buffer(1e-7).covers(line)
        assert area.buffer(1e-7).covers(line)
    assert np.allclose(route.corners_m[0], pts[0]) and np.allclose(route.corners_m[-1], pts[1])
    length = float(np.sum(np.hypot(*np.diff(route.corners_m, axis=0).T)))
    assert route.length_m == pytest.approx(length)
    # no polyline through the corridor's portals is shorter
    portals = _portals(maze_mesh, route.corridor)
    for _ in range(20):
        way = [pts[0]]
        for a, b in portals:
            t = rng.uniform()
            way.append(a + t * (b - a))
        way.append(pts[1])
        other = float(np.sum(np.hypot(*np.diff(np.array(way), axis=0).T)))
        assert route.length_m <= other + 1e-9


def test_route_corners_are_mesh_vertices(cup_mesh):
    route = Router(cup_mesh).route([2.0, 0.0], [8.0, 0.0])
    inner = route.corners_m[1:-1]
    assert inner.shape[0] >= 1
    d = np.hypot(*(inner[:, None, :] - cup_mesh.vertices_m[None]).transpose(2, 0, 1))
    assert np.all(d.min(axis=1) <= 1e-12)
    # the cup forces a detour: longer than the straight 6 m
    assert route.length_m > 6.0


def test_straight_route_in_open_room():
    mesh = mesh_from_outline(ROOM, [], radius_m=0.5)
    route = Router(mesh).route([0.0, 0.0], [10.0, 3.0])
    assert route.corners_m.shape[0] == 2
    assert route.length_m == pytest.approx(np.hypot(10.0, 3.0))


def test_goal_off_mesh_says_how_far(cup_mesh):
    with pytest.raises(NoRoute, match=r"goal outside the eroded mesh \(0\.60"):
        Router(cup_mesh).route([0.0, 0.0], [2.0, 2.2 + 0.0])


def test_goal_on_another_island():
    holes = [[[4.0, -7.0], [5.0, -7.0], [5.0, 7.0], [4.0, 7.0]]]
    mesh = mesh_from_outline(ROOM, holes, radius_m=0.3)
    with pytest.raises(NoRoute, match="goal on another island"):
        Router(mesh).route([0.0, 0.0], [8.0, 0.0], who="agent 3")
    with pytest.raises(NoRoute, match="no route for agent 3"):
        Router(mesh).route([0.0, 0.0], [8.0, 0.0], who="agent 3")


def test_each_radius_its_own_mesh_built_once():
    area = walkable_area(ROOM, [CUP])
    cache = MeshCache([PlanPatch("floor", area, np.zeros(2), 0.0)])
    a = cache.mesh(0.3)
    assert cache.mesh(0.3) is a
    b = cache.mesh(0.6)
    assert _area(b).area < _area(a).area


@pytest.mark.parametrize(("walkable", "holes", "match"), [
    (ROOM, [[[20.0, 20.0], [21.0, 20.0], [21.0, 21.0]]], r"holes\[0\].*entirely outside"),
    ([[0.0, 0.0], [4.0, 4.0], [4.0, 0.0], [0.0, 4.0]], [], r"walkable.*simple polygon"),
    ([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], [], r"walkable.*(zero area|simple polygon)"),
    (ROOM, [[[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]], r"holes\[0\].*simple polygon"),
])
def test_bad_outlines(walkable, holes, match):
    with pytest.raises(MeshError, match=match):
        mesh_from_outline(walkable, holes, radius_m=0.3)


def test_radius_too_large():
    with pytest.raises(MeshError, match="erodes the whole walkable area"):
        mesh_from_outline([[0, 0], [1, 0], [1, 1], [0, 1]], [], radius_m=0.6)


def test_t_junction_rejected():
    v = np.array([[0, 0], [2, 0], [2, 1], [1, 1], [0, 1], [1, 2], [0, 2]], float)
    # the upper square's bottom edge runs over vertex 3 without sharing edge (4, 3)
    polys = [np.array([0, 1, 2, 3, 4]), np.array([4, 2, 5, 6])]
    with pytest.raises(MeshError):
        build_mesh(v, polys)
    v2 = np.array([[0, 0], [2, 0], [2, 1], [1, 1], [0, 1], [2, 2], [0, 2]], float)
    with pytest.raises(MeshError, match="T-junction"):
        build_mesh(v2, [np.array([0, 1, 3, 4]), np.array([1, 2, 3]), np.array([4, 2, 5, 6])])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-5, 5), st.floats(-5, 5)), min_size=3, max_size=12,
                unique=True))
def test_convex_merge_keeps_every_point(points):
    hull = shapely.MultiPoint(points).convex_hull
    if hull.geom_type != "Polygon" or hull.area < 1e-3:
        return
    tris = shapely.get_parts(shapely.constrained_delaunay_triangles(hull))
    verts: dict[tuple[float, float], int] = {}
    polys = []
    for t in tris:
        c = np.asarray(shapely.geometry.polygon.orient(t, 1.0).exterior.coords)[:3]
        polys.append([verts.setdefault((float(x), float(y)), len(verts)) for x, y in c])
    if len(polys) < 2:
        return
    v = np.array(list(verts))
    a = polys[0]
    for b in polys[1:]:
        shared = [(a[i], a[(i + 1) % len(a)]) for i in range(len(a))
                  if a[(i + 1) % len(a)] in b and a[i] in b]
        for u, w in shared:
            merged = merge_pair(v, a, b, u, w)
            if merged is None:
                continue
            union = shapely.Polygon(v[a]).union(shapely.Polygon(v[b]))
            mp = shapely.Polygon(v[merged])
            assert set(merged) == set(a) | set(b)
            assert mp.is_valid
            assert abs(mp.area - union.area) <= 1e-9 * max(1.0, union.area)
            assert mp.buffer(1e-9).covers(union)
            return


OBJ_RAMP = Path(__file__).parents[3] / "examples" / "ramp_floors.obj"


def test_obj_patches_and_gradients():
    patches = read_obj(OBJ_RAMP)
    assert len(patches) == 3
    grads = sorted(float(p.gradient[0]) for p in patches)
    assert grads == pytest.approx([0.0, 0.0, 0.2])
    mesh = eroded_mesh(patches, 0.3)
    assert set(np.round(mesh.gradient[:, 0], 9)) == {0.0, 0.2}
    route = Router(mesh).route([1.0, 1.0], [16.0, 3.0])
    assert route.length_m == pytest.approx(np.hypot(15.0, 2.0))


def test_obj_y_up(tmp_path):
    f = tmp_path / "y.obj"
    f.write_text("v 0 0 0\nv 4 0 0\nv 4 0 -4\nv 0 0 -4\nf 1 2 3 4\n")
    (patch,) = read_obj(f, up_axis="y")
    assert patch.area.area == pytest.approx(16.0)


@pytest.mark.parametrize(("text", "match"), [
    ("v 0 0 0\nv 1 0 0\nv x 1 0\nf 1 2 3\n", r":3 = .*three finite numbers"),
    ("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 9\n", r":4 = .*names no vertex"),
    ("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 1\nf 1 2 3 4\n", r":5 = .*non-planar face"),
    ("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 1\nv 2 1 1\ng floor\nf 1 2 3 4\nf 2 5 6 3\n",
     r":9 = .*non-planar face claims one patch"),
    ("v 0 0 0\n", r"has no faces"),
])
def test_bad_obj(tmp_path, text, match):
    f = tmp_path / "bad.obj"
    f.write_text(text)
    with pytest.raises(MeshError, match=match):
        read_obj(f)
