"""The World on a navigation mesh: routes, corridor regions and the portal step. Claim: C1,
C2, C3, C4, C5, B7.

Every agent's goal is routed on the mesh eroded by its own radius (one mesh per distinct
radius, built once): A* gives the corridor of polygons, the funnel the corners the agent
steers through (C5). The corridor is cut into regions: a polygon merged with its same-gradient
successors along the corridor while the union stays strictly convex (C1, every region edge is
a mesh edge). A region's edges are walls (with stop envelopes) except the one portal to the
next region of the corridor; the step is solved inside the region and split at that portal
(:func:`navproof.step.corridor.step_with_portal`: at most to the next portal, switching only on
the portal and moving inward, the rest of the step rebuilt in the next region; C3, B7).
Side edges to polygons off the corridor are walls: a body never leaves its corridor.

A goal change (:meth:`World.set_goal`) or a body found outside its region (after a handoff)
plans again from where it stands. Assertion mode checks C4 per agent: no committed position
leaves the eroded mesh and no step crosses a wall edge.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from navproof.boundary.edges import EDGE_PORTAL, EDGE_WALL, EdgeSet
from navproof.boundary.motion import Motion
from navproof.core.errors import InvalidInput, ObligationViolation
from navproof.core.tolerances import EPS
from navproof.navmesh import MeshCache, NavMesh, NoRoute, Route, Router
from navproof.navmesh.merge import merge_pair
from navproof.navmesh.route import corridor_portals, next_corner
from navproof.step import SAFE, SafeStepResult, StepInput
from navproof.step.corridor import curve_displacement_m, step_with_portal

MAX_REGION_EDGES = 12
"""A corridor region keeps at most this many edges (merging stops there)."""
LOOKAHEAD_M = 6.0
"""Walls of the regions ahead on the corridor closer than this (m, bounding-box gap) also bound
a body where the region it is in lies wholly on their inner side, so that it can stop before a
wall it meets right after a portal (the profile's longest stopping distance, 2 m at 2 m/s and
1 m/s^2, with room to spare)."""
MAX_LOOKAHEAD_WALLS = 16
"""At most this many walls ahead are added to a region's own edges."""
C4_TOL_M = 1e-7
"""A committed position may lie this far (m) outside the mesh / beyond a wall (round-off)."""


@dataclass(frozen=True)
class CorridorRegion:
    """One region of a corridor: corridor indices [start, stop), CCW vertices (k, 2), edge
    normals (k, 2) and offsets (k,), which edge is the portal to the next region (-1: the last
    region) and the patch it lies on. Claim: C1, C3."""

    start: int
    stop: int
    vertices_m: np.ndarray
    normal: np.ndarray
    offset_m: np.ndarray
    portal: int
    patch: int
    ahead_normal: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 2)))
    ahead_offset_m: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))

    def contains(self, x_m: np.ndarray, tol_m: float = C4_TOL_M) -> bool:
        return bool(np.all(self.offset_m - self.normal @ x_m >= -tol_m))


def corridor_regions(mesh: NavMesh, corridor: np.ndarray) -> list[CorridorRegion]:
    """Cut a corridor into regions: each polygon merged with its same-gradient successors while
    the union stays strictly convex and shares exactly one edge with the next polygon.
    Claim: C1."""
    from navproof.boundary.patches import polygon_halfplanes

    pv, cnt, v = mesh.poly_vertex, mesh.poly_count, mesh.vertices_m

    def cycle(p: int) -> list[int]:
        return [int(i) for i in pv[p, : cnt[p]]]

    def portal_edge(p: int, q: int) -> tuple[int, int]:
        j = int(np.flatnonzero(mesh.neighbor[p, : cnt[p]] == q)[0])
        return int(pv[p, j]), int(pv[p, (j + 1) % cnt[p]])

    out: list[CorridorRegion] = []
    c = [int(p) for p in corridor]
    i = 0
    while i < len(c):
        region = cycle(c[i])
        stop = i + 1
        while stop < len(c):
            q = c[stop]
            same = (mesh.patch[q] == mesh.patch[c[i]]
                    and np.allclose(mesh.gradient[q], mesh.gradient[c[i]], atol=EPS))
            if not same or q in c[i:stop]:
                break
            u, w = portal_edge(c[stop - 1], q)
            edges_r = {(region[k], region[(k + 1) % len(region)]) for k in range(len(region))}
            qc = cycle(q)
            shared = sum((qc[(k + 1) % len(qc)], qc[k]) in edges_r for k in range(len(qc)))
            if shared != 1 or len(region) + len(qc) - 2 > MAX_REGION_EDGES:
                break
            merged = merge_pair(v, region, qc, u, w)
            if merged is None:
                break
            region = merged
            stop += 1
        verts = v[region]
        normal, offset = polygon_halfplanes(verts)
        portal = -1
        if stop < len(c):
            u, w = portal_edge(c[stop - 1], c[stop])
            portal = next(k for k in range(len(region))
                          if region[k] == u and region[(k + 1) % len(region)] == w)
        out.append(CorridorRegion(i, stop, verts, normal, offset, portal,
                                  int(mesh.patch[c[i]])))
        i = stop
    return [_with_walls_ahead(out, r) for r in range(len(out))]


def _with_walls_ahead(regions: list[CorridorRegion], r: int) -> CorridorRegion:
    """Region ``r`` with the walls of the next LOOKAHEAD_REGIONS regions whose inner side holds
    all of region r (a body inside r is inside them: they are walls it must be able to stop
    before once it passes the portal). Claim: C3, B1."""
    here = regions[r]
    normals: list[np.ndarray] = []
    offsets: list[float] = []
    lo, hi = here.vertices_m.min(axis=0), here.vertices_m.max(axis=0)
    for ahead in regions[r + 1:]:
        gap = np.maximum(0.0, np.maximum(ahead.vertices_m.min(axis=0) - hi,
                                         lo - ahead.vertices_m.max(axis=0)))
        if float(np.hypot(*gap)) > LOOKAHEAD_M:
            break
        for k in range(ahead.normal.shape[0]):
            if k == ahead.portal:
                continue
            n, b = ahead.normal[k], ahead.offset_m[k]
            if np.any(b - here.vertices_m @ n < -1e-9):
                continue
            same = np.any((np.abs(here.normal @ n - 1.0) <= 1e-12)
                          & (np.abs(here.offset_m - b) <= 1e-9))
            dup = any(abs(float(m @ n) - 1.0) <= 1e-12 and abs(o - b) <= 1e-9
                      for m, o in zip(normals, offsets, strict=True))
            if not same and not dup:
                normals.append(n)
                offsets.append(b)
    normals, offsets = normals[:MAX_LOOKAHEAD_WALLS], offsets[:MAX_LOOKAHEAD_WALLS]
    return dataclasses.replace(here, ahead_normal=np.array(normals).reshape(-1, 2),
                               ahead_offset_m=np.array(offsets, dtype=np.float64))


@dataclass
class AgentRoute:
    """An agent's plan on its mesh: the radius (mesh key), the route, its regions and the
    region it is in. Claim: C5."""

    radius_m: float
    route: Route
    regions: list[CorridorRegion]
    left_m: np.ndarray
    right_m: np.ndarray
    region: int = 0


class MeshNavigation:
    """Routes and corridor regions of every agent of a World on meshes eroded per radius.

    ``cache`` builds the eroded mesh of each distinct radius once. Claim: C1-C5, B7."""

    def __init__(self, cache: MeshCache) -> None:
        self.cache = cache
        self._routers: dict[float, Router] = {}
        self.agents: list[AgentRoute] = []
        self.replans = 0
        self._k = MAX_REGION_EDGES + MAX_LOOKAHEAD_WALLS
        self._last: Any = None
        self.split_motion: Any = None
        """(rows, split times s, second velocities m/s, second commit times s) of the bodies
        whose last step was split at their portal, or None (for the step's record, T4)."""

    # ------------------------------------------------------------------ planning
    def router(self, radius_m: float) -> Router:
        r = float(radius_m)
        if r not in self._routers:
            self._routers[r] = Router(self.cache.mesh(r))
        return self._routers[r]

    def mesh(self, radius_m: float) -> NavMesh:
        return self.router(radius_m).mesh

    def plan(self, first_agent: int, position_m: np.ndarray, routes: list[np.ndarray],
             radius_m: np.ndarray) -> list[AgentRoute]:
        """Plans of new agents (nothing stored): every leg of each given route routed on the
        mesh of the agent's radius. NoRoute names the agent and the reason (off the mesh and
        how far, another island, or a radius that separates start and goal). Claim: C5."""
        plans = []
        for i, (x, way) in enumerate(zip(position_m, routes, strict=True)):
            who = f"agent {first_agent + i}"
            plans.append(self._plan_one(who, float(radius_m[i]), x, np.asarray(way, float)))
        return plans

    def _plan_one(self, who: str, radius_m: float, x_m: np.ndarray, way_m: np.ndarray
                  ) -> AgentRoute:
        router = self.router(radius_m)
        points = np.vstack([x_m[None], way_m.reshape(-1, 2)])
        try:
            legs = router.routes(points[:-1], points[1:], who=who)
        except NoRoute as exc:
            if "another island" in exc.rule:
                base = Router(self.cache.uneroded)
                sp, gp = base.mesh.locate(points[:-1]), base.mesh.locate(points[1:])
                joined = (sp >= 0) & (gp >= 0) & (base.mesh.island[sp] == base.mesh.island[gp])
                if joined.all():
                    raise NoRoute(who, radius_m, f"no route for {who}: the radius {radius_m} m "
                                  "separates start and goal (the eroded mesh falls apart "
                                  "into pieces between them)") from None
            raise NoRoute(who, exc.value, exc.rule.replace("query", who)) from None
        corridor = [legs[0].corridor]
        corners = [legs[0].corners_m]
        for leg in legs[1:]:
            corridor.append(leg.corridor[1:] if leg.corridor[0] == corridor[-1][-1]
                            else leg.corridor)
            corners.append(leg.corners_m[1:])
        route = Route(np.concatenate(corridor), np.concatenate(corners),
                      float(sum(leg.length_m for leg in legs)))
        left, right = corridor_portals(router.mesh, route.corridor)
        return AgentRoute(radius_m, route, corridor_regions(router.mesh, route.corridor),
                          left, right)

    def add(self, plans: list[AgentRoute]) -> None:
        """Store the plans of agents just added to the World (in index order)."""
        self.agents.extend(plans)

    @staticmethod
    def waypoints(plan: AgentRoute) -> np.ndarray:
        """The World route of a plan: its corners after the start (the last is the goal)."""
        c = plan.route.corners_m
        return c[1:] if c.shape[0] > 1 else c

    def replan(self, world: Any, agent: int, goal_m: np.ndarray) -> None:
        """Plan agent ``agent`` again from where it stands to ``goal_m`` and give the World its
        new waypoints (NoRoute, nothing changed, when there is none). Claim: C5."""
        plan = self._plan_one(f"agent {agent}", self.agents[agent].radius_m,
                              world.position_m[agent], np.asarray(goal_m, float).reshape(-1, 2))
        self.agents[agent] = plan
        self.replans += 1
        _set_route(world, agent, self.waypoints(plan))

    def planned_length_m(self) -> np.ndarray:
        """Planned route length (m) of every agent (the current plan)."""
        return np.array([a.route.length_m for a in self.agents])

    # ------------------------------------------------------------------ the step
    def _region_rows(self, idx: int) -> tuple[CorridorRegion, CorridorRegion | None]:
        a = self.agents[idx]
        here = a.regions[a.region]
        nxt = a.regions[a.region + 1] if a.region + 1 < len(a.regions) else None
        return here, nxt

    def sync(self, world: Any) -> None:
        """Before a step: every agent's region holds it; one that is not in its region (moved
        by a handoff) takes the corridor region it stands in, or plans again. Claim: C5."""
        busy = set(world.handoffs.active) if world.handoffs is not None else set()
        for i, a in enumerate(self.agents):
            x = world.position_m[i]
            if i in busy or a.regions[a.region].contains(x):
                continue
            found = [r for r in range(a.region, len(a.regions)) if a.regions[r].contains(x)]
            if found:
                a.region = found[0]
                continue
            goal = world.route_m[i, world.route_count[i] - 1]
            self.replan(world, i, goal)

    def targets(self, world: Any) -> tuple[np.ndarray, np.ndarray]:
        """Every agent's next corner (m, (N, 2)) and whether it is the goal (N,): the funnel
        pulled again from where the body stands through the rest of its corridor, so the
        corner ahead is always in straight sight inside the corridor. Claim: C5."""
        n = len(self.agents)
        target = np.zeros((n, 2))
        last = np.zeros(n, bool)
        for i, a in enumerate(self.agents):
            reg = a.regions[a.region]
            if reg.portal < 0:
                # in the goal's region: the goal is in straight sight (the region is convex)
                target[i], last[i] = a.route.corners_m[-1], True
                continue
            x = world.position_m[i]
            mesh = self.mesh(a.radius_m)
            polys = a.route.corridor[reg.start:reg.stop]
            inside = np.all(mesh.offset_m[polys] - mesh.normal[polys] @ x >= -C4_TOL_M, axis=1)
            k = reg.start + (int(np.flatnonzero(inside)[-1]) if inside.any() else 0)
            target[i], last[i] = next_corner(x, a.route.corners_m[-1], a.left_m[k:],
                                             a.right_m[k:])
            nxt = a.regions[a.region + 1]
            if nxt.patch != reg.patch:
                # a change of gradient ahead: aim just past the handoff edge, on the next patch
                target[i], last[i] = _past_edge(x, target[i], reg), False
        world.route_index = np.where(last, world.route_count - 1, world.route_index)
        return target, last

    @staticmethod
    def _width(regions: Sequence[CorridorRegion | None]) -> int:
        """Edge columns the regions need (own edges and walls ahead), at least one."""
        return max([1] + [r.normal.shape[0] + r.ahead_normal.shape[0]
                          for r in regions if r is not None])

    def _edge_arrays(self, regions: Sequence[CorridorRegion | None], *, portal_kind: bool
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        n, k = len(regions), self._width(regions)
        normal = np.zeros((n, k, 2))
        offset = np.zeros((n, k))
        valid = np.zeros((n, k), bool)
        kind = np.full((n, k), EDGE_WALL)
        for i, reg in enumerate(regions):
            if reg is None:
                continue
            m = reg.normal.shape[0]
            normal[i, :m], offset[i, :m], valid[i, :m] = reg.normal, reg.offset_m, True
            e = reg.ahead_normal.shape[0]
            normal[i, m:m + e], offset[i, m:m + e] = reg.ahead_normal, reg.ahead_offset_m
            valid[i, m:m + e] = True
            if reg.portal >= 0:
                if portal_kind:
                    kind[i, reg.portal] = EDGE_PORTAL
                else:
                    valid[i, reg.portal] = False
        return normal, offset, valid, kind

    def edges(self, layout_edges: EdgeSet) -> EdgeSet:
        """The layout's edges plus every agent's region walls (its next portal left out: the
        portal step checks it). Claim: C1, C3."""
        self._here = [self._region_rows(i)[0] for i in range(len(self.agents))]
        normal, offset, valid, kind = self._edge_arrays(self._here, portal_kind=False)
        self._k = normal.shape[1]
        return _concat(layout_edges, normal, offset, valid, kind)

    def solve(self, inp: StepInput, rows: np.ndarray, *, assertions: bool) -> SafeStepResult:
        """The safe step of agents ``rows`` inside their regions, split at their next portal
        (B7, C3); keeps the split for :meth:`finish`. Claim: C3, B7."""
        here = [self._here[i] for i in rows]
        nxt = [self._region_rows(int(i))[1] for i in rows]
        n = rows.size
        pn = np.zeros((n, 2))
        pb = np.zeros(n)
        pvalid = np.zeros(n, bool)
        for j, reg in enumerate(here):
            following = nxt[j]
            if reg.portal >= 0 and following is not None and following.patch == reg.patch:
                pn[j], pb[j], pvalid[j] = reg.normal[reg.portal], reg.offset_m[reg.portal], True
        if not pvalid.any():
            # nobody has a portal ahead (every body in its goal's region): one plain solve
            from navproof.step import solve_safe_step

            self._last = None
            return solve_safe_step(inp, assertions=assertions)
        nn, no, nv, nk = self._edge_arrays([r if r is not None else here[j]
                                            for j, r in enumerate(nxt)], portal_kind=True)
        # the next region's walls with the layout's edges of the same agents
        base_k = inp.edges.normal.shape[1] - self._k
        lay = dataclasses.replace(
            inp.edges, normal=inp.edges.normal[:, :base_k], offset_m=inp.edges.offset_m[:, :base_k],
            valid=inp.edges.valid[:, :base_k], edge_id=inp.edges.edge_id[:, :base_k],
            owner=inp.edges.owner[:, :base_k], motion=_take_motion_cols(inp.edges.motion, base_k),
            kind=None if inp.edges.kind is None else inp.edges.kind[:, :base_k])
        next_edges = _concat(lay, nn, no, nv, nk)
        out = step_with_portal(inp, region_id=np.zeros(n, np.int64), portal_normal=pn,
                               portal_offset_m=pb, portal_valid=pvalid,
                               next_region_id=np.ones(n, np.int64), next_edges=next_edges,
                               assertions=assertions)
        self._last = (rows, out, inp, next_edges)
        return out.first

    def finish(self, label: np.ndarray, flags: np.ndarray, position_m: np.ndarray,
               velocity_mps: np.ndarray, mid_m: np.ndarray) -> np.ndarray:
        """After the World executed the first solve: the agents that crossed their portal
        move on from the portal along the rebuilt curve (in place: positions, velocities,
        mid-step positions, labels, flags) and enter their next region. Returns their rows.
        Claim: B7, C3."""
        self.split_motion = None
        if self._last is None:
            return np.zeros(0, np.int64)
        rows, out, inp, _ = self._last
        if out.second is None or out.second_rows.size == 0:
            return np.zeros(0, np.int64)
        local = out.second_rows
        agents = rows[local]
        dt = inp.dt_per_agent_s[local]
        tp = out.split_time_s[local]
        x0, v0 = inp.position_m[local], inp.velocity_mps[local]
        u = inp.support.carry_mps(inp.position_m)[local]
        v1 = out.first.velocity_mps[local]
        x_at = x0 + curve_displacement_m(u, v0, v1, dt, tp)
        v_at = v0 + (v1 - v0) * (tp / dt)[:, None]
        second = out.second
        rest = dt - tp
        commit2 = np.minimum(second.commit_time_s, rest)
        v2 = second.velocity_mps
        end = x_at + curve_displacement_m(u, v_at, v2, rest, commit2)
        curve = (x0, u, v0, v1, dt, tp, x_at, v_at, v2, rest, commit2)
        mid_m[agents] = _split_points(curve, slice(None), 0.5 * dt)
        position_m[agents] = end
        velocity_mps[agents] = np.where((commit2 >= rest)[:, None], v2, 0.0) + u
        worse = second.label != SAFE
        label[agents] = np.where(worse, second.label, label[agents])
        flags[agents] = flags[agents] | second.flags
        self._split = (agents, x0, x_at, end, tp, dt)
        self.split_motion = (agents, tp, v2, commit2)
        self._curve = (agents, curve)
        for a in agents.tolist():
            self.agents[a].region += 1
        return agents

    def executed_points_m(self, rows: np.ndarray, t_s: np.ndarray,
                          others: Callable[[np.ndarray, np.ndarray], np.ndarray]
                          ) -> np.ndarray:
        """World positions (m, (K, 2)) of bodies ``rows`` (K,) at times ``t_s`` (K,) of the
        step just executed: a body that crossed its portal on the curve :meth:`finish` rebuilt
        (its first ramp up to the split time, then the second ramp from the portal up to its
        commit time, then at rest; the same expressions), every other body from ``others``.
        Claim: B7, C3, W1."""
        out = others(rows, t_s)
        if self.split_motion is None:
            return out
        agents, curve = self._curve
        where = dict(zip(agents.tolist(), range(agents.size), strict=True))
        k = np.array([q for q, i in enumerate(rows.tolist()) if i in where], np.int64)
        if k.size == 0:
            return out
        j = np.array([where[i] for i in rows[k].tolist()], np.int64)
        out[k] = _split_points(curve, j, np.asarray(t_s, dtype=np.float64)[k])
        return out

    def wall_clearance_m(self, wall_clear_m: np.ndarray, crossed: np.ndarray,
                         mid_m: np.ndarray) -> np.ndarray:
        """Signed wall clearance (m) of the agents that crossed a portal: the first piece
        against the region they left, the second against the region they entered."""
        if crossed.size == 0:
            return wall_clear_m
        agents, x0, x_at, end, tp, dt = self._split
        out = wall_clear_m.copy()
        for j, a in enumerate(agents.tolist()):
            plan = self.agents[a]
            before, after = plan.regions[plan.region - 1], plan.regions[plan.region]
            walls_b = np.ones(before.normal.shape[0], bool)
            if before.portal >= 0:
                walls_b[before.portal] = False
            first_half = bool(tp[j] >= 0.5 * dt[j])
            m1 = min(_margin(before, p, walls_b)
                     for p in (x0[j], x_at[j], *([mid_m[a]] if first_half else [])))
            walls_a = np.ones(after.normal.shape[0], bool)
            if after.portal >= 0:
                walls_a[after.portal] = False
            m2 = min(_margin(after, p, walls_a)
                     for p in (x_at[j], end[j], *([] if first_half else [mid_m[a]])))
            out[a] = min(m1, m2)
        return out

    def check_c4(self, position_m: np.ndarray, wall_clear_m: np.ndarray,
                 handoff_rows: np.ndarray) -> None:
        """Assertion mode, per agent: the committed position lies on the eroded mesh of its
        radius and the step crossed no wall edge. Claim: C4."""
        agents = np.setdiff1d(np.arange(len(self.agents)), handoff_rows)
        radii = np.array([self.agents[i].radius_m for i in agents])
        for r in np.unique(radii):
            rows = agents[radii == r]
            poly = self.mesh(float(r)).locate(position_m[rows], tol_m=C4_TOL_M)
            off = rows[poly < 0]
            if off.size:
                i = int(off[0])
                far = float(self.mesh(float(r)).distance_outside_m(position_m[i:i + 1])[0])
                raise ObligationViolation("C4", "a committed position left the eroded mesh",
                                          agent=i, observed=far, limit=0.0, margin=-far,
                                          data={"position_m": position_m[i].tolist(),
                                                "radius_m": float(r)})
        bad = agents[wall_clear_m[agents] < -C4_TOL_M]
        if bad.size:
            i = int(bad[0])
            raise ObligationViolation("C4", "a step crossed a wall edge of the eroded mesh",
                                      agent=i, observed=float(wall_clear_m[i]), limit=0.0,
                                      margin=float(wall_clear_m[i]),
                                      data={"position_m": position_m[i].tolist()})


HANDOFF_AIM_M = 0.5
"""Past a handoff edge the body aims this far (m) onto the next patch (the handoff controller
takes it over near the edge)."""


def _past_edge(x_m: np.ndarray, corner_m: np.ndarray, region: CorridorRegion) -> np.ndarray:
    """The point HANDOFF_AIM_M beyond the region's portal on the way from ``x_m`` to
    ``corner_m`` (the corner itself when the way does not reach the portal's line)."""
    n, b = region.normal[region.portal], region.offset_m[region.portal]
    d = corner_m - x_m
    along = float(n @ d)
    if along <= EPS:
        return corner_m
    t = (b - float(n @ x_m)) / along
    unit = d / max(float(np.hypot(*d)), EPS)
    return x_m + t * d + HANDOFF_AIM_M * unit


def _margin(region: CorridorRegion, x_m: np.ndarray, walls: np.ndarray) -> float:
    """Least signed margin (m) of ``x_m`` to the region's walls (its own and those ahead)."""
    m = region.offset_m - region.normal @ x_m
    ahead = region.ahead_offset_m - region.ahead_normal @ x_m
    return float(min(np.min(np.where(walls, m, np.inf)), np.min(ahead, initial=np.inf)))


def _take_motion_cols(m: Motion, k: int) -> Motion:
    return Motion(m.pivot_m[:, :k], m.velocity_mps[:, :k], m.omega_radps[:, :k],
                  m.version[:, :k], m.acceleration_mps2[:, :k])


def _concat(edges: EdgeSet, normal: np.ndarray, offset: np.ndarray, valid: np.ndarray,
            kind: np.ndarray) -> EdgeSet:
    """Layout edges (N, K0) followed by fixed mesh edges (N, K)."""
    n, k = valid.shape
    kinds = edges.kind if edges.kind is not None else np.full(edges.valid.shape, EDGE_WALL)
    m = edges.motion
    return EdgeSet.build(
        np.concatenate([edges.normal, normal], axis=1),
        np.concatenate([edges.offset_m, offset], axis=1),
        valid=np.concatenate([edges.valid, valid], axis=1),
        motion=Motion(np.concatenate([m.pivot_m, np.zeros((n, k, 2))], axis=1),
                      np.concatenate([m.velocity_mps, np.zeros((n, k, 2))], axis=1),
                      np.concatenate([m.omega_radps, np.zeros((n, k))], axis=1),
                      np.concatenate([m.version, np.zeros((n, k), np.int64)], axis=1),
                      np.concatenate([m.acceleration_mps2, np.zeros((n, k, 2))], axis=1)),
        edge_id=np.concatenate([edges.edge_id, 1_000_000 + np.broadcast_to(np.arange(k),
                                                                            (n, k))], axis=1),
        owner=np.concatenate([edges.owner, np.full((n, k), -2)], axis=1),
        kind=np.concatenate([kinds, kind], axis=1))


def _set_route(world: Any, agent: int, waypoints_m: np.ndarray) -> None:
    """Give agent ``agent`` of ``world`` new waypoints (the last its goal), from the first."""
    from navproof.world.agents import pad_routes

    w = waypoints_m.shape[0]
    if w > world.route_m.shape[1]:
        world.route_m = pad_routes(world.route_m, w)
    world.route_m[agent, :w] = waypoints_m
    world.route_m[agent, w:] = waypoints_m[-1]
    world.route_count[agent] = w
    world.route_index[agent] = 0


def check_goal(goal_m: Any) -> np.ndarray:
    """A finite goal (2,); InvalidInput naming ``goal_m`` otherwise."""
    g = np.asarray(goal_m, dtype=np.float64)
    if g.shape != (2,) or not np.all(np.isfinite(g)):
        raise InvalidInput("goal_m", np.asarray(goal_m).tolist(), "must be a finite pair (x, y)")
    return g


def _split_points(curve: tuple[np.ndarray, ...], j: Any, t_s: np.ndarray) -> np.ndarray:
    """World positions (m) at times ``t_s`` of the split bodies ``j`` of ``curve`` (start,
    carry, velocities, step, split time, portal point and velocity, second velocity, rest and
    second commit time, as :meth:`MeshNavigation.finish` rebuilt them): the first ramp up to
    the split time, then the second ramp from the portal up to its commit time, then at rest.
    Claim: B7, C3, W1."""
    x0, u, v0, v1, dt, tp, x_at, v_at, v2, rest, commit2 = curve
    tp_j = tp[j]
    first = x0[j] + curve_displacement_m(u[j], v0[j], v1[j], dt[j], np.minimum(t_s, tp_j))
    second = x_at[j] + curve_displacement_m(u[j], v_at[j], v2[j], rest[j],
                                            np.clip(t_s - tp_j, 0.0, commit2[j]))
    return np.where((t_s <= tp_j)[:, None], first, second)
