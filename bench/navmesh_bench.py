"""Navigation-mesh speed (claims C4, C5): route queries on a 10k-polygon mesh, 10k routes in
one batch, point location of 100k points, and the World step on a mesh against the same World
on one convex corridor. Numbers only (printed as JSON), never asserted.

Meshes: a 100 x 100 grid of 1 m squares (10k polygons, built directly), and a room of pillars
built from geometry (outline, holes, erosion, triangulation, merge) for the build time.
The World comparison: ``--agents`` bodies in a 40 m x 40 m room, once with the room as
``[corridor]`` and once as a navigation mesh (one region: no replan, no portal), steps after a
warm-up.

Side by side with JuPedSim's routing (``pip install jupedsim``; bench-only, skipped when it
is not installed): the same pillar room, the same random start/goal pairs, route lengths and
query times. JuPedSim routes on the un-eroded geometry; navproof on the geometry eroded by 0 m
(the same area) and by 0.3 m (what a body of that radius may use).

Usage: ``python bench/navmesh_bench.py [--queries 2000] [--agents 200] [--steps 30]``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from navproof.navmesh import (
    MeshCache,
    PlanPatch,
    Router,
    build_mesh,
    mesh_from_outline,
    walkable_area,
)


def grid_mesh(n: int) -> object:
    xs, ys = np.meshgrid(np.arange(n + 1, dtype=float), np.arange(n + 1, dtype=float),
                         indexing="ij")
    v = np.column_stack([xs.ravel(), ys.ravel()])

    def vid(i: int, j: int) -> int:
        return i * (n + 1) + j

    polys = [np.array([vid(i, j), vid(i + 1, j), vid(i + 1, j + 1), vid(i, j + 1)])
             for i in range(n) for j in range(n)]
    return build_mesh(v, polys)


def pillar_outline(n: int) -> tuple[list[list[float]], list[list[list[float]]]]:
    size = 3.0 * n + 2.0
    outer = [[0.0, 0.0], [size, 0.0], [size, size], [0.0, size]]
    holes = []
    for i in range(n):
        for j in range(n):
            cx, cy = 2.5 + 3.0 * i, 2.5 + 3.0 * j
            holes.append([[cx - 0.5, cy - 0.5], [cx + 0.5, cy - 0.5], [cx + 0.5, cy + 0.5],
                          [cx - 0.5, cy + 0.5]])
    return outer, holes


def world_step_s(nav: bool, agents: int, steps: int) -> float:
    from navproof.world import World
    from navproof.world.layout import Layout
    from navproof.world.mesh_region import MeshNavigation

    room = [[0.0, 0.0], [40.0, 0.0], [40.0, 40.0], [0.0, 40.0]]
    r = 0.3
    rng = np.random.default_rng(1)
    side = int(np.ceil(np.sqrt(agents)))
    start = np.array([[2.0 + 1.2 * (k % side), 2.0 + 1.2 * (k // side)] for k in range(agents)])
    goal = start + np.array([20.0, 15.0]) + rng.uniform(-0.2, 0.2, start.shape)
    if nav:
        area = walkable_area(room, [])
        navigation = MeshNavigation(MeshCache([PlanPatch("room", area, np.zeros(2), 0.0)]))
        world = World(Layout(), navigation=navigation, assertions=False)
    else:
        inner = [[r, r], [40.0 - r, r], [40.0 - r, 40.0 - r], [r, 40.0 - r]]
        world = World(Layout(corridor_m=np.array(inner)), assertions=False)
    world.add_agents(start, [g[None] for g in goal], radius_m=r)
    for _ in range(3):
        world.step()
    t = time.perf_counter()
    for _ in range(steps):
        world.step()
    return (time.perf_counter() - t) / steps


def jupedsim_side_by_side(outer: list[list[float]], holes: list[list[list[float]]],
                          queries: int) -> dict[str, object] | str:
    """Route lengths and query times of JuPedSim and navproof on the same pairs."""
    try:
        import jupedsim
    except ImportError:
        return "not installed"
    area = walkable_area(outer, holes)
    engine = jupedsim.RoutingEngine(area)
    ours0 = Router(mesh_from_outline(outer, holes, radius_m=0.0))
    ours3 = Router(mesh_from_outline(outer, holes, radius_m=0.3))
    rng = np.random.default_rng(2)
    pairs = []
    while len(pairs) < queries:
        s, g = rng.uniform(0.5, 61.5, (2, 2))
        if (ours3.mesh.locate(np.array([s, g])) >= 0).all():
            pairs.append((s, g))
    res: dict[str, list[float]] = {"jps_ms": [], "ours0_ms": [], "ours3_ms": [],
                                   "jps_m": [], "ours0_m": [], "ours3_m": []}
    ours0.route(pairs[0][0], pairs[0][1])
    for s, g in pairs:
        t = time.perf_counter()
        way = np.array(engine.compute_waypoints(tuple(s), tuple(g)))
        res["jps_ms"].append(1e3 * (time.perf_counter() - t))
        res["jps_m"].append(float(np.sum(np.hypot(*np.diff(way, axis=0).T))))
        for key, router in (("ours0", ours0), ("ours3", ours3)):
            t = time.perf_counter()
            route = router.route(s, g)
            res[f"{key}_ms"].append(1e3 * (time.perf_counter() - t))
            res[f"{key}_m"].append(route.length_m)
    ratio0 = np.array(res["ours0_m"]) / np.maximum(np.array(res["jps_m"]), 1e-9)
    return {
        "pairs": queries,
        "jupedsim_query_median_ms": round(float(np.median(res["jps_ms"])), 4),
        "navproof_r0_query_median_ms": round(float(np.median(res["ours0_ms"])), 4),
        "navproof_r0.3_query_median_ms": round(float(np.median(res["ours3_ms"])), 4),
        "jupedsim_mean_length_m": round(float(np.mean(res["jps_m"])), 4),
        "navproof_r0_mean_length_m": round(float(np.mean(res["ours0_m"])), 4),
        "navproof_r0.3_mean_length_m": round(float(np.mean(res["ours3_m"])), 4),
        "navproof_r0_over_jupedsim_length_min_median_max": [
            round(float(q), 4) for q in np.percentile(ratio0, [0, 50, 100])],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--agents", type=int, default=200)
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    out: dict[str, object] = {}

    t = time.perf_counter()
    mesh = grid_mesh(100)
    out["grid_mesh_polygons"] = mesh.count
    out["grid_mesh_build_s"] = round(time.perf_counter() - t, 3)
    router = Router(mesh)
    rng = np.random.default_rng(0)
    router.route([0.5, 0.5], [99.5, 99.5])  # compile / load the compiled loops
    starts = rng.uniform(0.01, 99.99, (args.queries, 2))
    goals = rng.uniform(0.01, 99.99, (args.queries, 2))
    times = []
    for s, g in zip(starts, goals, strict=True):
        t = time.perf_counter()
        router.route(s, g)
        times.append(time.perf_counter() - t)
    out["route_query_median_ms"] = round(1e3 * float(np.median(times)), 4)
    out["route_query_p95_ms"] = round(1e3 * float(np.percentile(times, 95)), 4)
    s10 = rng.uniform(0.01, 99.99, (10_000, 2))
    g10 = rng.uniform(0.01, 99.99, (10_000, 2))
    t = time.perf_counter()
    router.routes(s10, g10)
    out["routes_10k_random_pairs_s"] = round(time.perf_counter() - t, 3)
    g_one = np.broadcast_to(np.array([50.5, 50.5]), s10.shape)
    local = np.clip(g_one + rng.uniform(-15.0, 15.0, s10.shape), 0.01, 99.99)
    t = time.perf_counter()
    router.routes(local, g_one)
    out["routes_10k_crowd_within_15m_s"] = round(time.perf_counter() - t, 3)
    pts = rng.uniform(-1.0, 101.0, (100_000, 2))
    mesh.locate(pts[:10])
    times = []
    for _ in range(5):
        t = time.perf_counter()
        mesh.locate(pts)
        times.append(time.perf_counter() - t)
    out["locate_100k_points_ms"] = round(1e3 * min(times), 3)

    t = time.perf_counter()
    outer, holes = pillar_outline(20)
    pillars = mesh_from_outline(outer, holes, radius_m=0.3)
    out["pillar_mesh_400_holes_polygons"] = pillars.count
    out["pillar_mesh_build_s"] = round(time.perf_counter() - t, 3)

    out["jupedsim"] = jupedsim_side_by_side(outer, holes, min(args.queries, 500))

    corridor = world_step_s(False, args.agents, args.steps)
    on_mesh = world_step_s(True, args.agents, args.steps)
    out["world_step_corridor_ms"] = round(1e3 * corridor, 3)
    out["world_step_mesh_ms"] = round(1e3 * on_mesh, 3)
    out["world_step_mesh_over_corridor"] = round(on_mesh / corridor, 3)
    out["agents"] = args.agents
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
