"""The static and moving geometry of a World: obstacles, the corridor region, slope patches and
supports (conveyors and rotating platforms), with vectorised look-ups per agent.

Every table is built once; a step gathers rows by index (agent -> patch, agent -> support),
never loops over agents. Regions, patches and platforms are convex CCW polygons in the space of
body centres (already eroded by the body radius, C2); obstacles are simple CCW polygons (or
segments) of any shape in the space of body discs. Claim: C1, C2, B3, B6, V1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from navproof.boundary import (
    EDGE_OBSTACLE,
    EDGE_WALL,
    EdgeSet,
    Motion,
    Patch,
    Support,
    check_valid_convex,
    make_patch,
    polygon_halfplanes,
)
from navproof.boundary.polygons import (
    check_valid_simple_polygon,
    convex_pieces,
    polygon_signed_distance_m,
)
from navproof.core.errors import InvalidInput
from navproof.core.filled import filled
from navproof.core.jit import compiled_loop
from navproof.core.numpy_scalars import larger, numpy_minimum
from navproof.core.tolerances import EPS, UNIT_LENGTH_TOL
from navproof.core.validation import check_valid_finite, floats_of_shape

OBSTACLE_EDGE_ID = 1_000_000
"""Edge ids from here on are obstacle walls: ``OBSTACLE_EDGE_ID + 1000 * piece + side``."""

SUPPORT_CONVEYOR = "conveyor"
SUPPORT_PLATFORM = "platform"


@dataclass(frozen=True)
class SupportSpec:
    """A moving support: a conveyor (a fixed area whose surface translates at ``velocity_mps``)
    or a platform (a convex piece rotating at ``omega_radps`` about ``pivot_m``, which moves at
    ``velocity_mps``; its edges are walls that move with it for the bodies it carries). Both
    start at ``velocity_mps`` and change it at the constant ``acceleration_mps2`` (default zero).
    Claim: B3, B6."""

    name: str
    kind: str
    vertices_m: np.ndarray
    velocity_mps: np.ndarray
    pivot_m: np.ndarray
    omega_radps: float
    acceleration_mps2: np.ndarray = field(default_factory=lambda: np.zeros(2))

    @staticmethod
    def build(name: str, kind: str, vertices_m: object, *, velocity_mps: object = (0.0, 0.0),
              pivot_m: object = (0.0, 0.0), omega_radps: float = 0.0,
              acceleration_mps2: object = (0.0, 0.0)) -> SupportSpec:
        """Validated support (InvalidInput naming the field)."""
        if kind not in (SUPPORT_CONVEYOR, SUPPORT_PLATFORM):
            raise InvalidInput("kind", kind, f"must be {SUPPORT_CONVEYOR!r} or "
                                             f"{SUPPORT_PLATFORM!r}")
        vel = check_valid_finite("velocity_mps", velocity_mps)
        piv = check_valid_finite("pivot_m", pivot_m)
        om = float(check_valid_finite("omega_radps", omega_radps))
        acc = check_valid_finite("acceleration_mps2", acceleration_mps2)
        for key, value in (("velocity_mps", vel), ("pivot_m", piv),
                           ("acceleration_mps2", acc)):
            if value.shape != (2,):
                raise InvalidInput(key, value.tolist(), "must be a pair (x, y)")
        if kind == SUPPORT_CONVEYOR and om != 0.0:
            raise InvalidInput("omega_radps", om, "a conveyor translates only")
        return SupportSpec(name, kind, check_valid_convex("vertices_m", vertices_m), vel, piv, om,
                           acc)


@compiled_loop
def _support_speed_range(w, alpha, dt, vertices, pivot, omega):
    """One support's largest surface speed (m/s) over a step of ``dt`` (see
    :meth:`Layout.support_speed_range_mps`): the larger of ``|w|`` and ``|w + alpha dt|`` (the
    first unless the second is larger, as Python's max), plus ``|omega|`` times the largest
    distance from the pivot to a vertex (numpy's max: NaN if any is NaN); lengths by
    ``hypot``, as numpy's. Claim: B3, B6, S4."""
    start = math.hypot(w[0], w[1])
    end = math.hypot(w[0] + alpha[0] * dt, w[1] + alpha[1] * dt)
    pivot_speed = end if end > start else start
    far = math.hypot(vertices[0, 0] - pivot[0], vertices[0, 1] - pivot[1])
    for v in range(1, vertices.shape[0]):
        far = larger(far, math.hypot(vertices[v, 0] - pivot[0], vertices[v, 1] - pivot[1]))
    return pivot_speed + abs(omega) * far


def _first_containing(normal: np.ndarray, offset: np.ndarray, valid: np.ndarray,
                      x_m: np.ndarray) -> np.ndarray:
    """Index (N,) of the first convex table entry (half-planes (T, K)) containing each point
    (within EPS), -1 where none."""
    out = np.empty(x_m.shape[0], np.int64)
    _first_containing_rows(normal, offset, valid, np.asarray(x_m, dtype=np.float64), EPS, out)
    return out


@compiled_loop
def _first_containing_rows(normal, offset, valid, x, eps, out):
    for i in range(out.shape[0]):
        out[i] = -1
        for t in range(valid.shape[0]):
            inside = True
            for k in range(valid.shape[1]):
                if valid[t, k]:
                    margin = offset[t, k] - (x[i, 0] * normal[t, k, 0]
                                             + x[i, 1] * normal[t, k, 1])
                    if not margin >= -eps:
                        inside = False
                        break
            if inside:
                out[i] = t
                break


@compiled_loop
def _least_wall_margin(normal, offset, valid, edge_id, obstacle_id, x, obstacle, out):
    """Each body's least clearance (m) over the points ``x`` (P, N, 2) into ``out`` (N,), which
    holds the clearance to start from: at each point the least signed margin ``b0 - n . x`` of
    the body's valid walls with an id below ``obstacle_id`` (inf where none; NaN propagates as
    in numpy's minimum; the margin evaluated as
    :meth:`navproof.boundary.edges.EdgeSet.initial_margin_m` does), then numpy's minimum with
    each of its obstacle clearances ``obstacle[p, i]`` (P, N, O) in turn, then numpy's minimum
    of the running clearance and that. Claim: B1, B5."""
    for i in range(out.shape[0]):
        running = out[i]
        for p in range(x.shape[0]):
            least = np.inf
            for k in range(valid.shape[1]):
                if valid[i, k] and edge_id[i, k] < obstacle_id:
                    margin = offset[i, k] - (normal[i, k, 0] * x[p, i, 0]
                                             + normal[i, k, 1] * x[p, i, 1])
                    if margin < least or margin != margin:
                        least = margin
                        if least != least:
                            break
            for o in range(obstacle.shape[2]):
                least = numpy_minimum(least, obstacle[p, i, o])
            running = numpy_minimum(running, least)
        out[i] = running


_NO_ROWS = np.empty((0, 2))
"""No positions and no carry for :func:`_motion_rows` (no row: nothing is ever written)."""


@compiled_loop
def _motion_rows(support_index, pivot_table, velocity_table, accel_table, omega_table,
                 version_table, x, pivot, vel, acc, omega, version, carry):
    """Every row of :meth:`Layout.support_motion`: the support's pivot (m), velocity (m/s),
    acceleration (m/s^2), rate (rad/s) and version (its own version plus 1000 per support
    index, counted from 1), all zero on the static ground (index -1); where ``carry`` has a
    row per agent, the carry at the agent's position ``x`` (m/s,
    :meth:`Layout.support_and_carry`) into it too. Claim: B3, B6."""
    with_carry = carry.shape[0] == support_index.shape[0]
    for i in range(support_index.shape[0]):
        s = support_index[i]
        if s < 0:
            pivot[i, 0] = pivot[i, 1] = vel[i, 0] = vel[i, 1] = acc[i, 0] = acc[i, 1] = 0.0
            omega[i] = 0.0
            version[i] = 0
        else:
            pivot[i, 0], pivot[i, 1] = pivot_table[s, 0], pivot_table[s, 1]
            vel[i, 0], vel[i, 1] = velocity_table[s, 0], velocity_table[s, 1]
            acc[i, 0], acc[i, 1] = accel_table[s, 0], accel_table[s, 1]
            omega[i] = omega_table[s]
            version[i] = version_table[s] + 1000 * (s + 1)
        if with_carry:
            # Motion.point_velocity's operations in its order: w + omega (-(y - c_y), x - c_x)
            # (the same values; only a NaN's sign bit may differ, where the machine code adds
            # a negated product as a subtraction: a body's position is finite)
            rel_x = x[i, 0] - pivot[i, 0]
            rel_y = x[i, 1] - pivot[i, 1]
            carry[i, 0] = vel[i, 0] + omega[i] * -rel_y
            carry[i, 1] = vel[i, 1] + omega[i] * rel_x


@compiled_loop
def _corridor_rows(carried, inside, support_index, valid, edge_id):
    """The corridor's columns ``0:K`` of :meth:`Layout.edges`' (N, K') ``valid`` and
    ``edge_id``: valid unless the body is ``carried`` by a platform that stays ``inside`` the
    corridor (``inside`` indexed by ``support_index``, its last entry the static ground's), ids
    0 to K - 1, K the corridor's number of sides. Claim: C1, C2, R1."""
    k_count = edge_id.shape[1]
    for i in range(valid.shape[0]):
        kept = not (carried[i] and inside[support_index[i]])
        for k in range(k_count):
            valid[i, k] = kept
            edge_id[i, k] = k


@compiled_loop
def _edge_kinds(edge_id, obstacle_id, kind):
    """EDGE_OBSTACLE for every id from ``obstacle_id`` on, EDGE_WALL below, into ``kind``
    (N, K). Claim: B5."""
    for i in range(edge_id.shape[0]):
        for k in range(edge_id.shape[1]):
            kind[i, k] = EDGE_OBSTACLE if edge_id[i, k] >= obstacle_id else EDGE_WALL


def _same_indices(cached: np.ndarray, index: np.ndarray) -> bool:
    """numpy's ``array_equal`` of the ``cached`` indices and ``index``: the same shape and no
    entry that differs (numpy's count of them, without array_equal's Python frames)."""
    other = np.asarray(index)
    return other.shape == cached.shape and np.count_nonzero(cached != other) == 0


def _moving_edges(edges: EdgeSet) -> tuple[np.ndarray, bool]:
    """(N, K) True for the valid edges whose rigid motion moves them during the step (a
    platform's: a pivot velocity or acceleration or a rotation rate that is not zero), and
    whether any does (one compiled pass: numpy's ``any`` over a last axis of two costs
    milliseconds at 20k agents)."""
    m = edges.motion
    valid = np.asarray(edges.valid, dtype=np.bool_)
    rows, k = valid.shape
    moving = np.empty(valid.shape, dtype=np.bool_)
    found = _moving_edge_rows(valid, floats_of_shape(m.omega_radps, (rows, k)),
                              floats_of_shape(m.velocity_mps, (rows, k, 2)),
                              floats_of_shape(m.acceleration_mps2, (rows, k, 2)), moving)
    return moving, bool(found)


@compiled_loop
def _moving_edge_rows(valid, omega, velocity, acceleration, moving):
    """Rows of :func:`_moving_edges` into ``moving``; returns whether any edge moves (a NaN
    rate counts as moving, as ``!= 0`` says)."""
    found = False
    for i in range(valid.shape[0]):
        for k in range(valid.shape[1]):
            moves = valid[i, k] and (omega[i, k] != 0.0
                                     or velocity[i, k, 0] != 0.0 or velocity[i, k, 1] != 0.0
                                     or acceleration[i, k, 0] != 0.0
                                     or acceleration[i, k, 1] != 0.0)
            moving[i, k] = moves
            found = found or moves
    return found


def _edges_at(edges: EdgeSet, moving: np.ndarray, t_s: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit normals (N, K, 2) and offsets (m, (N, K)) of the edges where they stand at step
    time ``t_s`` [s]: a ``moving`` edge carried by its rigid motion ``c + w t + alpha t^2 / 2 +
    R(omega t)(x - c)``, so its normal turns by ``omega t`` and its offset follows its pivot
    (``b - n . c + n(t) . c(t)``); the others exactly as they are. Claim: B5, B6."""
    m = edges.motion
    n, c = edges.normal, m.pivot_m
    angle = m.omega_radps * t_s
    cos, sin = np.cos(angle), np.sin(angle)
    nx = cos * n[..., 0] - sin * n[..., 1]
    ny = sin * n[..., 0] + cos * n[..., 1]
    c_t = c + m.velocity_mps * t_s + 0.5 * m.acceleration_mps2 * (t_s * t_s)
    offset = (edges.offset_m - (n[..., 0] * c[..., 0] + n[..., 1] * c[..., 1])
              + (nx * c_t[..., 0] + ny * c_t[..., 1]))
    normal = np.where(moving[..., None], np.stack([nx, ny], axis=-1), n)
    return normal, np.where(moving, offset, edges.offset_m)


def _freeze(edges: EdgeSet) -> None:
    """Every array of ``edges`` and of its motion made read-only."""
    m = edges.motion
    for arr in (edges.normal, edges.offset_m, edges.valid, edges.edge_id, edges.owner,
                edges.kind, m.pivot_m, m.velocity_mps, m.omega_radps, m.version,
                m.acceleration_mps2):
        if arr is not None:
            arr.flags.writeable = False


def _table(polygons: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Half-plane table of convex polygons: normals (T, K, 2), offsets (T, K), valid (T, K)."""
    width = max((p.shape[0] for p in polygons), default=0)
    normal = np.zeros((len(polygons), width, 2))
    offset = np.zeros((len(polygons), width))
    valid = np.zeros((len(polygons), width), bool)
    for i, poly in enumerate(polygons):
        n, b = polygon_halfplanes(poly)
        normal[i, :n.shape[0]], offset[i, :n.shape[0]], valid[i, :n.shape[0]] = n, b, True
    return normal, offset, valid


def _piece_table(pieces: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Half-plane table (outward normals (P, K, 2), offsets (P, K), valid (P, K)) of convex
    obstacle pieces: each piece is the intersection of its half-planes ``dot(n, x) <= b``; a
    segment has its two sides and its two end caps. Claim: B5, O5."""
    rows = []
    for piece in pieces:
        if piece.shape[0] == 2:
            d = (piece[1] - piece[0]) / np.hypot(*(piece[1] - piece[0]))
            perp = np.array([d[1], -d[0]])
            n = np.array([perp, -perp, d, -d])
            rows.append((n, np.array([perp @ piece[0], -perp @ piece[0], d @ piece[1],
                                      -d @ piece[0]])))
        else:
            rows.append(polygon_halfplanes(piece))
    width = max((n.shape[0] for n, _ in rows), default=0)
    normal = np.zeros((len(rows), width, 2))
    offset = np.zeros((len(rows), width))
    valid = np.zeros((len(rows), width), bool)
    for i, (n, b) in enumerate(rows):
        normal[i, :n.shape[0]], offset[i, :n.shape[0]], valid[i, :n.shape[0]] = n, b, True
    return normal, offset, valid


@dataclass(frozen=True)
class CommonEdge:
    """The common edge of two patches: ``dot(normal, x) = offset_m``, normal from p into q."""

    p: int
    q: int
    normal: np.ndarray
    offset_m: float


class Layout:
    """Obstacles (for ORCA, O5), one convex corridor region, slope patches and supports."""

    def __init__(self, *, obstacles: list[np.ndarray] | None = None,
                 corridor_m: np.ndarray | None = None,
                 patches: list[tuple[str, np.ndarray, np.ndarray]] | None = None,
                 supports: list[SupportSpec] | None = None) -> None:
        # simple polygons listed counter-clockwise (solid on the left), or segments (O5)
        self.obstacles = [check_valid_simple_polygon(f"obstacles[{i}].vertices", o)
                          for i, o in enumerate(obstacles or [])]
        pieces = [piece for poly in self.obstacles for piece in convex_pieces(poly)]
        self.obstacle_normal, self.obstacle_offset, self.obstacle_valid = _piece_table(pieces)
        # the vertices of every piece (a segment's two ends), padded by repeating the first
        width = max((p.shape[0] for p in pieces), default=0)
        self.obstacle_vertex = np.zeros((len(pieces), width, 2))
        self.obstacle_vertex_count = np.array([p.shape[0] for p in pieces], np.int64)
        for i, piece in enumerate(pieces):
            self.obstacle_vertex[i] = piece[np.minimum(np.arange(width), piece.shape[0] - 1)]
        # edge i of a piece runs from vertex i to the next (a segment has one edge)
        edges_per_piece = np.where(self.obstacle_vertex_count == 2, 1, self.obstacle_vertex_count)
        self.obstacle_vertex_valid = np.arange(width)[None, :] < edges_per_piece[:, None]
        self.corridor = None if corridor_m is None else check_valid_convex("corridor", corridor_m)
        self.patch_names = [name for name, _, _ in (patches or [])]
        if len(set(self.patch_names)) != len(self.patch_names):
            raise InvalidInput("patches", self.patch_names, "patch names must be unique")
        self.patches: list[Patch] = [make_patch(i, v, g)
                                     for i, (_, v, g) in enumerate(patches or [])]
        self.supports = list(supports or [])
        self.patch_normal, self.patch_offset, self.patch_valid = _table(
            [p.vertices_m for p in self.patches])
        self.patch_k = np.array([p.slope_factor for p in self.patches] + [1.0])
        if self.corridor is not None:
            self.corridor_normal, self.corridor_offset = polygon_halfplanes(self.corridor)
        else:
            self.corridor_normal, self.corridor_offset = np.zeros((0, 2)), np.zeros(0)
        self.common_edges = self._common_edges()
        self.support_angle_rad = np.zeros(len(self.supports))
        self.support_version = np.zeros(len(self.supports), np.int64)
        # the state of every support at the start of the current step: its (pivot) velocity,
        # changed by its acceleration, and how far a platform's pivot has moved
        self.support_velocity_mps = np.array([s.velocity_mps for s in self.supports],
                                             dtype=np.float64).reshape(-1, 2)
        self.support_shift_m = np.zeros((len(self.supports), 2))
        self._support_table_key: tuple[object, ...] | None = None
        self._support_table_cache: tuple[np.ndarray, np.ndarray, np.ndarray] = _table([])
        self._carry_range_key: tuple[object, ...] | None = None
        self._motion_table_key: tuple[object, ...] | None = None
        self._motion_table_cache: tuple[np.ndarray, np.ndarray, np.ndarray] = (
            np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0))
        self._edges_patch: np.ndarray | None = None
        self._edges_cache: EdgeSet | None = None
        self._edges_moving: tuple[EdgeSet, np.ndarray, bool] | None = None
        self._carry_range_table = np.zeros(1)

    # --------------------------------------------------------------------- look-ups
    def _common_edges(self) -> dict[tuple[int, int], CommonEdge]:
        """Edges patch p shares with patch q (opposite normals, same line): the handoff edges."""
        out: dict[tuple[int, int], CommonEdge] = {}
        for p, pp in enumerate(self.patches):
            pn, pb = pp.halfplanes()
            for q, qq in enumerate(self.patches):
                if p == q:
                    continue
                qn, qb = qq.halfplanes()
                for i in range(pn.shape[0]):
                    for j in range(qn.shape[0]):
                        opposite = np.allclose(pn[i], -qn[j], atol=UNIT_LENGTH_TOL)
                        if opposite and abs(pb[i] + qb[j]) <= EPS:
                            out[(p, q)] = CommonEdge(p, q, pn[i].copy(), float(pb[i]))
        return out

    def patch_of(self, x_m: np.ndarray) -> np.ndarray:
        """Index of the first patch containing each position (N,), -1 where none."""
        if not self.patches:
            return np.full(x_m.shape[0], -1, np.int64)
        return _first_containing(self.patch_normal, self.patch_offset, self.patch_valid, x_m)

    def support_pivot_m(self, s: int) -> np.ndarray:
        """Current pivot of support ``s`` (a platform's pivot moves; a conveyor's area stays)."""
        return self.supports[s].pivot_m + self.support_shift_m[s]

    def platform_vertices(self, s: int) -> np.ndarray:
        """Current vertices of support ``s`` (a platform has turned by its angle so far and
        moved with its pivot)."""
        spec = self.supports[s]
        c, si = np.cos(self.support_angle_rad[s]), np.sin(self.support_angle_rad[s])
        rel = spec.vertices_m - spec.pivot_m
        return self.support_pivot_m(s) + rel @ np.array([[c, si], [-si, c]])

    def _support_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Half-plane table (:func:`_table`) of every support at its current pose, rebuilt
        only when a pose changed (a conveyor's never does)."""
        key = (tuple(map(id, self.supports)), self.support_angle_rad.tobytes(),
               self.support_shift_m.tobytes())
        if self._support_table_key != key:
            self._support_table_cache = _table([self.platform_vertices(s)
                                                for s in range(len(self.supports))])
            self._support_table_key = key
        return self._support_table_cache

    def support_of(self, x_m: np.ndarray) -> np.ndarray:
        """Index of the support each position stands on (N,), -1 for the static ground."""
        if not self.supports:
            return np.full(x_m.shape[0], -1, np.int64)
        return _first_containing(*self._support_table(), x_m)

    def _motion_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every support's current pivot (m, (S, 2)), acceleration (m/s^2, (S, 2)) and rotation
        rate (rad/s, (S,)), read-only, rebuilt only when a pivot moved (a platform's shift) or
        the supports changed (a conveyor's never do)."""
        key = (tuple(map(id, self.supports)), self.support_shift_m.tobytes())
        if self._motion_table_key != key:
            count = len(self.supports)
            tables = (np.array([self.support_pivot_m(s) for s in range(count)],
                               dtype=np.float64).reshape(count, 2),
                      np.array([s.acceleration_mps2 for s in self.supports],
                               dtype=np.float64).reshape(count, 2),
                      np.array([s.omega_radps for s in self.supports], dtype=np.float64))
            for table in tables:
                table.flags.writeable = False
            self._motion_table_cache = tables
            self._motion_table_key = key
        return self._motion_table_cache

    def support_motion(self, support_index: np.ndarray) -> Support:
        """The supports of N agents (static ground where the index is -1): each support's
        current pivot and velocity, its acceleration and rotation rate. Claim: B3, B6."""
        return self._support_rows(support_index, None)[0]

    def support_and_carry(self, support_index: np.ndarray, x_m: np.ndarray
                          ) -> tuple[Support, np.ndarray]:
        """The supports of :meth:`support_motion` and their carry u (m/s, (N, 2)) at the
        bodies' positions ``x_m`` (m, (N, 2)) at the start of the step,
        :meth:`~navproof.boundary.Support.carry_mps` (the same operations on the same values),
        found in the pass that gathers the supports. Claim: B1, B3, B6."""
        support, carry = self._support_rows(support_index, x_m)
        assert carry is not None
        return support, carry

    def _support_rows(self, support_index: np.ndarray, x_m: np.ndarray | None
                      ) -> tuple[Support, np.ndarray | None]:
        """:meth:`support_motion`, and the carry at ``x_m`` unless it is None."""
        n = support_index.shape[0]
        table_pivot, table_acc, table_omega = self._motion_table()
        pivot, vel, acc = np.empty((n, 2)), np.empty((n, 2)), np.empty((n, 2))
        omega, version = np.empty(n), np.empty(n, np.int64)
        if x_m is None:
            x, carry = _NO_ROWS, _NO_ROWS
        else:
            x = np.ascontiguousarray(x_m, dtype=np.float64)
            if x.shape != (n, 2):
                raise ValueError(f"positions of shape {x.shape} for {n} supports")
            carry = np.empty((n, 2))
        _motion_rows(np.asarray(support_index, dtype=np.int64), table_pivot,
                     self.support_velocity_mps, table_acc, table_omega, self.support_version,
                     x, pivot, vel, acc, omega, version, carry)
        return Support(Motion(pivot, vel, omega, version, acc)), None if x_m is None else carry

    @property
    def platform_supports(self) -> list[int]:
        """Indices of the supports that are platforms (their riders are bounded by the
        platform's walls, which move with it)."""
        return [s for s, spec in enumerate(self.supports) if spec.kind == SUPPORT_PLATFORM]

    def carry_speed_range_mps(self, support_index: np.ndarray, dt_s: float
                              ) -> np.ndarray | None:
        """Upper bound (m/s, (N,)) of the support speed over a step of ``dt_s`` under each body
        on ``support_index`` (-1: the static ground), the one
        :meth:`~navproof.boundary.Support.carry_speed_range_mps` gives for
        :meth:`support_motion`, when no support turns: every point of a support then moves at
        its pivot's speed, whose range over the step
        (:meth:`~navproof.boundary.Motion.pivot_speed_range_mps`, the same operations) is
        found once per support (again only when a support's velocity or the step changed)
        and gathered per body. None when a support turns (the range then depends on where the
        body stands). Claim: B3, S4."""
        if any(spec.omega_radps != 0.0 for spec in self.supports):
            return None
        key = (tuple(map(id, self.supports)), self.support_velocity_mps.tobytes(), dt_s)
        if self._carry_range_key != key:
            count = len(self.supports)
            # one row per support, then the static ground's (all zero)
            velocity = np.zeros((count + 1, 2))
            velocity[:count] = self.support_velocity_mps
            acceleration = np.zeros((count + 1, 2))
            for s, spec in enumerate(self.supports):
                acceleration[s] = spec.acceleration_mps2
            motion = Motion(np.zeros((count + 1, 2)), velocity, np.zeros(count + 1),
                            np.zeros(count + 1, np.int64), acceleration)
            self._carry_range_table = motion.pivot_speed_range_mps(np.full(count + 1, dt_s))
            self._carry_range_key = key
        return self._carry_range_table[np.asarray(support_index, dtype=np.int64)]

    def edges(self, patch_index: np.ndarray, support_index: np.ndarray, *,
              position_m: np.ndarray | None = None, radius_m: np.ndarray | None = None,
              horizon_m: np.ndarray | None = None,
              platform_lookahead_s: float | None = None) -> EdgeSet:
        """Every agent's walls: the corridor region and its patch's piece, or, on a platform, the
        platform's edges moving with it, and the corridor's walls too unless the platform stays
        inside the corridor over the next ``platform_lookahead_s`` (:meth:`platforms_inside`;
        None: at its current pose), its patch's too unless it stays inside the patch
        (:meth:`platforms_inside_patches`); with ``position_m``, ``radius_m`` and ``horizon_m``
        (N,) also one fixed obstacle side (EDGE_OBSTACLE: kept over the whole step, no stop
        envelope) per convex obstacle piece within the horizon of the body's disc
        (:meth:`obstacle_walls`). Without platforms and obstacle walls the answer depends on
        the patches alone and is read-only: the same patches get the same answer again.
        Claim: C1, C2, B3, B5, B6, R1."""
        platforms = self.platform_supports
        # without platforms and obstacle walls the edges depend on the patches alone: the last
        # answer (read-only, so that nothing that holds it can change it) serves again
        reusable = not platforms and (position_m is None or not self.obstacle_normal.shape[0])
        if reusable and self._edges_cache is not None and self._edges_patch is not None \
                and _same_indices(self._edges_patch, patch_index):
            return self._edges_cache
        edges = self._built_edges(patch_index, support_index, platforms, position_m=position_m,
                                  radius_m=radius_m, horizon_m=horizon_m,
                                  platform_lookahead_s=platform_lookahead_s)
        if reusable:
            _freeze(edges)
            self._edges_patch = np.array(patch_index, dtype=np.int64)
            self._edges_cache = edges
        return edges

    def _built_edges(self, patch_index: np.ndarray, support_index: np.ndarray,
                     platforms: list[int], *, position_m: np.ndarray | None,
                     radius_m: np.ndarray | None, horizon_m: np.ndarray | None,
                     platform_lookahead_s: float | None) -> EdgeSet:
        """:meth:`edges`, built."""
        n = patch_index.shape[0]
        parts_n, parts_b, parts_v, parts_id = [], [], [], []
        # a carried body is bounded by its platform's walls alone while the platform stays
        # inside the corridor (fixed walls together with walls turning with the body leave no
        # common reference velocity, R1, so the far fixed walls would only void every stop
        # guarantee); where the platform may leave it, the body keeps the corridor's walls and
        # its labels say what that leaves of its guarantees
        carried = np.isin(support_index, platforms) if platforms else np.zeros(n, bool)
        kc = self.corridor_normal.shape[0]
        if kc:
            inside = np.append(self.platforms_inside(platform_lookahead_s), False)
            corridor_v, corridor_id = np.empty((n, kc), bool), np.empty((n, kc), np.int64)
            _corridor_rows(carried, inside, np.asarray(support_index, dtype=np.int64),
                           corridor_v, corridor_id)
            parts_n.append(np.broadcast_to(self.corridor_normal, (n, kc, 2)))
            parts_b.append(np.broadcast_to(self.corridor_offset, (n, kc)))
            parts_v.append(corridor_v)
            parts_id.append(corridor_id)
        kp = self.patch_normal.shape[1]
        if kp:
            on = patch_index >= 0
            idx = np.where(on, patch_index, 0)
            # likewise a carried body drops its patch's walls only while its platform stays
            # inside that patch: only the handoff controller crosses a patch edge (C1, H4)
            dropped = carried
            if carried.any():
                dropped = carried & self.platforms_inside_patches(platform_lookahead_s)[
                    np.where(carried, support_index, 0), idx]
            parts_n.append(self.patch_normal[idx])
            parts_b.append(self.patch_offset[idx])
            parts_v.append(self.patch_valid[idx] & (on & ~dropped)[:, None])
            parts_id.append(100 * (idx[:, None] + 1) + np.arange(kp)[None, :])
        moving = None
        if platforms:
            normal, offset, valid = self._support_table()
            on = carried
            idx = np.where(on, support_index, 0)
            ks = normal.shape[1]
            parts_n.append(normal[idx])
            parts_b.append(offset[idx])
            parts_v.append(valid[idx] & on[:, None])
            parts_id.append(10000 * (idx[:, None] + 1) + np.arange(ks)[None, :])
            moving = (kc + kp, ks)
        if position_m is not None and self.obstacle_normal.shape[0]:
            assert radius_m is not None and horizon_m is not None
            wall_n, wall_b, wall_v, wall_id = self.obstacle_walls(position_m, radius_m,
                                                                  horizon_m)
            parts_n.append(wall_n)
            parts_b.append(wall_b)
            parts_v.append(wall_v)
            parts_id.append(wall_id)
        if not parts_n:
            return EdgeSet.build(np.zeros((n, 0, 2)), np.zeros((n, 0)))
        # EdgeSet.build keeps cleaned copies of the normals and offsets, so a single part
        # (often the corridor's rows broadcast to every body) needs no copy of its own
        normal = parts_n[0] if len(parts_n) == 1 else np.concatenate(parts_n, axis=1)
        offset = parts_b[0] if len(parts_b) == 1 else np.concatenate(parts_b, axis=1)
        valid = parts_v[0] if len(parts_v) == 1 else np.concatenate(parts_v, axis=1)
        k = normal.shape[1]
        pivot, vel = np.zeros((n, k, 2)), np.zeros((n, k, 2))
        omega, version = np.zeros((n, k)), np.zeros((n, k), np.int64)
        # without platforms every wall is fixed: Motion fills the zero acceleration itself
        # (no finiteness check of a fresh array of zeros)
        motion = Motion(pivot, vel, omega, version)
        if moving is not None:
            # platform walls share the platform's rigid motion (the carried body's own support)
            first, ks = moving
            sup = self.support_motion(support_index).motion
            sl = slice(first, first + ks)
            on = valid[:, sl]
            acc = np.zeros((n, k, 2))
            pivot[:, sl] = np.where(on[..., None], sup.pivot_m[:, None, :], 0.0)
            vel[:, sl] = np.where(on[..., None], sup.velocity_mps[:, None, :], 0.0)
            acc[:, sl] = np.where(on[..., None], sup.acceleration_mps2[:, None, :], 0.0)
            omega[:, sl] = np.where(on, sup.omega_radps[:, None], 0.0)
            version[:, sl] = np.where(on, sup.version[:, None], 0)
            motion = Motion(pivot, vel, omega, version, acc)
        edge_id = parts_id[0] if len(parts_id) == 1 else np.concatenate(parts_id, axis=1)
        kind = np.empty((n, k), np.int64)
        _edge_kinds(edge_id, OBSTACLE_EDGE_ID, kind)
        return EdgeSet.build(normal, offset, valid=valid, motion=motion, edge_id=edge_id,
                             kind=kind)

    def obstacle_walls(self, position_m: np.ndarray, radius_m: np.ndarray, horizon_m: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The obstacles as fixed sides of each body (centre space): for every convex obstacle
        piece within ``horizon_m`` of the body's disc, the supporting line of the piece at the
        point of the piece closest to the body's start position (normal from that point to the
        body: the separating line with the largest margin, which is the exact distance), moved
        out by the radius: ``dot(-m, x) <= -(dot(m, c) + r)``. The piece lies wholly beyond
        that line, so a body that keeps it stays clear of the piece. A body on or inside a piece
        gets the piece's side of largest (non-positive) margin instead, which says so.
        Normals (N, M, 2), offsets (N, M), valid (N, M) and edge ids (N, M), M the largest
        number of pieces near one body. Claim: B5, O5."""
        n = position_m.shape[0]
        normal, offset, valid = self.obstacle_normal, self.obstacle_offset, self.obstacle_valid
        x = position_m[:, None, None, :]
        margin = (x[..., 0] * normal[None, ..., 0] + x[..., 1] * normal[None, ..., 1]) \
            - offset[None]
        margin = np.where(valid[None], margin, -np.inf)
        side = np.argmax(margin, axis=2)
        side_margin = np.take_along_axis(margin, side[..., None], axis=2)[..., 0]
        # closest point of each piece: over the edges between consecutive vertices
        a, b = self.obstacle_vertex, np.roll(self.obstacle_vertex, -1, axis=1)
        last = self.obstacle_vertex_count[:, None] - 1
        k = np.arange(a.shape[1])[None, :]
        b = np.where((k == last)[..., None], a[:, :1], b)
        ab = b - a
        ap = position_m[:, None, None, :] - a[None]
        t = np.clip(np.einsum("npkd,pkd->npk", ap, ab)
                    / np.maximum(np.einsum("pkd,pkd->pk", ab, ab), EPS)[None], 0.0, 1.0)
        closest = a[None] + t[..., None] * ab[None]
        gap = np.linalg.norm(position_m[:, None, None, :] - closest, axis=-1)
        gap = np.where(self.obstacle_vertex_valid[None], gap, np.inf)
        e = np.argmin(gap, axis=2)
        rows = np.arange(n)[:, None]
        cols = np.arange(normal.shape[0])[None, :]
        c = closest[rows, cols, e]
        dist = gap[rows, cols, e]
        outside = (side_margin > 0.0) & (dist > EPS)
        away = (position_m[:, None, :] - c) / np.where(outside, dist, 1.0)[..., None]
        m = np.where(outside[..., None], away, normal[cols, side])
        mb = np.where(outside, np.einsum("npd,npd->np", m, c), offset[cols, side])
        clear = np.where(outside, dist, side_margin) - radius_m[:, None]
        near = clear <= horizon_m[:, None]
        width = int(near.sum(axis=1).max(initial=0))
        order = np.argsort(~near, axis=1, kind="stable")[:, :width]
        wall_n = -m[rows, order]
        wall_b = -(mb[rows, order] + radius_m[:, None])
        wall_v = near[rows, order]
        wall_id = OBSTACLE_EDGE_ID + order
        return wall_n, np.where(wall_v, wall_b, 0.0), wall_v, wall_id

    def platforms_inside(self, lookahead_s: float | None, *, piece_s: float = 0.1,
                         region: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """(S,) True for every platform that stays inside the corridor (and every conveyor,
        which does not move) from now over ``lookahead_s`` (None or 0: its current pose), by
        the platform's own motion (pivot ``w t + alpha t^2 / 2``, rotation ``omega t``).
        ``region``: the half-planes (outward normals (K, 2), offsets (K,)) of another convex
        region to stay inside instead of the corridor (a slope patch).

        Certified, not sampled: the time is cut into pieces of at most ``piece_s``; over a piece
        a vertex stays within ``r phi^2 / 4 + |alpha| tau^2 / 8`` (``phi = |omega| tau <= 1``,
        else ``2 r``) of the chord between its poses at the piece's ends, so a vertex whose
        margin to every corridor edge at both ends exceeds that bound stays inside throughout
        (the corridor is convex: the polygon stays inside when its vertices do). Claim: C1, C2,
        B3, B6."""
        out = np.ones(len(self.supports), bool)
        if region is None:
            if self.corridor is None:
                return out
            region = (self.corridor_normal, self.corridor_offset)
        region_normal, region_offset = region
        horizon = max(float(lookahead_s or 0.0), 0.0)
        pieces = max(int(np.ceil(horizon / piece_s)), 1) if horizon > 0.0 else 0
        tau = horizon / pieces if pieces else 0.0
        times = np.arange(pieces + 1) * tau
        for s, spec in enumerate(self.supports):
            if spec.kind != SUPPORT_PLATFORM:
                continue
            rel = spec.vertices_m - spec.pivot_m
            arm = np.hypot(rel[:, 0], rel[:, 1])
            angle = self.support_angle_rad[s] + spec.omega_radps * times
            c, si = np.cos(angle), np.sin(angle)
            w = self.support_velocity_mps[s]
            pivot = (self.support_pivot_m(s)[None] + w[None] * times[:, None]
                     + 0.5 * spec.acceleration_mps2[None] * times[:, None] ** 2)
            # vertices (T, V, 2) at every piece end
            x = pivot[:, None, :] + np.stack([c[:, None] * rel[None, :, 0]
                                              - si[:, None] * rel[None, :, 1],
                                              si[:, None] * rel[None, :, 0]
                                              + c[:, None] * rel[None, :, 1]], axis=-1)
            margin = region_offset[None, None] - np.einsum("tvd,kd->tvk", x, region_normal)
            phi = abs(spec.omega_radps) * tau
            bulge = (arm * phi * phi / 4.0 if phi <= 1.0 else 2.0 * arm) \
                + float(np.hypot(*spec.acceleration_mps2)) * tau * tau / 8.0
            if pieces:
                ends = np.minimum(margin[:-1], margin[1:])
                out[s] = bool(np.all(ends >= bulge[None, :, None] - EPS))
            else:
                out[s] = bool(np.all(margin >= -EPS))
        return out

    def platforms_inside_patches(self, lookahead_s: float | None) -> np.ndarray:
        """(S, P) True where platform s stays inside patch p over ``lookahead_s``
        (:meth:`platforms_inside` with the patch as the region; every conveyor: True).
        Claim: C1, B6."""
        out = np.ones((len(self.supports), len(self.patches)), bool)
        for p in range(len(self.patches)):
            valid = self.patch_valid[p]
            out[:, p] = self.platforms_inside(lookahead_s, region=(
                self.patch_normal[p][valid], self.patch_offset[p][valid]))
        return out

    def support_speed_range_mps(self, dt_s: float) -> np.ndarray:
        """Largest surface speed (m/s, (S,)) of every support over the next step: the pivot's
        largest speed over the step (``|w|`` or ``|w + alpha dt|``) plus, for a platform, what
        its rotation gives at the vertex farthest from the pivot (``|omega| r_max``; a rigid
        turn keeps that distance). Bounds the carry of any body on it and the speed of its
        edges. Claim: B3, B6, S4."""
        out = np.zeros(len(self.supports))
        for s, spec in enumerate(self.supports):
            out[s] = _support_speed_range(self.support_velocity_mps[s], spec.acceleration_mps2,
                                          float(dt_s), spec.vertices_m, spec.pivot_m,
                                          float(spec.omega_radps))
        return out

    def advance(self, dt_s: float) -> None:
        """The state of the next step: every platform turns by ``omega dt`` and its pivot moves
        by ``w dt + alpha dt^2 / 2``; every support's velocity becomes ``w + alpha dt``."""
        for s, spec in enumerate(self.supports):
            self.support_angle_rad[s] += spec.omega_radps * dt_s
            w = self.support_velocity_mps[s]
            if spec.kind == SUPPORT_PLATFORM:
                self.support_shift_m[s] += w * dt_s + 0.5 * spec.acceleration_mps2 * dt_s**2
            self.support_velocity_mps[s] = w + spec.acceleration_mps2 * dt_s

    # ----------------------------------------------------------------- clearances
    def wall_clearance_m(self, x_m: np.ndarray, radius_m: np.ndarray,
                         edges: EdgeSet) -> np.ndarray:
        """Signed clearance (m, (N,)) of body centres to their walls (edges are already in
        centre space) and of body discs to the obstacles (the exact signed distance to each
        simple polygon, :func:`navproof.boundary.polygons.polygon_signed_distance_m`, minus the
        radius); +inf without any. Claim: B5."""
        out = filled(x_m.shape[0], np.inf)
        self._least_clearance_m(np.asarray(x_m, dtype=np.float64)[None], radius_m, edges, out)
        return out

    def step_wall_clearance_m(self, start_clearance_m: np.ndarray, mid_end_m: np.ndarray,
                              radius_m: np.ndarray, edges: EdgeSet, dt_s: float) -> np.ndarray:
        """Least signed clearance (m, (N,)) of every body over the step of ``dt_s`` [s]: numpy's
        minimum of ``start_clearance_m``, :meth:`wall_clearance_m` at the middle
        ``mid_end_m[0]`` and at the end ``mid_end_m[1]`` of the step (m, (2, N, 2)), in that
        order, each against the walls where they stand then (a platform's walls move with it:
        :func:`_edges_at`), with one pass over the edges when no wall moves. Claim: B5, B6."""
        out = np.array(start_clearance_m, dtype=np.float64)
        points = np.asarray(mid_end_m, dtype=np.float64)
        moving, any_moving = self._moving_edges_of(edges)
        if not any_moving:
            self._least_clearance_m(points, radius_m, edges, out)
            return out
        for p, t_s in enumerate((0.5 * dt_s, dt_s)):
            normal, offset = _edges_at(edges, moving, t_s)
            self._least_clearance_m(points[p:p + 1], radius_m, edges, out,
                                    normal=normal, offset_m=offset)
        return out

    def _moving_edges_of(self, edges: EdgeSet) -> tuple[np.ndarray, bool]:
        """:func:`_moving_edges`, found once for the read-only edges :meth:`edges` serves
        again (their motions cannot change), read-only too; other edges each time."""
        if edges is not self._edges_cache:
            return _moving_edges(edges)
        known = self._edges_moving
        if known is None or known[0] is not edges:
            moving, any_moving = _moving_edges(edges)
            moving.flags.writeable = False
            known = self._edges_moving = (edges, moving, any_moving)
        return known[1], known[2]

    def _least_clearance_m(self, x_m: np.ndarray, radius_m: np.ndarray, edges: EdgeSet,
                           out: np.ndarray, *, normal: np.ndarray | None = None,
                           offset_m: np.ndarray | None = None) -> None:
        """:func:`_least_wall_margin` of the points ``x_m`` (P, N, 2) into ``out`` (N,), the
        obstacles' exact clearances of each point included; the walls' ``normal`` and
        ``offset_m`` are the edges' own unless given."""
        # obstacle walls are conservative stand-ins; the exact distance is measured here
        obstacle = np.empty((x_m.shape[0], x_m.shape[1], len(self.obstacles)))
        for o, poly in enumerate(self.obstacles):
            for p in range(x_m.shape[0]):
                obstacle[p, :, o] = polygon_signed_distance_m(poly, x_m[p]) - radius_m
        _least_wall_margin(edges.normal if normal is None else normal,
                           edges.offset_m if offset_m is None else offset_m, edges.valid,
                           edges.edge_id, OBSTACLE_EDGE_ID, x_m, obstacle, out)
