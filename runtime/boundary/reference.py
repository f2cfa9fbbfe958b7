"""Reference velocity r and stop target vStop of every agent (seed 000, R1-R3).

r (m/s, world) minimises |r - u| subject to dot(n_i, r - e_i) <= 0 for every edge: after
braking to c = u + v - r = 0 the body drifts with r and no edge margin shrinks (R3). The stop
target relative to the support is vStop = r - u; it is reachable only when |vStop| <= Vh (R2),
otherwise the agent carries the label "support carry exceeds cancel capacity".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof._generated import formulas
from navproof.boundary.edges import EdgeSet
from navproof.boundary.motion import Support
from navproof.core.tolerances import EPS, RVO_EPSILON
from navproof.core.validation import check_valid_finite
from navproof.core.vec2 import dot2
from navproof.solver.closest import closest_point
from navproof.solver.halfplanes import HalfPlanes

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


def reference_from_offsets(edges: EdgeSet, u_mps: np.ndarray, n_dot_e_minus_u: np.ndarray,
                           vh_mps: np.ndarray, *, certified: np.ndarray | None = None
                           ) -> Reference:
    """:func:`reference_velocity` from the support carry u (N, 2) and the normal components
    dot(n, e - u) (N, K) of every edge, for callers that computed them already.
    Claim: R1, R2, B6."""
    u, n = u_mps, edges.normal
    # walls only: drifting through a portal into the next same-gradient region is allowed
    walls = edges.wall if certified is None else edges.wall & ~certified
    key = np.where(walls, edges.edge_id, np.iinfo(np.int64).max)
    offset = n_dot_e_minus_u
    if not np.all(key[:, 1:] >= key[:, :-1]):
        # edges fed sorted by edge ID (a stable sort: equal keys keep their order; keys in
        # order already need no reordering)
        order = np.argsort(key, axis=1, kind="stable")
        n = np.take_along_axis(n, order[..., None], axis=1)
        walls = np.take_along_axis(walls, order, axis=1)
        offset = np.take_along_axis(offset, order, axis=1)
    valid = walls
    # RVO2's tolerances, as the crowd: a wall counts as violated beyond 0 m/s
    res = closest_point(np.zeros_like(u), HalfPlanes(n, offset, valid),
                        np.full(u.shape[0], REFERENCE_SEARCH_RADIUS_MPS), tol_mps=0.0,
                        parallel_det=RVO_EPSILON)
    w = res.velocity
    viol = dot2(n, w[:, None, :]) - offset
    exists = res.feasible & np.all(~valid | (viol <= EPS), axis=1)
    r = np.where(exists[:, None], u + w, u)
    v_stop = r - u
    margin = formulas.stop_target_margin(vh=vh_mps, carry=np.linalg.norm(v_stop, axis=1))
    return Reference(r, v_stop, exists, exists & (margin >= -EPS), margin)


def holding_margin_rate_mps(edges: EdgeSet, x0_m: np.ndarray, r_mps: np.ndarray) -> np.ndarray:
    """Rate (m/s, (N, K)) at which each edge margin changes while holding at r: dot(n, e - r).
    Non-negative everywhere means holding never decreases a margin. Claim: R3."""
    e = edges.edge_velocity_mps(x0_m)
    rate = dot2(edges.normal, e - r_mps[:, None, :])
    return np.where(edges.wall, rate, np.inf)
