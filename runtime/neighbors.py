"""Agent-neighbour search on a uniform grid: the k nearest agents strictly within a range.

Pure numpy. Agents are bucketed into square cells whose side is the largest query range divided
by ``cells_per_range``, and sorted by cell (O(N log N)). The cells covering an agent's range
form a few strips that are contiguous in the sorted order, so candidates are read as sliding
windows; the work is O(N * c) for c agents per block of cells, and the k nearest are picked by
a partial sort per row. Queries can be made for any contiguous range of the sorted order, which
keeps neighbouring agents together in memory and lets chunks run in parallel threads.

The result follows RVO2's KdTree semantics: at most ``max_neighbors`` agents, each with squared
distance strictly below ``range_m ** 2``, ordered by distance (exact ties: lower grid slot
first, where RVO2 keeps its tree traversal order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AgentGrid:
    """Agents sorted by grid cell, ready for range queries (positions in m)."""

    members: np.ndarray        # agent row of each sorted slot
    sorted_key: np.ndarray     # cell key of each sorted slot
    spos: np.ndarray           # positions in sorted order (M, 2)
    range_sq: np.ndarray       # squared query range of each sorted slot (m^2)
    max_neighbors: np.ndarray  # per sorted slot
    width: int                 # key stride between grid columns
    sub: int                   # cells per range
    k: int                     # largest max_neighbors
    cell: float                # cell side (m)
    slot_of: np.ndarray        # sorted slot of each agent row (-1: not in the grid)
    first: np.ndarray | None   # first sorted slot of every key, when the key space is small


def build_grid(position: np.ndarray, range_m: np.ndarray, max_neighbors: np.ndarray, *,
               active: np.ndarray | None = None, cells_per_range: int = 1,
               cell_m: float | None = None) -> AgentGrid | None:
    """Sort the active agents by grid cell; None when nobody can have a neighbour.

    The cell side is ``max(range) / cells_per_range`` unless ``cell_m`` (m) is given; with
    ``cell_m`` below the range, :func:`query_slots` flags the agents whose answer it cannot
    certify from that cell size alone.
    """
    n = position.shape[0]
    k = int(max_neighbors.max()) if n else 0
    if active is None:
        active = np.ones(n, dtype=bool)
    if n == 0 or k == 0 or not active.any():
        return None
    members = np.flatnonzero(active)
    sub = int(cells_per_range)
    cell = float(np.max(range_m[members])) / sub if cell_m is None else float(cell_m)
    if not cell > 0.0:
        return None
    ij = np.floor(position[members] * (1.0 / cell)).astype(np.int64)
    ij -= ij.min(axis=0)
    # spare rows above and below each column so that iy +- sub never wraps into the next one
    width = int(ij[:, 1].max()) + 2 * sub + 1
    key = (ij[:, 0] + sub) * width + (ij[:, 1] + sub)
    order = np.argsort(key, kind="stable")
    sorted_member = members[order]
    slot_of = np.full(n, -1, dtype=np.int64)
    slot_of[sorted_member] = np.arange(sorted_member.size)
    sorted_key = key[order]
    # a direct table of strip bounds replaces binary searches when the grid is compact
    key_space = int(sorted_key[-1]) + sub * width + sub + 2
    first = (np.searchsorted(sorted_key, np.arange(key_space), side="left")
             if key_space <= 8 * sorted_member.size + 1024 else None)
    return AgentGrid(members=sorted_member, sorted_key=sorted_key, spos=position[sorted_member],
                     range_sq=(range_m * range_m)[sorted_member],
                     max_neighbors=max_neighbors[sorted_member], width=width, sub=sub, k=k,
                     cell=cell, slot_of=slot_of, first=first)


def local_density(grid: AgentGrid) -> float:
    """Median over agents of the agent count of their own cell per unit area (1/m^2)."""
    _, inverse, counts = np.unique(grid.sorted_key, return_inverse=True, return_counts=True)
    return float(np.median(counts[inverse])) / (grid.cell * grid.cell)


def query_grid(grid: AgentGrid, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """Neighbours (agent rows, squared distances m^2) of sorted slots ``lo:hi``, shape (hi-lo, k).

    Sorted by distance, padded with -1 / inf. Claim: O2 (the constraint set RVO2 builds).
    """
    nb_idx, nb_d, _ = query_slots(grid, np.arange(lo, hi))
    return nb_idx, nb_d


def query_slots(grid: AgentGrid, slots: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Neighbours of the agents at sorted ``slots``: (agent rows, squared distances, certified).

    The block of cells read around an agent covers the disc of radius ``cell`` (and more), so
    the answer is certified exact when the agent's range is at most the cell side, or when at
    least ``max_neighbors`` agents lie closer than the cell side (everything unread is
    farther). Uncertified rows must be asked again on a grid with cells as large as the range.
    Claim: O2.
    """
    m = grid.members.size
    keys = grid.sorted_key[slots]
    own = slots
    sx, sy = grid.spos[slots, 0, None], grid.spos[slots, 1, None]
    # the cells (ix + dx, iy - sub .. iy + sub) are consecutive keys: one contiguous strip
    starts, counts = [], []
    for dx in range(-grid.sub, grid.sub + 1):
        if grid.first is not None:
            a = grid.first[keys + (dx * grid.width - grid.sub)]
            b = grid.first[keys + (dx * grid.width + grid.sub + 1)]
        else:
            a = np.searchsorted(grid.sorted_key, keys + dx * grid.width - grid.sub, side="left")
            b = np.searchsorted(grid.sorted_key, keys + dx * grid.width + grid.sub,
                                side="right")
        starts.append(a)
        counts.append(b - a)
    cap = max(int(c.max()) for c in counts)
    strips = len(starts)
    rows = slots.size
    lane = np.arange(cap)
    pad = np.full(cap, np.inf)
    # candidate slots are contiguous: gather them as sliding windows over the sorted positions
    win_x = np.lib.stride_tricks.sliding_window_view(np.concatenate([grid.spos[:, 0], pad]), cap)
    win_y = np.lib.stride_tricks.sliding_window_view(np.concatenate([grid.spos[:, 1], pad]), cap)
    range_sq = grid.range_sq[slots, None]
    dist_sq = np.empty((rows, strips * cap))
    for j, (a, cnt) in enumerate(zip(starts, counts, strict=True)):
        block = dist_sq[:, j * cap:(j + 1) * cap]
        dy = win_y[a] - sy
        np.subtract(win_x[a], sx, out=block)
        np.multiply(block, block, out=block)
        np.multiply(dy, dy, out=dy)
        np.add(block, dy, out=block)
        np.copyto(block, np.inf, where=(lane[None, :] >= cnt[:, None]) | (block >= range_sq))
    # an agent is its own candidate once, in the middle strip
    mid = strips // 2
    dist_sq[np.arange(rows), mid * cap + (own - starts[mid])] = np.inf
    kk = min(grid.k, dist_sq.shape[1])
    row_base = (np.arange(rows) * dist_sq.shape[1])[:, None]
    if kk < dist_sq.shape[1]:
        col = np.argpartition(dist_sq, kk - 1, axis=1)[:, :kk]
        part_d = dist_sq.ravel()[row_base + col]
    else:
        col = np.broadcast_to(np.arange(kk), (rows, kk))
        part_d = dist_sq
    sel = np.argsort(part_d, axis=1, kind="stable")
    flat_sel = (np.arange(rows) * kk)[:, None] + sel
    out_d = part_d.ravel()[flat_sel]
    col = col.ravel()[flat_sel]
    strip, lane_of = np.divmod(col, cap)
    start_table = np.stack(starts)
    slot = start_table[strip, np.arange(rows)[:, None]] + lane_of
    out_i = grid.members[np.minimum(slot, m - 1)]
    max_n = grid.max_neighbors[slots]
    keep = np.isfinite(out_d) & (np.arange(kk)[None, :] < max_n[:, None])
    cell_sq = grid.cell * grid.cell
    near = np.count_nonzero(out_d < cell_sq, axis=1)
    certified = (grid.range_sq[slots] <= cell_sq) | (near >= max_n)
    nb_idx = np.full((rows, grid.k), -1, dtype=np.int64)
    nb_d = np.full((rows, grid.k), np.inf)
    nb_idx[:, :kk] = np.where(keep, out_i, -1)
    nb_d[:, :kk] = np.where(keep, out_d, np.inf)
    return nb_idx, nb_d, certified


def agent_neighbors(position: np.ndarray, range_m: np.ndarray, max_neighbors: np.ndarray,
                    *, active: np.ndarray | None = None, cells_per_range: int = 1
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Indices (N, k) and squared distances (m^2) of each agent's nearest neighbours.

    ``range_m (N,)`` neighbour distance in metres, ``max_neighbors (N,)`` ints, ``active (N,)``
    optional mask of agents that take part (inactive agents are neither queried nor found).
    Rows are sorted by distance and padded with index -1 and distance ``inf``; ``k`` is the
    largest ``max_neighbors``. Self is never its own neighbour.
    Claim: O2 (the constraint set is the one RVO2 would build).
    """
    position = np.asarray(position, dtype=np.float64)
    n = position.shape[0]
    k = int(max_neighbors.max()) if n else 0
    nb_idx = np.full((n, k), -1, dtype=np.int64)
    nb_d = np.full((n, k), np.inf)
    grid = build_grid(position, range_m, max_neighbors, active=active,
                      cells_per_range=cells_per_range)
    if grid is None:
        return nb_idx, nb_d
    idx, d = query_grid(grid, 0, grid.members.size)
    nb_idx[grid.members] = idx
    nb_d[grid.members] = d
    return nb_idx, nb_d
