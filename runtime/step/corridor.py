"""Corridor regions, same-gradient merging and portal sub-steps (C1-C3, B7).

Navigation regions are convex polygons already eroded by the body radius (C2): their edges are
used as they are, never shrunk again. The constraint set of an agent is its corridor region
intersected with its current planar patch piece (C1). Two adjacent regions merge only when they
have the same gradient, their union is convex and the route passes the portal between them in
order; regions of different gradients always keep their handoff edge.

A concave corridor is walked at most to the next same-gradient portal per step (C3): the step is
solved inside the current region (its walls need stop envelopes, the portal does not); when the
curve reaches the portal before the end of the step, the step is split there (B7), the agent
switches region only when it is on the portal and moving into the next region, every constraint
is rebuilt for the remaining time from the point reached, and neighbours are advanced by the same
time. Positions only ever follow the committed curve: nothing is pushed through a wall.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from navproof._generated import formulas
from navproof.boundary.edges import EDGE_PORTAL, EDGE_WALL, EdgeSet, take_edges
from navproof.boundary.margins import accel_extremum_time_s
from navproof.boundary.motion import Motion
from navproof.boundary.patches import Patch, polygon_halfplanes
from navproof.boundary.step_length import per_agent
from navproof.core.bisection import bisect
from navproof.core.errors import InvalidInput
from navproof.core.tolerances import AREA_REL_TOL, EPS, UNIT_LENGTH_TOL
from navproof.core.validation import check_valid_convex, check_valid_finite, check_valid_step
from navproof.step.inputs import Neighbors, StepInput
from navproof.step.result import SafeStepResult
from navproof.step.snapshot import scatter_rows, take_input_rows
from navproof.step.solve import solve_safe_step


@dataclass(frozen=True)
class Region:
    """A convex navigation region (CCW vertices in m, already eroded by the body radius) on a
    patch with the given height gradient. Claim: C1, C2."""

    region_id: int
    vertices_m: np.ndarray
    gradient: np.ndarray

    @staticmethod
    def build(region_id: int, vertices_m: np.ndarray, gradient: np.ndarray) -> Region:
        """Validated region: strictly convex CCW polygon, finite gradient."""
        return Region(int(region_id), check_valid_convex("vertices_m", vertices_m),
                      check_valid_finite("gradient", gradient))


def same_gradient(a: Region | Patch, b: Region | Patch) -> bool:
    """True when two pieces lie on one plane orientation (gradients equal within EPS). Claim: C1."""
    return bool(np.all(np.abs(np.asarray(a.gradient) - np.asarray(b.gradient)) <= EPS))


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull (CCW, no collinear points) of a small point set (monotone chain)."""
    pts = sorted({(float(x), float(y)) for x, y in points})

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= EPS:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= EPS:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


def _area(v: np.ndarray) -> float:
    x, y = v[:, 0], v[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def merge_regions(a: Region, b: Region, *, portal_index_a: int, portal_index_b: int,
                  merged_id: int | None = None) -> Region | None:
    """Merged region of two adjacent regions, or None when they must stay apart.

    Merge only when the gradients are equal, the route enters ``b`` right after ``a`` (portal
    order legal: consecutive indices) and the union is convex (its convex hull has exactly the
    summed area, so nothing outside either region is added). Claim: C1.
    """
    if not same_gradient(a, b) or portal_index_b != portal_index_a + 1:
        return None
    hull = _hull(np.concatenate([a.vertices_m, b.vertices_m]))
    scale = max(1.0, abs(_area(a.vertices_m)) + abs(_area(b.vertices_m)))
    if abs(_area(hull) - _area(a.vertices_m) - _area(b.vertices_m)) > AREA_REL_TOL * scale:
        return None
    return Region(a.region_id if merged_id is None else merged_id, hull, a.gradient.copy())


def region_edges(regions: list[Region], patches: list[Patch], *,
                 portal_mask: list[np.ndarray] | None = None,
                 edge_velocity_mps: np.ndarray | None = None) -> EdgeSet:
    """Edge set of N agents: region i's edges intersected with patch i's piece (C1), padded.

    Region edges are taken as they are (already eroded, C2). ``portal_mask[i]`` marks which of
    region i's edges are portals to the next same-gradient region (C3); patch edges are walls or
    handoff edges and are always walls here. Owners: region id for region edges, patch id for
    patch edges. Claim: C1, C2, C3.
    """
    if len(regions) != len(patches):
        raise InvalidInput("patches", len(patches), f"must match {len(regions)} regions")
    rows = []
    for i, (region, patch) in enumerate(zip(regions, patches, strict=True)):
        rn, ro = polygon_halfplanes(region.vertices_m)
        pn, po = patch.halfplanes()
        rk = np.full(rn.shape[0], EDGE_WALL)
        if portal_mask is not None:
            rk = np.where(np.asarray(portal_mask[i], bool), EDGE_PORTAL, EDGE_WALL)
            if not same_gradient(region, patch) and np.any(rk == EDGE_PORTAL):
                raise InvalidInput("portal_mask", i, "a region off its patch's gradient has no "
                                   "same-gradient portal")
        rows.append((np.concatenate([rn, pn]), np.concatenate([ro, po]),
                     np.concatenate([rk, np.full(pn.shape[0], EDGE_WALL)]),
                     np.concatenate([np.full(rn.shape[0], region.region_id),
                                     np.full(pn.shape[0], patch.patch_id)])))
    width = max(r[0].shape[0] for r in rows)
    n = len(rows)
    normal = np.zeros((n, width, 2))
    offset = np.zeros((n, width))
    kind = np.zeros((n, width), np.int64)
    owner = np.full((n, width), -1, np.int64)
    valid = np.zeros((n, width), bool)
    for i, (rn, ro, rk, own) in enumerate(rows):
        m = rn.shape[0]
        normal[i, :m], offset[i, :m], kind[i, :m], owner[i, :m] = rn, ro, rk, own
        valid[i, :m] = True
    motion = None
    if edge_velocity_mps is not None:
        motion = Motion.translating(np.broadcast_to(edge_velocity_mps, (n, width, 2)))
    return EdgeSet.build(normal, offset, valid=valid, motion=motion, owner=owner, kind=kind)


def shared_edge_owner(route_index: np.ndarray, portal_index: np.ndarray,
                      region_before: np.ndarray, region_after: np.ndarray) -> np.ndarray:
    """Region (N,) owning a position lying exactly on a shared portal edge: the region after the
    portal once the route has passed it (route index beyond the portal index), else the region
    before. Claim: C3."""
    return np.where(np.asarray(route_index) > np.asarray(portal_index), region_after,
                    region_before)


def may_switch_region(portal_margin_m: np.ndarray, portal_normal: np.ndarray,
                      world_velocity_mps: np.ndarray) -> np.ndarray:
    """(N,) True only when the body is actually on the portal (|margin| <= EPS) and its world
    velocity points into the next region (outward across the portal). Claim: C3."""
    inward = np.einsum("nj,nj->n", portal_normal, world_velocity_mps) > 0.0
    return (np.abs(portal_margin_m) <= EPS) & inward


def curve_displacement_m(u_mps: np.ndarray, v0_mps: np.ndarray, v1_mps: np.ndarray,
                         dt_s: float | np.ndarray, t_s: np.ndarray) -> np.ndarray:
    """Displacement (m, (N, 2)) at time t of the accelerating curve, read per axis from the
    generated B4 margin (margin of a fixed edge through the start point, negated). Claim: B4."""
    out = []
    for axis in range(2):
        out.append(-formulas.accel_margin(s=0.0, t=t_s, dt=dt_s, n_dot_e=0.0,
                                          n_dot_u=u_mps[:, axis], n_dot_v0=v0_mps[:, axis],
                                          n_dot_v1=v1_mps[:, axis]))
    return np.stack(out, axis=1)


def portal_crossing_time_s(s_m: np.ndarray, dt_s: float | np.ndarray, n_dot_e: np.ndarray,
                           n_dot_u: np.ndarray, n_dot_v0: np.ndarray, n_dot_v1: np.ndarray
                           ) -> np.ndarray:
    """First time (s, (N,)) in [0, dt] where the curve's portal margin reaches zero; dt when it
    never does. The margin is quadratic in t: split at its extremum t* (B5) and bisect the
    monotone pieces. Claim: B7, C3."""
    def margin(t: np.ndarray) -> np.ndarray:
        return formulas.accel_margin(s=s_m, t=t, dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u,
                                     n_dot_v0=n_dot_v0, n_dot_v1=n_dot_v1)

    # nan=dt_s broadcasts a per-agent dt (numpy's stubs only admit a scalar)
    t_star = np.nan_to_num(accel_extremum_time_s(dt_s, n_dot_e, n_dot_u, n_dot_v0, n_dot_v1),
                           nan=dt_s)  # type: ignore[arg-type]
    result = np.full(s_m.shape, dt_s)
    found = np.zeros(s_m.shape, bool)
    for lo0, hi0 in ((np.zeros_like(s_m), t_star), (t_star, np.full_like(s_m, dt_s))):
        crosses = ~found & (margin(lo0) > 0.0) & (margin(hi0) <= 0.0) & (hi0 > lo0)
        _, hi = bisect(lo0, hi0, lambda mid: margin(mid) <= 0.0)
        # hi is on or beyond the portal: the sub-step ends exactly where the curve reaches it
        result = np.where(crosses, hi, result)
        found |= crosses
    return np.where(s_m <= 0.0, 0.0, result)


@dataclass(frozen=True)
class PortalStep:
    """Outcome of a step with at most one same-gradient portal crossing per agent.

    ``velocity_mps`` (N, 2) end velocity relative to the support, ``position_m`` (N, 2) world
    end position along the committed curve(s), ``region_id`` (N,), ``split_time_s`` (N,) time of
    the portal sub-step (dt when not split), ``first`` the whole-step solve in the current
    region, ``second`` the rebuilt solve of the remaining time for ``second_rows``.
    Claim: B7, C3.
    """

    velocity_mps: np.ndarray
    position_m: np.ndarray
    region_id: np.ndarray
    split_time_s: np.ndarray
    first: SafeStepResult
    second: SafeStepResult | None
    second_rows: np.ndarray


def step_with_portal(inp: StepInput, *, region_id: np.ndarray, portal_normal: np.ndarray,
                     portal_offset_m: np.ndarray, portal_valid: np.ndarray,
                     next_region_id: np.ndarray, next_edges: EdgeSet,
                     assertions: bool | None = None) -> PortalStep:
    """One step of N agents inside their current regions, split at the next same-gradient
    portal (N,) when the curve reaches it early (B7, C3).

    ``inp.edges`` must not contain the portal as a wall: the portal is checked here. Sub-step 1
    runs the first solve's curve up to the crossing time t_p; an agent on the portal and moving
    into the next region switches to ``next_edges`` (whose further portals are walls or
    portals as the caller marks them; no second crossing is taken), and every constraint is
    rebuilt for ``dt - t_p`` from the point reached, with the curve's velocity there as the
    actual velocity and neighbours advanced by ``t_p``. Agents that would reach the portal's
    line without moving into the next region, or outside the shared portal segment (the point
    reached is not inside the next region), are solved again for the whole step with the portal
    as a wall: nothing passes a wall that shares the portal's line.
    """
    n = inp.count
    dt = per_agent(check_valid_step(inp.dt_s), n)
    first = solve_safe_step(inp, assertions=assertions)
    x0, v0 = inp.position_m, inp.velocity_mps
    u = inp.support.carry_mps(x0)
    pn = check_valid_finite("portal_normal", np.where(portal_valid[:, None], portal_normal, 0.0))
    lengths = np.hypot(pn[:, 0], pn[:, 1])
    if np.any(portal_valid & (np.abs(lengths - 1.0) > UNIT_LENGTH_TOL)):
        raise InvalidInput("portal_normal", pn.tolist(), "must be unit vectors")
    portal_b = np.asarray(portal_offset_m, float)
    s = portal_b - np.einsum("nj,nj->n", pn, x0)
    v1 = first.velocity_mps
    t_p = portal_crossing_time_s(s, dt, np.zeros(n), np.einsum("nj,nj->n", pn, u),
                                 np.einsum("nj,nj->n", pn, v0), np.einsum("nj,nj->n", pn, v1))
    t_p = np.where(portal_valid, t_p, dt)
    rows = np.flatnonzero(portal_valid & (t_p < dt))
    tp = t_p[rows]
    v_at = v0[rows] + (v1[rows] - v0[rows]) * (tp / dt[rows])[:, None]
    x_at = x0[rows] + curve_displacement_m(u[rows], v0[rows], v1[rows], dt[rows], tp)
    margin_at = portal_b[rows] - np.einsum("nj,nj->n", pn[rows], x_at)
    switch = may_switch_region(np.where(np.abs(margin_at) <= EPS, 0.0, margin_at), pn[rows],
                               u[rows] + v_at)
    # the point reached must lie on the shared portal segment, i.e. inside the next region
    sub_edges = take_edges(next_edges, rows)
    inside = np.all(~sub_edges.valid | (sub_edges.initial_margin_m(x_at) >= -EPS), axis=1)
    enter = switch & inside
    blocked = rows[~enter]
    if blocked.size:
        # crossing elsewhere would pass a wall on the portal's line: solve again, portal as wall
        walled = take_input_rows(inp, blocked)
        walled = dataclasses.replace(walled, edges=_with_wall(walled.edges, pn[blocked],
                                                              portal_b[blocked]))
        first = scatter_rows(first, blocked, solve_safe_step(walled, assertions=assertions))
        t_p[blocked] = dt[blocked]
    velocity = first.velocity_mps.copy()
    position = x0 + curve_displacement_m(u, v0, velocity, dt, dt)
    regions = np.asarray(region_id).copy()
    rows, tp, v_at, x_at = rows[enter], tp[enter], v_at[enter], x_at[enter]
    second = None
    if rows.size:
        # the curve stops exactly on the portal; sub-step 2 starts from there, in the next region
        remaining = dt[rows] - tp
        base = take_input_rows(inp, rows)
        nb = base.neighbors
        if nb is not None:
            nb = Neighbors(nb.position_m + nb.velocity_mps * tp[:, None, None], nb.velocity_mps,
                           nb.radius_m, nb.valid)
        second_inp = dataclasses.replace(base, position_m=x_at, velocity_mps=v_at,
                                         dt_s=remaining, edges=take_edges(next_edges, rows),
                                         neighbors=nb)
        second = solve_safe_step(second_inp, assertions=assertions)
        velocity[rows] = second.velocity_mps
        position[rows] = x_at + curve_displacement_m(u[rows], v_at, second.velocity_mps,
                                                     remaining, remaining)
        regions[rows] = np.asarray(next_region_id)[rows]
    return PortalStep(velocity, position, regions, t_p, first, second, rows)


def _with_wall(edges: EdgeSet, normal: np.ndarray, offset_m: np.ndarray) -> EdgeSet:
    """The edge set with one more fixed wall per row (normal (R, 2), offset (R,))."""
    r = normal.shape[0]
    m = edges.motion
    kind = edges.kind if edges.kind is not None else np.full(edges.valid.shape, EDGE_WALL)
    return EdgeSet(np.concatenate([edges.normal, normal[:, None, :]], axis=1),
                   np.concatenate([edges.offset_m, offset_m[:, None]], axis=1),
                   np.concatenate([edges.valid, np.ones((r, 1), bool)], axis=1),
                   np.concatenate([edges.edge_id, np.full((r, 1), -1)], axis=1),
                   np.concatenate([edges.owner, np.full((r, 1), -1)], axis=1),
                   Motion(np.concatenate([m.pivot_m, np.zeros((r, 1, 2))], axis=1),
                          np.concatenate([m.velocity_mps, np.zeros((r, 1, 2))], axis=1),
                          np.concatenate([m.omega_radps, np.zeros((r, 1))], axis=1),
                          np.concatenate([m.version, np.zeros((r, 1), np.int64)], axis=1),
                          np.concatenate([m.acceleration_mps2, np.zeros((r, 1, 2))], axis=1)),
                   np.concatenate([kind, np.full((r, 1), EDGE_WALL)], axis=1))


__all__ = [
    "PortalStep",
    "Region",
    "curve_displacement_m",
    "may_switch_region",
    "merge_regions",
    "portal_crossing_time_s",
    "region_edges",
    "same_gradient",
    "shared_edge_owner",
    "step_with_portal",
]
