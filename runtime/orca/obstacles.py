"""Static polygon obstacles as RVO2 holds them: a ring of vertices with links and convexity.

A polygon is given counter-clockwise (its inside on the left of each edge is solid); two
vertices make a two-sided segment; a clockwise polygon bounds the walkable area from outside.
Each vertex ``v`` owns the edge ``v -> next[v]``; ``unit_dir[v]`` is that edge's unit direction
and ``is_convex[v]`` tells whether the polygon turns left (or straight) at ``v``.

:meth:`ObstacleSet.process` repeats RVO2's ``processObstacles``: building the binary space
partition splits every edge that crosses a partition line (the split vertex is convex and
keeps the edge direction). The split changes which lines agents see, so the same vertices as
the reference library are produced. The neighbour query then needs only set semantics: edges
whose line has the agent strictly on its right and whose segment is closer than the range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from navproof.core.jit import compiled_loop
from navproof.core.tolerances import RVO_EPSILON
from navproof.core.tolerances import SEARCH_REACH_REL as _REACH_REL
from navproof.core.validation import check_valid_polygon


def _left_of(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    """Twice the signed area of (a, b, c), m^2: positive when c lies left of a -> b."""
    return float((a[0] - c[0]) * (b[1] - a[1]) - (a[1] - c[1]) * (b[0] - a[0]))


@dataclass
class ObstacleSet:
    """All obstacle vertices of a scene as arrays (point, next, prev, unit_dir, is_convex).

    Claim: O5 (obstacles are the hard, non-reciprocal constraints).
    """

    polygons: list[np.ndarray] = field(default_factory=list)
    point: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    next: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    prev: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    unit_dir: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    is_convex: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    processed: bool = True

    def add(self, vertices: object) -> int:
        """Add one polygon; returns the index of its first vertex (RVO2's obstacle number)."""
        arr = check_valid_polygon(vertices)
        first = sum(len(p) for p in self.polygons)
        self.polygons.append(arr)
        self.processed = False
        return first

    def process(self) -> None:
        """Build links, directions, convexity and the BSP edge splits (RVO2 processObstacles)."""
        pts: list[np.ndarray] = []
        nxt: list[int] = []
        prv: list[int] = []
        udir: list[np.ndarray] = []
        convex: list[bool] = []
        for poly in self.polygons:
            base = len(pts)
            count = len(poly)
            for i in range(count):
                a = poly[i]
                b = poly[(i + 1) % count]
                pts.append(a.copy())
                nxt.append(base + (i + 1) % count)
                prv.append(base + (i - 1) % count)
                d = b - a
                udir.append(d / np.hypot(d[0], d[1]))
                if count == 2:
                    convex.append(True)
                else:
                    convex.append(_left_of(poly[(i - 1) % count], a, b) >= 0.0)
        self._pts, self._next, self._prev, self._udir, self._convex = pts, nxt, prv, udir, convex
        self._build_tree(list(range(len(pts))))
        self.point = np.array(pts, dtype=np.float64).reshape(-1, 2)
        self.next = np.array(nxt, dtype=np.int64)
        self.prev = np.array(prv, dtype=np.int64)
        self.unit_dir = np.array(udir, dtype=np.float64).reshape(-1, 2)
        self.is_convex = np.array(convex, dtype=bool)
        self.processed = True

    def _build_tree(self, obstacles: list[int]) -> None:
        """Recursive BSP of RVO2's KdTree::buildObstacleTreeRecursive; only the splits are kept."""
        stack = [obstacles]
        pts, nxt = self._pts, self._next
        while stack:
            obs = stack.pop()
            if not obs:
                continue
            optimal, min_left, min_right = 0, len(obs), len(obs)
            for i, oi in enumerate(obs):
                left_size = right_size = 0
                a, b = pts[oi], pts[nxt[oi]]
                for j, oj in enumerate(obs):
                    if i == j:
                        continue
                    j1 = _left_of(a, b, pts[oj])
                    j2 = _left_of(a, b, pts[nxt[oj]])
                    if j1 >= -RVO_EPSILON and j2 >= -RVO_EPSILON:
                        left_size += 1
                    elif j1 <= RVO_EPSILON and j2 <= RVO_EPSILON:
                        right_size += 1
                    else:
                        left_size += 1
                        right_size += 1
                    if (max(left_size, right_size), min(left_size, right_size)) >= (
                            max(min_left, min_right), min(min_left, min_right)):
                        break
                if (max(left_size, right_size), min(left_size, right_size)) < (
                        max(min_left, min_right), min(min_left, min_right)):
                    min_left, min_right, optimal = left_size, right_size, i
            oi = obs[optimal]
            a, b = pts[oi], pts[nxt[oi]]
            left: list[int] = []
            right: list[int] = []
            for j, oj in enumerate(obs):
                if j == optimal:
                    continue
                j2_index = nxt[oj]
                j1 = _left_of(a, b, pts[oj])
                j2 = _left_of(a, b, pts[j2_index])
                if j1 >= -RVO_EPSILON and j2 >= -RVO_EPSILON:
                    left.append(oj)
                elif j1 <= RVO_EPSILON and j2 <= RVO_EPSILON:
                    right.append(oj)
                else:
                    # edge j crosses the partition line: split it at the crossing
                    p1, p2 = pts[oj], pts[j2_index]
                    ab = b - a
                    t = ((ab[0] * (p1 - a)[1] - ab[1] * (p1 - a)[0])
                         / (ab[0] * (p1 - p2)[1] - ab[1] * (p1 - p2)[0]))
                    new = len(pts)
                    pts.append(p1 + t * (p2 - p1))
                    self._prev.append(oj)
                    nxt.append(j2_index)
                    self._convex.append(True)
                    self._udir.append(self._udir[oj].copy())
                    nxt[oj] = new
                    self._prev[j2_index] = new
                    if j1 > 0.0:
                        left.append(oj)
                        right.append(new)
                    else:
                        right.append(oj)
                        left.append(new)
            # RVO2 recurses left first; the order of split creation follows it
            stack.append(right)
            stack.append(left)

    def neighbors(self, position: np.ndarray, range_sq: np.ndarray, *,
                  cells_per_range: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Obstacle edges near each agent: indices (N, m) sorted by squared distance (m^2).

        An edge (vertex ``v`` to ``next[v]``) is a neighbour when the agent is strictly on its
        right (it can see the solid side's boundary) and the segment is closer than
        ``sqrt(range_sq)``; RVO2 uses ``range = timeHorizonObst * maxSpeed + radius``.
        Padded with -1 / inf. Edges at exactly equal distance keep vertex order (RVO2 keeps its
        tree traversal order there; only exact ties can differ). The edges are bucketed into
        square cells (side: the largest range divided by ``cells_per_range``, larger where the
        agents' area would need more than a few cells per agent and edge); one compiled loop
        then tests, for each agent, every edge of the cells within its range once, so the
        answer is exact for any cell size. Claim: O5.
        """
        position = np.ascontiguousarray(position, dtype=np.float64)
        range_sq = np.ascontiguousarray(range_sq, dtype=np.float64)
        n = position.shape[0]
        e = self.point.shape[0]
        reach = math.sqrt(float(np.max(range_sq))) * (1.0 + _REACH_REL) if n else 0.0
        if n == 0 or e == 0 or not reach > 0.0:
            return np.full((n, 0), -1, np.int64), np.full((n, 0), np.inf)
        lo = position.min(axis=0) - reach
        extent = position.max(axis=0) + reach - lo
        max_cells = 4 * (n + e) + 1024
        cell = max(reach / int(cells_per_range), float(extent.max()) / max_cells,
                   math.sqrt(float(extent[0] * extent[1]) / max_cells))
        nx, ny = int(extent[0] // cell) + 1, int(extent[1] // cell) + 1
        p1 = np.ascontiguousarray(self.point)
        p2 = np.ascontiguousarray(self.point[self.next])
        start = np.zeros(nx * ny + 1, dtype=np.int64)
        _bucket_edges(p1, p2, float(lo[0]), float(lo[1]), 1.0 / cell, nx, ny, start,
                      np.empty(0, dtype=np.int64))
        np.cumsum(start, out=start)
        members = np.empty(int(start[-1]), dtype=np.int64)
        _bucket_edges(p1, p2, float(lo[0]), float(lo[1]), 1.0 / cell, nx, ny, start, members)
        count = np.zeros(n, dtype=np.int64)
        grid = (p1, p2, float(lo[0]), float(lo[1]), 1.0 / cell, nx, ny, start, members)
        none_idx = np.empty((n, 0), dtype=np.int64)
        _near_edges(position, range_sq, *grid, count, none_idx, np.empty((n, 0)))
        width = int(count.max())
        idx = np.full((n, width), -1, dtype=np.int64)
        dist_sq = np.full((n, width), np.inf)
        if width:
            _near_edges(position, range_sq, *grid, count, idx, dist_sq)
        return idx, dist_sq


@compiled_loop
def _bucket_edges(p1, p2, x0, y0, inv_cell, nx, ny, start, members):
    """Edges by grid cell, each in every cell its bounding box overlaps (within the grid).

    With ``members`` empty: counts per cell into ``start[1:]`` (the caller sums them up into
    the first slot of each cell). Otherwise fills ``members`` from those starts (``start`` is
    restored on return)."""
    fill = members.size > 0
    for v in range(p1.shape[0]):
        ix_lo = max(int(math.floor((min(p1[v, 0], p2[v, 0]) - x0) * inv_cell)), 0)
        ix_hi = min(int(math.floor((max(p1[v, 0], p2[v, 0]) - x0) * inv_cell)), nx - 1)
        iy_lo = max(int(math.floor((min(p1[v, 1], p2[v, 1]) - y0) * inv_cell)), 0)
        iy_hi = min(int(math.floor((max(p1[v, 1], p2[v, 1]) - y0) * inv_cell)), ny - 1)
        for ix in range(ix_lo, ix_hi + 1):
            for iy in range(iy_lo, iy_hi + 1):
                c = ix * ny + iy
                if fill:
                    members[start[c]] = v
                    start[c] += 1
                else:
                    start[c + 1] += 1
    if fill:
        # each cell's start moved to the next cell's: shift back
        for c in range(start.size - 1, 0, -1):
            start[c] = start[c - 1]
        start[0] = 0


@compiled_loop
def _edge_distance_sq(x, y, p1x, p1y, p2x, p2y):
    """Squared distance (m^2) from (x, y) to the edge p1 -> p2, or inf where the agent does not
    see it (not strictly on its right). RVO2's leftOf and distSqPointLineSegment."""
    sx = p2x - p1x
    sy = p2y - p1y
    left = (p1x - x) * sy - (p1y - y) * sx
    if not left < 0.0:
        return np.inf
    len_sq = sx * sx + sy * sy
    dot = (x - p1x) * sx + (y - p1y) * sy
    if len_sq == 0.0:
        # shorter than about 1e-162 m: the limit of dot / len_sq picks an endpoint
        if dot > 0.0:
            cx, cy = p2x, p2y
        elif dot < 0.0:
            cx, cy = p1x, p1y
        else:
            return np.inf
    else:
        r = dot * (1.0 / len_sq)
        if r < 0.0:
            cx, cy = p1x, p1y
        elif r > 1.0:
            cx, cy = p2x, p2y
        else:
            cx, cy = p1x + r * sx, p1y + r * sy
    dx = x - cx
    dy = y - cy
    return dx * dx + dy * dy


@compiled_loop
def _near_edges(position, range_sq, p1, p2, x0, y0, inv_cell, nx, ny, start, members, count,
                idx, dist_sq):
    """Edges within range of each agent (see :meth:`ObstacleSet.neighbors`). Claim: O5.

    With ``idx`` of width 0: the number of each agent's edges into ``count``. Otherwise its
    edges sorted by (distance, vertex) into ``idx`` / ``dist_sq``."""
    fill = idx.shape[1] > 0
    seen = np.full(p1.shape[0], -1, dtype=np.int64)
    for i in range(position.shape[0]):
        x, y = position[i, 0], position[i, 1]
        limit = range_sq[i]
        reach = math.sqrt(limit) * (1.0 + _REACH_REL) + _REACH_REL * (abs(x) + abs(y))
        ix_lo = max(int(math.floor((x - reach - x0) * inv_cell)), 0)
        ix_hi = min(int(math.floor((x + reach - x0) * inv_cell)), nx - 1)
        iy_lo = max(int(math.floor((y - reach - y0) * inv_cell)), 0)
        iy_hi = min(int(math.floor((y + reach - y0) * inv_cell)), ny - 1)
        found = 0
        for ix in range(ix_lo, ix_hi + 1):
            for c in range(ix * ny + iy_lo, ix * ny + iy_hi + 1):
                for t in range(start[c], start[c + 1]):
                    v = members[t]
                    if seen[v] == i:
                        continue
                    seen[v] = i
                    d = _edge_distance_sq(x, y, p1[v, 0], p1[v, 1], p2[v, 0], p2[v, 1])
                    if not d < limit:
                        continue
                    if fill:
                        # insertion by (distance, vertex)
                        j = found
                        while j > 0 and (d < dist_sq[i, j - 1]
                                         or (d == dist_sq[i, j - 1] and v < idx[i, j - 1])):
                            dist_sq[i, j] = dist_sq[i, j - 1]
                            idx[i, j] = idx[i, j - 1]
                            j -= 1
                        dist_sq[i, j] = d
                        idx[i, j] = v
                    found += 1
        count[i] = found
