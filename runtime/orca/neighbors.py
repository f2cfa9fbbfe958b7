"""Agent-neighbour search on a uniform grid: the k nearest agents strictly within a range.

Pure numpy. Agents are bucketed into square cells whose side is the largest query range divided
by ``cells_per_range``, and sorted by cell (O(N log N)). The cells covering an agent's range
form a few strips that are contiguous in the sorted order, so each agent's candidates form one
row of a compact matrix of sorted slots; the work is O(N * c) for c agents per block of cells.
One sort per row finds the distance bounding the k nearest, the rows' chosen candidates are
packed in slot order and sorted stably by distance. Queries can be made for any contiguous range
of the sorted order, which keeps neighbouring agents together in memory and lets chunks run in
parallel threads.

The result follows RVO2's KdTree semantics: at most ``max_neighbors`` agents, each with squared
distance strictly below ``range_m ** 2``, ordered by distance (exact ties, also at the k-th
place: lower grid slot first, where RVO2 keeps its tree traversal order).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

_SCRATCH = threading.local()


def _scratch(name: str, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """A work array of ``shape`` kept per thread between queries (contents undefined).

    The candidate matrices are megabytes; fresh ones each query cost page faults when the
    allocator hands the memory back to the system in between.
    """
    size = int(np.prod(shape))
    buf = getattr(_SCRATCH, name, None)
    if buf is None or buf.size < size or buf.dtype != dtype:
        buf = np.empty(size, dtype)
        setattr(_SCRATCH, name, buf)
    return buf[:size].reshape(shape)


@dataclass(frozen=True)
class AgentGrid:
    """Agents sorted by grid cell, ready for range queries (positions in m)."""

    members: np.ndarray        # agent row of each sorted slot
    sorted_key: np.ndarray     # cell key of each sorted slot
    xpad: np.ndarray           # x of each sorted slot, then +inf at slot M (M + 1,)
    ypad: np.ndarray           # y of each sorted slot, then +inf at slot M (M + 1,)
    members_pad: np.ndarray    # members, then -1 at slot M (M + 1,)
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
    ij -= np.array([ij[:, 0].min(), ij[:, 1].min()])
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
    xpad = np.empty(sorted_member.size + 1)
    ypad = np.empty(sorted_member.size + 1)
    np.take(position[:, 0], sorted_member, out=xpad[:-1])
    np.take(position[:, 1], sorted_member, out=ypad[:-1])
    xpad[-1] = ypad[-1] = np.inf
    return AgentGrid(members=sorted_member, sorted_key=sorted_key, xpad=xpad, ypad=ypad,
                     members_pad=np.append(sorted_member, -1),
                     range_sq=(range_m * range_m)[sorted_member],
                     max_neighbors=max_neighbors[sorted_member], width=width, sub=sub, k=k,
                     cell=cell, slot_of=slot_of, first=first)


def local_density(grid: AgentGrid) -> float:
    """Median over agents of the agent count of their own cell per unit area (1/m^2)."""
    _, inverse, counts = np.unique(grid.sorted_key, return_inverse=True, return_counts=True)
    return float(np.median(counts[inverse])) / (grid.cell * grid.cell)


def range_cell_density(position: np.ndarray, range_m: np.ndarray, max_neighbors: np.ndarray
                       ) -> tuple[float, float] | None:
    """``(cell side m, density 1/m^2)`` of :func:`local_density` on the full-range grid.

    The same cells and counts as ``local_density(build_grid(position, range_m,
    max_neighbors))``, counted without sorting; None where that grid would be None.
    """
    n = position.shape[0]
    if n == 0 or int(max_neighbors.max()) == 0:
        return None
    cell = float(np.max(range_m))
    if not cell > 0.0:
        return None
    ij = np.floor(position * (1.0 / cell)).astype(np.int64)
    ij -= np.array([ij[:, 0].min(), ij[:, 1].min()])
    width = int(ij[:, 1].max()) + 3
    key = (ij[:, 0] + 1) * width + (ij[:, 1] + 1)
    if int(key.max()) <= 8 * n + 1024:
        per_agent = np.bincount(key)[key]
    else:
        _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        per_agent = counts[inverse]
    return cell, float(np.median(per_agent)) / (cell * cell)


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

    Candidates form a compact matrix of sorted slots (one row per agent: its strips one after
    the other in slot order, padded with a slot at infinity), gathered once per cell for the
    agents of that cell. One sort of each row's squared
    distances gives the bound of the answer (the ``max_neighbors``-th distance, or the range);
    the candidates within it are packed in slot order and sorted stably by distance, so exact
    ties, also at the bound, go to the lower slot.
    Claim: O2.
    """
    m = grid.members.size
    rows = slots.size
    keys = grid.sorted_key[slots]
    sub, width = grid.sub, grid.width
    # agents of one cell share their candidates: consecutive slots of equal key form a run
    head = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]])) if rows else (
        np.zeros(0, dtype=np.int64))
    runs = head.size
    run_of = np.repeat(np.arange(runs), np.diff(np.append(head, rows)))
    # the cells (ix + dx, iy - sub .. iy + sub) are consecutive keys: one contiguous strip
    lo_key = keys[head, None] + (np.arange(-sub, sub + 1) * width - sub)[None, :]
    hi_key = lo_key + (2 * sub + 1)
    if grid.first is not None:
        starts, ends = grid.first[lo_key], grid.first[hi_key]
    else:
        starts = np.searchsorted(grid.sorted_key, lo_key, side="left")
        ends = np.searchsorted(grid.sorted_key, hi_key, side="left")
    counts = ends - starts
    strips = starts.shape[1]
    # each run's row holds its strips one after the other, then slot M (at infinity) up to
    # the widest row: one ragged stretch of consecutive slots per strip
    total = counts.sum(axis=1)
    cols = int(total.max()) if rows else 0
    seg = counts.ravel()
    seg_first = np.cumsum(seg) - seg
    ragged = np.arange(int(seg_first[-1] + seg[-1]) if rows else 0)
    cand = np.full((runs, cols), m)
    row_first = seg_first[::strips]
    cand.ravel()[ragged + np.repeat(np.arange(runs) * cols - row_first, total)] = (
        ragged + np.repeat(starts.ravel() - seg_first, seg))
    # candidate positions per run, then one row per agent
    dist_sq = np.take(np.take(grid.xpad, cand), run_of, axis=0,
                      out=_scratch("dist_sq", (rows, cols), np.float64))
    dist_sq -= grid.xpad[slots, None]
    dist_sq *= dist_sq
    dy = np.take(np.take(grid.ypad, cand), run_of, axis=0,
                 out=_scratch("dy", (rows, cols), np.float64))
    dy -= grid.ypad[slots, None]
    dy *= dy
    dist_sq += dy
    # an agent is its own candidate once, in the middle strip
    mid = strips // 2
    own_col = (seg_first[mid::strips] - row_first)[run_of] + (slots - starts[run_of, mid])
    dist_sq[np.arange(rows), own_col] = np.inf
    range_sq = grid.range_sq[slots]
    max_n = grid.max_neighbors[slots]
    kk = min(grid.k, cols)
    take_n = np.minimum(max_n, kk)
    # the take_n-th smallest distance bounds each row's answer, or (strictly) the range does
    has = take_n > 0
    ordered = dy
    np.copyto(ordered, dist_sq)
    ordered.sort(axis=1)
    nth = ordered[np.arange(rows), np.maximum(take_n - 1, 0)]
    nth = np.where(has, nth, -np.inf)
    bound = np.where(nth < range_sq, nth, np.nextafter(range_sq, -np.inf))
    flat = np.flatnonzero(dist_sq <= bound[:, None])
    # the chosen entries of each row, in slot order, packed into a small matrix
    row_of = flat // cols
    per_row = np.bincount(row_of, minlength=rows)
    wide = int(per_row.max()) if flat.size else 0
    dst = row_of * wide + (np.arange(flat.size) - np.repeat(np.cumsum(per_row) - per_row, per_row))
    packed_d = np.full(rows * wide, np.inf)
    packed_d[dst] = dist_sq.ravel()[flat]
    packed_slot = np.full(rows * wide, m)
    packed_slot[dst] = cand.ravel()[run_of[row_of] * cols + (flat - row_of * cols)]
    # a stable sort by distance leaves exact ties to the lower slot; equal distances at the
    # bound beyond take_n (the higher slots) fall off the end
    w = min(kk, wide)
    by_dist = np.argsort(packed_d.reshape(rows, wide), axis=1, kind="stable")[:, :w]
    by_dist += (np.arange(rows) * wide)[:, None]
    out_d = packed_d[by_dist]
    out_slot = packed_slot[by_dist]
    beyond = np.arange(w)[None, :] >= take_n[:, None]
    out_d[beyond] = np.inf
    out_slot[beyond] = m
    cell_sq = grid.cell * grid.cell
    # certified: the range is within the cell, or max_n agents lie closer than the cell side
    certified = ((range_sq <= cell_sq) | (max_n <= 0)
                 | ((max_n <= kk) & (nth < range_sq) & (nth < cell_sq)))
    nb_idx = np.full((rows, grid.k), -1, dtype=np.int64)
    nb_d = np.full((rows, grid.k), np.inf)
    nb_idx[:, :w] = grid.members_pad[out_slot]
    nb_d[:, :w] = out_d
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
