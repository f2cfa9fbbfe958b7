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

from dataclasses import dataclass, field

import numpy as np

from navproof.core.tolerances import RVO_EPSILON
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

    def neighbors(self, position: np.ndarray, range_sq: np.ndarray, *, chunk: int = 4096
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Obstacle edges near each agent: indices (N, m) sorted by squared distance (m^2).

        An edge (vertex ``v`` to ``next[v]``) is a neighbour when the agent is strictly on its
        right (it can see the solid side's boundary) and the segment is closer than
        ``sqrt(range_sq)``; RVO2 uses ``range = timeHorizonObst * maxSpeed + radius``.
        Padded with -1. Edges at exactly equal distance keep vertex order (RVO2 keeps its tree
        traversal order there; only exact ties can differ). Agents are taken ``chunk`` at a
        time and each chunk only meets the edges whose bounding box comes within range of the
        chunk's box, so spatially compact chunks (grid order) keep the cost near the local
        edge count. Claim: O5.
        """
        n = position.shape[0]
        e = self.point.shape[0]
        if n == 0 or e == 0:
            return np.full((n, 0), -1, np.int64), np.full((n, 0), np.inf)
        all_p1 = self.point
        all_p2 = self.point[self.next]
        edge_lo = np.minimum(all_p1, all_p2)
        edge_hi = np.maximum(all_p1, all_p2)
        out_idx: list[np.ndarray] = []
        out_d: list[np.ndarray] = []
        width = 0
        for lo in range(0, n, chunk):
            pos = position[lo:lo + chunk]
            rsq = range_sq[lo:lo + chunk]
            # only edges whose box comes within range of this chunk's box can be neighbours
            reach = float(np.sqrt(np.max(rsq)))
            near = np.flatnonzero(np.all(edge_lo <= pos.max(axis=0) + reach, axis=1)
                                  & np.all(edge_hi >= pos.min(axis=0) - reach, axis=1))
            if near.size == 0:
                out_idx.append(np.full((pos.shape[0], 0), -1, np.int64))
                out_d.append(np.full((pos.shape[0], 0), np.inf))
                continue
            p1, p2 = all_p1[near], all_p2[near]
            seg = p2 - p1
            len_sq = np.einsum("ij,ij->i", seg, seg)
            # an edge shorter than about 1e-162 m has a squared length of 0: its projection
            # parameter is the limit of dot / len_sq (+-inf, an endpoint; NaN, no neighbour)
            short = len_sq == 0.0
            inv_len_sq = 1.0 / np.where(short, 1.0, len_sq)
            rx = pos[:, None, 0] - p1[None, :, 0]
            ry = pos[:, None, 1] - p1[None, :, 1]
            # leftOf(p1, p2, pos) of RVO2
            left = (p1[None, :, 0] - pos[:, None, 0]) * seg[None, :, 1] - (
                p1[None, :, 1] - pos[:, None, 1]) * seg[None, :, 0]
            dot = rx * seg[None, :, 0] + ry * seg[None, :, 1]
            r = dot * inv_len_sq[None, :]
            r_mid = r  # the parameter where the foot lies inside the segment
            if short.any():
                limit = np.where(dot > 0.0, np.inf, np.where(dot < 0.0, -np.inf, np.nan))
                r = np.where(short[None, :], limit, r)
                r_mid = np.where(short[None, :], np.nan, r)
            foot_x = p1[None, :, 0] + r_mid * seg[None, :, 0]
            foot_y = p1[None, :, 1] + r_mid * seg[None, :, 1]
            cx = np.where(r < 0.0, p1[None, :, 0], np.where(r > 1.0, p2[None, :, 0], foot_x))
            cy = np.where(r < 0.0, p1[None, :, 1], np.where(r > 1.0, p2[None, :, 1], foot_y))
            dist_sq = (pos[:, None, 0] - cx) ** 2 + (pos[:, None, 1] - cy) ** 2
            ok = (left < 0.0) & (dist_sq < rsq[:, None])
            dist_sq = np.where(ok, dist_sq, np.inf)
            order = np.argsort(dist_sq, axis=1, kind="stable")
            count = int(ok.sum(axis=1).max())
            order = order[:, :count]
            d = np.take_along_axis(dist_sq, order, axis=1)
            idx = np.where(np.isfinite(d), near[order], -1)
            out_idx.append(idx)
            out_d.append(d)
            width = max(width, count)
        idx_all = np.full((n, width), -1, np.int64)
        d_all = np.full((n, width), np.inf)
        row = 0
        for idx, d in zip(out_idx, out_d, strict=True):
            idx_all[row:row + idx.shape[0], :idx.shape[1]] = idx
            d_all[row:row + idx.shape[0], :idx.shape[1]] = d
            row += idx.shape[0]
        return idx_all, d_all
