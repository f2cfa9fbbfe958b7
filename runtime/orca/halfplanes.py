"""RVO2's line convention at the edge of the ORCA package: ORCA lines become the solver's
half-planes here, once (Claim O2).

RVO2 describes a half-plane as a directed line through ``point`` (m/s) with unit ``direction``
whose permitted side lies LEFT of the direction: a velocity ``v`` satisfies it when
``det(direction, point - v) <= 0`` (``det(a, b) = a.x b.y - a.y b.x``), and that determinant is
its signed violation in m/s (positive: outside). The ORCA package builds, reports and monitors
lines in this form (:mod:`navproof.orca.lines`, diagnostics, monitor); the closest-point solver
(:mod:`navproof.solver.closest`) takes ``dot(normal, v) <= offset`` with
``normal = (direction.y, -direction.x)`` and ``offset = dot(normal, point)``.
"""

from __future__ import annotations

import math

import numpy as np

from navproof.core.jit import compiled_loop
from navproof.core.parallel import piece_bounds, run_pieces, run_row_pieces
from navproof.core.tolerances import RVO_EPSILON
from navproof.solver.closest import (
    ClosestResult,
    closest_row_anchored,
    least_violation_row_anchored,
)
from navproof.solver.halfplanes import HalfPlanes


@compiled_loop
def _convert_row(point, direction, normal, offset):
    """One row's lines (K, 2) into ``normal = (d.y, -d.x)`` and ``offset = dot(normal, point)``.
    Claim: O2."""
    for j in range(offset.size):
        nx, ny = direction[j, 1], -direction[j, 0]
        normal[j, 0], normal[j, 1] = nx, ny
        offset[j] = nx * point[j, 0] + ny * point[j, 1]


@compiled_loop
def _convert(point, direction, shift, normal, offset, lo, hi):
    """Rows ``lo:hi`` of :func:`_convert_row`; with ``shift`` (M, 2, or (0, 2) for none) each
    row's offsets less ``dot(normal, shift)`` (the half-planes of ``v = w - shift``)."""
    shifted = shift.shape[0] > 0
    for r in range(lo, hi):
        _convert_row(point[r], direction[r], normal[r], offset[r])
        if shifted:
            for j in range(offset.shape[1]):
                offset[r, j] -= normal[r, j, 0] * shift[r, 0] + normal[r, j, 1] * shift[r, 1]


CONVERT_PARALLEL_MIN_ROWS = 4096
"""Rows from which the conversion is shared between threads."""


def to_halfplanes(point: np.ndarray, direction: np.ndarray, valid: np.ndarray, *,
                  shift_mps: np.ndarray | None = None,
                  into: tuple[np.ndarray, np.ndarray] | None = None) -> HalfPlanes:
    """Half-planes (M, K) of RVO2 lines (``point``, unit ``direction``, each (M, K, 2)):
    ``det(d, p - w) <= 0`` is ``dot(n, w) <= dot(n, p)`` with ``n = (d.y, -d.x)``. With
    ``shift_mps`` (M, 2) the half-planes constrain ``v = w - shift`` instead of ``w``. With
    ``into`` (normal (M, K, 2), offset (M, K), e.g. slots of a caller's wider rows) the normals
    and offsets are written there instead of into new arrays."""
    normal, offset = ((np.empty(direction.shape), np.empty(direction.shape[:-1])) if into is None
                      else into)
    shift = (np.empty((0, 2)) if shift_mps is None
             else np.ascontiguousarray(np.broadcast_to(shift_mps, (len(direction), 2)),
                                       dtype=np.float64))
    args = (np.ascontiguousarray(point, dtype=np.float64),
            np.ascontiguousarray(direction, dtype=np.float64), shift, normal, offset)
    run_row_pieces(lambda lo, hi: _convert(*args, lo, hi), offset.shape[0],
                   min_rows=CONVERT_PARALLEL_MIN_ROWS)
    return HalfPlanes(normal, offset, valid)


@compiled_loop
def solve_line_rows(preferred, max_speed, point, direction, valid, num_hard, lo, hi, velocity,
                    feasible, fail_slot, violation):
    """Rows ``lo:hi`` of :func:`solve_lines`: each row's lines become half-planes in a small
    buffer (:func:`_convert_row`; a whole-crowd copy costs a pass over memory per step), then
    the solver's row functions run on it, the exact solve and the least-violation fallback
    with the lines' points as anchors (a line parallel to an earlier one is judged at its
    point, as RVO2 judges it); the row is feasible where the exact solve ran through every
    slot, and ``fail_slot`` is where it stopped (-1 elsewhere), as
    :class:`~navproof.solver.closest.ClosestResult` labels them. Claim: O1, O2, O4."""
    k = valid.shape[1]
    normal, offset = np.empty((k, 2)), np.empty(k)
    out = np.empty(2)
    for r in range(lo, hi):
        anchor = point[r]
        _convert_row(anchor, direction[r], normal, offset)
        fail = closest_row_anchored(normal, offset, anchor, valid[r], max_speed[r], 0.0, 0.0,
                                    math.inf, preferred[r, 0], preferred[r, 1], False, 0.0,
                                    RVO_EPSILON, out)
        feasible[r] = fail == k
        fail_slot[r] = fail if fail >= 0 and fail < k else -1
        violation[r] = 0.0
        if fail >= 0 and fail < k:
            violation[r] = least_violation_row_anchored(normal, offset, anchor, valid[r],
                                                        num_hard[r], fail, max_speed[r], 0.0,
                                                        RVO_EPSILON, out)
        velocity[r, 0], velocity[r, 1] = out[0], out[1]


def solve_lines(preferred_mps: np.ndarray, max_speed_mps: np.ndarray, point: np.ndarray,
                direction: np.ndarray, valid: np.ndarray, num_hard: np.ndarray | None = None, *,
                threads: int = 1) -> ClosestResult:
    """ORCA's closest velocity (m/s) to ``preferred_mps`` (N, 2) within ``max_speed_mps`` (N,)
    and the lines (N, K) in RVO2's convention: RVO2's linearProgram2 over the lines in slot
    order and, where it fails, linearProgram3 relaxing the soft lines (slots ``>= num_hard``)
    evenly while the hard ones (obstacles) hold, labelled infeasible. The one solver
    (:mod:`navproof.solver.closest`) with RVO2's tolerances (violated beyond 0,
    parallel within ``RVO_EPSILON``, a parallel line inside or outside an earlier one at its
    ``point``), so the crowd reproduces the C++ reference's case decisions. ``threads`` > 1
    shares the agents between that many threads (each row is written by one piece).
    Claim: O1, O2, O4.
    """
    preferred = np.ascontiguousarray(preferred_mps, dtype=np.float64)
    n = preferred.shape[0]
    max_speed = (max_speed_mps if getattr(max_speed_mps, "shape", None) == (n,)
                 else np.broadcast_to(max_speed_mps, (n,)))
    args = (preferred, np.ascontiguousarray(max_speed, dtype=np.float64),
            np.ascontiguousarray(point, dtype=np.float64),
            np.ascontiguousarray(direction, dtype=np.float64),
            np.ascontiguousarray(valid, dtype=bool),
            (np.zeros(n, dtype=np.int64) if num_hard is None
             else np.ascontiguousarray(num_hard, dtype=np.int64)))
    outputs = (np.empty((n, 2)), np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.int64),
               np.empty(n))
    bounds = piece_bounds(n, threads)
    run_pieces(lambda i: solve_line_rows(*args, bounds[i], bounds[i + 1], *outputs),
               len(bounds) - 1, threads=threads)
    return ClosestResult(*outputs)


def line_violation(velocity: np.ndarray, line_point: np.ndarray, line_dir: np.ndarray,
                   valid: np.ndarray) -> np.ndarray:
    """Signed violation ``det(dir, point - v)`` (m/s, (N, K)) of every line at ``velocity``
    (N, 2); ``-inf`` where not valid. Claim: O2 (the half-planes of the closest-point problem),
    O4 (largest violation)."""
    px = line_point[..., 0] - velocity[:, None, 0]
    py = line_point[..., 1] - velocity[:, None, 1]
    # det(direction, point - v), computed in place
    py *= line_dir[..., 0]
    px *= line_dir[..., 1]
    py -= px
    np.copyto(py, -np.inf, where=~valid)
    return py
