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
    range_sq = np.where(active, range_m * range_m, 0.0)
    cell = float(np.max(range_m[members]))
    if not cell > 0.0:
        return np.full((n, k), -1, dtype=np.int64), np.full((n, k), np.inf)
    inv_cell = 1.0 / cell
    ij = np.floor(position[members] * inv_cell).astype(np.int64)
    ij -= ij.min(axis=0)
    width = int(ij[:, 1].max()) + 3
    key = (ij[:, 0] + 1) * width + (ij[:, 1] + 1)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    sorted_member = members[order]
    # per-agent cell key, and the occupancy bound that sizes the candidate block
    agent_key = np.full(n, -1, dtype=np.int64)
    agent_key[members] = key
    uniq, starts, counts = np.unique(sorted_key, return_index=True, return_counts=True)
    cap = int(counts.max())
    lane = np.arange(cap)
    blocks = []
    for dx, dy in _OFFSETS:
        target = agent_key[members] + dx * width + dy
        pos_in_uniq = np.searchsorted(uniq, target)
        pos_in_uniq = np.minimum(pos_in_uniq, uniq.size - 1)
        hit = uniq[pos_in_uniq] == target
        start = np.where(hit, starts[pos_in_uniq], 0)
        count = np.where(hit, counts[pos_in_uniq], 0)
        slot = start[:, None] + lane[None, :]
        idx = np.where(lane[None, :] < count[:, None], sorted_member[np.minimum(slot, members.size - 1)],
                       -1)
        blocks.append(idx)
    cand = np.concatenate(blocks, axis=1)
    safe = np.where(cand >= 0, cand, 0)
    diff_x = position[safe, 0] - position[members, 0][:, None]
    diff_y = position[safe, 1] - position[members, 1][:, None]
    dist_sq = diff_x * diff_x + diff_y * diff_y
    ok = (cand >= 0) & (cand != members[:, None]) & (dist_sq < range_sq[members][:, None])
    dist_sq = np.where(ok, dist_sq, np.inf)
    kk = min(k, cand.shape[1])
    if kk < cand.shape[1]:
        part = np.argpartition(dist_sq, kk - 1, axis=1)[:, :kk]
    else:
        part = np.broadcast_to(np.arange(cand.shape[1]), cand.shape).copy()
    part_d = np.take_along_axis(dist_sq, part, axis=1)
    part_i = np.take_along_axis(cand, part, axis=1)
    # ties by distance keep the lower agent index first, deterministic across runs
    sel = np.lexsort((part_i, part_d), axis=1) if part_d.size else part
    out_d = np.take_along_axis(part_d, sel, axis=1)
    out_i = np.take_along_axis(part_i, sel, axis=1)
    limit = np.arange(kk)[None, :] < max_neighbors[members][:, None]
    finite = np.isfinite(out_d) & limit
    out_i = np.where(finite, out_i, -1)
    out_d = np.where(finite, out_d, np.inf)
    nb_idx = np.full((n, k), -1, dtype=np.int64)
    nb_d = np.full((n, k), np.inf)
    nb_idx[members, :kk] = out_i
    nb_d[members, :kk] = out_d
    return nb_idx, nb_d
