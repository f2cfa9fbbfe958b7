"""Reference velocity r and stop target vStop of every agent (seed 000, R1-R3).

r (m/s, world) minimises |r - u| subject to dot(n_i, r - e_i) <= 0 for every edge: after
braking to c = u + v - r = 0 the body drifts with r and no edge margin shrinks (R3). The stop
target relative to the support is vStop = r - u; it is reachable only when |vStop| <= Vh (R2),
otherwise the agent carries the label "support carry exceeds cancel capacity".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navproof._generated.formulas import stop_target_margin
from navproof.boundary.edges import EdgeSet
from navproof.boundary.motion import Support
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.parallel import run_row_pieces
from navproof.core.tolerances import EPS, RVO_EPSILON
from navproof.core.validation import check_valid_finite, floats_of_shape
from navproof.core.vec2 import dot2
from navproof.solver.closest import SOLVE_PARALLEL_MIN_ROWS, closest_row

CARRY_EXCEEDS_CANCEL = "support carry exceeds cancel capacity"
NO_REFERENCE = "no reference velocity keeps every edge"

REFERENCE_SEARCH_RADIUS_MPS = 1.0e3
"""Radius (m/s) of the disk around u searched for r; far above any profile speed."""


@dataclass(frozen=True)
class Reference:
    """Per agent: reference r (m/s, (N, 2) world), vStop = r - u (m/s, relative to the support),
    ``exists`` (N,) when some r satisfies every edge, ``reachable`` (N,) when also |vStop| <= Vh,
    and ``stop_margin_mps`` (N,) = Vh - |vStop|. Claim: R1, R2."""

    r_mps: np.ndarray
    v_stop_mps: np.ndarray
    exists: np.ndarray
    reachable: np.ndarray
    stop_margin_mps: np.ndarray


def reference_velocity(edges: EdgeSet, support: Support, x0_m: np.ndarray,
                       vh_mps: np.ndarray, *, certified: np.ndarray | None = None
                       ) -> Reference:
    """Reference velocity r (R1), stop target vStop and its reachability (R2) for every agent.

    The closest point to u of the edge half-planes is unique, so the tie rule "by edge ID" only
    fixes the order in which the constraints are processed: edges are fed sorted by edge ID,
    which makes the result reproducible bit for bit. All edges fixed gives r = 0; all edges
    co-moving with u gives r = u. Walls in ``certified`` (N, K) leave the constraints: next to
    rotating or differently accelerating motion their stop and the hold at rest on the support
    are certified in the wall's local frame (B6), so for them the reference is the rest on the
    support, a velocity that turns or accelerates with it (r(t) = u(t)), not a constant r.
    Claim: R1, R2, B6.
    """
    x0 = check_valid_finite("x0_m", x0_m)
    vh = check_valid_finite("vh_mps", vh_mps)
    u = support.carry_mps(x0)
    e = edges.edge_velocity_mps(x0)
    # in w = r - u: dot(n, w) <= dot(n, e - u)
    return reference_from_offsets(edges, u, dot2(edges.normal, e - u[:, None, :]), vh,
                                  certified=certified)


@inlined_loop
def _origin_inside(normal, offset, walls, tol):
    """True when the origin violates none of one row's walls by more than ``tol``, in the test
    :func:`navproof.solver.closest.closest_row` applies to its start point (the origin)."""
    for j in range(offset.size):
        if walls[j] and (normal[j, 0] * 0.0 + normal[j, 1] * 0.0) - offset[j] > tol:
            return False
    return True


@compiled_loop
def _reference_rows(normal, offset, walls, edge_id, u, vh, eps, tol, parallel_det, lo, hi, r,
                    v_stop, exists, margin):
    """Rows ``lo:hi`` of :func:`reference_from_offsets`: each row's walls in edge-ID order (a
    stable insertion sort, the order of a stable argsort), the closest point ``w`` to 0 of
    ``dot(n, w) <= dot(n, e - u)`` (:func:`navproof.solver.closest.closest_row`, RVO2's
    tolerances; the origin itself, without sorting, where it violates no wall), its check
    against every wall, r = u + w where it exists (else u),
    vStop = r - u and the margin of R2. Claim: R1, R2."""
    k = offset.shape[1]
    row_normal, row_offset = np.empty((k, 2)), np.empty(k)
    row_valid = np.empty(k, dtype=np.bool_)
    key, order = np.empty(k, dtype=np.int64), np.empty(k, dtype=np.int64)
    w = np.empty(2)
    unkeyed = np.iinfo(np.int64).max
    for i in range(lo, hi):
        if _origin_inside(normal[i], offset[i], walls[i], tol):
            # closest_row starts at the origin and moves only at a wall it violates: with
            # none, in any order, it returns the origin itself
            w[0], w[1] = 0.0, 0.0
            found = True
        else:
            for j in range(k):
                key[j] = edge_id[i, j] if walls[i, j] else unkeyed
                at = j
                while at > 0 and key[order[at - 1]] > key[j]:
                    order[at] = order[at - 1]
                    at -= 1
                order[at] = j
            for j in range(k):
                src = order[j]
                row_normal[j, 0], row_normal[j, 1] = normal[i, src, 0], normal[i, src, 1]
                row_offset[j], row_valid[j] = offset[i, src], walls[i, src]
            found = closest_row(row_normal, row_offset, row_valid, REFERENCE_SEARCH_RADIUS_MPS,
                                0.0, 0.0, math.inf, 0.0, 0.0, False, tol, parallel_det, w) == k
        # every wall checked (in any order: the verdict is the same)
        for j in range(k):
            if found and walls[i, j] and not (
                    (normal[i, j, 0] * w[0] + normal[i, j, 1] * w[1]) - offset[i, j] <= eps):
                found = False
        ux, uy = u[i, 0], u[i, 1]
        rx, ry = (ux + w[0], uy + w[1]) if found else (ux, uy)
        r[i, 0], r[i, 1] = rx, ry
        sx, sy = rx - ux, ry - uy
        v_stop[i, 0], v_stop[i, 1] = sx, sy
        exists[i] = found
        margin[i] = stop_target_margin(vh=vh[i], carry=math.sqrt(sx * sx + sy * sy))


def reference_from_offsets(edges: EdgeSet, u_mps: np.ndarray, n_dot_e_minus_u: np.ndarray,
                           vh_mps: np.ndarray, *, certified: np.ndarray | None = None
                           ) -> Reference:
    """:func:`reference_velocity` from the support carry u (N, 2) and the normal components
    dot(n, e - u) (N, K) of every edge, for callers that computed them already: one compiled
    pass over the rows (:func:`_reference_rows`).
    Claim: R1, R2, B6."""
    # walls only: drifting through a portal into the next same-gradient region is allowed
    walls = edges.wall if certified is None else edges.wall & ~certified
    rows, k = walls.shape
    r, v_stop, exists, margin = np.empty((rows, 2)), np.empty((rows, 2)), \
        np.empty(rows, dtype=bool), np.empty(rows)
    args = (floats_of_shape(edges.normal, (rows, k, 2)),
            np.asarray(n_dot_e_minus_u, dtype=np.float64), np.asarray(walls, dtype=bool),
            np.asarray(edges.edge_id, dtype=np.int64), np.asarray(u_mps, dtype=np.float64),
            floats_of_shape(vh_mps, (rows,)), EPS, 0.0, RVO_EPSILON)
    # RVO2's tolerances, as the crowd: a wall counts as violated beyond 0 m/s
    if rows < SOLVE_PARALLEL_MIN_ROWS:
        # run_row_pieces' one piece, called directly
        _reference_rows(*args, 0, rows, r, v_stop, exists, margin)
    else:
        run_row_pieces(lambda lo, hi: _reference_rows(*args, lo, hi, r, v_stop, exists, margin),
                       rows, min_rows=SOLVE_PARALLEL_MIN_ROWS)
    return Reference(r, v_stop, exists, exists & (margin >= -EPS), margin)


def holding_margin_rate_mps(edges: EdgeSet, x0_m: np.ndarray, r_mps: np.ndarray) -> np.ndarray:
    """Rate (m/s, (N, K)) at which each edge margin changes while holding at r: dot(n, e - r).
    Non-negative everywhere means holding never decreases a margin. Claim: R3."""
    e = edges.edge_velocity_mps(x0_m)
    rate = dot2(edges.normal, e - r_mps[:, None, :])
    return np.where(edges.wall, rate, np.inf)
