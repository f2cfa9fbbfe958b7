"""The input of one safe step for N agents and its validation (seed 000).

A :class:`StepInput` holds every agent's state, caps, support, edges, ORCA half-planes and
neighbour predictions; :func:`check_valid_step_input` refuses bad input before anything is
computed; :func:`step_input_from_crowd` builds the input of a whole ORCA crowd.
Claim: S6, B1, O2, O5, W1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navproof.boundary.edges import EdgeSet
from navproof.boundary.motion import Motion, Support
from navproof.boundary.step_length import per_agent
from navproof.core.errors import InvalidInput
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.parallel import run_row_pieces
from navproof.core.tolerances import UNIT_LENGTH_TOL
from navproof.core.validation import (
    MAX_LENGTH_M,
    MAX_SPEED_MPS,
    check_valid_budget,
    check_valid_finite,
    check_valid_integer,
    check_valid_nonnegative,
    check_valid_positive,
    check_valid_range,
    check_valid_step,
    check_valid_unit_where,
    clearly_unit,
    floats_of_shape,
)

PARALLEL_MIN_ROWS = 4096
"""The step's compiled passes over at least this many agents (or candidates) run in threads
(:mod:`navproof.core.parallel`); each row's values do not depend on the thread."""


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
        """Neighbours by index (N, J), padded with -1, from crowd-wide arrays (M, ...): a slot
        of negative index is not valid and holds the first body's position (m) and radius (m)
        and a zero velocity (m/s). One compiled pass over the slots; IndexError where a slot's
        body (the first, for a slot that is not valid) is not in every array."""
        idx = np.asarray(index, dtype=np.int64)
        position = np.asarray(position_m, float)
        velocity = np.asarray(velocity_mps, float)
        radius = np.asarray(radius_m, float)
        n, j = idx.shape
        out = Neighbors(np.empty((n, j, position.shape[1])), np.empty((n, j, velocity.shape[1])),
                        np.empty((n, j)), np.empty((n, j), bool))
        missing: list[bool] = []
        if idx.size:  # no slot (a crowd spread beyond every reach): nothing to read or check
            run_row_pieces(lambda lo, hi: missing.append(_gather_rows(
                idx, position, velocity, radius, out.position_m, out.velocity_mps,
                out.radius_m, out.valid, lo, hi)), n, min_rows=PARALLEL_MIN_ROWS)
        if any(missing):
            raise IndexError(f"neighbour index out of range for {position.shape[0]}, "
                             f"{velocity.shape[0]} and {radius.shape[0]} bodies")
        return out

    def take(self, rows: np.ndarray | slice) -> Neighbors:
        return Neighbors(self.position_m[rows], self.velocity_mps[rows], self.radius_m[rows],
                         self.valid[rows])

    def start_distance_and_reach_m(self, x0_m: np.ndarray, radius_m: np.ndarray
                                   ) -> tuple[np.ndarray, np.ndarray]:
        """Centre distance at the start of the step and combined radius (m, (N, J)) of each
        body at ``x0_m`` (N, 2) of radius ``radius_m`` (N,) and each neighbour slot: what the
        overlap test (O6) and the sweep margins (W1) of every candidate share."""
        n, j = self.valid.shape
        start, comb = np.empty((n, j)), np.empty((n, j))
        if j == 0:
            return start, comb
        args = (np.asarray(x0_m, np.float64), np.asarray(self.position_m, np.float64),
                np.asarray(radius_m, np.float64), np.asarray(self.radius_m, np.float64), start,
                comb)
        run_row_pieces(lambda lo, hi: _start_distance_and_reach(*args, lo, hi), n,
                       min_rows=PARALLEL_MIN_ROWS)
        return start, comb


@compiled_loop
def _gather_rows(index, position, velocity, radius, out_position, out_velocity, out_radius,
                 out_valid, lo, hi):
    """Rows ``lo:hi`` of :meth:`Neighbors.gather`: a slot is valid where its index is >= 0 and
    reads body ``index`` there, body 0 elsewhere (its velocity then 0.0); True, leaving the
    rest unwritten, at the first slot whose body some array does not hold."""
    for i in range(lo, hi):
        for k in range(index.shape[1]):
            valid = index[i, k] >= 0
            body = index[i, k] if valid else 0
            if not (body < position.shape[0] and body < velocity.shape[0]
                    and body < radius.shape[0]):
                return True
            out_valid[i, k] = valid
            for c in range(position.shape[1]):
                out_position[i, k, c] = position[body, c]
            for c in range(velocity.shape[1]):
                out_velocity[i, k, c] = velocity[body, c] if valid else 0.0
            out_radius[i, k] = radius[body]
    return False


@compiled_loop
def _start_distance_and_reach(x0, position, radius, nb_radius, start, comb, lo, hi):
    """Rows of :meth:`Neighbors.start_distance_and_reach_m`: the distance as numpy's 2-norm
    (sqrt of dx^2 + dy^2) and the sum of the radii."""
    j = start.shape[1]
    for i in range(lo, hi):
        for k in range(j):
            dx, dy = x0[i, 0] - position[i, k, 0], x0[i, 1] - position[i, k, 1]
            start[i, k] = np.sqrt(dx * dx + dy * dy)
            comb[i, k] = radius[i] + nb_radius[i, k]


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
        n = self.position_m.shape[0]
        if isinstance(dt, np.ndarray) and dt.shape == (n,):
            return dt
        return per_agent(dt, n)


def _check_valid_finite_where(field: str, value: np.ndarray, valid: np.ndarray) -> None:
    """InvalidInput naming the first non-finite entry of ``value`` (..., 2) in a valid slot."""
    # all finite (the usual case): nothing to name, no masked copy
    if not np.isfinite(value).all():
        check_valid_finite(field, np.where(valid[..., None], value, 0.0))


def _check_valid_units(field: str, vector: np.ndarray, valid: np.ndarray, *, what: str) -> None:
    """:func:`navproof.core.validation.check_valid_unit_where`, whose whole-array test runs
    only when one compiled pass over the valid slots finds a vector that is not clearly a unit
    vector (the usual input has none: nothing to name)."""
    arr = np.asarray(vector, dtype=np.float64)
    ok = np.asarray(valid, dtype=bool)
    if arr.shape != (*ok.shape, 2) or not _all_units_where(np.ascontiguousarray(arr),
                                                           np.ascontiguousarray(ok),
                                                           UNIT_LENGTH_TOL):
        check_valid_unit_where(field, arr, ok, what=what)


@compiled_loop
def _all_units_where(vector, valid, tol):
    """True when every valid slot's vector (..., 2) is clearly a unit vector
    (:func:`navproof.core.validation.clearly_unit`); False sends the input to the exact test."""
    flat_v = vector.reshape(-1, 2)
    flat_ok = valid.reshape(-1)
    for i in range(flat_ok.size):
        if flat_ok[i] and not clearly_unit(flat_v[i, 0], flat_v[i, 1], tol):
            return False
    return True


def _check_valid_motion(field: str, motion: Motion, valid: np.ndarray | None = None) -> None:
    """Pivot, velocity, acceleration and angular velocity of a motion finite (in ``valid``
    slots, if given): a Support or EdgeSet built directly, without its validating constructors,
    is checked too."""
    for name in ("pivot_m", "velocity_mps", "acceleration_mps2"):
        value = np.asarray(getattr(motion, name), dtype=np.float64)
        if valid is None:
            check_valid_finite(f"{field}.{name}", value)
        else:
            _check_valid_finite_where(f"{field}.{name}", value, valid)
    omega = np.asarray(motion.omega_radps, dtype=np.float64)
    check_valid_finite(f"{field}.omega_radps",
                       omega if valid is None else np.where(valid, omega, 0.0))


def _shape(field: str, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``value`` as an array of exactly ``shape``; InvalidInput naming the field otherwise."""
    arr = np.asarray(value)
    if arr.shape != shape:
        raise InvalidInput(field, arr.shape, f"must have shape {shape}")
    return arr


def _per_agent(field: str, value: Any, n: int) -> np.ndarray:
    """A scalar or (N,) value broadcast to (N,) float64; InvalidInput unless numeric, finite
    and of one of those shapes."""
    arr = check_valid_finite(field, value)
    if arr.shape not in ((), (n,)):
        raise InvalidInput(field, arr.shape, f"must be a number or have shape ({n},)")
    return np.broadcast_to(arr, (n,))


def _check_valid_motion_shape(field: str, motion: Motion, shape: tuple[int, ...]) -> None:
    """The arrays of a motion broadcast to ``shape`` (+ (2,) for vectors)."""
    for name in ("pivot_m", "velocity_mps", "acceleration_mps2"):
        value = getattr(motion, name)
        if value is None:
            continue
        arr_shape = np.shape(value)
        try:
            np.broadcast_shapes(arr_shape, (*shape, 2))
        except ValueError:
            raise InvalidInput(f"{field}.{name}", arr_shape,
                               f"must have shape {(*shape, 2)}") from None
    try:
        np.broadcast_shapes(np.shape(motion.omega_radps), shape)
    except ValueError:
        raise InvalidInput(f"{field}.omega_radps", np.shape(motion.omega_radps),
                           f"must have shape {shape}") from None


def _check_valid_neighbors(neighbors: Neighbors, n: int) -> None:
    """Neighbour predictions of the sweep (W1): shapes (N, J, 2), (N, J, 2), (N, J), (N, J),
    and in every valid slot a finite position and velocity and a finite radius >= 0."""
    valid = np.asarray(neighbors.valid)
    if valid.ndim != 2 or valid.shape[0] != n or valid.dtype != bool:
        raise InvalidInput("neighbors.valid", f"{valid.dtype}{valid.shape}",
                           f"must be a boolean array of shape ({n}, J)")
    j = valid.shape[1]
    _shape("neighbors.position_m", neighbors.position_m, (n, j, 2))
    _shape("neighbors.velocity_mps", neighbors.velocity_mps, (n, j, 2))
    radius = check_valid_finite("neighbors.radius_m",
                                np.where(valid, _shape("neighbors.radius_m", neighbors.radius_m,
                                                       (n, j)), 0.0))
    check_valid_nonnegative("neighbors.radius_m", radius)
    _check_valid_finite_where("neighbors.position_m", neighbors.position_m, valid)
    _check_valid_finite_where("neighbors.velocity_mps", neighbors.velocity_mps, valid)


def check_valid_step_input(inp: StepInput) -> StepInput:
    """Validate every field (InvalidInput naming field and value; nothing is changed) and
    return the input with default ORCA and neighbour arrays filled in. Claim: S6 (no division by
    a zero budget, no non-finite velocity), B1 (dt > 0), O2 (ORCA lines as RVO2 defines them).

    ORCA line directions must be unit vectors, like the edge normals: the solver measures a
    line's violation as ``det(direction, point - v)`` in m/s, which is only a distance for a unit
    direction. A non-unit direction is refused rather than normalised here, because a caller
    who passes one has built the line with some other convention, and a zero direction
    describes no half-plane at all; both used to yield a velocity labelled SAFE that violated
    the line. Supports and edges built directly (without their validating constructors) are
    checked for finite motions and unit normals as well.

    The usual input passes one compiled pass over its rows; only an input that pass does not
    clear takes the exact checks below, in their documented order."""
    fast = _clearly_valid_step_input(inp)
    if fast is not None:
        return fast
    x0 = check_valid_finite("position_m", inp.position_m)
    if x0.ndim != 2 or x0.shape[1] != 2:
        raise InvalidInput("position_m", x0.shape, "must have shape (N, 2)")
    n = x0.shape[0]
    if not (np.abs(x0) <= MAX_LENGTH_M).all():
        check_valid_range("position_m", x0, low=-MAX_LENGTH_M, high=MAX_LENGTH_M, unit="m")
    dt = check_valid_step(inp.dt_s)
    if np.ndim(dt) and np.shape(dt) != (n,):
        raise InvalidInput("dt_s", np.shape(dt), f"must be a float or have shape ({n},)")
    for name in ("velocity_mps", "preferred_mps"):
        arr = check_valid_finite(name, getattr(inp, name))
        if arr.shape != (n, 2):
            raise InvalidInput(name, arr.shape, "must have shape (N, 2)")
        if not (np.abs(arr) <= MAX_SPEED_MPS).all():
            check_valid_range(name, arr, low=-MAX_SPEED_MPS, high=MAX_SPEED_MPS, unit="m/s")
    check_valid_positive("vh_mps", _per_agent("vh_mps", inp.vh_mps, n))
    # a zero budget is that agent's own matter: the hold rule (S6), not an error for the batch
    check_valid_budget("accel_mps2", _per_agent("accel_mps2", inp.accel_mps2, n),
                       allow_zero=True)
    check_valid_positive("radius_m", _per_agent("radius_m", inp.radius_m, n))
    normal = np.asarray(inp.edges.normal)
    if normal.ndim != 3 or normal.shape[0] != n or normal.shape[2] != 2:
        raise InvalidInput("edges", normal.shape, f"must hold edges of {n} agents: normals "
                                                  f"of shape ({n}, K, 2)")
    k = normal.shape[1]
    _shape("edges.offset_m", inp.edges.offset_m, (n, k))
    edge_valid_raw = _shape("edges.valid", inp.edges.valid, (n, k))
    if edge_valid_raw.dtype != bool:
        raise InvalidInput("edges.valid", str(edge_valid_raw.dtype), "must be boolean")
    _check_valid_motion_shape("edges.motion", inp.edges.motion, (n, k))
    _check_valid_motion_shape("support.motion", inp.support.motion, (n,))
    orca_point, orca_direction, orca_valid = inp.orca_point, inp.orca_direction, inp.orca_valid
    orca_valid = np.asarray(orca_valid)
    if orca_valid.ndim != 2 or orca_valid.shape[0] != n:
        if orca_valid.size:
            raise InvalidInput("orca_valid", orca_valid.shape, f"must have shape ({n}, K)")
        orca_point, orca_direction = np.zeros((n, 0, 2)), np.zeros((n, 0, 2))
        orca_valid = np.zeros((n, 0), bool)
    if orca_valid.dtype != bool:
        raise InvalidInput("orca_valid", str(orca_valid.dtype), "must be boolean")
    _shape("orca_point", orca_point, (*orca_valid.shape, 2))
    _shape("orca_direction", orca_direction, (*orca_valid.shape, 2))
    _check_valid_finite_where("orca_point", orca_point, orca_valid)
    _check_valid_finite_where("orca_direction", orca_direction, orca_valid)
    _check_valid_units("orca_direction", orca_direction, orca_valid,
                       what="ORCA line direction")
    _check_valid_motion("support.motion", inp.support.motion)
    edge_valid = np.asarray(inp.edges.valid, dtype=bool)
    _check_valid_units("edges.normal", inp.edges.normal, edge_valid, what="outward normal")
    check_valid_finite("edges.offset_m", np.where(edge_valid, inp.edges.offset_m, 0.0))
    _check_valid_motion("edges.motion", inp.edges.motion, edge_valid)
    if inp.orca_num_hard is None:
        num_hard = np.zeros(n, np.int64)
    else:
        # whole numbers first (a NaN or 2.5 would else be cast silently), then the range
        num_hard = np.broadcast_to(check_valid_integer(
            "orca_num_hard", _per_agent("orca_num_hard", inp.orca_num_hard, n),
            low=0, high=orca_valid.shape[1]), (n,)).copy()
    neighbors = inp.neighbors if inp.neighbors is not None else Neighbors.none(n)
    _check_valid_neighbors(neighbors, n)
    return _validated(inp, x0, per_agent(dt, n), orca_point, orca_direction, orca_valid,
                      neighbors, num_hard)


def _validated(inp: StepInput, x0: np.ndarray, dt_s: np.ndarray, orca_point: Any,
               orca_direction: Any, orca_valid: np.ndarray, neighbors: Neighbors,
               num_hard: np.ndarray) -> StepInput:
    """The validated input: ``inp`` with per-agent float64 arrays and the defaults filled in;
    ``dt_s`` is already every agent's own copy of the step length (s, (N,))."""
    n = x0.shape[0]
    return StepInput(x0, np.asarray(inp.velocity_mps, float), np.asarray(inp.preferred_mps, float),
                     dt_s, inp.support, inp.edges, per_agent(inp.vh_mps, n),
                     per_agent(inp.accel_mps2, n), per_agent(inp.radius_m, n),
                     np.asarray(orca_point, float), np.asarray(orca_direction, float),
                     np.asarray(orca_valid, bool), neighbors, num_hard)


_STRUCTURE_ERRORS = (InvalidInput, TypeError, ValueError, OverflowError)
"""What the fast path's structural look at an input may raise: any of them sends the input to
the exact path, which names the first offending field."""


def _shape_of(value: Any) -> tuple[int, ...]:
    """numpy's shape of ``value``: an array's own, read without numpy's conversion."""
    return value.shape if type(value) is np.ndarray else np.shape(value)


def _clearly_valid_step_input(inp: StepInput) -> StepInput | None:
    """The input as :func:`check_valid_step_input` returns it, when the usual input's shapes
    hold and one compiled pass over the rows (:func:`_clearly_valid_rows`) finds every value
    clearly inside its rule; None otherwise (the exact path then names the first offence).
    The arrays the pass reads (:func:`navproof.core.validation.floats_of_shape`) are the
    validated input's own (the float64 arrays :func:`_validated` converts to, which the shapes
    checked here leave unbroadcast), so each is converted once."""
    try:
        x0 = np.asarray(inp.position_m, dtype=np.float64)
        if x0.ndim != 2 or x0.shape[1] != 2 or x0.shape[0] == 0:
            return None
        n = x0.shape[0]
        dt = check_valid_step(inp.dt_s)
        if not isinstance(dt, float) and dt.shape != (n,):
            return None
        # the validated input's own copy, which the pass reads too (a broadcast view of one
        # step length costs more than the copy)
        dt_rows = per_agent(dt, n)
        if _shape_of(inp.velocity_mps) != (n, 2) or _shape_of(inp.preferred_mps) != (n, 2):
            return None
        velocity = floats_of_shape(inp.velocity_mps, (n, 2))
        preferred = floats_of_shape(inp.preferred_mps, (n, 2))
        vh, accel, radius = inp.vh_mps, inp.accel_mps2, inp.radius_m
        if (_shape_of(vh) not in ((), (n,)) or _shape_of(accel) not in ((), (n,))
                or _shape_of(radius) not in ((), (n,))):
            return None
        vh, accel = floats_of_shape(vh, (n,)), floats_of_shape(accel, (n,))
        radius = floats_of_shape(radius, (n,))
        edges = inp.edges
        normal, edge_valid = np.asarray(edges.normal), np.asarray(edges.valid)
        if normal.ndim != 3 or normal.shape[0] != n or normal.shape[2] != 2:
            return None
        k = normal.shape[1]
        if (_shape_of(edges.offset_m) != (n, k) or edge_valid.shape != (n, k)
                or edge_valid.dtype != bool):
            return None
        e_motion, s_motion = edges.motion, inp.support.motion
        motions = (floats_of_shape(e_motion.pivot_m, (n, k, 2)),
                   floats_of_shape(e_motion.velocity_mps, (n, k, 2)),
                   floats_of_shape(e_motion.acceleration_mps2, (n, k, 2)),
                   floats_of_shape(e_motion.omega_radps, (n, k)),
                   floats_of_shape(s_motion.pivot_m, (n, 2)),
                   floats_of_shape(s_motion.velocity_mps, (n, 2)),
                   floats_of_shape(s_motion.acceleration_mps2, (n, 2)),
                   floats_of_shape(s_motion.omega_radps, (n,)))
        orca_valid = np.asarray(inp.orca_valid)
        orca_point, orca_direction = inp.orca_point, inp.orca_direction
        if orca_valid.ndim != 2 or orca_valid.shape[0] != n:
            if orca_valid.size:
                return None
            orca_point, orca_direction = np.zeros((n, 0, 2)), np.zeros((n, 0, 2))
            orca_valid = np.zeros((n, 0), bool)
        lines = orca_valid.shape[1]
        if (orca_valid.dtype != bool or _shape_of(orca_point) != (n, lines, 2)
                or _shape_of(orca_direction) != (n, lines, 2)):
            return None
        orca_point = floats_of_shape(orca_point, (n, lines, 2))
        orca_direction = floats_of_shape(orca_direction, (n, lines, 2))
        if inp.orca_num_hard is None:
            num_hard = np.zeros(n, np.int64)
            hard = np.zeros((n,))
        else:
            if _shape_of(inp.orca_num_hard) not in ((), (n,)):
                return None
            hard = floats_of_shape(inp.orca_num_hard, (n,))
            num_hard = hard.astype(np.int64)
        neighbors = inp.neighbors if inp.neighbors is not None else Neighbors.none(n)
        nb_valid = np.asarray(neighbors.valid)
        if nb_valid.ndim != 2 or nb_valid.shape[0] != n or nb_valid.dtype != bool:
            return None
        j = nb_valid.shape[1]
        if (_shape_of(neighbors.position_m) != (n, j, 2)
                or _shape_of(neighbors.velocity_mps) != (n, j, 2)
                or _shape_of(neighbors.radius_m) != (n, j)):
            return None
        args = (x0, velocity, preferred, vh, accel, radius, dt_rows, hard, float(lines),
                floats_of_shape(normal, (n, k, 2)), floats_of_shape(edges.offset_m, (n, k)),
                edge_valid,
                *motions, orca_point, orca_direction, orca_valid,
                floats_of_shape(neighbors.position_m, (n, j, 2)),
                floats_of_shape(neighbors.velocity_mps, (n, j, 2)),
                floats_of_shape(neighbors.radius_m, (n, j)), nb_valid,
                MAX_LENGTH_M, MAX_SPEED_MPS, UNIT_LENGTH_TOL)
    except _STRUCTURE_ERRORS:
        return None
    verdicts: list[bool] = []
    run_row_pieces(lambda lo, hi: verdicts.append(_clearly_valid_rows(*args, lo, hi)), n,
                   min_rows=PARALLEL_MIN_ROWS)
    if not all(verdicts):
        return None
    # _validated's input from the arrays the pass read: per-agent copies of the caps and radii
    # (a copy of a broadcast view holds numpy's full of its value)
    return StepInput(x0, velocity, preferred, dt_rows, inp.support, edges, vh.copy(),
                     accel.copy(), radius.copy(), orca_point, orca_direction, orca_valid,
                     neighbors, num_hard)


@inlined_loop
def _finite(x):
    """Neither NaN nor infinite."""
    return abs(x) < np.inf


@compiled_loop
def _clearly_valid_rows(x0, v0, pref, vh, accel, radius, dt, num_hard, lines, normal, offset,
                        edge_valid, e_pivot, e_vel, e_accel, e_omega, s_pivot, s_vel, s_accel,
                        s_omega, o_point, o_dir, o_valid, nb_pos, nb_vel, nb_radius, nb_valid,
                        max_length, max_speed, unit_tol, lo, hi):
    """True when every rule of :func:`check_valid_step_input` clearly holds in rows
    ``lo:hi``: positions and velocities within their working bounds, Vh and radius finite and
    > 0, budget finite and >= 0, dt finite and > 0, ORCA obstacle-line counts whole numbers in
    ``[0, lines]``, every valid edge with a clearly unit normal
    (:func:`navproof.core.validation.clearly_unit`), a finite offset and a finite motion, the
    support's motion finite, every valid ORCA line finite with a clearly unit direction, every
    valid neighbour finite with a finite radius >= 0. False sends the input to the exact checks
    (NaN fails every comparison)."""
    for i in range(lo, hi):
        for c in range(2):
            if not (abs(x0[i, c]) <= max_length and abs(v0[i, c]) <= max_speed
                    and abs(pref[i, c]) <= max_speed and _finite(s_pivot[i, c])
                    and _finite(s_vel[i, c]) and _finite(s_accel[i, c])):
                return False
        if not (0.0 < vh[i] < np.inf and 0.0 <= accel[i] < np.inf and 0.0 < radius[i] < np.inf
                and 0.0 < dt[i] < np.inf and _finite(s_omega[i])
                and num_hard[i] == np.floor(num_hard[i]) and 0.0 <= num_hard[i] <= lines):
            return False
        for j in range(offset.shape[1]):
            if edge_valid[i, j] and not (
                    clearly_unit(normal[i, j, 0], normal[i, j, 1], unit_tol)
                    and _finite(offset[i, j]) and _finite(e_omega[i, j])
                    and _finite(e_pivot[i, j, 0]) and _finite(e_pivot[i, j, 1])
                    and _finite(e_vel[i, j, 0]) and _finite(e_vel[i, j, 1])
                    and _finite(e_accel[i, j, 0]) and _finite(e_accel[i, j, 1])):
                return False
        for j in range(o_valid.shape[1]):
            if o_valid[i, j] and not (
                    clearly_unit(o_dir[i, j, 0], o_dir[i, j, 1], unit_tol)
                    and _finite(o_point[i, j, 0]) and _finite(o_point[i, j, 1])):
                return False
        for j in range(nb_valid.shape[1]):
            if nb_valid[i, j] and not (
                    0.0 <= nb_radius[i, j] < np.inf
                    and _finite(nb_pos[i, j, 0]) and _finite(nb_pos[i, j, 1])
                    and _finite(nb_vel[i, j, 0]) and _finite(nb_vel[i, j, 1])):
                return False
    return True


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
