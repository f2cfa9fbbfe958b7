"""Agent-neighbour search on a uniform grid: the k nearest agents strictly within a range.

Agents are bucketed into square cells (side: the largest query range divided by
``cells_per_range``) and sorted by cell, column by column (O(N log N), numpy). One compiled
loop (:mod:`navproof.core.jit`) then answers each agent: it reads whole columns of cells at a
time, the agent's own column first and then outwards, and keeps the best ``max_neighbors``
candidates by insertion, as RVO2's KdTree does. The rows and columns it reads shrink as the
k-th distance found so far shrinks, so in a dense crowd it reads little beyond the answer;
every agent that could beat the k-th is read, so the answer is exact for any cell size.

The result follows RVO2's KdTree semantics: at most ``max_neighbors`` agents, each with squared
distance strictly below ``range_m ** 2``, ordered by distance (exact ties, also at the k-th
place: lower grid slot first, where RVO2 keeps its tree traversal order). Each agent's answer
depends only on the snapshot, so any split of the agents into pieces (and threads) gives the
same bits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navproof.core.jit import compiled_loop
from navproof.core.tolerances import SEARCH_REACH_REL as _REACH_REL

CELLS_PER_RANGE = 2
"""Default cells per query range: small cells let a dense crowd read little beyond the answer."""

@dataclass(frozen=True)
class AgentGrid:
    """Agents sorted by grid cell, ready for range queries (positions in m).

    Cell ``(ix, iy)`` of a point ``p`` is ``floor(p * inv_cell_per_m) - (ix0, iy0)``; its key
    ``ix * ny + iy`` orders the sorted slots.
    """

    members: np.ndarray        # agent row of each sorted slot
    sorted_key: np.ndarray     # cell key of each sorted slot
    x_m: np.ndarray            # x of each sorted slot
    y_m: np.ndarray            # y of each sorted slot
    range_sq: np.ndarray       # squared query range of each sorted slot (m^2)
    max_neighbors: np.ndarray  # per sorted slot
    nx: int                    # grid columns
    ny: int                    # cells per column
    ix0: int                   # column of the leftmost agent before shifting
    iy0: int                   # row of the lowest agent before shifting
    inv_cell_per_m: float      # 1 / cell side
    k: int                     # largest max_neighbors
    cell: float                # cell side (m)
    slot_of: np.ndarray        # sorted slot of each agent row (-1: not in the grid)
    first: np.ndarray          # first sorted slot of every key (empty when the grid is sparse)
    column_first: np.ndarray   # first sorted slot of every column (empty when very sparse)


def build_grid(position: np.ndarray, range_m: np.ndarray, max_neighbors: np.ndarray, *,
               active: np.ndarray | None = None,
               cells_per_range: int = CELLS_PER_RANGE) -> AgentGrid | None:
    """Sort the active agents by grid cell; None when nobody can have a neighbour.

    The cell side is ``max(range) / cells_per_range`` over the active agents.
    """
    n = position.shape[0]
    k = int(max_neighbors.max()) if n else 0
    if n == 0 or k == 0 or (active is not None and not active.any()):
        return None
    if active is None:
        members = np.arange(n)
        cell = float(np.max(range_m)) / int(cells_per_range)
    else:
        members = np.flatnonzero(active)
        cell = float(np.max(range_m[members])) / int(cells_per_range)
    if not cell > 0.0:
        return None
    inv_cell = 1.0 / cell
    # a direct table of cell bounds replaces binary searches when the grid is compact; else a
    # table of column bounds leaves short searches within one column
    table_max = 8 * members.size + 1024
    (sorted_member, sorted_key, x_m, y_m, range_sq, max_n, slot_of, first, column_first, nx,
     ny, ix0, iy0) = sort_into_cells(np.asarray(position, dtype=np.float64), members,
                                     np.asarray(range_m, dtype=np.float64),
                                     np.asarray(max_neighbors), inv_cell, table_max)
    return AgentGrid(members=sorted_member, sorted_key=sorted_key, x_m=x_m, y_m=y_m,
                     range_sq=range_sq, max_neighbors=max_n, nx=nx, ny=ny, ix0=ix0, iy0=iy0,
                     inv_cell_per_m=inv_cell, k=k, cell=cell, slot_of=slot_of, first=first,
                     column_first=column_first)


@compiled_loop
def _stable_bucket_order(bucket, order, first):
    """``order`` stably sorted by ``bucket[order]`` (a counting sort); ``first`` (zeros, one
    more entry than buckets) receives the first position of every bucket."""
    for s in range(order.size):
        first[bucket[order[s]] + 1] += 1
    for c in range(first.size - 1):
        first[c + 1] += first[c]
    fill = first[:-1].copy()
    out = np.empty(order.size, dtype=np.int64)
    for s in range(order.size):
        b = bucket[order[s]]
        out[fill[b]] = order[s]
        fill[b] += 1
    return out


@compiled_loop
def sort_into_cells(position, members, range_m, max_neighbors, inv_cell, table_max):
    """The sorted slots of :class:`AgentGrid`: agents ``members`` ordered by cell key, ties
    in member order (a stable sort), and the per-slot copies, cell and column tables.

    Cell ``floor(p * inv_cell)`` shifted to start at 0; key ``ix * ny + iy``. The table of
    first slots of every key (``nx * ny + 1`` entries) is built when it has at most
    ``table_max`` entries, else the table of first slots of every column when that one fits.
    """
    count = members.size
    ix = np.empty(count, dtype=np.int64)
    iy = np.empty(count, dtype=np.int64)
    for s in range(count):
        r = members[s]
        ix[s] = math.floor(position[r, 0] * inv_cell)
        iy[s] = math.floor(position[r, 1] * inv_cell)
    ix0, iy0 = ix.min(), iy.min()
    ix -= ix0
    iy -= iy0
    nx, ny = ix.max() + 1, iy.max() + 1
    key = ix * ny + iy
    none = np.zeros(0, dtype=np.int64)
    first, column_first = none, none
    if nx * ny <= table_max:
        # one counting pass: the first slot of every key is the count of smaller keys
        first = np.zeros(nx * ny + 1, dtype=np.int64)
        order = _stable_bucket_order(key, np.arange(count), first)
    elif nx <= table_max and ny <= table_max:
        # by row, then stably by column: ordered by key, ties in member order
        by_row = _stable_bucket_order(iy, np.arange(count), np.zeros(ny + 1, dtype=np.int64))
        column_first = np.zeros(nx + 1, dtype=np.int64)
        order = _stable_bucket_order(ix, by_row, column_first)
    else:
        order = np.argsort(key, kind="mergesort")
        if nx <= table_max:
            column_first = np.zeros(nx + 1, dtype=np.int64)
            for s in range(count):
                column_first[ix[s] + 1] += 1
            for c in range(nx):
                column_first[c + 1] += column_first[c]
    sorted_member = np.empty(count, dtype=np.int64)
    sorted_key = np.empty(count, dtype=np.int64)
    x_m, y_m, range_sq = np.empty(count), np.empty(count), np.empty(count)
    max_n = np.empty(count, dtype=np.int64)
    slot_of = np.full(position.shape[0], -1, dtype=np.int64)
    for t in range(count):
        s = order[t]
        r = members[s]
        sorted_member[t] = r
        sorted_key[t] = key[s]
        x_m[t], y_m[t] = position[r, 0], position[r, 1]
        range_sq[t] = range_m[r] * range_m[r]
        max_n[t] = max_neighbors[r]
        slot_of[r] = t
    return (sorted_member, sorted_key, x_m, y_m, range_sq, max_n, slot_of, first, column_first,
            nx, ny, ix0, iy0)


def query_into(grid: AgentGrid, lo: int, hi: int, nb_idx: np.ndarray, nb_d: np.ndarray) -> None:
    """Write the neighbours of sorted slots ``lo:hi`` into their agents' rows.

    ``nb_idx (N, >= k)`` agent rows and ``nb_d`` squared distances (m^2), sorted by distance,
    padded with -1 / inf. Rows of other agents are left untouched, so threads may fill
    disjoint slot ranges of the same arrays. Claim: O2 (the constraint set RVO2 builds).
    """
    nearest_slots(grid.x_m, grid.y_m, grid.sorted_key, grid.first, grid.column_first,
                  grid.nx, grid.ny, grid.ix0, grid.iy0, grid.inv_cell_per_m, grid.range_sq,
                  grid.max_neighbors, grid.members, lo, hi, nb_idx, nb_d)


@compiled_loop
def nearest_slots(x_m, y_m, key, first, column_first, nx, ny, ix0, iy0, inv_cell, range_sq,
                  max_n, members, lo, hi, nb_idx, nb_d):
    """The k nearest of every sorted slot in ``lo:hi`` (see :func:`query_into`). Claim: O2.

    Columns are read outwards from the agent's own, each over the rows within the current
    search radius: the range until ``max_n`` candidates are held, then the k-th distance.
    A candidate enters when it beats the k-th by (distance, slot), so exact ties go to the
    lower slot whatever the reading order.
    """
    width = nb_idx.shape[1]
    buf_d = np.empty(max(width, 1))
    buf_s = np.empty(max(width, 1), dtype=np.int64)
    for s in range(lo, hi):
        row = members[s]
        for j in range(width):
            nb_idx[row, j] = -1
            nb_d[row, j] = np.inf
        want = min(max_n[s], width)
        if want <= 0:
            continue
        x, y = x_m[s], y_m[s]
        col = key[s] // ny
        slack = _REACH_REL * (abs(x) + abs(y))
        limit = range_sq[s]
        bound = limit
        count = 0
        step = 0
        while True:
            reach = math.sqrt(bound) * (1.0 + _REACH_REL) + slack
            left = max(int(math.floor((x - reach) * inv_cell)) - ix0, 0)
            right = min(int(math.floor((x + reach) * inv_cell)) - ix0, nx - 1)
            if col - step < left and col + step > right:
                break
            for side in range(2):
                c = col - step if side == 0 else col + step
                if (side == 1 and step == 0) or c < left or c > right:
                    continue
                reach = math.sqrt(bound) * (1.0 + _REACH_REL) + slack
                bottom = max(int(math.floor((y - reach) * inv_cell)) - iy0, 0)
                top = min(int(math.floor((y + reach) * inv_cell)) - iy0, ny - 1)
                if bottom > top:
                    continue
                if first.size:
                    a, b = first[c * ny + bottom], first[c * ny + top + 1]
                else:
                    a, b = 0, key.size
                    if column_first.size:
                        a, b = column_first[c], column_first[c + 1]
                    if a == b:
                        continue
                    part = key[a:b]
                    b = a + np.searchsorted(part, c * ny + top + 1)
                    a = a + np.searchsorted(part, c * ny + bottom)
                for t in range(a, b):
                    if t == s:
                        continue
                    dx = x_m[t] - x
                    dy = y_m[t] - y
                    d = dx * dx + dy * dy
                    if count < want:
                        if not d < limit:
                            continue
                        i = count
                        count += 1
                    else:
                        worst = buf_d[want - 1]
                        if d > worst or (d == worst and t > buf_s[want - 1]):
                            continue
                        i = want - 1
                    while i > 0 and (d < buf_d[i - 1] or (d == buf_d[i - 1] and t < buf_s[i - 1])):
                        buf_d[i] = buf_d[i - 1]
                        buf_s[i] = buf_s[i - 1]
                        i -= 1
                    buf_d[i] = d
                    buf_s[i] = t
                    if count == want:
                        bound = buf_d[want - 1]
            step += 1
        for j in range(count):
            nb_idx[row, j] = members[buf_s[j]]
            nb_d[row, j] = buf_d[j]


def agent_neighbors(position: np.ndarray, range_m: np.ndarray, max_neighbors: np.ndarray,
                    *, active: np.ndarray | None = None,
                    cells_per_range: int = CELLS_PER_RANGE) -> tuple[np.ndarray, np.ndarray]:
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
    if grid is not None:
        query_into(grid, 0, grid.members.size, nb_idx, nb_d)
    return nb_idx, nb_d
