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

import math
import struct
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from navproof.core.errors import ObligationViolation
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.numpy_scalars import larger, smaller
from navproof.core.parallel import piece_bounds, run_pieces, run_row_pieces, thread_count
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

PARALLEL_MIN_ITEMS = 4096
"""Clearances of at least this many bodies or pairs are measured in threads."""

CLAIM_ORDER = ("C4", "C1", "B5", "W1", "V1", "O2", "T4")
"""The order in which a violated rule is reported as an agent's ``claim``."""
_CLAIM_NAMES = np.array(("",) + CLAIM_ORDER, dtype="<U2")
"""An agent's ``claim`` by the index :func:`_verdicts` gives it (0: none)."""


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
# a body's curve for the compiled loops is the tuple of the record's arrays (_Curves.curve):
# start, v0, v1, commit time, split time, second velocity and commit time (the last three
# empty without a split), pivot, its velocity and acceleration, omega, end position, handoff


@inlined_loop
def _same_support(pivot_v, pivot_a, i, support):
    """Whether body ``i``'s support velocity and acceleration have the bits of ``support``
    (vx, vy, ax, ay): equal values of equal signs (a NaN is equal to nothing)."""
    values = (pivot_v[i, 0], pivot_v[i, 1], pivot_a[i, 0], pivot_a[i, 1])
    for d in range(4):
        if not (values[d] == support[d]
                and math.copysign(1.0, values[d]) == math.copysign(1.0, support[d])):
            return False
    return True


@compiled_loop
def _curve_rows(curve, options, grid, lo, hi, speed_bound, rel_speed_bound, world_v0,
                world_v1, linear, coarse):
    """Rows ``lo:hi`` of every body's curve (``curve``, see :meth:`_Curves.curve`), in one pass
    per body: the largest speed relative to its support (of v0, v1 and, when split, the second
    ramp's velocity; NaN wins), its world speed bound
    ``|w| + |alpha| dt + |omega| (|x0 - c| + dt rel) + rel`` and, for a body moved by its
    handoff controller, its straight speed ``|x1 - x0| / dt`` for both; the world velocities
    ``w + v0`` and ``w + alpha dt + v1`` at the ends of the step; whether its world velocity is
    linear in time (no rotation, truncation, split or handoff: a pair's relative speed is then
    largest at an end of the step); and its world position at every ``grid`` time
    (:func:`_world_at`, into ``coarse`` (N, G, 2); in a step without split, rotation or handoff,
    for a body committed past every sample time, with the ramp's ``t^2 / (2 dt)`` computed once
    per step and the carry once per run of bodies with the same support bits)."""
    start, v0, v1, commit, split, second, second_commit, pivot, pivot_v, pivot_a, omega, end, \
        handoff = curve
    dt = options[0]
    has_split = split.shape[0] > 0
    # a step without split, rotation or handoff evaluates :func:`_world_at`'s plain branch; its
    # terms that depend on the sample time only (the ramp's s^2 / (2 dt) where s = t) or on the
    # support (the carry) are computed once, the same operations on the same values
    straight = options[1] == 0.0 and options[2] == 0.0 and options[3] == 0.0
    samples = grid.shape[0]
    ramp, carry = np.empty(samples), np.empty((samples, 2))
    grid_top = -np.inf
    for s in range(samples):
        ramp[s] = grid[s] * grid[s] / (2.0 * dt)
        grid_top = larger(grid_top, grid[s])
    support = np.full(4, np.nan)
    # the support's speed and acceleration lengths, kept while the next body's are the same
    # values (bodies on one support, or on the ground; hypot of equal magnitudes is the same)
    last_v = last_a = (np.nan, np.nan)
    support_v = support_a = np.nan
    for i in range(lo, hi):
        rel = larger(math.hypot(v0[i, 0], v0[i, 1]), math.hypot(v1[i, 0], v1[i, 1]))
        if has_split:
            rel = larger(rel, math.hypot(second[i, 0], second[i, 1]))
        if not (pivot_v[i, 0] == last_v[0] and pivot_v[i, 1] == last_v[1]):
            last_v = (pivot_v[i, 0], pivot_v[i, 1])
            support_v = math.hypot(pivot_v[i, 0], pivot_v[i, 1])
        if not (pivot_a[i, 0] == last_a[0] and pivot_a[i, 1] == last_a[1]):
            last_a = (pivot_a[i, 0], pivot_a[i, 1])
            support_a = math.hypot(pivot_a[i, 0], pivot_a[i, 1])
        carried = support_v + support_a * dt
        arm_x, arm_y = start[i, 0] - pivot[i, 0], start[i, 1] - pivot[i, 1]
        if (omega[i] == 0.0 and abs(arm_x) < MODEST_SCALE_M and abs(arm_y) < MODEST_SCALE_M
                and rel < MODEST_SCALE_M and abs(dt) < MODEST_SCALE_M):
            # no rotation and a finite arm: its term is +0.0, which leaves the sum (never
            # -0.0) as it is
            speed = carried + rel
        else:
            arm = math.hypot(arm_x, arm_y) + dt * rel
            speed = carried + abs(omega[i]) * arm + rel
        if handoff[i]:
            straight = math.hypot(end[i, 0] - start[i, 0], end[i, 1] - start[i, 1]) / dt
            speed_bound[i], rel_speed_bound[i] = straight, straight
        else:
            speed_bound[i], rel_speed_bound[i] = speed, rel
        for d in range(2):
            world_v0[i, d] = pivot_v[i, d] + v0[i, d]
            world_v1[i, d] = pivot_v[i, d] + pivot_a[i, d] * dt + v1[i, d]
        linear[i] = (not handoff[i] and omega[i] == 0.0 and commit[i] >= dt
                     and not (has_split and math.isfinite(split[i])))
        if straight and commit[i] >= grid_top and not handoff[i]:
            # committed past every sample time: s = t in the ramp, whose t^2 / (2 dt) is the
            # step's; the carry of the same support bits is the previous body's
            if not _same_support(pivot_v, pivot_a, i, support):
                support[:] = (pivot_v[i, 0], pivot_v[i, 1], pivot_a[i, 0], pivot_a[i, 1])
                for s in range(grid.shape[0]):
                    t = grid[s]
                    carry[s, 0] = pivot_v[i, 0] * t + 0.5 * pivot_a[i, 0] * t * t
                    carry[s, 1] = pivot_v[i, 1] * t + 0.5 * pivot_a[i, 1] * t * t
            dvx, dvy = v1[i, 0] - v0[i, 0], v1[i, 1] - v0[i, 1]
            for s in range(grid.shape[0]):
                t = grid[s]
                coarse[i, s, 0] = start[i, 0] + v0[i, 0] * t + dvx * ramp[s] + carry[s, 0]
                coarse[i, s, 1] = start[i, 1] + v0[i, 1] * t + dvy * ramp[s] + carry[s, 1]
        else:
            for s in range(grid.shape[0]):
                coarse[i, s, 0], coarse[i, s, 1] = _world_at(curve, options, i, grid[s])


_COMMITTED, _COMMIT, _PIVOT, _PIVOT_V, _PIVOT_A, _OMEGA, _END = 2, 3, 7, 8, 9, 10, 11
"""Where :attr:`_Curves.curve` holds v1, the commit time, the pivot, its velocity and
acceleration, omega and the end position."""

_SCRATCH_VIEWS_MAX = 256
"""Views :func:`_scratch` keeps per store (a name, shape and dtype each) before it forgets
them all: the shapes of a run's checks are few, the pieces' item counts vary from step to step."""


class _ScratchStore:
    """The storage of :func:`_scratch` of one thread that runs checks: arrays by name, the views
    of them handed out, and a lock, because the pieces of its check that other threads run
    (:meth:`_SpatialHash.pairs`) take their storage here too."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.views: dict[tuple[str, tuple[int, ...], type], np.ndarray] = {}
        self.lock = threading.Lock()


_PER_THREAD = threading.local()


def _thread_store() -> _ScratchStore:
    """The :class:`_ScratchStore` of the calling thread."""
    store: _ScratchStore | None = getattr(_PER_THREAD, "store", None)
    if store is None:
        store = _PER_THREAD.store = _ScratchStore()
    return store


def _scratch(name: str, shape: tuple[int, ...], dtype: type = np.float64,
             store: _ScratchStore | None = None) -> np.ndarray:
    """A C-contiguous array of ``shape`` and ``dtype``, its values left from earlier use: a view
    into storage kept under ``name`` in ``store`` (by default the calling thread's: the thread
    that runs the check, also for the pieces other threads run for it, so that two checks run
    at once by two threads never share storage), grown to a quarter more than the largest check
    seen (a count that grows a little every step, such as the pairs', then does not replace it
    every step) and written over by the next check of the same store (a fresh array of
    megabytes costs more to fault in than to fill at 20k bodies). Only what no verdict refers
    to goes there: every entry is written before the check reads it, so a check's values never
    depend on the one before.
    The view of a name, shape and dtype is kept and handed out again while its storage stands
    (the same memory a fresh view of it would show), instead of a new view every call."""
    if store is None:
        store = _thread_store()
    key = (name, shape, dtype)
    with store.lock:
        views = store.views
        view = views.get(key)
        if view is not None:
            return view
        size = math.prod(shape)
        flat = store.arrays.get(name)
        if flat is None or flat.size < size or flat.dtype != dtype:
            flat = store.arrays[name] = np.empty(size + size // 4, dtype)
            # views of the storage replaced are not handed out again
            for old in [k for k in views if k[0] == name]:
                del views[old]
        if len(views) >= _SCRATCH_VIEWS_MAX:
            views.clear()
        view = views[key] = flat[:size].reshape(shape)
    return view


class _Curves:
    """Every body's executed curve of one step: its record's arrays for the compiled loops
    (:func:`_world_at`) and its Lipschitz bounds."""

    def __init__(self, mo: StepMotion, grid_s: np.ndarray) -> None:
        self.mo = mo
        n = mo.position_m.shape[0]
        self.handoff = _scratch("handoff", (n,), np.bool_)
        self.handoff.fill(False)
        self.handoff[mo.handoff_rows] = True
        dt = mo.dt_s
        self.split = mo.split_s is not None
        if self.split:
            assert mo.second_rel_mps is not None and mo.second_commit_s is not None
        self.any_handoff = bool(self.handoff.any())
        # Lipschitz constants (m/s) of the world curve and of the support-frame curve, the
        # world velocities at the ends of a linear curve
        self.speed_bound_mps = _scratch("speed_bound", (n,))
        self.rel_speed_bound_mps = _scratch("rel_speed_bound", (n,))
        self.world_v0_mps = _scratch("world_v0", (n, 2))
        self.world_v1_mps = _scratch("world_v1", (n, 2))
        self.linear = _scratch("linear", (n,), np.bool_)
        """Whether a body's world velocity is linear in time (see :func:`_curve_rows`)."""
        self.coarse = _scratch("coarse", (n, grid_s.size, 2))
        """Every body's world position (m) at every time of the grid (N, G, 2)."""
        empty = np.zeros((0, 2))
        self.curve = (*(np.ascontiguousarray(a, np.float64) for a in (
            mo.position_m, mo.velocity_rel_mps, mo.committed_rel_mps, mo.commit_s,
            mo.split_s if self.split else empty[:, 0],
            mo.second_rel_mps if self.split else empty,
            mo.second_commit_s if self.split else empty[:, 0],
            mo.pivot_m, mo.pivot_velocity_mps, mo.pivot_acceleration_mps2, mo.omega_radps,
            mo.end_position_m)), self.handoff)
        """Per body, the arrays the compiled loops read: start (m), v0, v1 (m/s), commit time
        (s), split time (s), second velocity (m/s) and commit time (s) (the last three empty
        without a split), pivot (m), its velocity (m/s) and acceleration (m/s^2), omega
        (rad/s), end position (m), handoff (bool)."""
        # a rate is nonzero exactly where it is not == 0 (NaN included, zeros of both signs
        # not)
        self.any_rotation = bool(self.curve[_OMEGA].any())
        self.options = np.array([dt, float(self.split), float(self.any_rotation),
                                 float(self.any_handoff)])
        """The step (s) and whether any body was split, rotates, is moved by its handoff."""
        grid = np.ascontiguousarray(grid_s, np.float64)
        outs = (self.speed_bound_mps, self.rel_speed_bound_mps, self.world_v0_mps,
                self.world_v1_mps, self.linear, self.coarse)
        run_row_pieces(lambda lo, hi: _curve_rows(self.curve, self.options, grid, lo, hi,
                                                  *outs), n, min_rows=PARALLEL_MIN_ITEMS)


@inlined_loop
def _relative_at(c, dt, split, i, t):
    """Support-frame point (m) of body ``i`` at time ``t`` in the start-of-step frame
    (:func:`_relative_point` of the bodies' curves ``c``, :attr:`_Curves.curve`)."""
    return _relative_point(c[0], c[1], c[2], c[3], c[4], c[5], c[6], dt, split, i, t)


@inlined_loop
def _relative_point(start, v0, v1, commit, split_s, second, second_commit, dt, split, i, t):
    """Support-frame point (m) of body ``i`` at time ``t`` in the start-of-step frame: the ramp
    from v0 towards v1 over dt up to the commit time, then rest; for a body split at a portal,
    the first ramp up to the split time, then a second ramp from the velocity reached there
    towards v2 over the rest of the step (up to its own commit time). The arrays are those of
    :attr:`_Curves.curve`, taken out of it once by a loop that evaluates many points (each
    entry taken out of the tuple costs a reference count in the loop)."""
    x0x, x0y = start[i, 0], start[i, 1]
    v0x, v0y = v0[i, 0], v0[i, 1]
    dvx, dvy = v1[i, 0] - v0x, v1[i, 1] - v0y
    if not split:
        s = smaller(t, commit[i])
        k = s * s / (2.0 * dt)
        return x0x + v0x * s + dvx * k, x0y + v0y * s + dvy * k
    tp = smaller(split_s[i], dt)
    if t > tp:
        k = tp * tp / (2.0 * dt)
        atx, aty = x0x + v0x * tp + dvx * k, x0y + v0y * tp + dvy * k
        q = tp / dt
        vax, vay = v0x + dvx * q, v0y + dvy * q
        rest = larger(dt - tp, 1e-300)
        s2 = smaller(larger(t - tp, 0.0), second_commit[i])
        k2 = s2 * s2 / (2.0 * rest)
        return (atx + vax * s2 + (second[i, 0] - vax) * k2,
                aty + vay * s2 + (second[i, 1] - vay) * k2)
    s1 = smaller(smaller(t, tp), commit[i])
    k = s1 * s1 / (2.0 * dt)
    return x0x + v0x * s1 + dvx * k, x0y + v0y * s1 + dvy * k


@inlined_loop
def _world_at(c, options, i, t):
    """World position (m) of body ``i`` at time ``t`` (s from the step start):
    :func:`_world_point` of the bodies' curves ``c`` (:attr:`_Curves.curve`)."""
    return _world_point(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10],
                        c[11], c[12], options, False, i, t)


@inlined_loop
def _world_point(start, v0, v1, commit, split_s, second, second_commit, pivot, pivot_v,
                 pivot_a, omega, end, handoff, options, plain, i, t):
    """World position (m) of body ``i`` at time ``t`` (s from the step start): the support
    carries the support-frame point, ``x = c + w t + alpha t^2 / 2 + R(omega t) (y - c)``; a
    body moved by its handoff controller goes straight from its start to its end. The arrays
    are those of :attr:`_Curves.curve` (see :func:`_relative_point`). ``plain`` (a constant
    where the caller knows it) says that no body is split, rotates or is moved by its handoff
    controller (``options[1:]`` all zero), whose branches are then left out of the code."""
    dt = options[0]
    yx, yy = _relative_point(start, v0, v1, commit, split_s, second, second_commit, dt,
                             not plain and options[1] != 0.0, i, t)
    cx = pivot_v[i, 0] * t + 0.5 * pivot_a[i, 0] * t * t
    cy = pivot_v[i, 1] * t + 0.5 * pivot_a[i, 1] * t * t
    if not plain and options[2] != 0.0:
        px, py = pivot[i, 0], pivot[i, 1]
        rx, ry = yx - px, yy - py
        angle = omega[i] * t
        cos, sin = math.cos(angle), math.sin(angle)
        wx = px + cx + (cos * rx - sin * ry)
        wy = py + cy + (sin * rx + cos * ry)
    else:
        wx, wy = yx + cx, yy + cy
    if not plain and options[3] != 0.0 and handoff[i]:
        q = t / dt
        wx = start[i, 0] + (end[i, 0] - start[i, 0]) * q
        wy = start[i, 1] + (end[i, 1] - start[i, 1]) * q
    return wx, wy


PAIR_BOUND_REL = 2.0**-40
"""Relative excess (far above the few roundings of a squared length and its root) by which
:func:`_pair_speed_bound` exceeds the length hypot finds."""
PAIR_BOUND_ABS_MPS = 1e-140
"""Absolute excess (m/s) of :func:`_pair_speed_bound`: lengths below it square to numbers
that may lose their precision below the normal range; its square is normal."""


@inlined_loop
def _pair_speed_bound(ax, ay, bx, by):
    """An upper bound (m/s) of ``larger(hypot(ax, ay), hypot(bx, by))`` with square roots:
    ``sqrt(larger(|a|^2, |b|^2)) (1 + PAIR_BOUND_REL) + PAIR_BOUND_ABS_MPS`` (NaN where a
    squared length is NaN, +inf where it overflows). A squared length of a vector at least
    PAIR_BOUND_ABS_MPS long is within 3 roundings of the true square and its root within 2 of
    the true length, and hypot is within 1 of it, so the relative excess covers them; a shorter
    vector's hypot is at most PAIR_BOUND_ABS_MPS (rounding is monotone), which the bound
    exceeds (its other terms are not negative)."""
    a_sq = ax * ax + ay * ay
    b_sq = bx * bx + by * by
    return math.sqrt(larger(a_sq, b_sq)) * (1.0 + PAIR_BOUND_REL) + PAIR_BOUND_ABS_MPS


@compiled_loop
def _pair_rows(first, second, radius, linear, world_v0, world_v1, speed_bound, step_s, lo, hi,
               offset_m, lipschitz, bounded):
    """Pairs ``lo:hi`` (bodies first[p], second[p]): the combined radius (m) into ``offset_m``
    and the Lipschitz constant (m/s) of their distance over the step into ``lipschitz``: the
    larger relative speed at the two ends (NaN wins) where both bodies' world velocities are
    linear in time (:func:`_curve_rows`), else the sum of their speed bounds.

    Where both are linear and the sample interval ``step_s / SAMPLES`` is positive, the
    constant written is :func:`_pair_speed_bound`'s upper bound of the relative speed, and
    ``bounded`` is True: a pair that the bound settles (:func:`_settles`) is settled by the
    constant too (its ``0.5 L h`` is at most the bound's, rounding keeps the order, and the
    settled value is the least sample, which neither changes), so the constant is needed only
    for the pairs it does not settle (:func:`_pair_exact_rows` writes it there, before the
    refinement reads it)."""
    positive = step_s / SAMPLES > 0.0
    for p in range(lo, hi):
        i, j = first[p], second[p]
        offset_m[p] = radius[i] + radius[j]
        if linear[i] and linear[j]:
            ax, ay = world_v0[i, 0] - world_v0[j, 0], world_v0[i, 1] - world_v0[j, 1]
            bx, by = world_v1[i, 0] - world_v1[j, 0], world_v1[i, 1] - world_v1[j, 1]
            if positive:
                lipschitz[p] = _pair_speed_bound(ax, ay, bx, by)
                bounded[p] = True
            else:
                lipschitz[p] = larger(math.hypot(ax, ay), math.hypot(bx, by))
                bounded[p] = False
        else:
            lipschitz[p] = speed_bound[i] + speed_bound[j]
            bounded[p] = False


@compiled_loop
def _pair_exact_rows(first, second, world_v0, world_v1, bounded, settled, lo, hi, lipschitz):
    """The Lipschitz constant of :func:`_pair_rows` (the larger relative speed at the two ends,
    m/s, NaN wins) into ``lipschitz`` for the pairs ``lo:hi`` that it ``bounded`` and that
    the bound did not settle."""
    for p in range(lo, hi):
        if bounded[p] and not settled[p]:
            i, j = first[p], second[p]
            d0 = math.hypot(world_v0[i, 0] - world_v0[j, 0], world_v0[i, 1] - world_v0[j, 1])
            d1 = math.hypot(world_v1[i, 0] - world_v1[j, 0], world_v1[i, 1] - world_v1[j, 1])
            lipschitz[p] = larger(d0, d1)


DRIFT_CLEAR_SQ = (TOLERANCE_M * (1.0 - 1e-9)) ** 2
"""Squared drift below which :func:`_drift` leaves out the length (m^2, or (m/s)^2)."""


@inlined_loop
def _drift(dx, dy):
    """``math.hypot(dx, dy)``, or 0 where the squared length is below DRIFT_CLEAR_SQ: the length
    is then below TOLERANCE_M (the square is within a few roundings of the true one, far inside
    the 1e-9 margin, and hypot within one of the true length), so neither keeps T4's margin
    below its slack nor, when the other drift does, becomes the smaller of the two: the rule's
    verdict and margin are those of the lengths."""
    if dx * dx + dy * dy <= DRIFT_CLEAR_SQ:
        return 0.0
    return math.hypot(dx, dy)


@compiled_loop
def _verdicts(dt, dt_sq, coarse, committed, commit, split, second, second_commit, pivot, pivot_v,
              pivot_a, omega, cos, sin, handoff, cap, slope_factor, end_position, end_velocity,
              corridor, patch, platform, obstacle, agent, lo, hi, wall, speed, claim, margin):
    """Rows ``lo:hi`` of the end of the check: the end velocity against the cap and the end
    state against the re-built curve, then every rule's signed margin and the verdict.

    At the end of the step (end position ``coarse[i, -1]`` of the curve): the relative velocity
    in the start frame (``v1`` if committed for the whole step, else rest; for a body split at
    a portal its second ramp's, alike), the support's carry at the end position
    ``w + alpha dt + omega x (x1 - c(dt))`` with ``c(dt) = c + w dt + alpha dt^2 / 2``, and the
    world velocity ``carry + R(omega dt) v_rel`` (``cos``, ``sin`` of ``omega dt`` per body,
    empty without rotation: 1 and 0). The speed excess (m/s, into ``speed``) is the larger of
    ``|v_rel| - cap`` and ``|v_end| - (cap + |carry|)`` (NaN wins), the latter alone for a
    body moved by its handoff controller; the drift (T4) is the larger of the end position's
    distance (m) and the end velocity's (m/s, 0 under handoff). ``wall`` gets the smallest of
    the corridor, patch and platform clearances; ``claim`` the index in CLAIM_ORDER plus one of
    the first rule whose margin falls below its slack (0: none) and ``margin`` that margin
    (+inf: none); ``dt_sq`` is ``dt**2`` as Python squares it. Claim: C4, C1, B5, W1, V1, O2,
    T4."""
    last = coarse.shape[1] - 1
    has_split = split.shape[0] > 0
    rotating = cos.shape[0] > 0
    # lengths of equal magnitudes are the same number: the carry's is kept while the next
    # body's carry has the same values (bodies on one support), and the end velocity's is the
    # relative velocity's where the two are equal (bodies on the ground)
    last_carry_x = last_carry_y = carry_speed = np.nan
    for i in range(lo, hi):
        full = commit[i] >= dt
        vx = committed[i, 0] if full else 0.0
        vy = committed[i, 1] if full else 0.0
        if has_split and math.isfinite(split[i]):
            second_full = second_commit[i] >= dt - smaller(split[i], dt)
            vx = second[i, 0] if second_full else 0.0
            vy = second[i, 1] if second_full else 0.0
        ex, ey = coarse[i, last, 0], coarse[i, last, 1]
        arm_x = ex - (pivot[i, 0] + pivot_v[i, 0] * dt + 0.5 * pivot_a[i, 0] * dt_sq)
        arm_y = ey - (pivot[i, 1] + pivot_v[i, 1] * dt + 0.5 * pivot_a[i, 1] * dt_sq)
        carry_x = pivot_v[i, 0] + pivot_a[i, 0] * dt + omega[i] * -arm_y
        carry_y = pivot_v[i, 1] + pivot_a[i, 1] * dt + omega[i] * arm_x
        c, s = (cos[i], sin[i]) if rotating else (1.0, 0.0)
        world_x = carry_x + (c * vx - s * vy)
        world_y = carry_y + (s * vx + c * vy)
        ux, uy = end_velocity[i, 0], end_velocity[i, 1]
        if not (carry_x == last_carry_x and carry_y == last_carry_y):
            last_carry_x, last_carry_y = carry_x, carry_y
            carry_speed = math.hypot(carry_x, carry_y)
        if handoff[i]:
            excess = math.hypot(ux, uy) - (cap[i] + carry_speed)
        else:
            rel_speed = math.hypot(vx, vy)
            speed_u = rel_speed if ux == vx and uy == vy else math.hypot(ux, uy)
            excess = larger(rel_speed - cap[i], speed_u - (cap[i] + carry_speed))
        speed[i] = excess
        drift_m = _drift(ex - end_position[i, 0], ey - end_position[i, 1])
        drift_mps = 0.0 if handoff[i] else _drift(world_x - ux, world_y - uy)
        wall[i] = smaller(smaller(corridor[i], patch[i]), platform[i])
        sloped = slope_factor[i] > 1.0
        claim[i], margin[i] = 0, np.inf
        # the rules in CLAIM_ORDER: each signed margin (negative: how far outside), its slack
        for rule in range(7):
            if rule == 0:
                value, slack = corridor[i], TOLERANCE_M
            elif rule == 1:
                value, slack = patch[i], TOLERANCE_M
            elif rule == 2:
                value, slack = smaller(platform[i], obstacle[i]), TOLERANCE_M
            elif rule == 3:
                value, slack = agent[i], TOLERANCE_M
            elif rule == 4:
                value, slack = -excess if sloped else np.inf, SPEED_TOLERANCE_MPS
            elif rule == 5:
                value, slack = np.inf if sloped else -excess, SPEED_TOLERANCE_MPS
            else:
                value, slack = smaller(-drift_m, -drift_mps), TOLERANCE_M
            if value < -slack:
                claim[i], margin[i] = rule + 1, value
                break


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
        self.a = np.ascontiguousarray(np.concatenate(starts) if starts else np.zeros((0, 2)))
        self.b = np.ascontiguousarray(np.concatenate(ends) if ends else np.zeros((0, 2)))
        self.ab = self.b - self.a
        self.length_sq = (self.ab * self.ab).sum(axis=1)
        self.inv_length_sq = np.where(self.length_sq > 0.0, 1.0 / np.where(
            self.length_sq > 0.0, self.length_sq, 1.0), 0.0)
        owners = np.concatenate(owner) if owner else np.zeros(0, np.int64)
        self.first = np.searchsorted(owners, np.arange(self.count + 1)).astype(np.int64)
        """Edges of polygon g: ``first[g]:first[g + 1]``."""
        self.solid = np.array(solid, bool)
        dy = self.b[:, 1] - self.a[:, 1]
        self.x_slope = np.where(dy != 0.0, (self.b[:, 0] - self.a[:, 0])
                                / np.where(dy != 0.0, dy, 1.0), 0.0)
        lo, hi = np.minimum(self.a, self.b), np.maximum(self.a, self.b)
        self.edge_box = np.ascontiguousarray(np.stack([lo[:, 0], hi[:, 0], lo[:, 1], hi[:, 1]],
                                                      axis=1))
        """Each edge's bounding box (m): x from, x to, y from, y to."""
        coordinate = np.max(np.abs(np.concatenate([self.a, self.b], axis=1)), axis=1,
                            initial=0.0)
        sure = (np.isfinite(self.ab).all(axis=1) & np.isfinite(self.inv_length_sq)
                & (coordinate < MODEST_SCALE_M))
        self.scale = np.array([1.0 + coordinate[lo:hi].max() if sure[lo:hi].all() else np.nan
                               for lo, hi in zip(self.first[:-1], self.first[1:], strict=True)])
        """Each polygon's ``1 +`` largest coordinate (m); NaN where an edge is not finite or a
        coordinate is beyond MODEST_SCALE_M (:func:`_polygon_on_samples` skips nothing
        there)."""
        self.arrays = (self.a, self.b, self.ab, self.inv_length_sq, self.x_slope, self.first,
                       self.solid, self.edge_box, self.scale)
        """What the compiled loops read (:func:`_polygon_distance`)."""

    def signed_distance_m(self, x_m: np.ndarray) -> np.ndarray:
        """Exact signed distance (m, (M, G)) from points ``x_m`` (M, 2) to each polygon:
        negative inside, positive outside (the inside by the even-odd rule). Claim: B5, C4."""
        x = np.ascontiguousarray(x_m, dtype=np.float64).reshape(-1, 2)
        out = np.empty((x.shape[0], self.count))
        _signed_distances(self.arrays, x, out)
        return out


@inlined_loop
def _segment_distance_sq(apx, apy, abx, aby, inv_length_sq):
    """Squared distance (m^2) from a point to a segment, from the point less the segment's
    start (``apx``, ``apy``), the segment's direction and its inverse squared length: to the
    segment's point nearest the point's projection, clamped to the segment."""
    t = smaller(larger((apx * abx + apy * aby) * inv_length_sq, 0.0), 1.0)
    dx, dy = apx - t * abx, apy - t * aby
    return dx * dx + dy * dy


@inlined_loop
def _crosses(px, py, ax, ay, by, x_slope):
    """Whether a ray from (px, py) towards +x crosses the edge from (ax, ay) to (., by) whose
    inverse slope is ``x_slope`` (the even-odd rule)."""
    return ((ay > py) != (by > py)) and px < ax + (py - ay) * x_slope


@inlined_loop
def _polygon_distance(table, g, px, py):
    """Exact signed distance (m) from the point (px, py) to polygon ``g`` of a
    :class:`PolygonTable` (its ``arrays``): the nearest point of each edge segment, the inside
    by the even-odd rule (a ray towards +x crosses the boundary an odd number of times from
    inside). Claim: B5, C4."""
    a, b, ab, inv_length_sq, x_slope, first, solid = table[:7]
    nearest_sq = np.inf
    crossings = 0
    for e in range(first[g], first[g + 1]):
        nearest_sq = smaller(nearest_sq, _segment_distance_sq(
            px - a[e, 0], py - a[e, 1], ab[e, 0], ab[e, 1], inv_length_sq[e]))
        if _crosses(px, py, a[e, 0], a[e, 1], b[e, 1], x_slope[e]):
            crossings += 1
    dist = math.sqrt(nearest_sq)
    return -dist if crossings % 2 == 1 and solid[g] else dist


SKIP_SLACK_REL = 1e-9
"""Relative slack (of ``1 +`` the largest coordinate, m) by which an edge must be farther
than the nearest before :func:`_polygon_on_samples` leaves out its distance: far above the
few roundings (~1e-15 relative) by which the computed distances differ from the true ones."""
MODEST_SCALE_M = 1e100
"""Coordinates (m) below which no product of the distance computation overflows."""


@inlined_loop
def _samples_box(scale, coarse, i):
    """The box of body ``i``'s samples (m: x from, x to, y from, y to), whether every sample is
    below MODEST_SCALE_M, the sum of the box's sides (m, at least its diagonal) and the skip
    slack ``SKIP_SLACK_REL (1 + the largest coordinate of the polygon (its ``scale``) and of
    the box)`` (m) of :func:`_polygon_on_samples`."""
    x_lo = x_hi = coarse[i, 0, 0]
    y_lo = y_hi = coarse[i, 0, 1]
    modest = abs(x_lo) < MODEST_SCALE_M and abs(y_lo) < MODEST_SCALE_M
    for s in range(1, coarse.shape[1]):
        x, y = coarse[i, s, 0], coarse[i, s, 1]
        modest = modest and abs(x) < MODEST_SCALE_M and abs(y) < MODEST_SCALE_M
        x_lo, x_hi = min(x_lo, x), max(x_hi, x)
        y_lo, y_hi = min(y_lo, y), max(y_hi, y)
    box_scale = max(max(abs(x_lo), abs(x_hi)), max(abs(y_lo), abs(y_hi)))
    diag = (x_hi - x_lo) + (y_hi - y_lo)
    slack = SKIP_SLACK_REL * max(scale, 1.0 + box_scale)
    return x_lo, x_hi, y_lo, y_hi, modest, diag, slack


@inlined_loop
def _beyond(edge_box, e, x_lo, x_hi, y_lo, y_hi, reach, slack):
    """Whether edge ``e``'s bounding box lies farther than ``reach`` (m) from the samples' box
    by ``slack`` (m): its squared gap exceeds the squared ``reach + slack`` by far more than
    the roundings of either square, so its gap exceeds them (:func:`_polygon_on_samples`)."""
    gap_x = max(0.0, max(edge_box[e, 0] - x_hi, x_lo - edge_box[e, 1]))
    gap_y = max(0.0, max(edge_box[e, 2] - y_hi, y_lo - edge_box[e, 3]))
    return gap_x * gap_x + gap_y * gap_y > (reach + slack) * (reach + slack) * (
        1.0 + SKIP_SLACK_REL)


@inlined_loop
def _polygon_on_samples(table, g, coarse, i, listed, sq, inside):
    """:func:`_polygon_distance` of body ``i``'s sample points ``coarse[i, s]`` to polygon
    ``g`` as its two parts, the squared distance (m^2) to the nearest edge into ``sq`` and
    whether the point is inside into ``inside`` (samples,) (:func:`_signed_from_squares` makes
    the same values), skipping what cannot change them.

    The first sample is measured against every edge. Every sample lies in the box of the
    samples, so its nearest edge is at most ``reach = |d0| + diag`` away (``d0`` the first
    sample's distance, ``diag`` the sum of the box's sides, at least its diagonal). An edge
    whose bounding box lies farther than ``reach`` from the samples' box (squared distances
    compared, with a relative slack far above their roundings), by ``SKIP_SLACK_REL (1 + largest
    coordinate of the polygon and the box)`` (far above the few roundings, ~1e-15 of that
    coordinate, by which a computed distance differs from the true one), is farther than the
    nearest edge at every sample in computed values too: leaving out its distance leaves every
    minimum as it is. An edge whose y-range the samples' y-range does not meet is crossed by no
    sample's ray (the same comparisons decide it). When the boundary lies farther than ``diag``
    from the first sample, by that slack (``|d0| - diag > slack``), no sample's crossings are
    counted: the segment from the first sample to any other stays in the box, within ``diag`` of
    the first, so it meets no edge and both points have the same even-odd parity; and each
    sample's computed count has its true parity, because a crossing test is decided by exact
    comparisons of y and by one of x against the edge's x at the sample's y (computed within a
    few roundings of the largest coordinate, and the sample lies farther than the slack from the
    edge along that line). A sample or an edge that is not finite, or beyond MODEST_SCALE_M,
    keeps everything. ``listed`` is scratch of at least twice the polygon's edge count. Claim:
    B5, C4."""
    a, b, ab, inv_length_sq, x_slope, first, solid, edge_box, scale = table
    lo, hi = first[g], first[g + 1]
    samples = coarse.shape[1]
    # the first sample against every edge, written out as in :func:`_polygon_distance` (a
    # call that passes the table costs more here than the edges it saves)
    px, py = coarse[i, 0, 0], coarse[i, 0, 1]
    nearest_sq = np.inf
    crossings = 0
    for e in range(lo, hi):
        nearest_sq = smaller(nearest_sq, _segment_distance_sq(
            px - a[e, 0], py - a[e, 1], ab[e, 0], ab[e, 1], inv_length_sq[e]))
        if _crosses(px, py, a[e, 0], a[e, 1], b[e, 1], x_slope[e]):
            crossings += 1
    sq[0], inside[0] = nearest_sq, crossings % 2 == 1 and solid[g]
    d0 = math.sqrt(nearest_sq)
    first_crossings = crossings
    x_lo, x_hi, y_lo, y_hi, modest, diag, slack = _samples_box(scale[g], coarse, i)
    sure = modest and scale[g] == scale[g]
    reach = d0 + diag
    # the boundary farther than the box's diagonal from the first sample: no sample's
    # segment from the first crosses it, and every crossing test is decided as for the true
    # point (its distance to an edge is far above the test's roundings), so every sample
    # counts the first sample's crossings mod 2
    same_side = sure and d0 - diag > slack
    near = 0
    straddling = hi - lo
    for e in range(lo, hi):
        if not (sure and _beyond(edge_box, e, x_lo, x_hi, y_lo, y_hi, reach, slack)):
            listed[near] = e
            near += 1
        if not (same_side or (modest and (y_hi < edge_box[e, 2] or y_lo >= edge_box[e, 3]))):
            listed[straddling] = e
            straddling += 1
    for s in range(1, samples):
        px, py = coarse[i, s, 0], coarse[i, s, 1]
        nearest_sq = np.inf
        for q in range(near):
            e = listed[q]
            nearest_sq = smaller(nearest_sq, _segment_distance_sq(
                px - a[e, 0], py - a[e, 1], ab[e, 0], ab[e, 1], inv_length_sq[e]))
        crossings = first_crossings if same_side else 0
        for q in range(hi - lo, straddling):
            e = listed[q]
            if _crosses(px, py, a[e, 0], a[e, 1], b[e, 1], x_slope[e]):
                crossings += 1
        sq[s], inside[s] = nearest_sq, crossings % 2 == 1 and solid[g]


@inlined_loop
def _polygon_least_inside(table, g, coarse, i, half_lip_h):
    """(the least clearance, True) of body ``i``'s samples against polygon ``g`` when every
    sample is inside it and no interval of the grid can be refined, else (0, False): what
    :func:`_polygon_on_samples` and :func:`_polygon_least_when_settled` find there, to the
    bit, measuring fewer edges.

    Every sample is inside when the first is, the coordinates are modest, the edges finite and
    the boundary farther than the box's side sum from the first sample by the slack (then
    every sample has the first one's crossings mod 2: ``same_side`` of
    :func:`_polygon_on_samples`). Every clearance is then the square root of its squared
    distance, and the least is the root of the least squared distance over every sample and
    every edge (:func:`_polygon_least_when_settled`, whose samples' minima
    :func:`_polygon_on_samples` finds without the edges that change none of them; the least of
    finite numbers does not depend on their order, and no squared distance is -0.0). Here the
    first sample's nearest edge is measured at every sample first; another edge is measured
    unless its bounding box lies farther than ``r`` from the samples' box by the slack
    (:func:`_beyond`), ``r`` the root of the least squared distance over the first sample and
    the nearest edge's samples, taken once: such an edge is farther than ``r`` at every sample
    in computed values too (the argument of :func:`_polygon_on_samples` with ``r`` for its
    reach, and ``r <= d0 <= reach``), so its squared distances exceed the least found, which
    is at most ``r`` squared (the root is correctly rounded, hence monotone), and leave it as
    it is; an edge measured needlessly changes no minimum either. The first sample's loop
    also finds its nearest edge, which :func:`_polygon_on_samples` does not need. Claim: B5,
    C4."""
    a, b, ab, inv_length_sq, x_slope, first, solid, edge_box, scale = table
    lo, hi = first[g], first[g + 1]
    samples = coarse.shape[1]
    px, py = coarse[i, 0, 0], coarse[i, 0, 1]
    least_sq = np.inf
    nearest = lo
    crossings = 0
    for e in range(lo, hi):
        sq = _segment_distance_sq(px - a[e, 0], py - a[e, 1], ab[e, 0], ab[e, 1],
                                  inv_length_sq[e])
        if sq < least_sq:
            least_sq, nearest = sq, e
        if _crosses(px, py, a[e, 0], a[e, 1], b[e, 1], x_slope[e]):
            crossings += 1
    if not (crossings % 2 == 1 and solid[g] and scale[g] == scale[g]):
        return 0.0, False
    x_lo, x_hi, y_lo, y_hi, modest, diag, slack = _samples_box(scale[g], coarse, i)
    if not (modest and math.sqrt(least_sq) - diag > slack):
        return 0.0, False
    # every value from here on is a finite number: the least is min's
    for s in range(1, samples):
        least_sq = min(least_sq, _segment_distance_sq(
            coarse[i, s, 0] - a[nearest, 0], coarse[i, s, 1] - a[nearest, 1],
            ab[nearest, 0], ab[nearest, 1], inv_length_sq[nearest]))
    # one root for every other edge (the least found only falls below it)
    reach = math.sqrt(least_sq)
    for e in range(lo, hi):
        if e == nearest or _beyond(edge_box, e, x_lo, x_hi, y_lo, y_hi, reach, slack):
            continue
        for s in range(1, samples):
            least_sq = min(least_sq, _segment_distance_sq(
                coarse[i, s, 0] - a[e, 0], coarse[i, s, 1] - a[e, 1], ab[e, 0], ab[e, 1],
                inv_length_sq[e]))
    best = math.sqrt(least_sq)
    return best, _settles(best, half_lip_h)


@inlined_loop
def _signed_from_squares(sq, inside, dist):
    """The signed distances (m) of :func:`_polygon_on_samples`'s parts into ``dist``: the
    square root of each squared distance, negative inside (as :func:`_polygon_distance`)."""
    for s in range(sq.shape[0]):
        d = math.sqrt(sq[s])
        dist[s] = -d if inside[s] else d


@inlined_loop
def _polygon_least_when_settled(sq, inside, half_lip_h):
    """(the least sampled clearance ``-dist``, True) of a body's samples against a polygon
    (:func:`_polygon_on_samples`'s parts) when no interval of the grid can be refined, else
    (0, False): what :func:`_certified_mins` finds from every sample's ``-dist``, to the bit,
    with one square root (:func:`_settles`).

    When every sample is on the same side, each clearance is ``sqrt(sq)`` (inside) or
    ``-sqrt(sq)`` (outside), and the square root is correctly rounded, hence monotone: the
    least clearance is the root of the least (inside) or minus the root of the largest
    (outside) squared distance; equal clearances have equal bits (a root is never -0.0 and
    the sign is the same at every sample). Samples on both sides, or a squared distance that
    is not a number, decide nothing here (False)."""
    least_sq = most_sq = sq[0]
    for s in range(sq.shape[0]):
        if sq[s] != sq[s] or inside[s] != inside[0]:
            return 0.0, False
        if sq[s] < least_sq:
            least_sq = sq[s]
        if sq[s] > most_sq:
            most_sq = sq[s]
    best = math.sqrt(least_sq) if inside[0] else -math.sqrt(most_sq)
    return best, _settles(best, half_lip_h)


@inlined_loop
def _pair_on_samples(coarse, i, j, off, gap, half_lip_h):
    """The clearance ``hypot - off`` (m) of the bodies ``i`` and ``j`` (combined radius
    ``off``) at every sample into ``gap`` (samples,), and (the least, whether it settles the
    pair: :func:`_settles`). A sample whose difference of positions equals the previous
    measured one has its value (hypot of equal magnitudes is the same number; bodies that move
    alike keep their difference over most of the step)."""
    last_x = last_y = np.nan
    value = np.inf
    best = np.inf
    for s in range(coarse.shape[1]):
        dx = coarse[i, s, 0] - coarse[j, s, 0]
        dy = coarse[i, s, 1] - coarse[j, s, 1]
        if not (dx == last_x and dy == last_y):
            value = math.hypot(dx, dy) - off
            last_x, last_y = dx, dy
        gap[s] = value
        best = smaller(best, value)
    return best, _settles(best, half_lip_h)


@inlined_loop
def _settles(best, half_lip_h):
    """Whether no interval of a clearance whose samples are all at least ``best`` (m) is
    refined by :func:`_certified_mins`, so that ``best`` is its certified minimum: every
    interval's bound ``(fa + fb) / 2 - L h / 2`` (``half_lip_h``, computed as the refinement
    computes it) is, in rounded arithmetic too, at least ``best - L h / 2`` (rounding keeps the
    order, and halving the double of ``best`` is exact), so none falls below the refinement
    level when that does not. A value that is not a number settles nothing."""
    return best - half_lip_h >= _refine_below(best)


@compiled_loop
def _signed_distances(table, x, out):
    """:func:`_polygon_distance` of every point ``x`` (M, 2) to every polygon into ``out``."""
    for m in range(x.shape[0]):
        for g in range(out.shape[1]):
            out[m, g] = _polygon_distance(table, g, x[m, 0], x[m, 1])


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


_NO_POLYGONS = PolygonTable([])
"""The empty table (clearances between bodies measure no polygon)."""


# ------------------------------------------------------------------- certified minimum
_CORRIDOR, _PATCH, _PLATFORM, _OBSTACLE, _PAIR = 0, 1, 2, 3, 4
"""The clearances :func:`_certified_mins` measures (centre in the corridor, centre in its
patch piece, centre on its platform in the platform frame, disc off every obstacle, two discs
apart)."""


@inlined_loop
def _clearance(kind, start, v0, v1, commit, split_s, second, second_commit, pivot, pivot_v,
               pivot_a, omega, end, handoff, options, plain, table, body, other, offset_m, t,
               coarse, sample):
    """Clearance (m) ``kind`` of item (``body``, ``other``, ``offset_m``) at time ``t``; at a
    sample time (``sample >= 0``) the world positions are read from ``coarse``. ``other`` is
    the polygon (patch, platform) or the second body (pair); ``offset_m`` the radius
    (obstacle) or the combined radius (pair). ``start`` ... ``handoff`` are the arrays of
    :attr:`_Curves.curve` (:func:`_world_point`)."""
    if kind == _PLATFORM:
        yx, yy = _relative_point(start, v0, v1, commit, split_s, second, second_commit,
                                 options[0], not plain and options[1] != 0.0, body, t)
        return -_polygon_distance(table, other, yx, yy)
    if sample >= 0:
        wx, wy = coarse[body, sample, 0], coarse[body, sample, 1]
    else:
        wx, wy = _world_point(start, v0, v1, commit, split_s, second, second_commit, pivot,
                              pivot_v, pivot_a, omega, end, handoff, options, plain, body, t)
    if kind == _CORRIDOR:
        return -_polygon_distance(table, 0, wx, wy)
    if kind == _PATCH:
        return -_polygon_distance(table, other, wx, wy)
    if kind == _OBSTACLE:
        nearest = np.inf
        for g in range(table[5].shape[0] - 1):
            nearest = smaller(nearest, _polygon_distance(table, g, wx, wy))
        return nearest - offset_m
    if sample >= 0:
        ox, oy = coarse[other, sample, 0], coarse[other, sample, 1]
    else:
        ox, oy = _world_point(start, v0, v1, commit, split_s, second, second_commit, pivot,
                              pivot_v, pivot_a, omega, end, handoff, options, plain, other, t)
    return math.hypot(wx - ox, wy - oy) - offset_m


@inlined_loop
def _refine_below(best):
    """The level (m) an interval's lower bound must clear: ``-TOLERANCE_M`` while no sample
    violates, then the violation's sampled depth less ``TOLERANCE_M`` (its depth is measured to
    within ``TOLERANCE_M``)."""
    return -TOLERANCE_M if best >= -TOLERANCE_M else best - TOLERANCE_M


@compiled_loop
def _grown(values, size):
    """A copy of ``values`` with room for ``size`` entries."""
    out = np.empty(size)
    out[:values.shape[0]] = values
    return out


@compiled_loop
def _sampled_clearances(kind, c, options, table, body, other, offset_m, lipschitz, coarse,
                        grid, item_lo, item_hi, vals, settled, out):
    """The clearance ``kind`` of items ``item_lo:item_hi`` at every ``grid`` time into ``vals``
    (items, samples): :func:`_clearance` at the sample times, written out per kind so that the
    loop over samples calls nothing (the same expressions, the same values); a polygon in the
    world is measured at all the samples of a body at once (:func:`_polygon_on_samples`). A
    pair, or a body's clearance in the corridor or its patch, that no interval refines is
    settled here (:func:`_pair_on_samples`; :func:`_polygon_least_inside` where every sample is
    inside, else :func:`_polygon_least_when_settled`): its certified minimum into ``out`` and
    True into ``settled`` instead of its samples (``settled`` is False for every other item)."""
    samples = grid.shape[0]
    dt, split = options[0], options[1] != 0.0
    h = dt / SAMPLES
    polygons = table[5].shape[0] - 1
    edges = 0
    for g in range(polygons):
        edges = max(edges, table[5][g + 1] - table[5][g])
    listed = np.empty(2 * edges, np.int64)
    sq, dist = np.empty(samples), np.empty(samples)
    inside = np.empty(samples, np.bool_)
    for k in range(item_lo, item_hi):
        i, j, off = body[k], other[k], offset_m[k]
        settled[k] = False
        if kind == _PAIR:
            least, settled[k] = _pair_on_samples(coarse, i, j, off, dist,
                                                 0.5 * lipschitz[k] * h)
            if settled[k]:
                out[k] = least
                continue
            for s in range(samples):
                vals[k, s] = dist[s]
        elif kind == _PLATFORM:
            for s in range(samples):
                yx, yy = _relative_at(c, dt, split, i, grid[s])
                vals[k, s] = -_polygon_distance(table, j, yx, yy)
        elif kind == _CORRIDOR or kind == _PATCH:
            polygon = 0 if kind == _CORRIDOR else j
            least, settled[k] = _polygon_least_inside(table, polygon, coarse, i,
                                                      0.5 * lipschitz[k] * h)
            if settled[k]:
                out[k] = least
                continue
            _polygon_on_samples(table, polygon, coarse, i, listed, sq, inside)
            least, settled[k] = _polygon_least_when_settled(sq, inside,
                                                            0.5 * lipschitz[k] * h)
            if settled[k]:
                out[k] = least
                continue
            _signed_from_squares(sq, inside, dist)
            for s in range(samples):
                vals[k, s] = -dist[s]
        else:
            for s in range(samples):
                vals[k, s] = np.inf
            for g in range(polygons):
                _polygon_on_samples(table, g, coarse, i, listed, sq, inside)
                _signed_from_squares(sq, inside, dist)
                for s in range(samples):
                    vals[k, s] = smaller(vals[k, s], dist[s])
            for s in range(samples):
                vals[k, s] = vals[k, s] - off


@compiled_loop
def _certified_mins(kind, c, options, table, body, other, offset_m, lipschitz, coarse, grid,
                    sampled, settled, item_lo, item_hi, out):
    """Minimum over ``[0, dt]`` (m) of the clearance ``kind`` of items ``item_lo:item_hi`` into
    ``out``: its values at the ``grid`` times (``sampled``, :func:`_sampled_clearances`), then
    every interval whose Lipschitz lower bound ``(fa + fb) / 2 - L h / 2`` falls below
    :func:`_refine_below` of the smallest value so far is bisected, round by round (each round
    evaluates the midpoints of all open intervals, then keeps the halves whose bound still
    falls below), at most MAX_BISECTIONS rounds (see the module docstring). Items ``settled``
    by :func:`_sampled_clearances` have theirs already."""
    samples = grid.shape[0]
    dt = options[0]
    h = dt / SAMPLES
    # the curve's arrays taken out of their tuple once, not at every point evaluated
    start, v0, v1, commit, split_s, second, second_commit, pivot, pivot_v, pivot_a, omega, \
        end, handoff = c
    # no body split, rotating or moved by its handoff: the points leave those branches out
    plain = options[1] == 0.0 and options[2] == 0.0 and options[3] == 0.0
    vals = np.empty(samples)
    ta, tb = np.empty(4 * samples), np.empty(4 * samples)
    fa, fb = np.empty(4 * samples), np.empty(4 * samples)
    for k in range(item_lo, item_hi):
        if settled[k]:
            continue
        i, j, off = body[k], other[k], offset_m[k]
        half_lip = 0.5 * lipschitz[k]
        best = np.inf
        for s in range(samples):
            vals[s] = sampled[k, s]
            best = smaller(best, vals[s])
        level = _refine_below(best)
        count = 0
        for s in range(samples - 1):
            if 0.5 * (vals[s] + vals[s + 1]) - half_lip * h < level:
                ta[count], tb[count] = grid[s], grid[s + 1]
                fa[count], fb[count] = vals[s], vals[s + 1]
                count += 1
        for _ in range(MAX_BISECTIONS):
            if count == 0:
                break
            if 2 * count > ta.shape[0]:
                ta, tb = _grown(ta, 4 * count), _grown(tb, 4 * count)
                fa, fb = _grown(fa, 4 * count), _grown(fb, 4 * count)
            # the midpoints of every open interval first (the left halves' ends)
            for q in range(count):
                tm = 0.5 * (ta[q] + tb[q])
                if plain:
                    fm = _clearance(kind, start, v0, v1, commit, split_s, second,
                                    second_commit, pivot, pivot_v, pivot_a, omega, end,
                                    handoff, options, True, table, i, j, off, tm, coarse, -1)
                else:
                    fm = _clearance(kind, start, v0, v1, commit, split_s, second,
                                    second_commit, pivot, pivot_v, pivot_a, omega, end,
                                    handoff, options, False, table, i, j, off, tm, coarse, -1)
                best = smaller(best, fm)
                ta[count + q], tb[count + q] = tm, tb[q]
                fa[count + q], fb[count + q] = fm, fb[q]
                tb[q], fb[q] = tm, fm
            level = _refine_below(best)
            kept = 0
            for q in range(2 * count):
                if 0.5 * (fa[q] + fb[q]) - half_lip * (tb[q] - ta[q]) < level:
                    ta[kept], tb[kept], fa[kept], fb[kept] = ta[q], tb[q], fa[q], fb[q]
                    kept += 1
            count = kept
        out[k] = best


@compiled_loop
def _piece_mins(kind, c, options, table, body, other, offset_m, lipschitz, coarse, grid,
                item_lo, item_hi, sampled, settled, out):
    """Certified minima (m) of the clearance ``kind`` of items ``item_lo:item_hi`` into
    ``out``: :func:`_sampled_clearances` then :func:`_certified_mins` of those items, in one
    call (a piece's arrays are handed to compiled code once)."""
    _sampled_clearances(kind, c, options, table, body, other, offset_m, lipschitz, coarse, grid,
                        item_lo, item_hi, sampled, settled, out)
    _certified_mins(kind, c, options, table, body, other, offset_m, lipschitz, coarse, grid,
                    sampled, settled, item_lo, item_hi, out)


@compiled_loop
def _pair_piece_mins(first, second, radius, linear, world_v0, world_v1, speed_bound, c,
                     options, table, coarse, grid, lo, hi, offset_m, lipschitz, bounded,
                     sampled, settled, out):
    """Certified minima (m) of the clearances of pairs ``lo:hi`` (bodies first[p],
    second[p]) into ``out``, in one call: their combined radii and Lipschitz constants
    (:func:`_pair_rows`, the step ``options[0]``), the samples (:func:`_sampled_clearances`),
    the exact constants of the pairs the bound did not settle (:func:`_pair_exact_rows`), then
    the refinement (:func:`_certified_mins`); ``table`` is the empty polygon table."""
    _pair_rows(first, second, radius, linear, world_v0, world_v1, speed_bound, options[0], lo,
               hi, offset_m, lipschitz, bounded)
    _sampled_clearances(_PAIR, c, options, table, first, second, offset_m, lipschitz, coarse,
                        grid, lo, hi, sampled, settled, out)
    _pair_exact_rows(first, second, world_v0, world_v1, bounded, settled, lo, hi, lipschitz)
    _certified_mins(_PAIR, c, options, table, first, second, offset_m, lipschitz, coarse, grid,
                    sampled, settled, lo, hi, out)


def _certified_min(kind: int, cur: _Curves, table: PolygonTable, body: np.ndarray,
                   other: np.ndarray | None, offset_m: np.ndarray | None,
                   lipschitz: np.ndarray, coarse: np.ndarray, grid: np.ndarray,
                   also: Callable[[], None] | None = None) -> np.ndarray:
    """Certified minimum over the step (m, (items,)) of the clearance ``kind`` of every item
    (:func:`_certified_mins`), in threads for many items; ``also``, when given, is one more
    piece of the same run (a compiled pass that reads and writes none of these arrays, so
    that a free core takes the items' pieces meanwhile)."""
    items = body.size
    zeros_i = np.zeros(items, np.int64)
    args = (kind, cur.curve, cur.options, table.arrays, np.ascontiguousarray(body, np.int64),
            zeros_i if other is None else np.ascontiguousarray(other, np.int64),
            np.zeros(items) if offset_m is None else np.ascontiguousarray(offset_m, np.float64),
            np.ascontiguousarray(lipschitz, np.float64), coarse, grid)
    out = np.empty(items)
    sampled = _scratch("sampled", (items, grid.size))
    settled = _scratch("settled", (items,), np.bool_)
    threads = thread_count(items, PARALLEL_MIN_ITEMS)
    if threads == 1:
        # the pieces run_pieces would run on one thread, in its order
        if also is not None:
            also()
        _piece_mins(*args, 0, items, sampled, settled, out)
        return out
    bounds = piece_bounds(items, threads)

    extra = 0 if also is None else 1

    def piece(p: int) -> None:
        if p < extra:
            assert also is not None
            also()
        else:
            _piece_mins(*args, bounds[p - extra], bounds[p - extra + 1], sampled, settled, out)

    run_pieces(piece, len(bounds) - 1 + extra, threads=threads)
    return out


def _pair_min(cur: _Curves, first: np.ndarray, second: np.ndarray, radius_m: np.ndarray,
              grid: np.ndarray) -> np.ndarray:
    """Certified minimum over the step (m, (P,)) of the clearance of every pair of bodies
    (``first``, ``second``), as :func:`_certified_min`, with each piece's combined radii and
    Lipschitz constants found first (:func:`_pair_rows`), in threads for many pairs."""
    items = first.size
    first = np.ascontiguousarray(first, np.int64)
    second = np.ascontiguousarray(second, np.int64)
    out = np.empty(items)
    offset_m, lipschitz = _scratch("pair_offset", (items,)), _scratch("pair_lipschitz", (items,))
    bounded = _scratch("pair_bounded", (items,), np.bool_)
    sampled = _scratch("sampled", (items, grid.size))
    settled = _scratch("settled", (items,), np.bool_)
    args = (first, second, _f64(radius_m), cur.linear, cur.world_v0_mps, cur.world_v1_mps,
            cur.speed_bound_mps, cur.curve, cur.options, _NO_POLYGONS.arrays, cur.coarse, grid)
    threads = thread_count(items, PARALLEL_MIN_ITEMS)
    if threads == 1:
        # the one piece run_pieces would run
        _pair_piece_mins(*args, 0, items, offset_m, lipschitz, bounded, sampled, settled, out)
        return out
    bounds = piece_bounds(items, threads)

    def piece(p: int) -> None:
        _pair_piece_mins(*args, bounds[p], bounds[p + 1], offset_m, lipschitz, bounded, sampled,
                         settled, out)

    run_pieces(piece, len(bounds) - 1, threads=threads)
    return out


class _SpatialHash:
    """The spatial hash of :func:`candidate_pairs` of bodies at ``x_m`` (m, (N, 2)) reaching
    ``reach_m`` (m, (N,)), N >= 2: its storage is made here, :meth:`build` fills it
    (:func:`_hash_table`, a compiled pass that any thread may run) and :meth:`pairs` then finds
    the pairs. Claim: W1."""

    def __init__(self, x_m: np.ndarray, reach_m: np.ndarray) -> None:
        n = x_m.shape[0]
        self.x = np.ascontiguousarray(x_m, dtype=np.float64)
        self.reach = np.ascontiguousarray(reach_m, dtype=np.float64)
        self.order, self.sorted_key = np.empty(n, np.int64), np.empty(n, np.int64)
        self.sorted_x, self.sorted_reach = np.empty((n, 2)), np.empty(n)
        self.offsets = np.empty(9, np.int64)
        self.rank = np.empty(n, np.int64)
        self.start = np.zeros(0, np.int64)

    def build(self) -> None:
        """Every body's cell, the bodies in key order and the cells' runs (:func:`_hash_table`)."""
        self.start = _hash_table(self.x, self.reach, CELL_TABLE_PER_BODY, self.order,
                                 self.sorted_key, self.sorted_x, self.sorted_reach,
                                 self.offsets, self.rank)

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The pairs of :func:`candidate_pairs` (after :meth:`build`), in threads for many
        bodies: views of storage of the calling thread (:func:`_scratch`), which its next hash
        writes over."""
        n = self.x.shape[0]
        # every piece's storage is the caller's, whichever thread runs the piece: a helper
        # that also runs pieces of another thread's check keeps the two apart
        store = _thread_store()
        threads = thread_count(n, PARALLEL_MIN_ITEMS)
        if threads == 1:
            # the one piece run_pieces would run
            found = self._piece(0, 0, n, store)
            return found[0], found[1]
        bounds = piece_bounds(n, threads)
        pieces: list[np.ndarray] = [np.zeros((2, 0), np.int64)] * (len(bounds) - 1)

        def piece(k: int) -> None:
            pieces[k] = self._piece(k, bounds[k], bounds[k + 1], store)

        run_pieces(piece, len(bounds) - 1, threads=threads)
        out = _scratch("hash_pairs", (2, sum(p.shape[1] for p in pieces)), np.int64, store)
        np.concatenate(pieces, axis=1, out=out)
        return out[0], out[1]

    def _piece(self, k: int, lo: int, hi: int, store: _ScratchStore) -> np.ndarray:
        """The pairs (2, P) of the bodies ``lo:hi`` (:func:`_hash_runs`, then
        :func:`_hash_pairs`), in storage of ``store`` for piece ``k`` (each piece of one hash
        has its own): the pairs of a crowd at 20k bodies take megabytes, whose pages a fresh
        array of every check faults in again."""
        run = _scratch(f"hash_runs_{k}", (hi - lo, self.offsets.shape[0] // 3, 2), np.int64,
                       store)
        room = _hash_runs(self.sorted_key, self.offsets, self.start, self.rank, lo, hi, run)
        out = _scratch(f"hash_pairs_{k}", (2, room), np.int64, store)
        found = _hash_pairs(self.order, self.sorted_x, self.sorted_reach, self.rank, run, lo,
                            hi, out)
        return out[:, :found]


def candidate_pairs(x_m: np.ndarray, reach_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i < j) of bodies whose start distance is at most ``reach_m[i] + reach_m[j]``,
    found by a uniform spatial hash with cells as wide as the largest ``2 reach`` (the 3 x 3
    cells around a body hold every body it can reach; :func:`_hash_table`). Returns index
    arrays (P,), (P,), by body ``i``, then cell, then position in the cell."""
    if x_m.shape[0] < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    hashed = _SpatialHash(x_m, reach_m)
    hashed.build()
    # the caller keeps its own arrays: the hash's storage is written over by the next one
    first, second = hashed.pairs()
    return first.copy(), second.copy()


CELL_TABLE_PER_BODY = 64
"""Hash cells per body up to which :func:`candidate_pairs` indexes every cell's run directly
(beyond it, a sparse crowd, each cell is found by binary search)."""


HASH_KEYS_MAX = 2.0**62
"""Cell keys below which :func:`_hash_table` hashes (every key, and every key of a cell
around a body, then stays inside int64)."""


@compiled_loop
def _hash_table(x, reach, table_per_body, order, sorted_key, sorted_x, sorted_reach, offsets,
                rank):
    """The spatial hash of :func:`candidate_pairs`: cells ``2 max(reach)`` wide (at least
    1e-9 m) from the smallest coordinates, cell ``(cx, cy)`` keyed ``(cx + 1) width + cy + 1``
    (``width``: the largest ``cy`` plus 3, so the 3 x 3 cells around a body are its key plus
    ``offsets``); the bodies in key order (stable: by index within a cell) into ``order``, their
    keys, positions and reaches in that order into ``sorted_key``, ``sorted_x``,
    ``sorted_reach``, and every body's place in that order into ``rank``. Returns every cell's
    first sorted index (cell c holds sorted bodies ``start[c]:start[c + 1]``) when there are at
    most ``table_per_body`` cells per body, else an empty array (each cell is then found by
    binary search). Positions or reaches that are not finite, or keys beyond HASH_KEYS_MAX, put
    every body in one cell: every pair is then measured."""
    n = x.shape[0]
    big = 0.0
    x_lo, y_lo = x[0, 0], x[0, 1]
    finite = True
    for i in range(n):
        big = max(big, reach[i])
        x_lo, y_lo = min(x_lo, x[i, 0]), min(y_lo, x[i, 1])
        finite = finite & math.isfinite(x[i, 0]) & math.isfinite(x[i, 1])
        finite = finite & math.isfinite(reach[i])
    cell_m = 2.0 * big
    if cell_m < 1e-9:
        cell_m = 1e-9
    # every body in cell (0, 0) unless each has a cell of its own
    width = 3
    key = np.full(n, width + 1, np.int64)
    if finite:
        cx, cy = np.empty(n), np.empty(n)
        cx_hi = cy_hi = 0.0
        for i in range(n):
            cx[i] = math.floor((x[i, 0] - x_lo) / cell_m)
            cy[i] = math.floor((x[i, 1] - y_lo) / cell_m)
            cx_hi, cy_hi = max(cx_hi, cx[i]), max(cy_hi, cy[i])
        if (cx_hi + 2.0) * (cy_hi + 4.0) < HASH_KEYS_MAX:
            width = int(cy_hi) + 3
            for i in range(n):
                key[i] = (int(cx[i]) + 1) * width + (int(cy[i]) + 1)
    at = 0
    for dx in range(-1, 2):
        for dy in range(-1, 2):
            offsets[at] = dx * width + dy
            at += 1
    cells = 0
    for i in range(n):
        cells = max(cells, key[i])
    cells += width + 2
    if cells <= table_per_body * n:
        # a counting sort: every cell's run, then the bodies in index order within it
        start = np.zeros(cells + 1, np.int64)
        for i in range(n):
            start[key[i] + 1] += 1
        for c in range(cells):
            start[c + 1] += start[c]
        fill = start[:-1].copy()
        for i in range(n):
            order[fill[key[i]]] = i
            fill[key[i]] += 1
    else:
        order[:] = np.argsort(key, kind="mergesort")
        start = np.zeros(0, np.int64)
    for s in range(n):
        i = order[s]
        rank[i] = s
        sorted_key[s] = key[i]
        sorted_x[s, 0], sorted_x[s, 1] = x[i, 0], x[i, 1]
        sorted_reach[s] = reach[i]
    return start


@inlined_loop
def _first_at_least(sorted_key, value):
    """The first index of ``sorted_key`` whose entry is at least ``value`` (binary search)."""
    lo, hi = 0, sorted_key.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_key[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


@inlined_loop
def _within(dx, dy, limit):
    """``math.hypot(dx, dy) <= limit``, the square root taken only near the limit: the squared
    length is within a few roundings of hypot's square, far inside the margins 1e-9 of the
    shortcuts."""
    d2 = dx * dx + dy * dy
    l2 = limit * limit
    if d2 > l2 * (1.0 + 1e-9) + 1e-300:
        return False
    if d2 < l2 * (1.0 - 1e-9):
        return True
    return math.hypot(dx, dy) <= limit


@inlined_loop
def _cells_run(sorted_key, start, first_cell, last_cell):
    """Sorted indices ``[first, end)`` of the bodies in the cells ``first_cell`` to
    ``last_cell`` (consecutive keys): read from ``start`` (every cell's first sorted index)
    when given, else found by binary search."""
    if start.shape[0] > 0:
        return start[first_cell], start[last_cell + 1]
    return _first_at_least(sorted_key, first_cell), _first_at_least(sorted_key, last_cell + 1)


@compiled_loop
def _hash_runs(sorted_key, offsets, start, rank, lo, hi, run):
    """The runs of sorted bodies that :func:`_hash_pairs` reads for the bodies ``lo:hi``: for
    each body i and each column c of three cells around it (``offsets`` ``3 c`` to
    ``3 c + 2``, consecutive keys, so their bodies in sorted order are one run, from the first
    cell's first to the last cell's end, in the same order as cell after cell), the run's
    first and end sorted indices into ``run[i - lo, c]``; returns the bodies of all the runs,
    which bound the pairs found (the room :func:`_hash_pairs` needs)."""
    columns = offsets.shape[0] // 3
    room = 0
    for i in range(lo, hi):
        key = sorted_key[rank[i]]
        for c in range(columns):
            first, end = _cells_run(sorted_key, start, key + offsets[3 * c],
                                    key + offsets[3 * c + 2])
            run[i - lo, c, 0], run[i - lo, c, 1] = first, end
            room += end - first
    return room


@compiled_loop
def _hash_pairs(order, sorted_x, sorted_reach, rank, run, lo, hi, out):
    """The pairs of :func:`candidate_pairs` of the bodies ``lo:hi`` into ``out`` (2, room),
    body after body: each body i, the 3 x 3 cells around it in ``offsets`` order (the runs of
    :func:`_hash_runs` in ``run``), the bodies of each cell in sorted order, kept when i < j
    and within reach; returns their count (the first ``count`` columns). ``sorted_x`` and
    ``sorted_reach`` are the positions and reaches in sorted order, ``rank`` every body's place
    in it."""
    found = 0
    for i in range(lo, hi):
        s = rank[i]
        for c in range(run.shape[1]):
            for q in range(run[i - lo, c, 0], run[i - lo, c, 1]):
                j = order[q]
                if i < j and _within(sorted_x[s, 0] - sorted_x[q, 0],
                                     sorted_x[s, 1] - sorted_x[q, 1],
                                     sorted_reach[s] + sorted_reach[q]):
                    out[0, found], out[1, found] = i, j
                    found += 1
    return found


@compiled_loop
def _fold_pairs(first, second, value, agent):
    """``agent[first] = min(agent[first], value)``, then the same for ``second`` (in place)."""
    for p in range(first.shape[0]):
        agent[first[p]] = smaller(agent[first[p]], value[p])
    for p in range(second.shape[0]):
        agent[second[p]] = smaller(agent[second[p]], value[p])


# -------------------------------------------------------------------------------- check
def _f64(values: Any) -> np.ndarray:
    """``values`` as a contiguous float64 array (what the compiled loops read)."""
    return np.ascontiguousarray(values, np.float64)


_GRIDS: dict[tuple[type, bytes], np.ndarray] = {}
"""The sample grids by the step's type and bits (s): a run's steps are few, and numpy's
linspace costs more than a small check's compiled passes."""


def _sample_grid(dt: float) -> np.ndarray:
    """``np.linspace(0, dt, SAMPLES + 1)`` (s), computed once per step (its type and bits, so
    that zeros of both signs and every NaN keep their own grid; nothing writes to it)."""
    key = (type(dt), struct.pack("<d", dt))
    grid = _GRIDS.get(key)
    if grid is None:
        if len(_GRIDS) > 64:
            _GRIDS.clear()
        grid = _GRIDS[key] = np.linspace(0.0, dt, SAMPLES + 1)
    return grid


def check_motion(mo: StepMotion, label: np.ndarray, *,
                 report_band_m: float = REPORT_BAND_M) -> StepTruth:
    """The independent check of one executed step (see the module docstring): per-agent
    clearances, speed excess and verdicts. Bodies and obstacles whose certified clearance over
    the step exceeds ``report_band_m`` (m) report that lower bound instead of being sampled.
    Claim: C4, C1, B5, W1, O2, V1, T4."""
    n = mo.position_m.shape[0]
    dt = mo.dt_s
    every = np.arange(n)
    inf = np.full(n, np.inf)

    grid = _sample_grid(dt)
    # every body's curve, and its world position at every sample time, computed once
    cur = _Curves(mo, grid)
    coarse = cur.coarse
    lip = cur.speed_bound_mps

    # W1's spatial hash of the start positions and reaches, built as one more piece of the
    # corridor's run (neither reads the other's arrays) so that a free core takes corridor
    # pieces meanwhile
    reach = lip * dt
    hashed = _SpatialHash(mo.position_m, mo.radius_m + reach + 0.5 * report_band_m) \
        if n >= 2 else None
    build = None if hashed is None else hashed.build

    # C4: the corridor region (centre space)
    if mo.corridor_m is not None and n:
        corridor = _certified_min(_CORRIDOR, cur, _static_table((mo.corridor_m,)), every,
                                  None, None, lip, coarse, grid, also=build)
    else:
        corridor = inf.copy()
        if build is not None:
            build()

    # C1: the patch piece of every body its handoff controller does not move
    patch = inf.copy()
    rows = np.flatnonzero((mo.patch >= 0) & ~cur.handoff)
    if rows.size:
        patch[rows] = _certified_min(_PATCH, cur, _static_table(mo.patches_m), rows,
                                     mo.patch[rows], None, lip[rows], coarse, grid)

    # B5: a carried body stays on its platform (in the platform's own frame; no body is
    # carried where no support is a platform)
    platform = inf.copy()
    rows_c = every[:0]
    if mo.platform.any():
        on = mo.support_index >= 0
        carried = np.zeros(n, bool)
        carried[on] = mo.platform[mo.support_index[on]] & ~cur.handoff[on]
        rows_c = np.flatnonzero(carried)
    if rows_c.size:
        platform[rows_c] = _certified_min(_PLATFORM, cur, PolygonTable(mo.supports_m), rows_c,
                                          mo.support_index[rows_c], None,
                                          cur.rel_speed_bound_mps[rows_c], coarse, grid)

    # B5: obstacles (disc against any simple polygon; the nearest obstacle at each time)
    obstacle = inf.copy()
    if mo.obstacles_m and n:
        ot = _static_table(mo.obstacles_m)
        start = ot.signed_distance_m(mo.position_m).min(axis=1) - mo.radius_m
        near = start - reach <= report_band_m
        obstacle[~near] = start[~near] - reach[~near]
        rows_o = np.flatnonzero(near)
        if rows_o.size:
            obstacle[rows_o] = _certified_min(_OBSTACLE, cur, ot, rows_o, None,
                                              mo.radius_m[rows_o], lip[rows_o], coarse, grid)

    # W1: every pair of bodies within reach of each other
    agent = inf.copy()
    if hashed is not None:
        pi, pj = hashed.pairs()
        if pi.size:
            _fold_pairs(pi, pj, _pair_min(cur, pi, pj, mo.radius_m, grid), agent)

    # O2 / V1: the end velocity against the cap (relative) and cap plus carry (world); T4: the
    # World's executed end state is the end of the re-built curve; then every rule's margin
    none, empty = np.zeros(0), np.zeros((0, 2))
    if cur.any_rotation:
        cos, sin = np.cos(mo.omega_radps * dt), np.sin(mo.omega_radps * dt)
    else:
        cos = sin = none
    wall, speed, margin = np.empty(n), np.empty(n), np.empty(n)
    claim_index = np.empty(n, np.int64)
    c = cur.curve
    args = (float(dt), float(dt**2), coarse, c[_COMMITTED], c[_COMMIT],
            _f64(mo.split_s) if cur.split else none,
            _f64(mo.second_rel_mps) if cur.split else empty,
            _f64(mo.second_commit_s) if cur.split else none,
            c[_PIVOT], c[_PIVOT_V], c[_PIVOT_A], c[_OMEGA], _f64(cos), _f64(sin), cur.handoff,
            _f64(mo.cap_mps), _f64(mo.patch_slope_factor), c[_END], _f64(mo.end_velocity_mps),
            corridor, patch, platform, obstacle, agent)
    run_row_pieces(lambda lo, hi: _verdicts(*args, lo, hi, wall, speed, claim_index, margin), n,
                   min_rows=PARALLEL_MIN_ITEMS)
    claim = _CLAIM_NAMES[claim_index]
    violated = claim_index > 0
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
