"""An independent check of one committed World step: the executed motion re-built from its own
kinematics and measured against every body, wall, obstacle, region and speed cap, with geometry
written here (no generated formula, no code of the safe step, no ORCA neighbour list).

What is checked, per agent, over the whole step ``[0, dt]`` (Claim: C4, C1, B5, W1, O2, V1, T4):

- **C4** the body centre stays in the corridor region (the region is in centre space, C2);
- **C1** a body not moved by its handoff controller stays in its slope patch's piece (only the
  handoff controller crosses a patch edge, H4): ``patch_crossing``;
- **B5** a carried body stays on its platform (the platform's edges, in the platform's frame), and
  no body disc enters an obstacle (exact signed distance to any simple polygon, either
  orientation: the even-odd rule gives the inside);
- **W1** no two body discs overlap (every pair that can come within reach, found by a spatial
  hash of this module, whatever ORCA's ``neighbor_dist`` and ``max_neighbors``);
- **O2 / V1** the executed end velocity relative to the support keeps the horizontal cap of the
  body's patch (V1 where the patch is sloped, O2 on flat ground), and the world speed keeps the
  cap plus the support carry at the body;
- **T4** the World's executed end state is the end of the re-built curve.

The executed curve (the motion controller's documented kinematics, written out here): relative to
its support a free body ramps linearly from ``v0`` to ``v1`` up to the commit time ``tc`` and then
rests on it, ``y(t) = x0 + v0 s + (v1 - v0) s^2 / (2 dt)`` with ``s = min(t, tc)``; the support
carries it, ``x(t) = c + w t + alpha t^2 / 2 + R(omega t) (y(t) - c)``. A body moved by its handoff
controller goes straight from its start to its end position. What the World executed is kept in
:class:`StepMotion` (``WorldStep.motion``), captured before the layout advances.

Sampling and tolerance: each clearance ``f(t)`` is evaluated at ``SAMPLES + 1`` equally spaced
times. ``f`` is Lipschitz in time with the constant ``L`` of the body's speed bound (the sum of
the two for a pair; signed distances are 1-Lipschitz in the point), so on an interval of length
``h`` with end values ``fa``, ``fb`` its minimum is at least ``(fa + fb) / 2 - L h / 2``. Every
interval whose bound falls below ``-TOLERANCE_M`` is bisected (its midpoint evaluated) until the
bound clears it; once a sample is below it, bisection goes on until every bound clears that
sample's value less ``TOLERANCE_M``. So a violation cannot hide between samples: a reported
clearance ``>= -TOLERANCE_M`` means the true minimum over the step is ``>= -TOLERANCE_M``, and a
reported violation is the true minimum within ``TOLERANCE_M``; a reported clearance is always a
value the curve really reaches (above the band of the tolerance, an upper bound of the true
minimum within ``L h / 2`` of it). Clearances of bodies and obstacles farther than
``REPORT_BAND_M`` beyond reach are not sampled: they report a certified lower bound (their
start clearance minus the reach), which is above the band.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from navproof.core.errors import ObligationViolation
from navproof.step.result import SAFE

SAMPLES = 8
"""Equal intervals per step at which every clearance is first evaluated (then refined)."""
TOLERANCE_M = 1e-6
"""Numerical slack (m) of a clearance: far above the rounding of the World's and this module's
two computations of the same curve (~1e-12 m over a run), far below any physical overlap."""
SPEED_TOLERANCE_MPS = 1e-6
"""Numerical slack (m/s) of a speed cap and of the end-velocity agreement (T4)."""
REPORT_BAND_M = 0.5
"""Bodies and obstacles whose certified clearance over the step exceeds this (m) are not
sampled; they report that certified lower bound."""
MAX_BISECTIONS = 60
"""Bisection depth bound of the refinement (dt / 2^60 is far below any Lipschitz slack)."""

CLAIM_ORDER = ("C4", "C1", "B5", "W1", "V1", "O2", "T4")
"""The order in which a violated rule is reported as an agent's ``claim``."""


@dataclass(frozen=True)
class StepMotion:
    """What the World executed in one step, enough to re-build every body's curve: start time
    and step (s), start positions (m, (N, 2)), velocities relative to the support at the start
    and committed (m/s), commit times (s, (N,)), each body's support motion at the start (pivot
    m, pivot velocity m/s, acceleration m/s^2, rotation rad/s) and index (-1 ground), its patch
    (-1 none) and horizontal cap (m/s), the rows moved by their handoff controller, radii (m),
    the executed end positions and world velocities, and the layout's polygons at the start of
    the step (corridor, patches, supports in world coordinates, obstacles). Claim: T4."""

    time_s: float
    dt_s: float
    position_m: np.ndarray
    velocity_rel_mps: np.ndarray
    committed_rel_mps: np.ndarray
    commit_s: np.ndarray
    pivot_m: np.ndarray
    pivot_velocity_mps: np.ndarray
    pivot_acceleration_mps2: np.ndarray
    omega_radps: np.ndarray
    support_index: np.ndarray
    patch: np.ndarray
    patch_slope_factor: np.ndarray
    cap_mps: np.ndarray
    handoff_rows: np.ndarray
    radius_m: np.ndarray
    end_position_m: np.ndarray
    end_velocity_mps: np.ndarray
    corridor_m: np.ndarray | None
    patches_m: tuple[np.ndarray, ...]
    supports_m: tuple[np.ndarray, ...]
    platform: np.ndarray
    obstacles_m: tuple[np.ndarray, ...]
    split_s: np.ndarray | None = None
    """Per body, the time (s) its step was split at a portal (C3, B7; +inf: not split); after it
    the body ramps from its velocity then to ``second_rel_mps`` over the rest of the step,
    committed for ``second_commit_s`` (s from the split). None: no step was split."""
    second_rel_mps: np.ndarray | None = None
    second_commit_s: np.ndarray | None = None

    @staticmethod
    def capture(world: Any, x0_m: np.ndarray, v0_mps: np.ndarray, v1_mps: np.ndarray,
                commit_s: np.ndarray, support: Any, support_index: np.ndarray,
                cap_mps: np.ndarray, handoff_rows: np.ndarray, end_position_m: np.ndarray,
                end_velocity_mps: np.ndarray, split: Any = None) -> StepMotion:
        """The record of the step the World just executed (call before ``layout.advance``);
        ``split`` is (rows, split times, second velocities, second commit times) of the bodies
        whose step was split at a portal, or None."""
        layout = world.layout
        m = support.motion
        n = x0_m.shape[0]
        split_s = second = second_commit = None
        if split is not None and len(split[0]):
            rows, times, v2, commit2 = split
            split_s = np.full(n, np.inf)
            second, second_commit = v1_mps.copy(), np.zeros(n)
            split_s[rows], second[rows], second_commit[rows] = times, v2, commit2
        return StepMotion(
            float(world.time_s), float(world.dt_s), x0_m, v0_mps, v1_mps, commit_s,
            m.pivot_m, m.velocity_mps, m.acceleration_mps2, m.omega_radps, support_index,
            world.patch.copy(), layout.patch_k[world.patch], cap_mps, handoff_rows,
            world.radius_m, end_position_m, end_velocity_mps, layout.corridor,
            tuple(p.vertices_m for p in layout.patches),
            tuple(layout.platform_vertices(s) for s in range(len(layout.supports))),
            np.array([s.kind == "platform" for s in layout.supports], bool),
            tuple(np.asarray(o, dtype=np.float64) for o in layout.obstacles),
            split_s, second, second_commit)


@dataclass(frozen=True)
class StepTruth:
    """The verdict of the independent check on one step, per agent (N,): minimum clearances over
    the step (m; centre to walls in centre space, disc to obstacles, disc to discs; +inf where
    none), the speed excess over the cap (m/s, negative inside), whether a free body crossed its
    patch boundary, whether any rule failed, the claim of the first failed rule ('' if none, in
    ``CLAIM_ORDER``), its signed margin, and ``lying``: labelled safe and violated.
    Claim: C4, C1, B5, W1, O2, V1, T4."""

    wall_clearance_m: np.ndarray
    obstacle_clearance_m: np.ndarray
    agent_clearance_m: np.ndarray
    speed_excess_mps: np.ndarray
    patch_crossing: np.ndarray
    violated: np.ndarray
    claim: np.ndarray
    margin: np.ndarray
    label: np.ndarray
    lying: np.ndarray
    time_s: float


# --------------------------------------------------------------------------- kinematics
def _rotate(v: np.ndarray, angle: np.ndarray) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1]], axis=-1)


class _Curves:
    """Every body's executed curve of one step, evaluated at any (agent, time) arrays."""

    def __init__(self, mo: StepMotion) -> None:
        self.mo = mo
        n = mo.position_m.shape[0]
        self.handoff = np.zeros(n, bool)
        self.handoff[mo.handoff_rows] = True
        dt = mo.dt_s
        v0, v1 = mo.velocity_rel_mps, mo.committed_rel_mps
        rel_speed = np.maximum(np.hypot(*v0.T), np.hypot(*v1.T))
        self.split = mo.split_s is not None
        if self.split:
            assert mo.split_s is not None and mo.second_rel_mps is not None
            rel_speed = np.maximum(rel_speed, np.hypot(*mo.second_rel_mps.T))
        arm = np.hypot(*(mo.position_m - mo.pivot_m).T) + dt * rel_speed
        speed = (np.hypot(*mo.pivot_velocity_mps.T) + np.hypot(*mo.pivot_acceleration_mps2.T)
                 * dt + np.abs(mo.omega_radps) * arm + rel_speed)
        straight = np.hypot(*(mo.end_position_m - mo.position_m).T) / dt
        # Lipschitz constants (m/s) of the world curve and of the support-frame curve
        self.speed_bound_mps = np.where(self.handoff, straight, speed)
        self.rel_speed_bound_mps = np.where(self.handoff, straight, rel_speed)
        self.any_handoff = bool(self.handoff.any())
        self.any_rotation = bool(np.any(mo.omega_radps != 0.0))
        # without rotation, truncation or handoff a body's world velocity is linear in time
        # (w + alpha t + the ramp), so a pair's relative speed is largest at an end of the step
        self.linear = ~self.handoff & (mo.omega_radps == 0.0) & (mo.commit_s >= dt)
        if mo.split_s is not None:
            self.linear &= ~np.isfinite(mo.split_s)
        self.world_v0_mps = mo.pivot_velocity_mps + v0
        self.world_v1_mps = mo.pivot_velocity_mps + mo.pivot_acceleration_mps2 * dt + v1

    def pair_speed_bound_mps(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Lipschitz constant (m/s, (P,)) of the distance of bodies i and j over the step: the
        largest relative speed at the ends where both velocities are linear in time, else the
        sum of the two speed bounds."""
        both = self.linear[i] & self.linear[j]
        d0 = np.hypot(*(self.world_v0_mps[i] - self.world_v0_mps[j]).T)
        d1 = np.hypot(*(self.world_v1_mps[i] - self.world_v1_mps[j]).T)
        return np.where(both, np.maximum(d0, d1),
                        self.speed_bound_mps[i] + self.speed_bound_mps[j])

    def relative(self, i: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Support-frame point (m, (M, 2)) at the start-of-step frame: the ramp, then rest."""
        mo = self.mo
        dt = mo.dt_s
        v0, v1 = mo.velocity_rel_mps[i], mo.committed_rel_mps[i]
        if not self.split:
            s = np.minimum(t, mo.commit_s[i])[:, None]
            return mo.position_m[i] + v0 * s + (v1 - v0) * (s * s / (2.0 * dt))
        assert mo.split_s is not None and mo.second_rel_mps is not None
        assert mo.second_commit_s is not None
        # split at a portal: the first ramp (towards v1 over dt) up to the split time, then a
        # second ramp from the velocity reached there towards v2 over the rest of the step
        tp = np.minimum(mo.split_s[i], dt)
        s1 = np.minimum(np.minimum(t, tp), mo.commit_s[i])[:, None]
        first = mo.position_m[i] + v0 * s1 + (v1 - v0) * (s1 * s1 / (2.0 * dt))
        at = mo.position_m[i] + v0 * tp[:, None] + (v1 - v0) * (tp[:, None] ** 2 / (2.0 * dt))
        v_at = v0 + (v1 - v0) * (tp / dt)[:, None]
        rest = np.maximum(dt - tp, 1e-300)[:, None]
        s2 = np.clip(t - tp, 0.0, mo.second_commit_s[i])[:, None]
        second = at + v_at * s2 + (mo.second_rel_mps[i] - v_at) * (s2 * s2 / (2.0 * rest))
        return np.where((t > tp)[:, None], second, first)

    def world(self, i: np.ndarray, t: np.ndarray) -> np.ndarray:
        """World position (m, (M, 2)) of bodies ``i`` at times ``t`` (s from the step start)."""
        mo = self.mo
        y = self.relative(i, t)
        tt = t[:, None]
        carry = mo.pivot_velocity_mps[i] * tt + 0.5 * mo.pivot_acceleration_mps2[i] * tt * tt
        if self.any_rotation:
            c = mo.pivot_m[i]
            carried = c + carry + _rotate(y - c, mo.omega_radps[i] * t)
        else:
            carried = y + carry
        if not self.any_handoff:
            return carried
        straight = mo.position_m[i] + (mo.end_position_m[i] - mo.position_m[i]) * (tt / mo.dt_s)
        return np.where(self.handoff[i][:, None], straight, carried)

    def end_velocity(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """At the end of the step: relative velocity (m/s, (N, 2)) in the start frame, world
        velocity and the support's carry at the end position (both m/s, (N, 2))."""
        mo = self.mo
        n = mo.position_m.shape[0]
        dt = mo.dt_s
        full = mo.commit_s >= dt
        v_rel = np.where(full[:, None], mo.committed_rel_mps, 0.0)
        if self.split:
            assert mo.split_s is not None and mo.second_rel_mps is not None
            assert mo.second_commit_s is not None
            was_split = np.isfinite(mo.split_s)
            second_full = mo.second_commit_s >= dt - np.minimum(mo.split_s, dt)
            v_rel = np.where(was_split[:, None],
                             np.where(second_full[:, None], mo.second_rel_mps, 0.0), v_rel)
        x1 = self.world(np.arange(n), np.full(n, dt))
        pivot = mo.pivot_m + mo.pivot_velocity_mps * dt + 0.5 * mo.pivot_acceleration_mps2 * dt**2
        arm = x1 - pivot
        carry = (mo.pivot_velocity_mps + mo.pivot_acceleration_mps2 * dt
                 + mo.omega_radps[:, None] * np.stack([-arm[:, 1], arm[:, 0]], axis=1))
        v_world = carry + _rotate(v_rel, mo.omega_radps * dt)
        return v_rel, v_world, carry


# ----------------------------------------------------------------------------- geometry
class PolygonTable:
    """The edges of several simple polygons (either orientation), for exact signed distances
    of many points to each of them at once. A polygon of two vertices is a segment, of one a
    point (neither has an inside)."""

    def __init__(self, polygons: Sequence[np.ndarray]) -> None:
        starts, ends, owner, solid = [], [], [], []
        for g, poly in enumerate(polygons):
            a = np.asarray(poly, dtype=np.float64).reshape(-1, 2)
            b = np.roll(a, -1, axis=0)
            if a.shape[0] <= 2:
                a, b = a[:1], b[:1] if a.shape[0] == 2 else a[:1]
            starts.append(a)
            ends.append(b)
            owner.append(np.full(a.shape[0], g))
            solid.append(np.asarray(poly).reshape(-1, 2).shape[0] >= 3)
        self.count = len(polygons)
        self.a = np.concatenate(starts) if starts else np.zeros((0, 2))
        self.b = np.concatenate(ends) if ends else np.zeros((0, 2))
        self.ab = self.b - self.a
        self.length_sq = (self.ab * self.ab).sum(axis=1)
        self.inv_length_sq = np.where(self.length_sq > 0.0, 1.0 / np.where(
            self.length_sq > 0.0, self.length_sq, 1.0), 0.0)
        owners = np.concatenate(owner) if owner else np.zeros(0, np.int64)
        self.first = np.searchsorted(owners, np.arange(self.count))
        self.solid = np.array(solid, bool)
        dy = self.b[:, 1] - self.a[:, 1]
        self.x_slope = np.where(dy != 0.0, (self.b[:, 0] - self.a[:, 0])
                                / np.where(dy != 0.0, dy, 1.0), 0.0)

    def signed_distance_m(self, x_m: np.ndarray) -> np.ndarray:
        """Exact signed distance (m, (M, G)) from points ``x_m`` (M, 2) to each polygon:
        negative inside, positive outside (the inside by the even-odd rule). Claim: B5, C4."""
        px, py = x_m[:, 0:1], x_m[:, 1:2]
        apx, apy = px - self.a[None, :, 0], py - self.a[None, :, 1]
        t = np.clip((apx * self.ab[:, 0] + apy * self.ab[:, 1]) * self.inv_length_sq, 0.0, 1.0)
        dx, dy = apx - t * self.ab[:, 0], apy - t * self.ab[:, 1]
        dist = np.sqrt(np.minimum.reduceat(dx * dx + dy * dy, self.first, axis=1))
        # even-odd rule: a ray towards +x crosses the boundary an odd number of times from inside
        ay, by = self.a[None, :, 1], self.b[None, :, 1]
        crossing = ((ay > py) != (by > py)) & (px < self.a[None, :, 0] + (py - ay) * self.x_slope)
        inside = (np.add.reduceat(crossing.astype(np.int64), self.first, axis=1) % 2 == 1) \
            & self.solid[None, :]
        return np.where(inside, -dist, dist)


def polygon_signed_distance_m(vertices_m: np.ndarray, x_m: np.ndarray) -> np.ndarray:
    """Exact signed distance (m, (M,)) from points ``x_m`` (M, 2) to one simple polygon (see
    :class:`PolygonTable`): negative inside, positive outside, either orientation. Claim: B5."""
    return PolygonTable([vertices_m]).signed_distance_m(np.asarray(x_m, float).reshape(-1, 2))[:, 0]


_TABLES: dict[tuple[int, ...], tuple[tuple[np.ndarray, ...], PolygonTable]] = {}
"""Edge tables of the static polygons (corridor, patches, obstacles), by the arrays' identity."""


def _static_table(polygons: tuple[np.ndarray, ...]) -> PolygonTable:
    """The (cached) table of polygons that do not change during a run."""
    key = tuple(id(p) for p in polygons)
    hit = _TABLES.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], polygons, strict=True)):
        return hit[1]
    if len(_TABLES) > 64:
        _TABLES.clear()
    table = PolygonTable(polygons)
    _TABLES[key] = (polygons, table)
    return table


def _pick(table: PolygonTable, which: np.ndarray, x_m: np.ndarray) -> np.ndarray:
    """Signed distance (m, (M,)) of each point to its own polygon ``which`` (M,)."""
    return np.take_along_axis(table.signed_distance_m(x_m), which[:, None], axis=1)[:, 0]


def _refine_below(best: np.ndarray) -> np.ndarray:
    """The level (m) an interval's lower bound must clear: ``-TOLERANCE_M`` while no sample
    violates, then the violation's sampled depth less ``TOLERANCE_M`` (its depth is measured to
    within ``TOLERANCE_M``)."""
    return np.where(best >= -TOLERANCE_M, -TOLERANCE_M, best - TOLERANCE_M)


def _certified_min(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], vals: np.ndarray,
                   lipschitz: np.ndarray, dt_s: float) -> np.ndarray:
    """Minimum over ``[0, dt]`` (m, (items,)) of ``fn(item, t)`` from its values ``vals``
    (items, SAMPLES + 1) at the sample times, refined by bisection so that no value below
    ``-TOLERANCE_M`` hides between samples (see the module docstring)."""
    t = np.linspace(0.0, dt_s, SAMPLES + 1)
    best = vals.min(axis=1)
    h = dt_s / SAMPLES
    lower = 0.5 * (vals[:, :-1] + vals[:, 1:]) - 0.5 * lipschitz[:, None] * h
    item, k = np.nonzero(lower < _refine_below(best)[:, None])
    ta, tb = t[k], t[k + 1]
    fa, fb = vals[item, k], vals[item, k + 1]
    for _ in range(MAX_BISECTIONS):
        if item.size == 0:
            break
        tm = 0.5 * (ta + tb)
        fm = fn(item, tm)
        np.minimum.at(best, item, fm)
        item = np.concatenate([item, item])
        ta, tb = np.concatenate([ta, tm]), np.concatenate([tm, tb])
        fa, fb = np.concatenate([fa, fm]), np.concatenate([fm, fb])
        lower = 0.5 * (fa + fb) - 0.5 * lipschitz[item] * (tb - ta)
        keep = lower < _refine_below(best)[item]
        item, ta, tb, fa, fb = item[keep], ta[keep], tb[keep], fa[keep], fb[keep]
    return best


def candidate_pairs(x_m: np.ndarray, reach_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i < j) of bodies whose start distance is at most ``reach_m[i] + reach_m[j]``,
    found by a uniform spatial hash with cells as wide as the largest ``2 reach`` (the 3 x 3
    cells around a body hold every body it can reach). Returns index arrays (P,), (P,)."""
    n = x_m.shape[0]
    if n < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    cell_m = max(2.0 * float(np.max(reach_m)), 1e-9)
    cell = np.floor((x_m - x_m.min(axis=0)) / cell_m).astype(np.int64)
    width = int(cell[:, 1].max()) + 3
    key = (cell[:, 0] + 1) * width + (cell[:, 1] + 1)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    # the 3 x 3 cells around every body, probed at once
    offsets = np.array([dx * width + dy for dx in (-1, 0, 1) for dy in (-1, 0, 1)])
    probe = (key[:, None] + offsets[None, :]).ravel()
    lo = np.searchsorted(sorted_key, probe, side="left")
    count = np.searchsorted(sorted_key, probe, side="right") - lo
    total = int(count.sum())
    first = np.repeat(np.repeat(np.arange(n), offsets.size), count)
    within = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    second = order[np.repeat(lo, count) + within]
    keep = first < second
    i, j = first[keep], second[keep]
    near = np.hypot(*(x_m[i] - x_m[j]).T) <= reach_m[i] + reach_m[j]
    return i[near], j[near]


# -------------------------------------------------------------------------------- check
def check_motion(mo: StepMotion, label: np.ndarray, *,
                 report_band_m: float = REPORT_BAND_M) -> StepTruth:
    """The independent check of one executed step (see the module docstring): per-agent
    clearances, speed excess and verdicts. Bodies and obstacles whose certified clearance over
    the step exceeds ``report_band_m`` (m) report that lower bound instead of being sampled.
    Claim: C4, C1, B5, W1, O2, V1, T4."""
    n = mo.position_m.shape[0]
    dt = mo.dt_s
    cur = _Curves(mo)
    every = np.arange(n)
    lip = cur.speed_bound_mps
    inf = np.full(n, np.inf)

    grid = np.linspace(0.0, dt, SAMPLES + 1)
    # every body's world position at every sample time (N, SAMPLES + 1, 2), computed once
    coarse = cur.world(np.repeat(every, SAMPLES + 1), np.tile(grid, n)).reshape(n, -1, 2)

    def on_grid(rows: np.ndarray) -> np.ndarray:
        return coarse[rows].reshape(-1, 2)

    # C4: the corridor region (centre space)
    corridor = inf.copy()
    if mo.corridor_m is not None and n:
        table = _static_table((mo.corridor_m,))
        corridor = _certified_min(
            lambda i, t: -table.signed_distance_m(cur.world(i, t))[:, 0],
            -table.signed_distance_m(on_grid(every))[:, 0].reshape(n, -1), lip, dt)

    # C1: the patch piece of every body its handoff controller does not move
    patch = inf.copy()
    rows = np.flatnonzero((mo.patch >= 0) & ~cur.handoff)
    if rows.size:
        pt = _static_table(mo.patches_m)
        which = mo.patch[rows]
        patch[rows] = _certified_min(
            lambda k, t: -_pick(pt, which[k], cur.world(rows[k], t)),
            -_pick(pt, np.repeat(which, SAMPLES + 1), on_grid(rows)).reshape(rows.size, -1),
            lip[rows], dt)

    # B5: a carried body stays on its platform (in the platform's own frame)
    platform = inf.copy()
    on = mo.support_index >= 0
    carried = np.zeros(n, bool)
    carried[on] = mo.platform[mo.support_index[on]] & ~cur.handoff[on]
    rows_c = np.flatnonzero(carried)
    if rows_c.size:
        st = PolygonTable(mo.supports_m)
        which_c = mo.support_index[rows_c]
        m = rows_c.size
        y = cur.relative(np.repeat(rows_c, SAMPLES + 1), np.tile(grid, m))
        platform[rows_c] = _certified_min(
            lambda k, t: -_pick(st, which_c[k], cur.relative(rows_c[k], t)),
            -_pick(st, np.repeat(which_c, SAMPLES + 1), y).reshape(m, -1),
            cur.rel_speed_bound_mps[rows_c], dt)
    wall = np.minimum(np.minimum(corridor, patch), platform)

    # B5: obstacles (disc against any simple polygon; the nearest obstacle at each time)
    obstacle = inf.copy()
    reach = lip * dt
    if mo.obstacles_m and n:
        ot = _static_table(mo.obstacles_m)
        start = ot.signed_distance_m(mo.position_m).min(axis=1) - mo.radius_m
        near = start - reach <= report_band_m
        obstacle[~near] = start[~near] - reach[~near]
        rows_o = np.flatnonzero(near)
        if rows_o.size:
            r_o = mo.radius_m[rows_o]
            obstacle[rows_o] = _certified_min(
                lambda k, t: ot.signed_distance_m(cur.world(rows_o[k], t)).min(axis=1)
                - r_o[k],
                ot.signed_distance_m(on_grid(rows_o)).min(axis=1).reshape(rows_o.size, -1)
                - r_o[:, None], lip[rows_o], dt)

    # W1: every pair of bodies within reach of each other
    agent = inf.copy()
    pi, pj = candidate_pairs(mo.position_m, mo.radius_m + reach + 0.5 * report_band_m)
    if pi.size:
        comb = mo.radius_m[pi] + mo.radius_m[pj]
        gap = coarse[pi] - coarse[pj]
        vals = _certified_min(
            lambda k, t: np.hypot(*(cur.world(pi[k], t) - cur.world(pj[k], t)).T) - comb[k],
            np.hypot(gap[..., 0], gap[..., 1]) - comb[:, None], cur.pair_speed_bound_mps(pi, pj),
            dt)
        np.minimum.at(agent, pi, vals)
        np.minimum.at(agent, pj, vals)

    # O2 / V1: the end velocity against the cap (relative) and cap plus carry (world)
    v_rel, v_world, carry = cur.end_velocity()
    rel_excess = np.hypot(*v_rel.T) - mo.cap_mps
    world_excess = np.hypot(*mo.end_velocity_mps.T) - (mo.cap_mps + np.hypot(*carry.T))
    speed = np.maximum(rel_excess, world_excess)
    speed = np.where(cur.handoff, world_excess, speed)
    # T4: the World's executed end state is the end of the re-built curve
    end = coarse[:, -1]
    drift_m = np.hypot(*(end - mo.end_position_m).T)
    drift_mps = np.where(cur.handoff, 0.0, np.hypot(*(v_world - mo.end_velocity_mps).T))

    # the signed margin of every rule (negative: how far outside) and its numerical slack
    sloped = mo.patch_slope_factor > 1.0
    margins = {
        "C4": (corridor, TOLERANCE_M),
        "C1": (patch, TOLERANCE_M),
        "B5": (np.minimum(platform, obstacle), TOLERANCE_M),
        "W1": (agent, TOLERANCE_M),
        "V1": (np.where(sloped, -speed, np.inf), SPEED_TOLERANCE_MPS),
        "O2": (np.where(sloped, np.inf, -speed), SPEED_TOLERANCE_MPS),
        "T4": (np.minimum(-drift_m, -drift_mps), TOLERANCE_M),
    }
    claim = np.full(n, "", dtype="<U2")
    margin = np.full(n, np.inf)
    for cid in reversed(CLAIM_ORDER):
        value, slack = margins[cid]
        bad = value < -slack
        claim[bad] = cid
        margin[bad] = value[bad]
    violated = claim != ""
    label = np.asarray(label)
    return StepTruth(wall, obstacle, agent, speed, patch < -TOLERANCE_M, violated, claim,
                     margin, label, violated & (label == SAFE), mo.time_s)


def check_world_step(world: Any, step: Any, *, report_band_m: float = REPORT_BAND_M
                     ) -> StepTruth:
    """The independent check of the step ``world.step()`` just returned (``step``): every body's
    executed curve against every other body, wall, obstacle, region and speed cap. Claim: C4,
    C1, B5, W1, O2, V1, T4. The verdict assertion mode already reached on this step is reused
    (same record, same band), so a traced or campaign run under assertions checks once."""
    if getattr(step, "truth", None) is not None and report_band_m == REPORT_BAND_M:
        return step.truth
    if getattr(step, "motion", None) is None:
        raise ValueError("the WorldStep carries no StepMotion record (World.step() makes one)")
    return check_motion(step.motion, step.label, report_band_m=report_band_m)


def lie_violation(truth: StepTruth) -> ObligationViolation | None:
    """The ``ObligationViolation`` of the first agent labelled safe whose step failed the
    independent check (claim, agent, observed value, limit, signed margin), or None."""
    rows = np.flatnonzero(truth.lying)
    if rows.size == 0:
        return None
    i = int(rows[0])
    cid = str(truth.claim[i])
    observed = {
        "C4": truth.wall_clearance_m, "C1": truth.wall_clearance_m,
        "B5": np.minimum(truth.wall_clearance_m, truth.obstacle_clearance_m),
        "W1": truth.agent_clearance_m, "V1": truth.speed_excess_mps,
        "O2": truth.speed_excess_mps, "T4": -truth.margin,
    }[cid][i]
    what = {
        "C4": "left the corridor region", "C1": "crossed its patch boundary outside a handoff",
        "B5": "crossed a wall or entered an obstacle", "W1": "overlapped another body",
        "V1": "exceeded the slope speed cap", "O2": "exceeded the speed cap",
        "T4": "ended away from its executed curve",
    }[cid]
    return ObligationViolation(
        cid, f"independent check: a body labelled safe {what} during the executed step",
        agent=i, observed=float(observed), limit=0.0, margin=float(truth.margin[i]),
        data={"time_s": truth.time_s, "wall_clearance_m": float(truth.wall_clearance_m[i]),
              "obstacle_clearance_m": float(truth.obstacle_clearance_m[i]),
              "agent_clearance_m": float(truth.agent_clearance_m[i]),
              "speed_excess_mps": float(truth.speed_excess_mps[i])})


def assert_truthful(truth: StepTruth) -> None:
    """Raise the ``ObligationViolation`` of :func:`lie_violation` when a safe label lied."""
    exc = lie_violation(truth)
    if exc is not None:
        raise exc


__all__ = ["StepMotion", "StepTruth", "assert_truthful", "candidate_pairs", "check_motion",
           "check_world_step", "lie_violation", "polygon_signed_distance_m"]
