"""Every body within reach of a step: a bound on how far each body can move in one step and the
spatial query that finds every pair whose reach disks meet, whatever ORCA's ``neighbor_dist``
and ``max_neighbors`` are. The sweep (W1), the F2 truncation, the overlap rule (O6) and the
World's agent clearance read this set instead of ORCA's neighbour list, which may be cut short
by ORCA's own range and count (they only decide which ORCA lines are built).

:mod:`navproof.orca.neighbors` answers the k nearest agents within a range (RVO2's semantics,
capped at ``max_neighbors``); this module answers "every pair closer than the sum of their
extents" with no count cap, on a uniform grid, in one compiled loop (:mod:`navproof.core.jit`).
Claim: W1, F2, O6.
"""

from __future__ import annotations

import numpy as np

from navproof.boundary import Support
from navproof.core.jit import compiled_loop
from navproof.core.parallel import piece_bounds, run_pieces, thread_count

REACH_PARALLEL_MIN_BODIES = 4096
"""Queries over at least this many bodies run in threads (smaller ones cost less than a
hand-off)."""

REACH_SLACK_M = 1e-6
"""Added to every extent (m): rounding in the positions never drops a pair at contact."""


def step_reach_m(x0_m: np.ndarray, v0_rel_mps: np.ndarray, v_world_mps: np.ndarray,
                 vh_mps: np.ndarray, accel_mps2: np.ndarray, dt_s: float,
                 support: Support) -> np.ndarray:
    """Upper bound (m, (N,)) on how far each body's centre can get from its start position
    within one step of ``dt_s``, by any motion the step may commit (safe, F1-F3, a handoff's
    access curve) or the constant-velocity prediction the sweep makes of it.

    The relative velocity ramps linearly from ``v0`` (m/s) to an end velocity inside the
    reachable disk (V2) or the speed cap, so its speed stays below ``max(|v0|, Vh) + a dt``; the
    support moves its pivot by at most ``|w| dt + |alpha| dt^2 / 2`` and turns the body's arm
    ``|x0 - c|`` by at most ``min(2, |omega| dt)`` times its length. The prediction moves
    ``|v_world| dt``. Claim: W1, V2, B3, B6.
    """
    m = support.motion
    rel_speed = np.maximum(np.hypot(*v0_rel_mps.T), vh_mps) + accel_mps2 * dt_s
    pivot = np.hypot(*m.velocity_mps.T) * dt_s \
        + 0.5 * np.hypot(*m.acceleration_mps2.T) * dt_s**2
    arm = np.hypot(*(x0_m - m.pivot_m).T)
    turn = np.minimum(2.0, np.abs(m.omega_radps) * dt_s) * arm
    moved = rel_speed * dt_s + pivot + turn
    return np.maximum(moved, np.hypot(*v_world_mps.T) * dt_s)


def executed_reach_m(x0_m: np.ndarray, mid_m: np.ndarray, x1_m: np.ndarray) -> np.ndarray:
    """Upper bound (m, (N,)) on the distance from ``x0`` of the executed curve through the start,
    middle and end points (the quadratic ``x0 + B tau + A tau^2``, tau in [0, 1]): ``|B| + |A|``.
    Claim: W1."""
    b = 4.0 * (mid_m - x0_m) - (x1_m - x0_m)
    a = 2.0 * (x1_m - x0_m) - 4.0 * (mid_m - x0_m)
    return np.hypot(*b.T) + np.hypot(*a.T)


def bodies_within_reach(position_m: np.ndarray, extent_m: np.ndarray) -> np.ndarray:
    """Every other body j with ``|x_i - x_j| <= extent_i + extent_j`` (plus REACH_SLACK_M) for
    each body i: indices (N, J) sorted by index, padded with -1; J is the largest count (0 when
    no pair meets). No range or count cap. ``extent_m`` (N,) is, for the step, the body's reach
    plus its radius. Claim: W1, O6."""
    pos = np.ascontiguousarray(position_m, dtype=np.float64)
    n = pos.shape[0]
    ext = np.ascontiguousarray(extent_m, dtype=np.float64) + REACH_SLACK_M
    if n < 2:
        return np.full((n, 0), -1, np.int64)
    cell = 2.0 * float(ext.max())
    ij = np.floor(pos / cell).astype(np.int64)
    ij -= ij.min(axis=0)
    ny = int(ij[:, 1].max()) + 3
    key = (ij[:, 0] + 1) * ny + (ij[:, 1] + 1)
    order = np.argsort(key, kind="stable").astype(np.int64)
    sorted_key = np.ascontiguousarray(key[order])
    count = np.zeros(n, np.int64)
    threads = thread_count(n, REACH_PARALLEL_MIN_BODIES)
    bounds = piece_bounds(n, threads)
    none = np.zeros((n, 0), np.int64)
    run_pieces(lambda k: _pairs(pos, ext, key, order, sorted_key, ny, count, none, False,
                                bounds[k], bounds[k + 1]), len(bounds) - 1, threads=threads)
    out = np.full((n, int(count.max())), -1, np.int64)
    if out.shape[1]:
        run_pieces(lambda k: _pairs(pos, ext, key, order, sorted_key, ny, count, out, True,
                                    bounds[k], bounds[k + 1]), len(bounds) - 1, threads=threads)
    return out


@compiled_loop
def _pairs(pos, ext, key, order, sorted_key, ny, count, out, fill, s_lo, s_hi):
    """Count (``fill`` False) or write in increasing order (True) the bodies whose extent disk
    meets each body's, for the bodies ``order[s_lo:s_hi]`` (in cell order): the 3 x 3 cells
    around a body's own (cells are twice the largest extent). The three column ranges of
    cells move forward with the body's cell, so they are found by walking, not searching.
    Claim: W1."""
    n = sorted_key.shape[0]
    start = np.empty(3, np.int64)
    stop = np.empty(3, np.int64)
    for dx in range(3):
        if s_lo < s_hi:
            lo_key = key[order[s_lo]] + (dx - 1) * ny - 1
            start[dx] = np.searchsorted(sorted_key, lo_key)
            stop[dx] = np.searchsorted(sorted_key, lo_key + 3)
    for s in range(s_lo, s_hi):
        i = order[s]
        found = 0
        for dx in range(3):
            lo_key = key[i] + (dx - 1) * ny - 1
            a = start[dx]
            while a < n and sorted_key[a] < lo_key:
                a += 1
            b = stop[dx] if stop[dx] > a else a
            while b < n and sorted_key[b] < lo_key + 3:
                b += 1
            start[dx], stop[dx] = a, b
            for t in range(a, b):
                j = order[t]
                if j == i:
                    continue
                ddx = pos[j, 0] - pos[i, 0]
                ddy = pos[j, 1] - pos[i, 1]
                reach = ext[i] + ext[j]
                if ddx * ddx + ddy * ddy <= reach * reach:
                    if fill:
                        # insertion into the row's sorted prefix
                        at = found
                        while at > 0 and out[i, at - 1] > j:
                            out[i, at] = out[i, at - 1]
                            at -= 1
                        out[i, at] = j
                    found += 1
        count[i] = found
