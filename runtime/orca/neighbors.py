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
    if active is None:
        active = np.ones(n, dtype=bool)
    if n == 0 or k == 0 or not active.any():
        return None
    members = np.flatnonzero(active)
    cell = float(np.max(range_m[members])) / int(cells_per_range)
    if not cell > 0.0:
        return None
    inv_cell = 1.0 / cell
    ij = np.floor(position[members] * inv_cell).astype(np.int64)
    ix0, iy0 = int(ij[:, 0].min()), int(ij[:, 1].min())
    ij -= np.array([ix0, iy0])
    nx, ny = int(ij[:, 0].max()) + 1, int(ij[:, 1].max()) + 1
    key = ij[:, 0] * ny + ij[:, 1]
    order = np.argsort(key, kind="stable")
    sorted_member = members[order]
    slot_of = np.full(n, -1, dtype=np.int64)
    slot_of[sorted_member] = np.arange(sorted_member.size)
    sorted_key = key[order]
    # a direct table of cell bounds replaces binary searches when the grid is compact; else a
    # table of column bounds leaves short searches within one column
    table_max = 8 * sorted_member.size + 1024
    none = np.zeros(0, dtype=np.int64)
    first = (np.searchsorted(sorted_key, np.arange(nx * ny + 1), side="left")
             if nx * ny <= table_max else none)
    column_first = (np.searchsorted(sorted_key, np.arange(nx + 1) * ny, side="left")
                    if first.size == 0 and nx <= table_max else none)
    return AgentGrid(members=sorted_member, sorted_key=sorted_key,
                     x_m=np.ascontiguousarray(position[sorted_member, 0]),
                     y_m=np.ascontiguousarray(position[sorted_member, 1]),
                     range_sq=(range_m * range_m)[sorted_member],
                     max_neighbors=max_neighbors[sorted_member].astype(np.int64),
                     nx=nx, ny=ny, ix0=ix0, iy0=iy0, inv_cell_per_m=inv_cell, k=k, cell=cell,
                     slot_of=slot_of, first=first, column_first=column_first)


def query_into(grid: AgentGrid, lo: int, hi: int, nb_idx: np.ndarray, nb_d: np.ndarray) -> None:
    """Write the neighbours of sorted slots ``lo:hi`` into their agents' rows.

    ``nb_idx (N, >= k)`` agent rows and ``nb_d`` squared distances (m^2), sorted by distance,
    padded with -1 / inf. Rows of other agents are left untouched, so threads may fill
    disjoint slot ranges of the same arrays. Claim: O2 (the constraint set RVO2 builds).
    """
    _nearest(grid.x_m, grid.y_m, grid.sorted_key, grid.first, grid.column_first, grid.nx,
             grid.ny, grid.ix0, grid.iy0, grid.inv_cell_per_m, grid.range_sq, grid.max_neighbors,
             grid.members, lo, hi, nb_idx, nb_d)


@compiled_loop
def _nearest(x_m, y_m, key, first, column_first, nx, ny, ix0, iy0, inv_cell, range_sq, max_n,
             members, lo, hi, nb_idx, nb_d):
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
