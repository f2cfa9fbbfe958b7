"""Agent-neighbour search on a uniform grid: the k nearest agents strictly within a range.

Pure numpy. Agents are bucketed into square cells whose side is the largest query range, sorted
by cell (O(N log N)); each agent then reads the 3 x 3 block of cells around it, so the work is
O(N * c) for c agents per cell block, and the selection of the k nearest is a partial sort per
row. The result follows RVO2's KdTree semantics: at most ``max_neighbors`` agents, each with
squared distance strictly below ``range_m ** 2``, ordered by distance.
"""

from __future__ import annotations

import numpy as np

_OFFSETS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]


def agent_neighbors(position: np.ndarray, range_m: np.ndarray, max_neighbors: np.ndarray,
                    *, active: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Indices (N, k) and squared distances (m^2) of each agent's nearest neighbours.

    ``range_m (N,)`` neighbour distance in metres, ``max_neighbors (N,)`` ints, ``active (N,)``
    optional mask of agents that take part (removed agents are neither queried nor found).
    Rows are sorted by distance and padded with index -1 and distance ``inf``; ``k`` is the
    largest ``max_neighbors``. Self is never its own neighbour.
    Claim: O2 (the constraint set is the one RVO2 would build).
    """
    position = np.asarray(position, dtype=np.float64)
    n = position.shape[0]
    k = int(max_neighbors.max()) if n else 0
    if active is None:
        active = np.ones(n, dtype=bool)
    if n == 0 or k == 0 or not active.any():
        return np.full((n, k), -1, dtype=np.int64), np.full((n, k), np.inf)
    members = np.flatnonzero(active)
    range_sq = range_m * range_m
    cell = float(np.max(range_m[members]))
    if not cell > 0.0:
        return np.full((n, k), -1, dtype=np.int64), np.full((n, k), np.inf)
    inv_cell = 1.0 / cell
    ij = np.floor(position[members] * inv_cell).astype(np.int64)
    ij -= ij.min(axis=0)
    # a spare row above and below each column so that iy +- 1 never wraps into the next column
    width = int(ij[:, 1].max()) + 3
    key = (ij[:, 0] + 1) * width + (ij[:, 1] + 1)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    sorted_member = members[order]
    spos = position[sorted_member]
    # the three cells (ix + dx, iy - 1 .. iy + 1) are consecutive keys: one contiguous strip
    starts = []
    counts = []
    for dx in (-1, 0, 1):
        lo = np.searchsorted(sorted_key, sorted_key + dx * width - 1, side="left")
        hi = np.searchsorted(sorted_key, sorted_key + dx * width + 1, side="right")
        starts.append(lo)
        counts.append(hi - lo)
    cap = int(max(int(c.max()) for c in counts))
    lane = np.arange(cap)
    m = sorted_member.size
    blocks = []
    for lo, cnt in zip(starts, counts, strict=True):
        slot = lo[:, None] + lane[None, :]
        blocks.append(np.where(lane[None, :] < cnt[:, None], slot, -1))
    cand = np.concatenate(blocks, axis=1)
    safe = np.where(cand >= 0, cand, 0)
    diff_x = spos[safe, 0] - spos[:, 0, None]
    diff_y = spos[safe, 1] - spos[:, 1, None]
    dist_sq = diff_x * diff_x + diff_y * diff_y
    ok = (cand >= 0) & (cand != np.arange(m)[:, None]) & (
        dist_sq < range_sq[sorted_member][:, None])
    dist_sq = np.where(ok, dist_sq, np.inf)
    kk = min(k, cand.shape[1])
    if kk < cand.shape[1]:
        part = np.argpartition(dist_sq, kk - 1, axis=1)[:, :kk]
        part_d = np.take_along_axis(dist_sq, part, axis=1)
        part_i = np.take_along_axis(cand, part, axis=1)
    else:
        part_d, part_i = dist_sq, cand
    # ties by distance keep the lower sorted slot first, deterministic across runs
    sel = np.argsort(part_d, axis=1, kind="stable")
    out_d = np.take_along_axis(part_d, sel, axis=1)
    out_i = sorted_member[np.maximum(np.take_along_axis(part_i, sel, axis=1), 0)]
    members = sorted_member
    limit = np.arange(kk)[None, :] < max_neighbors[members][:, None]
    finite = np.isfinite(out_d) & limit
    out_i = np.where(finite, out_i, -1)
    out_d = np.where(finite, out_d, np.inf)
    nb_idx = np.full((n, k), -1, dtype=np.int64)
    nb_d = np.full((n, k), np.inf)
    nb_idx[members, :kk] = out_i
    nb_d[members, :kk] = out_d
    return nb_idx, nb_d
