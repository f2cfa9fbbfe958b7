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

    @staticmethod
    def capture(world: Any, x0_m: np.ndarray, v0_mps: np.ndarray, v1_mps: np.ndarray,
                commit_s: np.ndarray, support: Any, support_index: np.ndarray,
                cap_mps: np.ndarray, handoff_rows: np.ndarray, end_position_m: np.ndarray,
                end_velocity_mps: np.ndarray) -> StepMotion:
        """The record of the step the World just executed (call before ``layout.advance``)."""
        layout = world.layout
        m = support.motion
        return StepMotion(
            float(world.time_s), float(world.dt_s), x0_m, v0_mps, v1_mps, commit_s,
            m.pivot_m, m.velocity_mps, m.acceleration_mps2, m.omega_radps, support_index,
            world.patch.copy(), layout.patch_k[world.patch], cap_mps, handoff_rows,
            world.radius_m, end_position_m, end_velocity_mps, layout.corridor,
            tuple(p.vertices_m for p in layout.patches),
            tuple(layout.platform_vertices(s) for s in range(len(layout.supports))),
            np.array([s.kind == "platform" for s in layout.supports], bool),
            tuple(np.asarray(o, dtype=np.float64) for o in layout.obstacles))


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
        arm = np.hypot(*(mo.position_m - mo.pivot_m).T) + dt * rel_speed
        speed = (np.hypot(*mo.pivot_velocity_mps.T) + np.hypot(*mo.pivot_acceleration_mps2.T)
                 * dt + np.abs(mo.omega_radps) * arm + rel_speed)
        straight = np.hypot(*(mo.end_position_m - mo.position_m).T) / dt
        # Lipschitz constants (m/s) of the world curve and of the support-frame curve
        self.speed_bound_mps = np.where(self.handoff, straight, speed)
        self.rel_speed_bound_mps = np.where(self.handoff, straight, rel_speed)

    def relative(self, i: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Support-frame point (m, (M, 2)) at the start-of-step frame: the ramp, then rest."""
        mo = self.mo
        s = np.minimum(t, mo.commit_s[i])[:, None]
        v0, v1 = mo.velocity_rel_mps[i], mo.committed_rel_mps[i]
        return mo.position_m[i] + v0 * s + (v1 - v0) * (s * s / (2.0 * mo.dt_s))

    def world(self, i: np.ndarray, t: np.ndarray) -> np.ndarray:
        """World position (m, (M, 2)) of bodies ``i`` at times ``t`` (s from the step start)."""
        mo = self.mo
        y = self.relative(i, t)
        c = mo.pivot_m[i]
        tt = t[:, None]
        carried = (c + mo.pivot_velocity_mps[i] * tt + 0.5 * mo.pivot_acceleration_mps2[i] * tt * tt
                   + _rotate(y - c, mo.omega_radps[i] * t))
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
        x1 = self.world(np.arange(n), np.full(n, dt))
        pivot = mo.pivot_m + mo.pivot_velocity_mps * dt + 0.5 * mo.pivot_acceleration_mps2 * dt**2
        arm = x1 - pivot
        carry = (mo.pivot_velocity_mps + mo.pivot_acceleration_mps2 * dt
                 + mo.omega_radps[:, None] * np.stack([-arm[:, 1], arm[:, 0]], axis=1))
        v_world = carry + _rotate(v_rel, mo.omega_radps * dt)
        return v_rel, v_world, carry


# ----------------------------------------------------------------------------- geometry
def polygon_signed_distance_m(vertices_m: np.ndarray, x_m: np.ndarray) -> np.ndarray:
    """Exact signed distance (m, (M,)) from points ``x_m`` (M, 2) to a simple polygon: negative
    inside, positive outside, either orientation (the inside by the even-odd rule); a polygon
    of two vertices is a segment (never negative), of one a point. Claim: B5, C4."""
    a = np.asarray(vertices_m, dtype=np.float64)
    b = np.roll(a, -1, axis=0)
    if a.shape[0] <= 2:
        a, b = a[:1], b[:1]
    ab = b - a
    px, py = x_m[:, 0:1], x_m[:, 1:2]
    apx, apy = px - a[None, :, 0], py - a[None, :, 1]
    length_sq = ab[:, 0] ** 2 + ab[:, 1] ** 2
    safe_sq = np.where(length_sq > 0.0, length_sq, 1.0)
    t = np.clip((apx * ab[:, 0] + apy * ab[:, 1]) / safe_sq, 0.0, 1.0)
    t = np.where(length_sq > 0.0, t, 0.0)
    dx, dy = apx - t * ab[:, 0], apy - t * ab[:, 1]
    dist = np.sqrt(np.min(dx * dx + dy * dy, axis=1))
    if vertices_m.shape[0] < 3:
        return dist
    # even-odd rule: a ray towards +x crosses the boundary an odd number of times from inside
    ay, by = a[None, :, 1], b[None, :, 1]
    straddle = (ay > py) != (by > py)
    denom = np.where(by != ay, by - ay, 1.0)
    x_cross = a[None, :, 0] + (py - ay) * (b[None, :, 0] - a[None, :, 0]) / denom
    inside = (np.count_nonzero(straddle & (px < x_cross), axis=1) % 2) == 1
    return np.where(inside, -dist, dist)


def _grouped(polygons: Sequence[np.ndarray], which: np.ndarray, x_m: np.ndarray,
             sign: float) -> np.ndarray:
    """``sign`` times the signed distance of each point to polygon ``which`` (one per point)."""
    out = np.empty(x_m.shape[0])
    for k in np.unique(which).tolist():
        sel = which == k
        out[sel] = sign * polygon_signed_distance_m(polygons[k], x_m[sel])
    return out


def _refine_below(best: np.ndarray) -> np.ndarray:
    """The level (m) an interval's lower bound must clear: ``-TOLERANCE_M`` while no sample
    violates, then the violation's sampled depth less ``TOLERANCE_M`` (its depth is measured to
    within ``TOLERANCE_M``)."""
    return np.where(best >= -TOLERANCE_M, -TOLERANCE_M, best - TOLERANCE_M)


def _certified_min(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], items: int,
                   lipschitz: np.ndarray, dt_s: float) -> np.ndarray:
    """Minimum over ``[0, dt]`` (m, (items,)) of ``fn(item, t)``, sampled and refined so that no
    value below ``-TOLERANCE_M`` hides between samples (see the module docstring)."""
    if items == 0:
        return np.zeros(0)
    t = np.linspace(0.0, dt_s, SAMPLES + 1)
    idx = np.repeat(np.arange(items), SAMPLES + 1)
    vals = fn(idx, np.tile(t, items)).reshape(items, SAMPLES + 1)
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
    firsts, seconds = [], []
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            probe = key + dx * width + dy
            lo = np.searchsorted(sorted_key, probe, side="left")
            hi = np.searchsorted(sorted_key, probe, side="right")
            count = hi - lo
            total = int(count.sum())
            if total == 0:
                continue
            first = np.repeat(np.arange(n), count)
            start = np.repeat(lo, count)
            within = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
            second = order[start + within]
            keep = first < second
            firsts.append(first[keep])
            seconds.append(second[keep])
    if not firsts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    i, j = np.concatenate(firsts), np.concatenate(seconds)
    near = np.hypot(*(x_m[i] - x_m[j]).T) <= reach_m[i] + reach_m[j]
    return i[near], j[near]


# -------------------------------------------------------------------------------- check
def check_motion(mo: StepMotion, label: np.ndarray) -> StepTruth:
    """The independent check of one executed step (see the module docstring): per-agent
    clearances, speed excess and verdicts. Claim: C4, C1, B5, W1, O2, V1, T4."""
    n = mo.position_m.shape[0]
    dt = mo.dt_s
    cur = _Curves(mo)
    every = np.arange(n)
    lip = cur.speed_bound_mps
    inf = np.full(n, np.inf)

    # C4: the corridor region (centre space)
    corridor = inf.copy()
    if mo.corridor_m is not None and n:
        poly = mo.corridor_m
        corridor = _certified_min(
            lambda i, t: -polygon_signed_distance_m(poly, cur.world(i, t)), n, lip, dt)

    # C1: the patch piece of every body its handoff controller does not move
    patch = inf.copy()
    rows = np.flatnonzero((mo.patch >= 0) & ~cur.handoff)
    if rows.size:
        which = mo.patch[rows]
        patch[rows] = _certified_min(
            lambda k, t: _grouped(mo.patches_m, which[k], cur.world(rows[k], t), -1.0),
            rows.size, lip[rows], dt)

    # B5: a carried body stays on its platform (in the platform's own frame)
    platform = inf.copy()
    on = mo.support_index >= 0
    carried = np.zeros(n, bool)
    carried[on] = mo.platform[mo.support_index[on]] & ~cur.handoff[on]
    rows_c = np.flatnonzero(carried)
    if rows_c.size:
        which_c = mo.support_index[rows_c]
        platform[rows_c] = _certified_min(
            lambda k, t: _grouped(mo.supports_m, which_c[k], cur.relative(rows_c[k], t), -1.0),
            rows_c.size, cur.rel_speed_bound_mps[rows_c], dt)
    wall = np.minimum(np.minimum(corridor, patch), platform)

    # B5: obstacles (disc against any simple polygon)
    obstacle = inf.copy()
    reach = lip * dt
    for poly in mo.obstacles_m:
        start = polygon_signed_distance_m(poly, mo.position_m) - mo.radius_m
        near = np.flatnonzero(start - reach <= REPORT_BAND_M)
        far = np.setdiff1d(every, near, assume_unique=True)
        obstacle[far] = np.minimum(obstacle[far], start[far] - reach[far])
        if near.size:
            vals = _certified_min(
                lambda k, t, p=poly, r=near: polygon_signed_distance_m(p, cur.world(r[k], t))
                - mo.radius_m[r[k]], near.size, lip[near], dt)
            obstacle[near] = np.minimum(obstacle[near], vals)

    # W1: every pair of bodies within reach of each other
    agent = inf.copy()
    pi, pj = candidate_pairs(mo.position_m, mo.radius_m + reach + 0.5 * REPORT_BAND_M)
    if pi.size:
        comb = mo.radius_m[pi] + mo.radius_m[pj]
        vals = _certified_min(
            lambda k, t: np.hypot(*(cur.world(pi[k], t) - cur.world(pj[k], t)).T) - comb[k],
            pi.size, lip[pi] + lip[pj], dt)
        np.minimum.at(agent, pi, vals)
        np.minimum.at(agent, pj, vals)

    # O2 / V1: the end velocity against the cap (relative) and cap plus carry (world)
    v_rel, v_world, carry = cur.end_velocity()
    rel_excess = np.hypot(*v_rel.T) - mo.cap_mps
    world_excess = np.hypot(*mo.end_velocity_mps.T) - (mo.cap_mps + np.hypot(*carry.T))
    speed = np.maximum(rel_excess, world_excess)
    speed = np.where(cur.handoff, world_excess, speed)
    # T4: the World's executed end state is the end of the re-built curve
    end = cur.world(every, np.full(n, dt))
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


def check_world_step(world: Any, step: Any) -> StepTruth:
    """The independent check of the step ``world.step()`` just returned (``step``): every body's
    executed curve against every other body, wall, obstacle, region and speed cap. Claim: C4,
    C1, B5, W1, O2, V1, T4."""
    if getattr(step, "motion", None) is None:
        raise ValueError("the WorldStep carries no StepMotion record (World.step() makes one)")
    return check_motion(step.motion, step.label)


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
