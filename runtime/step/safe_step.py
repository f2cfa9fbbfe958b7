"""The combined per-step safe velocity of every agent, vectorised across agents.

The solve variable is ``v1`` (m/s), the agent's velocity relative to its support at the END of
the step; the body accelerates linearly from the actual end velocity ``v0`` of the previous
step. Constraints, all in ``v1``:

- ORCA half-planes (built by :mod:`navproof.orca.lines` on world velocities, RVO2 line convention:
  allowed side left of the direction) shifted by the support carry: ``dot(n, u + v1) <= c``;
- per edge: the continuous-acceleration step-end half-plane (B4), the shared stop envelope (S3),
  the stop-from-step-end half-plane, and cutting planes at interior extrema found by B5;
- the horizontal speed disk ``|v1| <= Vh`` (V1) and the reachable disk ``|v1 - v0| <= a dt`` (V2).

Rotating supports and edges enter the half-planes through their velocities at the body's start
position (a linearisation that only proposes candidates); their candidates are accepted only by
the certified local-frame bound of B6 over the whole step and, for every wall that does not
share the support's rigid motion, by the certified bound of the whole stop after the step
(reaction, brake to rest on the support, hold at rest on the support:
:func:`navproof.boundary.model.rotating_stop_margin_bound_m`) instead of trusting the constant-velocity
stop formulas of S1/S3. A scene where nothing rotates skips that work entirely.

The closest point to the preferred velocity of a convex set in the plane lies at the preferred
velocity itself, on one constraint boundary (a projection) or where two boundaries meet. The
exact optimum comes from an incremental solve in the manner of RVO2's linear programs (the two
disks first, then one half-plane at a time, each a 1-D problem on its line). It is verified
against the whole continuous curve (B5/B6 against every edge, the stop from the step end) and
the exact neighbour sweep (W1); the first candidate that passes is committed with label
``SAFE``. Where the optimum fails, or the incremental solve finds nothing, all candidate points
are enumerated (line-line, line-circle, circle-circle), kept when feasible and sorted by
distance, and the next ones are verified in that order.
Otherwise the fallback order applies: F1 (dynamic-neighbour lines relaxed, braking velocity
closest to vStop; "dynamic avoidance failed"), F2 (strongest reachable braking truncated by the
sweep; "no stop guarantee"), F3 ("solve failed").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navproof.boundary.model import (
    EdgeSet,
    Support,
    accel_end_margin_m,
    accel_halfplane_offset_mps,
    accel_margin_at_time_offset_mps,
    check_valid_positive,
    check_valid_step,
    curve_min_margin_m,
    dot2,
    per_agent,
    per_edge,
    rotating_stop_margin_bound_m,
    rotating_stop_pairs,
    take_edges,
    take_support,
    translating_curve_margins_m,
)
from navproof.boundary.reference import Reference, reference_velocity
from navproof.boundary.slope import reach_margin_mps, speed_margin_mps
from navproof.boundary.stop_envelope import (
    check_valid_budget,
    end_stop_margin_m,
    end_stop_offset_mps,
    envelope_margin_m,
    envelope_speed_cap_mps,
    necessary_bound_mps,
    stop_halfplane_offset_mps,
)
from navproof.core.errors import EPS, InvalidInput, assertions_enabled
from navproof.core.validation import check_valid_finite
from navproof.step.sweep import (
    first_contact_time_s,
    sweep_margin_m,
    sweep_min_distance_m,
    sweep_passes,
)

# labels: one small int per agent
SAFE = 0
DYNAMIC_AVOIDANCE_FAILED = 1
NO_STOP_GUARANTEE = 2
SOLVE_FAILED = 3
LABEL_NAMES = ("safe", "dynamic avoidance failed", "no stop guarantee", "solve failed")

# flags: bit set per agent
FLAG_CARRY_EXCEEDS_CANCEL = 1
FLAG_NO_REFERENCE = 2
FLAG_TRUNCATED = 4
FLAG_ROTATING_STOP_UNCERTIFIED = 8
FLAG_NAMES = {
    FLAG_CARRY_EXCEEDS_CANCEL: "support carry exceeds cancel capacity",
    FLAG_NO_REFERENCE: "no reference velocity keeps every edge",
    FLAG_TRUNCATED: "step truncated by the sweep",
    FLAG_ROTATING_STOP_UNCERTIFIED: "stop or hold on a rotating support / next to a rotating "
                                    "edge not certified",
}
"""FLAG_ROTATING_STOP_UNCERTIFIED: the committed velocity's stop after the step (reaction, brake
to rest on the support, then the hold at rest on the support) could not be certified in some
wall's local frame (B6); resting on a rotating support is not resting relative to a fixed or
differently moving wall, so such an agent is never labelled safe (S3 and R3 assume constant
velocities)."""

CUT_ROUNDS = 8
"""Rounds of B5 cutting planes before a row goes to the fallback order."""
VERIFY_CANDIDATES = 4
"""Feasible candidates verified per row and round, nearest first."""
CHUNK_ROWS = 512
"""Agents per chunk of the candidate enumeration (bounds the temporary arrays)."""
SWEEP_EXACT_BAND_M = 1.0
"""Pairs whose certified lower distance bound is within this band (m) of the combined radius
get the exact minimum; farther pairs keep the certified bound (W1 is decided either way)."""
IMPOSSIBLE_OFFSET_MPS = -1.0e6
"""Offset (m/s) standing in for a half-plane no velocity satisfies (a -inf or NaN bound)."""
FEASIBILITY_CHUNK = 32
"""Candidates per row checked against every constraint at a time, nearest first."""
PARALLEL_DET = 1e-12
"""Determinant of two unit normals below which two boundaries count as parallel."""


@dataclass(frozen=True)
class Neighbors:
    """Per-agent neighbour predictions for the sweep, shapes (N, J, ...): world positions (m) at
    the start of the step, constant predicted world velocities (m/s), radii (m), mask."""

    position_m: np.ndarray
    velocity_mps: np.ndarray
    radius_m: np.ndarray
    valid: np.ndarray

    @staticmethod
    def none(n: int) -> Neighbors:
        """No neighbours for any of ``n`` agents."""
        return Neighbors(np.zeros((n, 0, 2)), np.zeros((n, 0, 2)), np.zeros((n, 0)),
                         np.zeros((n, 0), bool))

    @staticmethod
    def gather(index: np.ndarray, position_m: np.ndarray, velocity_mps: np.ndarray,
               radius_m: np.ndarray) -> Neighbors:
        """Neighbours by index (N, J), padded with -1, from crowd-wide arrays (M, ...)."""
        idx = np.asarray(index, dtype=np.int64)
        valid = idx >= 0
        safe = np.where(valid, idx, 0)
        return Neighbors(np.asarray(position_m, float)[safe],
                         np.where(valid[..., None], np.asarray(velocity_mps, float)[safe], 0.0),
                         np.asarray(radius_m, float)[safe], valid)

    def take(self, rows: np.ndarray | slice) -> Neighbors:
        return Neighbors(self.position_m[rows], self.velocity_mps[rows], self.radius_m[rows],
                         self.valid[rows])


@dataclass(frozen=True)
class StepInput:
    """Everything one step of N agents needs (arrays (N, ...), float64, metres and seconds).

    ``dt_s`` is the step length (s), one float or one per agent (N,) for the remaining time of a
    portal sub-step. ``velocity_mps`` is the actual end velocity v0 of the previous step and
    ``preferred_mps`` the
    preferred velocity, both relative to the support. ``vh_mps`` and ``accel_mps2`` are the
    horizontal caps in force (V1); ``accel_mps2`` is both the braking budget and the V2 radius
    rate. ORCA lines act on world velocities; empty arrays mean no neighbour constraint. The
    first ``orca_num_hard[i]`` ORCA slots of agent i are static-obstacle lines (O5): the F1
    fallback keeps them and relaxes only the dynamic-neighbour lines after them.
    """

    position_m: np.ndarray
    velocity_mps: np.ndarray
    preferred_mps: np.ndarray
    dt_s: float | np.ndarray
    support: Support
    edges: EdgeSet
    vh_mps: np.ndarray
    accel_mps2: np.ndarray
    radius_m: np.ndarray
    orca_point: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 2)))
    orca_direction: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 2)))
    orca_valid: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))
    neighbors: Neighbors | None = None
    orca_num_hard: np.ndarray | None = None

    @property
    def count(self) -> int:
        return int(self.position_m.shape[0])

    @property
    def dt_per_agent_s(self) -> np.ndarray:
        """Every agent's step length (s, (N,)); a validated input already holds this array."""
        dt = self.dt_s
        if isinstance(dt, np.ndarray) and dt.shape == (self.count,):
            return dt
        return per_agent(dt, self.count)


def _check_valid_finite_where(field: str, value: np.ndarray, valid: np.ndarray) -> None:
    """InvalidInput naming the first non-finite entry of ``value`` (..., 2) in a valid slot."""
    # all finite (the usual case): nothing to name, no masked copy
    if not np.isfinite(value).all():
        check_valid_finite(field, np.where(valid[..., None], value, 0.0))


def check_valid_step_input(inp: StepInput) -> StepInput:
    """Validate every field (InvalidInput naming field and value; nothing is changed) and
    return the input with default ORCA and neighbour arrays filled in. Claim: S6 (no division by
    a zero budget, no non-finite velocity), B1 (dt > 0)."""
    x0 = check_valid_finite("position_m", inp.position_m)
    n = x0.shape[0]
    dt = check_valid_step(inp.dt_s)
    if np.ndim(dt) and np.shape(dt) != (n,):
        raise InvalidInput("dt_s", np.shape(dt), f"must be a float or have shape ({n},)")
    if x0.shape != (n, 2):
        raise InvalidInput("position_m", x0.shape, "must have shape (N, 2)")
    for name in ("velocity_mps", "preferred_mps"):
        arr = check_valid_finite(name, getattr(inp, name))
        if arr.shape != (n, 2):
            raise InvalidInput(name, arr.shape, "must have shape (N, 2)")
    check_valid_positive("vh_mps", np.broadcast_to(inp.vh_mps, (n,)))
    check_valid_budget("accel_mps2", np.broadcast_to(inp.accel_mps2, (n,)))
    check_valid_positive("radius_m", np.broadcast_to(inp.radius_m, (n,)))
    if inp.edges.normal.shape[0] != n:
        raise InvalidInput("edges", inp.edges.normal.shape, f"must hold edges of {n} agents")
    orca_point, orca_direction, orca_valid = inp.orca_point, inp.orca_direction, inp.orca_valid
    if orca_valid.shape[0] != n:
        if orca_valid.size:
            raise InvalidInput("orca_valid", orca_valid.shape, f"must have {n} rows")
        orca_point, orca_direction = np.zeros((n, 0, 2)), np.zeros((n, 0, 2))
        orca_valid = np.zeros((n, 0), bool)
    _check_valid_finite_where("orca_point", orca_point, orca_valid)
    _check_valid_finite_where("orca_direction", orca_direction, orca_valid)
    num_hard = np.zeros(n, np.int64) if inp.orca_num_hard is None else np.broadcast_to(
        np.asarray(inp.orca_num_hard, np.int64), (n,)).copy()
    if np.any((num_hard < 0) | (num_hard > orca_valid.shape[1])):
        raise InvalidInput("orca_num_hard", num_hard.tolist(),
                           f"must lie in [0, {orca_valid.shape[1]}]")
    neighbors = inp.neighbors if inp.neighbors is not None else Neighbors.none(n)
    _check_valid_finite_where("neighbors.position_m", neighbors.position_m, neighbors.valid)
    _check_valid_finite_where("neighbors.velocity_mps", neighbors.velocity_mps, neighbors.valid)
    return StepInput(x0, np.asarray(inp.velocity_mps, float), np.asarray(inp.preferred_mps, float),
                     per_agent(dt, n), inp.support, inp.edges,
                     np.broadcast_to(np.asarray(inp.vh_mps, float), (n,)).copy(),
                     np.broadcast_to(np.asarray(inp.accel_mps2, float), (n,)).copy(),
                     np.broadcast_to(np.asarray(inp.radius_m, float), (n,)).copy(),
                     np.asarray(orca_point, float), np.asarray(orca_direction, float),
                     np.asarray(orca_valid, bool), neighbors, num_hard)


def step_input_from_crowd(crowd: Any, *, support: Support, edges: EdgeSet,
                          vh_mps: np.ndarray, accel_mps2: np.ndarray) -> StepInput:
    """Step input of every agent of a :class:`navproof.orca.crowd.Crowd` from its current snapshot.

    ORCA lines (obstacle lines first, kept hard by F1) come from ``crowd.compute_lines()`` on
    world velocities; the crowd's world velocities and preferred velocities are turned into
    velocities relative to each agent's support (minus the carry u); the sweep predicts every
    neighbour at its current world velocity. Claim: O2, O5, W1.
    """
    point, direction, valid, num_hard = crowd.compute_lines()
    position = np.asarray(crowd.position, dtype=np.float64)
    u = support.carry_mps(position)
    velocity = np.asarray(crowd.velocity, dtype=np.float64)
    return StepInput(position, velocity - u, np.asarray(crowd.pref_velocity) - u,
                     float(crowd.time_step), support, edges, vh_mps, accel_mps2,
                     np.asarray(crowd.radius, dtype=np.float64), orca_point=point,
                     orca_direction=direction, orca_valid=valid,
                     neighbors=Neighbors.gather(crowd.agent_neighbor_idx, position, velocity,
                                                crowd.radius),
                     orca_num_hard=num_hard)


@dataclass(frozen=True)
class Margins:
    """Signed margins of a velocity per agent and constraint (positive: inside).

    ``edge_curve_m`` (N, K) whole-step curve margin (B2/B5/B6); ``envelope_m`` (N, K) the S3
    envelope s - dot(n, c)(dt + Cmax/(2a)); ``end_stop_m`` (N, K) margin left after braking from
    the step end (S1), for walls next to rotating motion (B6) the least of that and the certified
    margin of the whole local-frame stop and hold; ``necessary_mps`` (N, K) S2 bound minus
    dot(n, c); ``sweep_m`` (N, J) W1 (exact within SWEEP_EXACT_BAND_M of contact, certified
    bound beyond); ``reach_mps`` V2; ``speed_mps`` (N,) V1; ``orca_mps`` (N, L) ORCA lines
    (m/s).
    """

    edge_curve_m: np.ndarray
    envelope_m: np.ndarray
    end_stop_m: np.ndarray
    necessary_mps: np.ndarray
    sweep_m: np.ndarray
    reach_mps: np.ndarray
    speed_mps: np.ndarray
    orca_mps: np.ndarray


@dataclass(frozen=True)
class SafeStepResult:
    """Outcome per agent: committed end velocity ``velocity_mps`` (N, 2) relative to the
    support, ``label`` (N,) int8 indexing LABEL_NAMES, ``flags`` (N,) bit set of FLAG_NAMES,
    ``commit_time_s`` (N,) how much of the step may be executed (dt unless F2 truncates it),
    the reference (R1/R2) and the signed margins of the committed velocity."""

    velocity_mps: np.ndarray
    label: np.ndarray
    flags: np.ndarray
    commit_time_s: np.ndarray
    reference: Reference
    cmax_mps: np.ndarray
    margins: Margins

    def label_names(self) -> list[str]:
        return [LABEL_NAMES[int(i)] for i in self.label]


# ---------------------------------------------------------------------------------------------
# exact closest point in half-planes and disks
# ---------------------------------------------------------------------------------------------

def closest_candidates(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                       hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                       disk_valid: np.ndarray, *, count: int = 1, tol: float = 0.5 * EPS
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` nearest feasible optimum candidates (m/s, (M, count, 2)) of
    min |v - preferred| over the half-planes ``dot(n, v) <= offset`` (M, K) and disks (M, D),
    nearest first, with their distances (M, count) (+inf: fewer feasible candidates). The first
    finite one is the exact closest point. Claim: O2 (combined).

    Nearly parallel boundaries can put a vertex at a huge or non-finite point; such candidates
    are discarded explicitly, so floating-point warnings are silenced here.
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _closest_candidates(preferred, hp_normal, hp_offset, hp_valid, disk_centre,
                                   disk_radius, disk_valid, count, tol)


def _closest_candidates(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                        hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                        disk_valid: np.ndarray, count: int, tol: float
                        ) -> tuple[np.ndarray, np.ndarray]:
    m, k = hp_valid.shape
    d = disk_valid.shape[1]
    cands = [preferred[:, None, :]]
    ok = [np.ones((m, 1), bool)]
    n = hp_normal
    c = hp_offset
    # project on each line
    viol = np.einsum("mkj,mj->mk", n, preferred) - c
    cands.append(preferred[:, None, :] - viol[..., None] * n)
    ok.append(hp_valid)
    # project on each circle
    w = preferred[:, None, :] - disk_centre
    wl = np.hypot(w[..., 0], w[..., 1])
    unit = np.where((wl > 0.0)[..., None], w / np.where(wl > 0.0, wl, 1.0)[..., None],
                    np.array([1.0, 0.0]))
    cands.append(disk_centre + disk_radius[..., None] * unit)
    ok.append(disk_valid)
    # line-line vertices
    if k >= 2:
        ii, jj = np.triu_indices(k, 1)
        ni, nj, ci, cj = n[:, ii], n[:, jj], c[:, ii], c[:, jj]
        det = ni[..., 0] * nj[..., 1] - ni[..., 1] * nj[..., 0]
        good = np.abs(det) > PARALLEL_DET
        inv = 1.0 / np.where(good, det, 1.0)
        vx = (ci * nj[..., 1] - cj * ni[..., 1]) * inv
        vy = (ni[..., 0] * cj - nj[..., 0] * ci) * inv
        cands.append(np.stack([vx, vy], axis=-1))
        ok.append(good & hp_valid[:, ii] & hp_valid[:, jj])
    # line-circle points
    if k and d:
        dist = c[:, :, None] - np.einsum("mkj,mdj->mkd", n, disk_centre)
        foot = disk_centre[:, None, :, :] + dist[..., None] * n[:, :, None, :]
        half_sq = disk_radius[:, None, :] ** 2 - dist ** 2
        half = np.sqrt(np.maximum(half_sq, 0.0))
        tang = np.stack([-n[..., 1], n[..., 0]], axis=-1)[:, :, None, :]
        both = np.concatenate([foot + half[..., None] * tang, foot - half[..., None] * tang],
                              axis=2)
        cands.append(both.reshape(m, -1, 2))
        good = (half_sq >= 0.0) & hp_valid[:, :, None] & disk_valid[:, None, :]
        ok.append(np.concatenate([good, good], axis=2).reshape(m, -1))
    # circle-circle points
    for a in range(d):
        for b in range(a + 1, d):
            pa, pb = disk_centre[:, a], disk_centre[:, b]
            ra, rb = disk_radius[:, a], disk_radius[:, b]
            delta = pb - pa
            dd = np.hypot(delta[:, 0], delta[:, 1])
            good = (dd > 0.0) & (dd <= ra + rb) & (dd >= np.abs(ra - rb))
            dsafe = np.where(dd > 0.0, dd, 1.0)
            along = (ra * ra - rb * rb + dd * dd) / (2.0 * dsafe)
            h = np.sqrt(np.maximum(ra * ra - along * along, 0.0))
            ex = delta / dsafe[:, None]
            base = pa + along[:, None] * ex
            perp = np.stack([-ex[:, 1], ex[:, 0]], axis=1)
            cands.append(np.stack([base + h[:, None] * perp, base - h[:, None] * perp], axis=1))
            ok.append(np.stack([good & disk_valid[:, a] & disk_valid[:, b]] * 2, axis=1))
    cand = np.concatenate(cands, axis=1)
    cok = np.concatenate(ok, axis=1) & np.all(np.isfinite(cand), axis=-1)
    # nearest first (ties in candidate order), then feasibility in chunks until each row has
    # ``count`` feasible ones: the same list as checking every candidate, without the K^3 work
    dist = np.where(cok, np.hypot(cand[..., 0] - preferred[:, None, 0],
                                  cand[..., 1] - preferred[:, None, 1]), np.inf)
    order = np.argsort(dist, axis=1, kind="stable")
    cand = np.take_along_axis(cand, order[..., None], 1)
    dist = np.take_along_axis(dist, order, 1)
    out = np.zeros((m, count, 2))
    out_dist = np.full((m, count), np.inf)
    have = np.zeros(m, np.int64)
    rows = np.arange(m)
    for start in range(0, cand.shape[1], FEASIBILITY_CHUNK):
        rows = rows[(have[rows] < count) & np.isfinite(dist[rows, start])]
        if rows.size == 0:
            break
        stop = start + FEASIBILITY_CHUNK
        chunk = cand[rows, start:stop]
        feasible = np.isfinite(dist[rows, start:stop])
        # feasibility against every constraint
        if k:
            over = (chunk[:, :, None, 0] * n[rows, None, :, 0]
                    + chunk[:, :, None, 1] * n[rows, None, :, 1]) - c[rows, None, :]
            feasible &= np.all((over <= tol) | ~hp_valid[rows, None, :], axis=2)
        for a in range(d):
            r = np.hypot(chunk[..., 0] - disk_centre[rows, a, None, 0],
                         chunk[..., 1] - disk_centre[rows, a, None, 1])
            feasible &= (r <= disk_radius[rows, a, None] + tol) | ~disk_valid[rows, a, None]
        slot = have[rows, None] + np.cumsum(feasible, axis=1) - 1
        keep_r, keep_c = np.nonzero(feasible & (slot < count))
        out[rows[keep_r], slot[keep_r, keep_c]] = chunk[keep_r, keep_c]
        out_dist[rows[keep_r], slot[keep_r, keep_c]] = dist[rows[keep_r], start + keep_c]
        have[rows] += feasible.sum(axis=1)
    return out, out_dist


def closest_point(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                  hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                  disk_valid: np.ndarray, *, tol: float = 0.5 * EPS
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Exact closest point (m/s, (M, 2)) to ``preferred`` in the intersection of at most two
    disks (M, D <= 2) and the half-planes ``dot(n, v) <= offset`` (M, K) with unit normals, and
    whether it was found (M,). Claim: O2 (combined), V1, V2.

    Incremental, like RVO2's linear programs: the closest point of the disks first, then the
    half-planes in slot order; where the point so far violates half-plane i, the new optimum
    lies on line i (strictly convex objective, convex set), the closest point of the interval
    the disks and the half-planes j < i leave on it. A row is reported not found when that
    interval or the disks' intersection is empty; :func:`closest_candidates` decides those rows.
    The loop runs over the slot index only, never over rows.
    """
    if disk_valid.shape[1] > 2:
        raise ValueError("closest_point takes at most two disks")
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _closest_point(preferred, hp_normal, hp_offset, hp_valid, disk_centre,
                              disk_radius, disk_valid, tol)


def _project_on_disk(p: np.ndarray, centre: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Closest point of the disk (centre (M, 2), radius (M,)) to p (M, 2)."""
    w = p - centre
    wl = np.hypot(w[:, 0], w[:, 1])
    outside = wl > radius
    scale = np.where(outside, radius / np.where(outside, wl, 1.0), 1.0)
    return centre + w * scale[:, None]


def _in_disk(v: np.ndarray, centre: np.ndarray, radius: np.ndarray, valid: np.ndarray,
             tol: float) -> np.ndarray:
    return ~valid | (np.hypot(v[:, 0] - centre[:, 0], v[:, 1] - centre[:, 1]) <= radius + tol)


def _closest_point(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                   hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                   disk_valid: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    m, k = hp_valid.shape
    pad = 2 - disk_valid.shape[1]
    centre = np.concatenate([disk_centre, np.zeros((m, pad, 2))], axis=1)
    radius = np.concatenate([disk_radius, np.ones((m, pad))], axis=1)
    dvalid = np.concatenate([disk_valid, np.zeros((m, pad), bool)], axis=1)
    # closest point of the disks: the projection on disk a when inside disk b, else the
    # projection on b when inside a, else the nearer crossing of the two circles
    result = np.where(dvalid[:, 0, None], _project_on_disk(preferred, centre[:, 0], radius[:, 0]),
                      preferred)
    found = _in_disk(result, centre[:, 1], radius[:, 1], dvalid[:, 1], tol)
    rest = np.flatnonzero(~found)
    if rest.size:
        ca, cb, ra, rb = centre[rest, 0], centre[rest, 1], radius[rest, 0], radius[rest, 1]
        va, vb, p = dvalid[rest, 0], dvalid[rest, 1], preferred[rest]
        on_b = np.where(vb[:, None], _project_on_disk(p, cb, rb), p)
        b_ok = _in_disk(on_b, ca, ra, va, tol)
        delta = cb - ca
        dd = np.hypot(delta[:, 0], delta[:, 1])
        dsafe = np.where(dd > 0.0, dd, 1.0)
        along = (ra * ra - rb * rb + dd * dd) / (2.0 * dsafe)
        h = np.sqrt(np.maximum(ra * ra - along * along, 0.0))
        ex = delta / dsafe[:, None]
        base = ca + along[:, None] * ex
        perp = np.stack([-ex[:, 1], ex[:, 0]], axis=1) * h[:, None]
        first, second = base + perp, base - perp
        nearer = (np.hypot(*(first - p).T) <= np.hypot(*(second - p).T))
        cross = np.where(nearer[:, None], first, second)
        cross_ok = va & vb & (dd > 0.0) & (dd <= ra + rb) & (dd >= np.abs(ra - rb))
        result[rest] = np.where(b_ok[:, None], on_b, cross)
        found[rest] = b_ok | cross_ok
    n, c = hp_normal, hp_offset
    # violated half-planes of every row at once; refreshed only for the rows that move
    pending = found[:, None] & hp_valid & (
        n[..., 0] * result[:, 0, None] + n[..., 1] * result[:, 1, None] - c > tol)
    for i in range(k):
        rows = np.flatnonzero(pending[:, i])
        if rows.size == 0:
            continue
        # line i: v = c_i n_i + t d_i with d_i the unit direction along it
        nx, ny, ci = n[rows, i, 0], n[rows, i, 1], c[rows, i]
        qx, qy = ci * nx, ci * ny
        dx, dy = -ny, nx
        t_lo = np.full(rows.size, -np.inf)
        t_hi = np.full(rows.size, np.inf)
        ok = np.ones(rows.size, bool)
        for disk in range(2):
            wx = qx - centre[rows, disk, 0]
            wy = qy - centre[rows, disk, 1]
            b = dx * wx + dy * wy
            disc = b * b - (wx * wx + wy * wy) + radius[rows, disk] ** 2
            half = np.sqrt(np.maximum(disc, 0.0))
            use = dvalid[rows, disk]
            ok &= ~use | (disc >= 0.0)
            t_lo = np.where(use, np.maximum(t_lo, -b - half), t_lo)
            t_hi = np.where(use, np.minimum(t_hi, -b + half), t_hi)
        if i:
            nj, cj, vj = n[rows, :i], c[rows, :i], hp_valid[rows, :i]
            # dot(n_j, v) <= c_j along the line: t dot(n_j, d_i) <= c_j - dot(n_j, q_i)
            slope = nj[..., 0] * dx[:, None] + nj[..., 1] * dy[:, None]
            room = cj - nj[..., 0] * qx[:, None] - nj[..., 1] * qy[:, None]
            parallel = np.abs(slope) <= PARALLEL_DET
            # a parallel line j leaves all of line i or none of it
            ok &= ~np.any(vj & parallel & (room < -tol), axis=1)
            bound = room / np.where(parallel, 1.0, slope)
            t_hi = np.minimum(t_hi, np.min(np.where(vj & ~parallel & (slope > 0.0), bound,
                                                    np.inf), axis=1))
            t_lo = np.maximum(t_lo, np.max(np.where(vj & ~parallel & (slope < 0.0), bound,
                                                    -np.inf), axis=1))
        ok &= t_lo <= t_hi
        t = dx * (preferred[rows, 0] - qx) + dy * (preferred[rows, 1] - qy)
        t = np.minimum(np.maximum(t, t_lo), t_hi)
        moved = np.stack([qx + t * dx, qy + t * dy], axis=1)
        result[rows] = moved
        found[rows[~ok]] = False
        later = n[rows, i + 1:]
        pending[rows, i + 1:] = ok[:, None] & hp_valid[rows, i + 1:] & (
            later[..., 0] * moved[:, 0, None] + later[..., 1] * moved[:, 1, None]
            - c[rows, i + 1:] > tol)
    return result, found


def _drop_redundant(hp_normal: np.ndarray, hp_offset: np.ndarray, hp_valid: np.ndarray,
                    disk_centre: np.ndarray, disk_radius: np.ndarray, disk_valid: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Remove constraints that cannot change the feasible set, then pack each row's remaining
    half-planes to the front. A half-plane containing a whole valid disk, and a disk containing
    another valid disk, are redundant (the intersection is unchanged, so the optimum is too)."""
    hv = hp_valid.copy()
    for a in range(disk_valid.shape[1]):
        reach = np.einsum("mkj,mj->mk", hp_normal, disk_centre[:, a]) + disk_radius[:, a, None]
        hv &= ~(disk_valid[:, a, None] & (reach <= hp_offset))
    dv = disk_valid.copy()
    for a in range(dv.shape[1]):
        for c in range(dv.shape[1]):
            if a == c:
                continue
            gap = np.linalg.norm(disk_centre[:, a] - disk_centre[:, c], axis=1)
            inner = disk_valid[:, c] & (gap + disk_radius[:, c] <= disk_radius[:, a])
            # keep one of two identical disks
            same = inner & (gap + disk_radius[:, a] <= disk_radius[:, c])
            dv[:, a] &= ~(inner & ~(same & (a < c)))
    order = np.argsort(~hv, axis=1, kind="stable")
    width = int(hv.sum(axis=1).max(initial=0))
    order = order[:, :width]
    return (np.take_along_axis(hp_normal, order[..., None], 1),
            np.take_along_axis(hp_offset, order, 1), np.take_along_axis(hv, order, 1), dv)


def _best_candidates(preferred: np.ndarray, hp_normal: np.ndarray, hp_offset: np.ndarray,
                     hp_valid: np.ndarray, disk_centre: np.ndarray, disk_radius: np.ndarray,
                     disk_valid: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``count`` nearest feasible candidates per row, in chunks of CHUNK_ROWS rows, after
    dropping redundant constraints."""
    m = preferred.shape[0]
    out = np.zeros((m, count, 2))
    dist = np.full((m, count), np.inf)
    for start in range(0, m, CHUNK_ROWS):
        sl = slice(start, min(start + CHUNK_ROWS, m))
        hn, ho, hv, dv = _drop_redundant(hp_normal[sl], hp_offset[sl], hp_valid[sl],
                                         disk_centre[sl], disk_radius[sl], disk_valid[sl])
        out[sl], dist[sl] = closest_candidates(preferred[sl], hn, ho, hv, disk_centre[sl],
                                               disk_radius[sl], dv, count=count)
    return out, dist


# ---------------------------------------------------------------------------------------------
# constraint building and verification
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Prepared:
    u: np.ndarray
    n_dot_e: np.ndarray
    n_dot_u: np.ndarray
    n_dot_v0: np.ndarray
    s: np.ndarray
    ref: Reference
    cmax: np.ndarray
    hard_normal: np.ndarray
    hard_offset: np.ndarray
    hard_valid: np.ndarray
    orca_normal: np.ndarray
    orca_offset: np.ndarray
    orca_valid: np.ndarray
    rot_stop: np.ndarray | None = None
    """(N, K) walls whose stop is certified in the local frame (B6); None if nothing rotates."""


def _halfplane_sanitise(offset: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop half-planes that never bind (+inf) and make impossible ones (-inf, NaN) finite."""
    valid = valid & ~(offset == np.inf)
    impossible = np.isnan(offset) | (offset == -np.inf)
    return np.where(impossible, IMPOSSIBLE_OFFSET_MPS, offset), valid


def _prepare(inp: StepInput) -> _Prepared:
    """Constraints of every agent in the solve variable v1. Claim: B1, B3, B4, S3, R1, R2."""
    dt = inp.dt_s
    edges, x0, v0 = inp.edges, inp.position_m, inp.velocity_mps
    n = edges.normal
    u = inp.support.carry_mps(x0)
    e = edges.edge_velocity_mps(x0)
    n_dot_e = dot2(n, e)
    n_dot_u = dot2(n, u[:, None, :])
    n_dot_v0 = dot2(n, v0[:, None, :])
    s = edges.initial_margin_m(x0)
    ref = reference_velocity(edges, inp.support, x0, inp.vh_mps)
    cmax = envelope_speed_cap_mps(inp.vh_mps, u, ref.r_mps)
    b4 = accel_halfplane_offset_mps(s, per_edge(dt), n_dot_e, n_dot_u, n_dot_v0)
    s3 = stop_halfplane_offset_mps(n, s, dt, inp.accel_mps2, cmax, u, ref.r_mps)
    end = end_stop_offset_mps(n, s, dt, inp.accel_mps2, cmax, n_dot_e, u, ref.r_mps, v0)
    # the stop half-planes need a reference; without one only the B4 half-plane remains
    has_ref = ref.exists[:, None] & edges.wall
    offsets = np.concatenate([b4, s3, end], axis=1) - EPS
    valid = np.concatenate([edges.valid, has_ref, has_ref], axis=1)
    offsets, valid = _halfplane_sanitise(offsets, valid)
    normals = np.concatenate([n, n, n], axis=1)
    # ORCA lines: det(d, p - w) <= 0 on the world velocity w = u + v1
    d, p = inp.orca_direction, inp.orca_point
    on = np.stack([d[..., 1], -d[..., 0]], axis=-1)
    oc = dot2(on, p) - dot2(on, u[:, None, :])
    return _Prepared(u, n_dot_e, n_dot_u, n_dot_v0, s, ref, cmax, normals, offsets, valid, on,
                     oc, inp.orca_valid, rotating_stop_pairs(edges, inp.support))


@dataclass(frozen=True)
class _Checked:
    """Margins of candidates ``v1`` (R rows): certified whole-step curve bound (R, K), exact
    translating minimum and its time (R, K), step-end margin (R, K), and W1 sweep margin (R, J)
    (None when not checked)."""

    curve_m: np.ndarray
    exact_m: np.ndarray
    t_min_s: np.ndarray
    end_m: np.ndarray
    sweep_m: np.ndarray | None


@dataclass(frozen=True)
class _Known:
    """Margins of each agent's committed velocity as far as its verification computed them:
    curve bound and step-end margin (N, K), W1 sweep margin (N, J); ``has_curve`` and
    ``has_sweep`` (N,) mark the rows filled (the rest is computed by :func:`_margins`)."""

    curve_m: np.ndarray
    end_m: np.ndarray
    sweep_m: np.ndarray
    has_curve: np.ndarray
    has_sweep: np.ndarray

    @staticmethod
    def empty(n: int, k: int, j: int) -> _Known:
        return _Known(np.zeros((n, k)), np.zeros((n, k)), np.zeros((n, j)), np.zeros(n, bool),
                      np.zeros(n, bool))

    def store(self, agents: np.ndarray, checked: _Checked, picked: np.ndarray) -> None:
        """Keep the margins of rows ``picked`` of ``checked`` for ``agents``."""
        self.curve_m[agents] = checked.curve_m[picked]
        self.end_m[agents] = checked.end_m[picked]
        self.has_curve[agents] = True
        if checked.sweep_m is not None:
            self.sweep_m[agents] = checked.sweep_m[picked]
            self.has_sweep[agents] = True


def _curve_margins(inp: StepInput, prep: _Prepared, rows: np.ndarray | slice, v1: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Curve bound, exact translating minimum, its time and the step-end margin of candidates
    ``v1`` (R, 2) of agents ``rows``, from the normal components prepared once per step.
    Claim: B4, B5, B6."""
    dt = inp.dt_per_agent_s[rows]
    dt_e = dt[:, None]
    edges = take_edges(inp.edges, rows)
    s, nde, ndu, ndv0 = prep.s[rows], prep.n_dot_e[rows], prep.n_dot_u[rows], prep.n_dot_v0[rows]
    ndv1 = dot2(edges.normal, v1[:, None, :])
    exact, t_min = translating_curve_margins_m(s, dt_e, nde, ndu, ndv0, ndv1)
    curve = curve_min_margin_m(edges, take_support(inp.support, rows), inp.position_m[rows],
                               inp.velocity_mps[rows], v1, dt, exact_m=exact)
    end = accel_end_margin_m(s, dt_e, nde, ndu, ndv0, ndv1)
    return curve, np.where(edges.valid, exact, np.inf), t_min, end


def _sweep_margins(inp: StepInput, prep: _Prepared, neighbors: Neighbors,
                   rows: np.ndarray | slice, v1: np.ndarray) -> np.ndarray:
    """W1 margins (m, (R, J)) of candidates ``v1`` (R, 2) of agents ``rows`` (exact within
    SWEEP_EXACT_BAND_M of contact, certified bound beyond; +inf for empty slots). Claim: W1."""
    nb = neighbors.take(rows)
    x0 = inp.position_m[rows]
    comb = inp.radius_m[rows, None] + nb.radius_m
    dmin, _ = sweep_min_distance_m(x0, prep.u[rows], inp.velocity_mps[rows], v1,
                                   inp.dt_per_agent_s[rows], nb.position_m, nb.velocity_mps,
                                   nb.valid, exact_within_m=comb + SWEEP_EXACT_BAND_M)
    start = np.linalg.norm(x0[:, None, :] - nb.position_m, axis=-1)
    return np.where(nb.valid, sweep_margin_m(dmin, start, comb), np.inf)


def _as_index(rows: np.ndarray, n: int) -> np.ndarray | slice:
    """``rows`` as an index into per-agent arrays: a slice (views instead of copies) when it is
    every one of the ``n`` agents in order."""
    if rows.size == n and (n == 0 or (rows[0] == 0 and np.all(np.diff(rows) == 1))):
        return slice(None)
    return rows


def _rotating_stop_margins(inp: StepInput, prep: _Prepared, rows: np.ndarray | slice,
                           v1: np.ndarray) -> np.ndarray | None:
    """Certified margin (m, (R, K)) of the whole stop after the step, then the hold at rest on
    the support, for the walls of :func:`navproof.boundary.model.rotating_stop_pairs` (+inf for the
    other edges); None when nothing rotates. Claim: B6, S1, S3, R3."""
    if prep.rot_stop is None:
        return None
    need = prep.rot_stop[rows]
    out = np.full(need.shape, np.inf)
    sub = np.flatnonzero(need.any(axis=1))
    if sub.size == 0:
        return out
    agents = np.arange(inp.count)[rows][sub]
    stop, hold = rotating_stop_margin_bound_m(
        take_edges(inp.edges, agents), take_support(inp.support, agents),
        inp.position_m[agents], inp.velocity_mps[agents], v1[sub],
        inp.dt_per_agent_s[agents], inp.accel_mps2[agents])
    out[sub] = np.where(need[sub], np.minimum(stop, hold), np.inf)
    return out


def _verify(inp: StepInput, prep: _Prepared, rows: np.ndarray, v1: np.ndarray,
            check_sweep: bool) -> tuple[np.ndarray, _Checked]:
    """Whole-curve verification of candidates ``v1`` (R, 2) of agents ``rows`` (R,).

    Returns (passes (R,), the margins checked). Claim: B5, B6, S1 (stop from the step end), W1.
    """
    at = _as_index(rows, inp.count)
    curve, exact, t_min, end = _curve_margins(inp, prep, at, v1)
    ok = np.all(curve >= -EPS, axis=1)
    c1 = prep.u[at] + v1 - prep.ref.r_mps[at]
    stop = end_stop_margin_m(end, inp.edges.normal[at], c1, inp.accel_mps2[at])
    ok &= ~prep.ref.exists[at] | np.all(~inp.edges.wall[at] | (stop >= -EPS), axis=1)
    rot = _rotating_stop_margins(inp, prep, at, v1)
    if rot is not None:
        # B6: the stop of a rotating pair is certified along its local-frame curve, never by
        # the constant-velocity formulas alone
        ok &= ~prep.ref.exists[at] | np.all(rot >= -EPS, axis=1)
    sweep = None
    nb = inp.neighbors
    if check_sweep and nb is not None and nb.valid.shape[1]:
        sweep = _sweep_margins(inp, prep, nb, at, v1)
        ok &= sweep_passes(sweep)
    return ok, _Checked(curve, exact, t_min, end, sweep)


def _solve_rounds(inp: StepInput, prep: _Prepared, rows: np.ndarray, preferred: np.ndarray,
                  use_orca: bool, use_speed_disk: bool, check_sweep: bool, known: _Known
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Closest verified velocity for agents ``rows``: the exact optimum, then (where it fails or
    is not found) the enumerated candidates nearest first; add B5 cutting planes where the
    nearest candidate's curve dips out mid-step, repeat. The margins of accepted candidates go
    to ``known``. Returns (found (R,), v1 (R, 2))."""
    dt = inp.dt_per_agent_s[rows]
    k = inp.edges.valid.shape[1]
    r = rows.size
    found = np.zeros(r, bool)
    result = np.zeros((r, 2))
    cuts = np.full((r, k), np.inf)
    orca_valid = prep.orca_valid[rows]
    if not use_orca:
        # F1 relaxes the dynamic-neighbour lines only; static-obstacle lines stay
        slot = np.arange(orca_valid.shape[1])[None, :]
        num_hard = inp.orca_num_hard
        assert num_hard is not None  # filled in by check_valid_step_input
        orca_valid = orca_valid & (slot < num_hard[rows, None])
    # every half-plane in one array: edge rows, ORCA lines, then one cut slot per edge
    normal = np.concatenate([prep.hard_normal[rows], prep.orca_normal[rows],
                             inp.edges.normal[rows]], axis=1)
    offset = np.concatenate([prep.hard_offset[rows], prep.orca_offset[rows], cuts], axis=1)
    valid = np.concatenate([prep.hard_valid[rows], orca_valid, np.zeros((r, k), bool)], axis=1)
    first_cut = valid.shape[1] - k
    disk_c = np.stack([np.zeros((r, 2)), inp.velocity_mps[rows]], axis=1)
    disk_r = np.stack([inp.vh_mps[rows], inp.accel_mps2[rows] * dt], axis=1)
    disk_v = np.stack([np.full(r, use_speed_disk), np.ones(r, bool)], axis=1)
    active = np.arange(r)
    for _ in range(CUT_ROUNDS + 1):
        if active.size == 0:
            break
        offset[:, first_cut:], valid[:, first_cut:] = _halfplane_sanitise(cuts - EPS,
                                                                          np.isfinite(cuts))
        # the first round takes every row: views, no copies
        sel = active if active.size < r else slice(None)
        a_normal, a_offset, a_valid = normal[sel], offset[sel], valid[sel]
        nearest, solved = closest_point(preferred[sel], a_normal, a_offset, a_valid,
                                        disk_c[sel], disk_r[sel], disk_v[sel])
        done = np.zeros(active.size, bool)
        first_exact = np.full((active.size, k), np.inf)
        first_t = np.zeros((active.size, k))
        if solved.any():
            # every row of the round is verified (whole arrays are views, not row copies); a
            # row without an optimum stands in with its start velocity and its verdict is void
            cand0 = np.where(solved[:, None], nearest, inp.velocity_mps[rows[active]])
            ok, checked = _verify(inp, prep, rows[active], cand0, check_sweep)
            ok &= solved
            first_exact = np.where(solved[:, None], checked.exact_m, np.inf)
            first_t = np.where(solved[:, None], checked.t_min_s, 0.0)
            idx = np.flatnonzero(ok)
            result[active[idx]] = nearest[idx]
            found[active[idx]] = True
            done[idx] = True
            known.store(rows[active[idx]], checked, idx)
        # rows the incremental solve leaves open (no point found, or its point fails the
        # verification): the enumeration's nearest feasible candidates, in order
        retry = np.flatnonzero(~done)
        if retry.size:
            cand, dist = _best_candidates(preferred[active[retry]], a_normal[retry],
                                          a_offset[retry], a_valid[retry],
                                          disk_c[active[retry]], disk_r[active[retry]],
                                          disk_v[active[retry]], VERIFY_CANDIDATES)
            for j in range(VERIFY_CANDIDATES):
                # the nearest candidate of a solved row is the point verified above
                trying = ~done[retry] & np.isfinite(dist[:, j]) & ((j > 0) | ~solved[retry])
                if not trying.any():
                    continue
                sub = np.flatnonzero(trying)
                at = retry[sub]
                ok, checked = _verify(inp, prep, rows[active[at]], cand[sub, j], check_sweep)
                if j == 0:
                    first_exact[at], first_t[at] = checked.exact_m, checked.t_min_s
                result[active[at[ok]]] = cand[sub[ok], j]
                found[active[at[ok]]] = True
                done[at[ok]] = True
                known.store(rows[active[at[ok]]], checked, ok)
        # B5 cutting planes at the interior minimum of the nearest candidate's curve
        dt_active = dt[active][:, None]
        interior = ((first_exact < 0.0) & (first_t > 0.0) & (first_t < dt_active)
                    & ~done[:, None])
        if not interior.any():
            break
        agents = rows[active]
        q = accel_margin_at_time_offset_mps(prep.s[agents], np.where(interior, first_t, dt_active),
                                            dt_active,
                                            prep.n_dot_e[agents], prep.n_dot_u[agents],
                                            prep.n_dot_v0[agents])
        new_cut = np.where(interior, np.minimum(cuts[active], q), cuts[active])
        cuts[active] = new_cut
        active = active[~done & interior.any(axis=1)]
    return found, result


def _margins(inp: StepInput, prep: _Prepared, v1: np.ndarray, known: _Known) -> Margins:
    """Signed margins of the committed velocities (every agent), reusing those its verification
    computed. Claim: B5, B6, S1-S3, V1, V2, W1, O2."""
    dt = inp.dt_s
    n = inp.edges.normal
    curve, end, sweep = known.curve_m, known.end_m, known.sweep_m
    rest = np.flatnonzero(~known.has_curve)
    if rest.size:
        curve[rest], _, _, end[rest] = _curve_margins(inp, prep, rest, v1[rest])
    rest = np.flatnonzero(~known.has_sweep)
    if rest.size and inp.neighbors is not None and sweep.shape[1]:
        sweep[rest] = _sweep_margins(inp, prep, inp.neighbors, rest, v1[rest])
    c1 = prep.u + v1 - prep.ref.r_mps
    env = envelope_margin_m(n, prep.s, c1, dt, inp.accel_mps2, prep.cmax)
    stop = end_stop_margin_m(end, n, c1, inp.accel_mps2)
    rot = _rotating_stop_margins(inp, prep, slice(None), v1)
    if rot is not None:
        stop = np.minimum(stop, rot)
    nec = necessary_bound_mps(prep.s, dt, inp.accel_mps2) - dot2(n, c1[:, None, :])
    orca = np.where(prep.orca_valid, prep.orca_offset - dot2(prep.orca_normal, v1[:, None, :]),
                    np.inf)
    no_stop = ~inp.edges.wall
    return Margins(curve, np.where(no_stop, np.inf, env), np.where(no_stop, np.inf, stop),
                   np.where(no_stop, np.inf, nec), sweep,
                   reach_margin_mps(v1, inp.velocity_mps, inp.accel_mps2 * dt),
                   speed_margin_mps(v1, inp.vh_mps), orca)


def solve_safe_step(inp: StepInput, *, assertions: bool | None = None,
                    profile: Any = None) -> SafeStepResult:
    """Safe end velocities (m/s, relative to the support) of N agents for one step, with labels,
    flags, commit times, reference and signed margins.

    Order: exact closest verified velocity to the preferred one (label SAFE) -> F1 (ORCA lines
    relaxed, braking velocity closest to vStop in the corridor half-planes and the reachable
    disk; "dynamic avoidance failed") -> F2 (strongest reachable braking towards vStop, truncated
    at the first sweep contact; "no stop guarantee") -> F3 when no reference velocity exists,
    so there is no stop target ("solve failed"; still the strongest reachable braking towards
    relative rest, truncated the same way).
    An unreachable stop target (R2) or a missing reference never yields SAFE. In assertion mode
    the committed step is re-checked by :mod:`navproof.step.monitor`. With a ``profile``
    (a :class:`navproof.specs.Profile`), a step outside the ranges its proofs cover is refused
    (:func:`navproof.core.ranges.check_step_in_profile`).
    Claim: B1-B6, S3, R1, R2, V1, V2, W1, F1, F2, F3.
    """
    inp = check_valid_step_input(inp)
    if profile is not None:
        from navproof.core.ranges import check_step_in_profile

        check_step_in_profile(inp, profile)
    n = inp.count
    dt = inp.dt_per_agent_s
    prep = _prepare(inp)
    velocity = inp.velocity_mps.copy()
    label = np.full(n, SOLVE_FAILED, dtype=np.int8)
    flags = np.zeros(n, dtype=np.uint8)
    commit = dt.copy()
    every = np.arange(n)
    nb_count = 0 if inp.neighbors is None else inp.neighbors.valid.shape[1]
    known = _Known.empty(n, inp.edges.valid.shape[1], nb_count)
    found, v1 = _solve_rounds(inp, prep, every, inp.preferred_mps, True, True, True, known)
    velocity[found] = v1[found]
    label[found] = SAFE
    rest = np.flatnonzero(~found)
    if rest.size:
        # F1: relax only the dynamic-neighbour lines, aim at the stop target
        f1, v1 = _solve_rounds(inp, prep, rest, prep.ref.v_stop_mps[rest], False, False, False,
                               known)
        velocity[rest[f1]] = v1[f1]
        label[rest[f1]] = DYNAMIC_AVOIDANCE_FAILED
        rest = rest[~f1]
    if rest.size:
        # F2: strongest reachable braking towards vStop, truncated by the sweep; without a
        # reference there is no stop target: F3, braking towards relative rest
        v0 = inp.velocity_mps[rest]
        toward = prep.ref.v_stop_mps[rest] - v0
        length = np.linalg.norm(toward, axis=1)
        reach = inp.accel_mps2[rest] * dt[rest]
        scale = np.where(length > reach, reach / np.where(length > 0.0, length, 1.0), 1.0)
        v_brake = v0 + toward * scale[:, None]
        nb = inp.neighbors
        if nb is not None and nb.valid.shape[1]:
            sub = nb.take(rest)
            t_stop = first_contact_time_s(inp.position_m[rest], prep.u[rest], v0, v_brake,
                                          dt[rest], sub.position_m, sub.velocity_mps, sub.valid,
                                          inp.radius_m[rest, None] + sub.radius_m)
        else:
            t_stop = dt[rest].copy()
        velocity[rest] = v_brake
        label[rest] = np.where(prep.ref.exists[rest], NO_STOP_GUARANTEE, SOLVE_FAILED)
        commit[rest] = t_stop
        flags[rest[t_stop < dt[rest]]] |= FLAG_TRUNCATED
    no_ref = ~prep.ref.exists
    unreachable = prep.ref.exists & ~prep.ref.reachable
    flags[no_ref] |= FLAG_NO_REFERENCE
    flags[unreachable] |= FLAG_CARRY_EXCEEDS_CANCEL
    label[(label == SAFE) & (no_ref | unreachable)] = NO_STOP_GUARANTEE
    margins = _margins(inp, prep, velocity, known)
    if prep.rot_stop is not None:
        uncertified = np.any(prep.rot_stop & (margins.end_stop_m < -EPS), axis=1)
        flags[uncertified] |= FLAG_ROTATING_STOP_UNCERTIFIED
    result = SafeStepResult(velocity, label, flags, commit, prep.ref, prep.cmax, margins)
    if assertions_enabled(assertions):
        from navproof.step.monitor import check_committed_step

        check_committed_step(inp, result)
    return result
