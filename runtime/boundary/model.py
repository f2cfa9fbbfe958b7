"""Boundaries on moving supports: data model, step half-planes and whole-step curve margins.

Every quantity is batched over agents: per-agent arrays have shape ``(N, ...)`` and per-edge
arrays ``(N, K, ...)`` with a validity mask ``valid (N, K)``. An edge is ``dot(n, x) <= b`` with
outward unit normal ``n``; its signed margin ``b - dot(n, x)`` is in metres, positive inside.

Motions (of an edge, or of a support) are rigid: ``M(t) y = pivot + velocity t + R(omega t)
(y - pivot)``, with ``M(0)`` the identity, so the world frame at the start of the step is every
body's local frame. ``omega = 0`` is a translation with ``e = velocity``; ``velocity = 0`` and
``omega = 0`` is a fixed edge. The body's curve over one step of length ``dt`` accelerates
linearly, relative to its support, from ``v0`` to ``v1``.

All closed forms come from :mod:`navproof._generated.formulas`; this module only applies them
and moves points between frames.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof._generated import formulas
from navproof.core.errors import InvalidInput
from navproof.core.tolerances import ANGLE_TOL_RAD, EPS, FLAT_SLOPE_TOL, UNIT_LENGTH_TOL
from navproof.core.validation import check_valid_finite

MOTION_FIXED = 0
MOTION_TRANSLATING = 1
MOTION_RIGID = 2
MOTION_NAMES = ("fixed", "translating", "rigid")

EDGE_WALL = 0
EDGE_PORTAL = 1
EDGE_KIND_NAMES = ("wall", "portal")
"""A wall must never be crossed and needs a stop envelope; a portal to the next same-gradient
region of the route only bounds the step (B4/B5: at most up to the portal per step, C3)."""

CERTIFIED_PIECES = 8
"""Sub-intervals of the step used by the certified second-order bound of rotating edges (B6)."""


# ---------------------------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------------------------

def check_valid_step(dt_s: float | np.ndarray) -> float | np.ndarray:
    """Return the step length (s): a float, or a float64 array of per-agent lengths (N,) (the
    remaining time of a portal sub-step); raise InvalidInput unless finite and > 0."""
    if np.ndim(dt_s) == 0:
        dt = float(dt_s)
        if not np.isfinite(dt) or dt <= 0.0:
            raise InvalidInput("dt_s", dt_s, "step length must be finite and > 0 s")
        return dt
    arr = np.asarray(dt_s, dtype=np.float64)
    bad = ~np.isfinite(arr) | (arr <= 0.0)
    if bad.any():
        idx = int(np.flatnonzero(bad.ravel())[0])
        raise InvalidInput(f"dt_s[{idx}]", float(arr.ravel()[idx]),
                           "step length must be finite and > 0 s")
    return arr


def dot2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dot product over the last axis (x, y) of two broadcast arrays: a.x b.x + a.y b.y (the
    einsum of the same, bit for bit, without its per-call overhead)."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]


def per_edge(dt_s: float | np.ndarray) -> float | np.ndarray:
    """A step length broadcastable against (N, K) arrays: scalars unchanged, (N,) -> (N, 1)."""
    return dt_s if np.ndim(dt_s) == 0 else np.asarray(dt_s)[:, None]


def per_agent(dt_s: float | np.ndarray, n: int) -> np.ndarray:
    """A step length as a float64 array (N,)."""
    return np.broadcast_to(np.asarray(dt_s, dtype=np.float64), (n,)).copy()


def check_valid_positive(field: str, value: np.ndarray) -> np.ndarray:
    """Return ``value`` as float64; raise InvalidInput naming the first entry that is not > 0."""
    arr = check_valid_finite(field, value)
    bad = arr <= 0.0
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidInput(f"{field}{list(idx)}", float(arr[idx]), "must be > 0")
    return arr


def check_valid_normals(field: str, normal: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Return normals (N, K, 2); InvalidInput for a zero or non-unit normal of a valid edge."""
    arr = np.asarray(normal, dtype=np.float64)
    length = np.hypot(arr[..., 0], arr[..., 1])
    bad = valid & ~(np.abs(length - 1.0) <= UNIT_LENGTH_TOL)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidInput(f"{field}{list(idx)}", arr[idx].tolist(),
                           "outward normal must be a unit vector (|n| = 1)")
    return arr


# ---------------------------------------------------------------------------------------------
# data model
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Motion:
    """Rigid motions over one step: ``pivot_m``, ``velocity_mps`` (shape ``(..., 2)``) and
    ``omega_radps`` (shape ``(...)``); ``version`` is the trajectory version recorded by P1.

    Claim: B3 (fixed / translating edges), B6 (rigid motion M(t)), P1 (versions).
    """

    pivot_m: np.ndarray
    velocity_mps: np.ndarray
    omega_radps: np.ndarray
    version: np.ndarray

    @staticmethod
    def translating(velocity_mps: np.ndarray, *, version: np.ndarray | int = 0) -> Motion:
        """Pure translations with the given velocities (m/s); zero velocity is a fixed motion."""
        vel = check_valid_finite("velocity_mps", velocity_mps)
        shape = vel.shape[:-1]
        return Motion(np.zeros_like(vel), vel, np.zeros(shape),
                      np.broadcast_to(np.asarray(version, dtype=np.int64), shape).copy())

    @staticmethod
    def rotating(pivot_m: np.ndarray, omega_radps: np.ndarray, *,
                 velocity_mps: np.ndarray | None = None,
                 version: np.ndarray | int = 0) -> Motion:
        """Rotations at ``omega_radps`` (rad/s) about pivots moving at ``velocity_mps`` (m/s)."""
        pivot = check_valid_finite("pivot_m", pivot_m)
        omega = check_valid_finite("omega_radps", np.broadcast_to(omega_radps, pivot.shape[:-1]))
        vel = np.zeros_like(pivot) if velocity_mps is None else check_valid_finite(
            "velocity_mps", np.broadcast_to(velocity_mps, pivot.shape))
        return Motion(pivot, np.array(vel, dtype=np.float64), np.array(omega, dtype=np.float64),
                      np.broadcast_to(np.asarray(version, dtype=np.int64), omega.shape).copy())

    @property
    def kind(self) -> np.ndarray:
        """MOTION_FIXED / MOTION_TRANSLATING / MOTION_RIGID per entry."""
        moving = np.any(self.velocity_mps != 0.0, axis=-1)
        return np.where(self.omega_radps != 0.0, MOTION_RIGID,
                        np.where(moving, MOTION_TRANSLATING, MOTION_FIXED))

    def point_velocity(self, x_m: np.ndarray) -> np.ndarray:
        """World velocity (m/s) at time 0 of the material point at ``x_m``: w + omega J (x - c)."""
        rel = x_m - self.pivot_m
        om = self.omega_radps[..., None]
        return self.velocity_mps + om * np.stack([-rel[..., 1], rel[..., 0]], axis=-1)


@dataclass(frozen=True)
class Support:
    """The surface each agent stands on: its rigid motion over the step (one per agent, (N,)).

    Claim: B3 (support carry u), B6 (rotating platforms), P1 (support version).
    """

    motion: Motion

    @staticmethod
    def translating(velocity_mps: np.ndarray, *, version: np.ndarray | int = 0) -> Support:
        """Supports translating at ``velocity_mps`` (N, 2) m/s; zero is static ground."""
        return Support(Motion.translating(velocity_mps, version=version))

    def carry_mps(self, x_m: np.ndarray) -> np.ndarray:
        """Support velocity u (m/s, (N, 2)) at the body's start position. Claim: B1, B3."""
        return self.motion.point_velocity(x_m)


@dataclass(frozen=True)
class EdgeSet:
    """Per-agent boundary edges ``dot(normal, x) <= offset_m`` at time 0, shapes (N, K, ...).

    ``edge_id`` orders ties (R1); ``owner`` is the object (patch, corridor, platform) the edge
    belongs to; ``motion`` has shape (N, K); ``kind`` is EDGE_WALL or EDGE_PORTAL (None: all
    walls). Claim: B1, B3, B6, C1, C3, R1.
    """

    normal: np.ndarray
    offset_m: np.ndarray
    valid: np.ndarray
    edge_id: np.ndarray
    owner: np.ndarray
    motion: Motion
    kind: np.ndarray | None = None

    @property
    def wall(self) -> np.ndarray:
        """(N, K) True for valid wall edges (the ones that need a stop envelope)."""
        if self.kind is None:
            return self.valid
        return self.valid & (self.kind == EDGE_WALL)

    @staticmethod
    def build(normal: np.ndarray, offset_m: np.ndarray, *, valid: np.ndarray | None = None,
              edge_velocity_mps: np.ndarray | None = None, motion: Motion | None = None,
              edge_id: np.ndarray | None = None, owner: np.ndarray | None = None,
              kind: np.ndarray | None = None) -> EdgeSet:
        """Validated edge set; fixed edges unless ``edge_velocity_mps`` or ``motion`` is given.

        Raises InvalidInput for zero or non-unit normals, non-finite offsets or velocities.
        """
        normal = np.asarray(normal, dtype=np.float64)
        if normal.ndim != 3 or normal.shape[-1] != 2:
            raise InvalidInput("normal", normal.shape, "must have shape (N, K, 2)")
        n, k = normal.shape[:2]
        valid = np.ones((n, k), bool) if valid is None else np.asarray(valid, dtype=bool)
        check_valid_finite("normal", np.where(valid[..., None], normal, 0.0))
        check_valid_normals("normal", normal, valid)
        offset = np.asarray(offset_m, dtype=np.float64)
        check_valid_finite("offset_m", np.where(valid, offset, 0.0))
        if motion is None:
            vel = np.zeros((n, k, 2)) if edge_velocity_mps is None else np.asarray(
                edge_velocity_mps, dtype=np.float64)
            motion = Motion.translating(np.where(valid[..., None], vel, 0.0))
        ids = np.broadcast_to(np.arange(k), (n, k)).copy() if edge_id is None else np.asarray(
            edge_id, dtype=np.int64)
        own = np.full((n, k), -1, np.int64) if owner is None else np.asarray(owner, np.int64)
        kinds = None if kind is None else np.broadcast_to(np.asarray(kind, np.int64),
                                                          (n, k)).copy()
        if kinds is not None and np.any(valid & (kinds != EDGE_WALL) & (kinds != EDGE_PORTAL)):
            raise InvalidInput("kind", np.unique(kinds).tolist(),
                               "must be EDGE_WALL or EDGE_PORTAL")
        return EdgeSet(np.where(valid[..., None], normal, 0.0), np.where(valid, offset, 0.0),
                       valid, ids, own, motion, kinds)

    def initial_margin_m(self, x_m: np.ndarray) -> np.ndarray:
        """Signed margin s = b0 - dot(n, x0) (m, (N, K)), positive inside. Claim: B1."""
        return self.offset_m - dot2(self.normal, x_m[:, None, :])

    def edge_velocity_mps(self, x_m: np.ndarray) -> np.ndarray:
        """Edge velocity e (m/s, (N, K, 2)) at the body's start position (exact if translating)."""
        return self.motion.point_velocity(np.broadcast_to(x_m[:, None, :], self.normal.shape))


@dataclass(frozen=True)
class Patch:
    """A convex planar piece of walking surface: CCW vertices (m), height gradient, slope factor.

    Claim: C1 (convex pieces), V1 (k = sqrt(1 + |grad h|^2)).
    """

    patch_id: int
    vertices_m: np.ndarray
    gradient: np.ndarray
    slope_factor: float

    def halfplanes(self) -> tuple[np.ndarray, np.ndarray]:
        """Outward unit normals (P, 2) and offsets (P,) m of the piece's edges."""
        return polygon_halfplanes(self.vertices_m)


def polygon_halfplanes(vertices_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Outward unit normals (P, 2) and offsets (P,) (m) of a CCW convex polygon's edges.

    Claim: C1."""
    v = np.asarray(vertices_m, dtype=np.float64)
    d = np.roll(v, -1, axis=0) - v
    length = np.hypot(d[:, 0], d[:, 1])
    normal = np.stack([d[:, 1], -d[:, 0]], axis=1) / length[:, None]
    return normal, np.einsum("ij,ij->i", normal, v)


def check_valid_convex(field: str, vertices_m: np.ndarray) -> np.ndarray:
    """Return the vertices (P, 2) of a strictly convex CCW polygon; else raise InvalidInput.

    Claim: C1 (a piece must be convex for its half-planes to describe it).
    """
    v = check_valid_finite(field, vertices_m)
    if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] < 3:
        raise InvalidInput(field, v.tolist(), "needs at least 3 vertices of shape (P, 2)")
    d = np.roll(v, -1, axis=0) - v
    if np.any(np.hypot(d[:, 0], d[:, 1]) <= EPS):
        raise InvalidInput(field, v.tolist(), "has a repeated vertex (zero-length edge)")
    turn = d[:, 0] * np.roll(d, -1, axis=0)[:, 1] - d[:, 1] * np.roll(d, -1, axis=0)[:, 0]
    if np.any(turn <= EPS):
        raise InvalidInput(field, v.tolist(), "must be a strictly convex counter-clockwise polygon")
    heading = np.arctan2(d[:, 1], d[:, 0])
    winding = np.sum(np.mod(np.diff(np.append(heading, heading[0])), 2.0 * np.pi))
    if winding > 2.0 * np.pi + ANGLE_TOL_RAD:
        raise InvalidInput(field, v.tolist(), "must be simple (winds around more than once)")
    return v


def make_patch(patch_id: int, vertices_m: np.ndarray, gradient: np.ndarray) -> Patch:
    """Validated convex patch; its slope factor comes from the generated V1 formula."""
    v = check_valid_convex("vertices_m", vertices_m)
    g = check_valid_finite("gradient", gradient)
    k = float(formulas.slope_factor(grad_sq=float(g @ g)))
    return Patch(int(patch_id), v, g, k)


# ---------------------------------------------------------------------------------------------
# half-planes in velocity space: dot(normal, v) <= offset
# ---------------------------------------------------------------------------------------------

def step_halfplane_offset_mps(s_m: np.ndarray, dt_s: float | np.ndarray, n_dot_e: np.ndarray,
                              n_dot_u: np.ndarray) -> np.ndarray:
    """Offset (m/s) of the constant-velocity step half-plane dot(n, v) <= s/dt + dot(n, e - u).

    Claim: B1, B3 (each edge brings its own e).
    """
    return formulas.step_halfplane_offset(s=s_m, dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u)


def accel_halfplane_offset_mps(s_m: np.ndarray, dt_s: float | np.ndarray, n_dot_e: np.ndarray,
                               n_dot_u: np.ndarray, n_dot_v0: np.ndarray) -> np.ndarray:
    """Offset (m/s) of the continuous-acceleration step-end half-plane in v1. Claim: B4."""
    return formulas.accel_step_v1_bound(s=s_m, dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u,
                                        n_dot_v0=n_dot_v0)


def affine_root(f_at_0: np.ndarray, f_at_1: np.ndarray) -> np.ndarray:
    """Root q of an affine function f(q) given f(0) and f(1); -inf where f does not depend on q
    and is negative, +inf where it does not depend on q and is non-negative.

    Used to turn a generated margin that is affine in dot(n, v1) into the half-plane
    ``dot(n, v1) <= q`` without retyping the closed form.
    """
    slope = f_at_1 - f_at_0
    flat = np.abs(slope) <= FLAT_SLOPE_TOL
    with np.errstate(divide="ignore", invalid="ignore"):
        root = -f_at_0 / np.where(flat, 1.0, slope)
    return np.where(flat, np.where(f_at_0 >= 0.0, np.inf, -np.inf), root)


def accel_margin_at_time_offset_mps(s_m: np.ndarray, t_s: np.ndarray, dt_s: float | np.ndarray,
                                    n_dot_e: np.ndarray, n_dot_u: np.ndarray,
                                    n_dot_v0: np.ndarray) -> np.ndarray:
    """Offset q (m/s) of the cut ``dot(n, v1) <= q`` that keeps the margin at time t >= 0.

    The accelerating step's margin at a fixed time is affine and decreasing in dot(n, v1), so
    each time gives a necessary half-plane of whole-step coverage (a cutting plane at the
    interior extremum t*). Claim: B5.
    """
    def margin(q: float) -> np.ndarray:
        return formulas.accel_margin(s=s_m, t=t_s, dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u,
                                     n_dot_v0=n_dot_v0, n_dot_v1=q)

    return affine_root(margin(0.0), margin(1.0))


# ---------------------------------------------------------------------------------------------
# whole-step curve margins (B2, B5, B6)
# ---------------------------------------------------------------------------------------------

def accel_extremum_time_s(dt_s: float | np.ndarray, n_dot_e: np.ndarray, n_dot_u: np.ndarray,
                          n_dot_v0: np.ndarray, n_dot_v1: np.ndarray) -> np.ndarray:
    """Interior extremum time t* (s) of the accelerating margin; NaN when v1 = v0 along n or
    when t* is not strictly inside the step. Claim: B5."""
    flat = n_dot_v0 == n_dot_v1
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t_star = formulas.accel_extremum_time(dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u,
                                              n_dot_v0=n_dot_v0,
                                              n_dot_v1=np.where(flat, n_dot_v0 + 1.0, n_dot_v1))
    inside = ~flat & (t_star > 0.0) & (t_star < dt_s)
    return np.where(inside, t_star, np.nan)


def translating_curve_margins_m(s_m: np.ndarray, dt_s: float | np.ndarray, n_dot_e: np.ndarray,
                                n_dot_u: np.ndarray, n_dot_v0: np.ndarray,
                                n_dot_v1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact minimum margin (m) over [0, dt] of the accelerating curve against a translating
    edge, and the time (s) where it occurs: the minimum of the margins at 0, dt and t*.

    Claim: B2 (v0 = v1), B5 (endpoints plus interior extremum cover the whole step).
    """
    def margin(t: float | np.ndarray) -> np.ndarray:
        return formulas.accel_margin(s=s_m, t=t, dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u,
                                     n_dot_v0=n_dot_v0, n_dot_v1=n_dot_v1)

    t_star = accel_extremum_time_s(dt_s, n_dot_e, n_dot_u, n_dot_v0, n_dot_v1)
    m0 = np.broadcast_to(s_m, np.broadcast(s_m, n_dot_v1).shape)
    m_end = margin(dt_s)
    t_in = np.nan_to_num(t_star)
    m_star = np.where(np.isnan(t_star), np.inf, margin(t_in))
    # the least of the three, the first of equals (as argmin over (start, end, t*))
    start_least = (m0 <= m_end) & (m0 <= m_star)
    end_least = ~start_least & (m_end <= m_star)
    least = np.minimum(np.minimum(m0, m_end), m_star)
    return least, np.where(start_least, 0.0, np.where(end_least, dt_s, t_in))


def _rotate(x: np.ndarray, y: np.ndarray, angle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c, s = np.cos(angle), np.sin(angle)
    return c * x - s * y, s * x + c * y


def local_frame_excess_m(edges: EdgeSet, support: Support, x0_m: np.ndarray,
                         v0_mps: np.ndarray, v1_mps: np.ndarray, dt_s: float | np.ndarray,
                         t_s: np.ndarray) -> np.ndarray:
    """f(t) = dot(nLocal, M_edge(t)^-1 xWorld(t)) - bLocal (m) at times ``t_s`` ((T,) or (T, N)),
    shape (T, N, K); xWorld(t) = M_support(t) y(t) with y the relative curve. <= 0 is inside.

    A body carried rigidly by the edge's own motion gets a constant f. Claim: B6.
    """
    t = np.asarray(t_s, dtype=np.float64)
    t = t[:, None, None] if t.ndim == 1 else t[:, :, None]
    dt_a = per_agent(dt_s, x0_m.shape[0])[None, :, None, None]
    y = x0_m[None, :, None, :] + formulas.accel_step_displacement(
        t=t[..., None], dt=dt_a, v0=v0_mps[None, :, None, :], v1=v1_mps[None, :, None, :])
    return _support_point_excess_m(edges, support, y, t)


def _support_point_excess_m(edges: EdgeSet, support: Support, y: np.ndarray,
                            t: np.ndarray) -> np.ndarray:
    """f (m, (T, N, K)) of support-frame points ``y`` (T, N, 1 or K, 2) at times ``t``
    (T, N or 1, 1): map through the support's rigid motion to the world, then into each edge's
    local frame. Claim: B6."""
    ce, we, oe = edges.motion.pivot_m, edges.motion.velocity_mps, edges.motion.omega_radps
    cs = support.motion.pivot_m[:, None, :]
    ws = support.motion.velocity_mps[:, None, :]
    os_ = support.motion.omega_radps[:, None]
    # support frame -> world: x = cs + ws t + R(os t)(y - cs)
    rx, ry = _rotate(y[..., 0] - cs[..., 0], y[..., 1] - cs[..., 1], os_ * t)
    xw_x = cs[..., 0] + ws[..., 0] * t + rx
    xw_y = cs[..., 1] + ws[..., 1] * t + ry
    # world -> edge local: y = ce + R(-oe t)(x - ce - we t)
    lx, ly = _rotate(xw_x - ce[..., 0] - we[..., 0] * t, xw_y - ce[..., 1] - we[..., 1] * t,
                     -oe * t)
    # common rigid motion cancels exactly: the local curve is the relative curve itself
    same = _same_motion(edges, support)
    lx = np.where(same, y[..., 0], lx + ce[..., 0])
    ly = np.where(same, y[..., 1], ly + ce[..., 1])
    n = edges.normal
    return n[..., 0] * lx + n[..., 1] * ly - edges.offset_m


def _same_motion(edges: EdgeSet, support: Support) -> np.ndarray:
    """True where an edge moves with exactly the support's rigid motion (N, K)."""
    me, ms = edges.motion, support.motion
    we, ws = me.velocity_mps, ms.velocity_mps[:, None, :]
    ce, cs = me.pivot_m, ms.pivot_m[:, None, :]
    return ((me.omega_radps == ms.omega_radps[:, None])
            & (we[..., 0] == ws[..., 0]) & (we[..., 1] == ws[..., 1])
            & (((ce[..., 0] == cs[..., 0]) & (ce[..., 1] == cs[..., 1]))
               | (me.omega_radps == 0.0)))


def rigid_curve_margin_bound_m(edges: EdgeSet, support: Support, x0_m: np.ndarray,
                               v0_mps: np.ndarray, v1_mps: np.ndarray, dt_s: float | np.ndarray,
                               *, pieces: int = CERTIFIED_PIECES) -> np.ndarray:
    """Certified lower bound (m, (N, K)) of the local-frame margin -f(t) over the whole step.

    On each of ``pieces`` sub-intervals of width h, f is at most the larger endpoint value plus
    ``M2 h^2 / 8`` where M2 bounds |f''| (interpolation error of a C^2 function). With
    f = const + m1(t).P(t) + m2(t).Q(t), |m_i| = 1 rotating at omega_e and at the relative rate
    domega: |f''| <= omega_e^2 |P| + 2|omega_e||P'| + domega^2 |Q| + 2|domega||Q'| + |Q''|, each
    polynomial factor bounded by its coefficient magnitudes over [0, dt]. Claim: B6.
    """
    dt = per_agent(dt_s, x0_m.shape[0])
    times = np.linspace(0.0, 1.0, pieces + 1)[:, None] * dt[None, :]
    f = local_frame_excess_m(edges, support, x0_m, v0_mps, v1_mps, dt, times)
    dt = dt[:, None]
    f_hi = np.maximum(f[:-1], f[1:]).max(axis=0)
    me, ms = edges.motion, support.motion
    oe = np.abs(me.omega_radps)
    d_omega = np.abs(ms.omega_radps[:, None] - me.omega_radps)
    dw = np.linalg.norm(ms.velocity_mps[:, None, :] - me.velocity_mps, axis=-1)
    p_max = np.linalg.norm(ms.pivot_m[:, None, :] - me.pivot_m, axis=-1) + dw * dt
    dv = np.linalg.norm(v1_mps - v0_mps, axis=-1)[:, None]
    v0n = np.linalg.norm(v0_mps, axis=-1)[:, None]
    q_max = (np.linalg.norm(x0_m - ms.pivot_m, axis=-1)[:, None] + v0n * dt + dv * dt / 2.0)
    dq_max = v0n + dv
    ddq = dv / dt
    m2 = oe ** 2 * p_max + 2.0 * oe * dw + d_omega ** 2 * q_max + 2.0 * d_omega * dq_max + ddq
    h = dt / pieces
    scale = 1.0 + np.abs(edges.offset_m) + q_max + p_max
    bound = f_hi + m2 * h * h / 8.0 + 4.0 * np.finfo(float).eps * scale
    return -bound


def curve_min_margin_m(edges: EdgeSet, support: Support, x0_m: np.ndarray, v0_mps: np.ndarray,
                       v1_mps: np.ndarray, dt_s: float | np.ndarray, *,
                       exact_m: np.ndarray | None = None) -> np.ndarray:
    """Lower bound (m, (N, K)) of the edge margin over the whole step of the accelerating curve.

    Exact (endpoints + interior extremum) for translating edges on translating supports and for
    edges sharing the support's rigid motion; certified interval bound otherwise. Invalid edges
    give +inf. ``exact_m`` is the translating minimum of
    :func:`translating_curve_margins_from_state` when the caller has it already.
    Claim: B2, B5, B6.
    """
    exact = exact_m if exact_m is not None else translating_curve_margins_from_state(
        edges, support, x0_m, v0_mps, v1_mps, dt_s)[0]
    rotating = (edges.motion.omega_radps != 0.0) | (support.motion.omega_radps[:, None] != 0.0)
    if not rotating.any():
        return np.where(edges.valid, exact, np.inf)
    rigid_same = _same_motion(edges, support) & rotating
    need_bound = rotating & ~rigid_same & edges.valid
    out = exact
    if rigid_same.any():
        n = edges.normal
        s = edges.initial_margin_m(x0_m)
        zeros = np.zeros_like(s)
        same_margin, _ = translating_curve_margins_m(
            s, per_edge(dt_s), zeros, zeros, dot2(n, v0_mps[:, None, :]),
            dot2(n, v1_mps[:, None, :]))
        out = np.where(rigid_same, same_margin, out)
    if need_bound.any():
        rows = np.flatnonzero(need_bound.any(axis=1))
        sub = _take_rows(edges, rows)
        sup = Support(_take_motion(support.motion, rows))
        bound = rigid_curve_margin_bound_m(sub, sup, x0_m[rows], v0_mps[rows], v1_mps[rows],
                                           dt_s if np.ndim(dt_s) == 0 else np.asarray(dt_s)[rows])
        out = out.copy()
        out[rows] = np.where(need_bound[rows], bound, out[rows])
    return np.where(edges.valid, out, np.inf)


STOP_REACTION_PIECES = 4
"""Sub-intervals of the reaction phase (hold v1 relative to the support for dt) used by the
certified bound of the stop trajectory on rotating supports or next to rotating edges (B6)."""
STOP_BRAKE_PIECES = 16
"""Sub-intervals of the braking phase (|v1|/a long) of the same certified bound (B6)."""


def rotating_stop_pairs(edges: EdgeSet, support: Support) -> np.ndarray | None:
    """(N, K) True for the valid walls whose stop must be certified in the edge's local frame:
    the support or the edge rotates and they do not share the same rigid motion. None when no
    support and no edge rotates (the translation model of S1/S3 is exact there).

    Claim: B6 (a body sharing the edge's rigid motion has a constant local margin), S3, R3."""
    rotating = (edges.motion.omega_radps != 0.0) | (support.motion.omega_radps[:, None] != 0.0)
    if not rotating.any():
        return None
    return rotating & edges.wall & ~_same_motion(edges, support)


def rotating_stop_margin_bound_m(edges: EdgeSet, support: Support, x0_m: np.ndarray,
                                 v0_mps: np.ndarray, v1_mps: np.ndarray,
                                 dt_s: float | np.ndarray, a_mps2: np.ndarray
                                 ) -> tuple[np.ndarray, np.ndarray]:
    """Certified lower bounds (m, (N, K)) of the local-frame margin -f over the stop after the
    step, and over the hold at rest on the support afterwards (any horizon).

    Model (seed 000: on rotating supports or edges the stop is checked with the relative
    boundary curve, not the constant-velocity stop formula): after the accelerating step ends
    at y1 (support frame) the body holds v1 relative to its support for one reaction step dt,
    then brakes at ``a`` to rest on the support, y(tau) = y1 + v1 phi(tau) with phi the
    generated ``stop_trajectory_factor`` (S1), tau in [0, dt + |v1|/a]; the support keeps its
    rigid motion throughout, and each point is mapped to the world and into each edge's local
    frame at the absolute time dt + tau.

    Stop phase: with f = const + m1(t).P(t) + m2(t).Q(t) as in :func:`rigid_curve_margin_bound_m`
    (P(t) = cs - ce + (ws - we) t, Q = y - cs), |f''| <= oe^2 |P| + 2|oe||P'| + dom^2 |Q|
    + 2|dom||Q'| + |Q''| with |Q'| <= |v1| and |Q''| = 0 while holding, = a while braking. f is
    C1 with a piecewise-constant Q'' jump at the phase boundary, so each phase is bounded
    separately: max endpoint of each sub-interval plus M2 h^2/8.

    Hold phase (t >= dt + |v1|/a, rest on the support at y_h): the local point is
    ce + R(-oe t)(cs - ce + (ws - we) t) + R(dom t)(y_h - cs). Each rotating term is bounded by
    its length, a non-rotating term by its value; a drift (ws != we) is bounded only when
    nothing rotates it and it points away from the edge. Otherwise the hold cannot be certified
    and its bound is -inf: resting on a rotating support is not resting relative to a fixed or
    differently moving wall, so such a stop is never labelled safe (R3 does not hold there).
    Claim: B6, S1, S3, R3.
    """
    n_agents = x0_m.shape[0]
    dt = per_agent(dt_s, n_agents)
    a = np.broadcast_to(np.asarray(a_mps2, dtype=np.float64), (n_agents,))
    speed = np.hypot(v1_mps[:, 0], v1_mps[:, 1])
    brake = speed / a
    # phi needs |c| > 0; with v1 = 0 it multiplies zero and the braking phase is empty
    unit = np.where(speed > 0.0, speed, 1.0)
    y1 = x0_m + formulas.accel_step_displacement(t=dt[:, None], dt=dt[:, None], v0=v0_mps,
                                                 v1=v1_mps)
    frac_r = np.linspace(0.0, 1.0, STOP_REACTION_PIECES + 1)[:, None]
    frac_b = np.linspace(0.0, 1.0, STOP_BRAKE_PIECES + 1)[:, None]
    tau = np.concatenate([frac_r * dt[None, :], dt[None, :] + frac_b * brake[None, :]], axis=0)
    # the generated Piecewise evaluates every branch; a tiny |v1| overflows only in branches
    # it does not select
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        phi = formulas.stop_trajectory_factor(t=tau, dt=dt[None, :], a=a[None, :],
                                              speed=unit[None, :])
    y = y1[None, :, None, :] + v1_mps[None, :, None, :] * phi[..., None, None]
    f = _support_point_excess_m(edges, support, y, (dt[None, :] + tau)[:, :, None])
    nr = STOP_REACTION_PIECES + 1
    f_r, f_b = f[:nr], f[nr:]
    hi_r = np.maximum(f_r[:-1], f_r[1:]).max(axis=0)
    hi_b = np.maximum(f_b[:-1], f_b[1:]).max(axis=0)
    me, ms = edges.motion, support.motion
    oe = np.abs(me.omega_radps)
    d_omega = np.abs(ms.omega_radps[:, None] - me.omega_radps)
    dw_vec = ms.velocity_mps[:, None, :] - me.velocity_mps
    dw = np.linalg.norm(dw_vec, axis=-1)
    dt_e, brake_e, speed_e, a_e = dt[:, None], brake[:, None], speed[:, None], a[:, None]
    p0 = ms.pivot_m[:, None, :] - me.pivot_m
    p_max = np.linalg.norm(p0, axis=-1) + dw * (2.0 * dt_e + brake_e)
    hold_shift = v1_mps * phi[-1][:, None]
    q_max = (np.linalg.norm(y1 - ms.pivot_m, axis=-1)[:, None]
             + speed_e * (dt_e + brake_e / 2.0))
    common = oe ** 2 * p_max + 2.0 * oe * dw + d_omega ** 2 * q_max + 2.0 * d_omega * speed_e
    h_r = dt_e / STOP_REACTION_PIECES
    h_b = brake_e / STOP_BRAKE_PIECES
    scale = 1.0 + np.abs(edges.offset_m) + q_max + p_max
    slack = 4.0 * np.finfo(float).eps * scale
    stop_hi = np.maximum(hi_r + common * h_r * h_r / 8.0,
                         hi_b + (common + a_e) * h_b * h_b / 8.0) + slack
    # the hold: every time after the stop, from the rest point y_h on the support
    n = edges.normal
    y_h = y1 + hold_shift
    q_h = y_h - ms.pivot_m
    term_p = np.where(oe != 0.0, np.linalg.norm(p0, axis=-1), dot2(n, p0))
    term_q = np.where(d_omega != 0.0, np.linalg.norm(q_h, axis=-1)[:, None],
                      dot2(n, q_h[:, None, :]))
    drift = (dw_vec[..., 0] != 0.0) | (dw_vec[..., 1] != 0.0)
    drift_ok = ~drift | ((oe == 0.0) & (dot2(n, dw_vec) <= 0.0))
    hold_hi = dot2(n, me.pivot_m) - edges.offset_m + term_p + term_q + slack
    hold = np.where(drift_ok, -hold_hi, -np.inf)
    return -stop_hi, hold


def translating_curve_margins_from_state(edges: EdgeSet, support: Support, x0_m: np.ndarray,
                                         v0_mps: np.ndarray, v1_mps: np.ndarray,
                                         dt_s: float | np.ndarray
                                         ) -> tuple[np.ndarray, np.ndarray]:
    """Exact whole-step minimum margin (m) and its time (s), (N, K), treating every motion as
    the translation at its start velocity (exact when nothing rotates). Claim: B5."""
    n = edges.normal
    u = support.carry_mps(x0_m)
    e = edges.edge_velocity_mps(x0_m)
    return translating_curve_margins_m(
        edges.initial_margin_m(x0_m), per_edge(dt_s), dot2(n, e),
        dot2(n, u[:, None, :]), dot2(n, v0_mps[:, None, :]),
        dot2(n, v1_mps[:, None, :]))


def end_margin_m(edges: EdgeSet, support: Support, x0_m: np.ndarray, v0_mps: np.ndarray,
                 v1_mps: np.ndarray, dt_s: float | np.ndarray) -> np.ndarray:
    """Edge margin (m, (N, K)) at the end of the accelerating step (translation model).

    Claim: B4."""
    n = edges.normal
    return accel_end_margin_m(
        edges.initial_margin_m(x0_m), per_edge(dt_s),
        dot2(n, edges.edge_velocity_mps(x0_m)), dot2(n, support.carry_mps(x0_m)[:, None, :]),
        dot2(n, v0_mps[:, None, :]), dot2(n, v1_mps[:, None, :]))


def accel_end_margin_m(s_m: np.ndarray, dt_s: float | np.ndarray, n_dot_e: np.ndarray,
                       n_dot_u: np.ndarray, n_dot_v0: np.ndarray, n_dot_v1: np.ndarray
                       ) -> np.ndarray:
    """Edge margin (m) at the end of the accelerating step from the initial margin and the
    normal components of the velocities (the same as :func:`end_margin_m`). Claim: B4."""
    return formulas.accel_margin(s=s_m, t=dt_s, dt=dt_s, n_dot_e=n_dot_e, n_dot_u=n_dot_u,
                                 n_dot_v0=n_dot_v0, n_dot_v1=n_dot_v1)


def _take_motion(m: Motion, rows: np.ndarray) -> Motion:
    return Motion(m.pivot_m[rows], m.velocity_mps[rows], m.omega_radps[rows], m.version[rows])


def _take_rows(edges: EdgeSet, rows: np.ndarray) -> EdgeSet:
    return EdgeSet(edges.normal[rows], edges.offset_m[rows], edges.valid[rows],
                   edges.edge_id[rows], edges.owner[rows], _take_motion(edges.motion, rows),
                   None if edges.kind is None else edges.kind[rows])


def take_edges(edges: EdgeSet, rows: np.ndarray) -> EdgeSet:
    """The edge set of the agents ``rows`` only."""
    return _take_rows(edges, rows)


def take_support(support: Support, rows: np.ndarray) -> Support:
    """The supports of the agents ``rows`` only."""
    return Support(_take_motion(support.motion, rows))
