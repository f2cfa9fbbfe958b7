"""Global routes on a :class:`~navproof.navmesh.mesh.NavMesh`: A* over the polygon graph (the
corridor), then the funnel (string pulling) inside that corridor. Claim: C5.

A* walks polygons through their portals; a polygon's cost to cross is the distance from the
point where it was entered to the portal's midpoint times its area cost (the heuristic, the
straight distance to the goal times the least area cost, never overestimates that). The funnel
then returns the shortest polyline from start to goal inside the corridor: its corners are
portal end points (mesh vertices of the corridor), so every corner lies in the corridor.

An unreachable goal is reported by name (:class:`NoRoute`), never replaced by a nearest point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.core.jit import compiled_loop
from navproof.navmesh.mesh import NavMesh


class NoRoute(InvalidInput):
    """No route exists: names the agent (or query), the point and why (off the mesh, another
    island). Claim: C5."""


@dataclass(frozen=True)
class Route:
    """One planned route: ``corridor`` (C,) polygon indices from start to goal, ``corners_m``
    (W, 2) the funnel's polyline (start first, goal last), ``length_m`` its length. Claim: C5."""

    corridor: np.ndarray
    corners_m: np.ndarray
    length_m: float


def _portal_tables(mesh: NavMesh) -> tuple[np.ndarray, np.ndarray]:
    """Per polygon edge the start/end vertex coordinates (P, K, 2) each."""
    k = mesh.poly_vertex.shape[1]
    j = np.arange(k)[None]
    nxt = np.where(j + 1 < mesh.poly_count[:, None], j + 1, 0)
    a_idx = np.where(mesh.poly_vertex >= 0, mesh.poly_vertex, 0)
    b_idx = np.take_along_axis(a_idx, np.broadcast_to(nxt, a_idx.shape), axis=1)
    return mesh.vertices_m[a_idx], mesh.vertices_m[b_idx]


class Router:
    """Route queries on one mesh (tables prepared once). Claim: C5."""

    def __init__(self, mesh: NavMesh) -> None:
        self.mesh = mesh
        self.edge_a, self.edge_b = _portal_tables(mesh)
        self.min_cost = float(mesh.cost.min())
        self._stamp = np.zeros(mesh.count, np.int64)

    def check_endpoints(self, start_m: np.ndarray, goal_m: np.ndarray, *, who: str = "query"
                        ) -> tuple[np.ndarray, np.ndarray]:
        """Polygons (M,) of starts and goals; NoRoute naming ``who``, the point and the
        distance to the mesh when one is off it, or when the goal is on another island."""
        mesh = self.mesh
        sp = mesh.locate(start_m)
        gp = mesh.locate(goal_m)
        for name, poly, pts in (("start", sp, start_m), ("goal", gp, goal_m)):
            bad = np.flatnonzero(poly < 0)
            if bad.size:
                i = int(bad[0])
                far = float(mesh.distance_outside_m(pts[i:i + 1])[0])
                raise NoRoute(f"{who}[{i}]" if pts.shape[0] > 1 else who, pts[i].tolist(),
                              f"no route: {name} outside the eroded mesh ({far:.3f} m from it)")
        other = np.flatnonzero(mesh.island[sp] != mesh.island[gp])
        if other.size:
            i = int(other[0])
            raise NoRoute(f"{who}[{i}]" if start_m.shape[0] > 1 else who, goal_m[i].tolist(),
                          f"no route for {who}: goal on another island (start on island "
                          f"{int(mesh.island[sp[i]])}, goal on island {int(mesh.island[gp[i]])})")
        return sp, gp

    def routes(self, start_m: object, goal_m: object, *, who: str = "query") -> list[Route]:
        """Routes of M start/goal pairs ((M, 2) each), planned in one compiled pass."""
        s = np.ascontiguousarray(np.asarray(start_m, dtype=np.float64).reshape(-1, 2))
        g = np.ascontiguousarray(np.asarray(goal_m, dtype=np.float64).reshape(-1, 2))
        if s.shape != g.shape:
            raise InvalidInput("goal_m", g.shape, f"must match start_m {s.shape}")
        sp, gp = self.check_endpoints(s, g, who=who)
        mesh = self.mesh
        cor_off, cor, cn_off, cn, length = _route_batch(
            sp, gp, s, g, mesh.neighbor, mesh.poly_count, self.edge_a, self.edge_b, mesh.cost,
            self.min_cost, self._stamp)
        out = []
        for i in range(s.shape[0]):
            out.append(Route(cor[cor_off[i]:cor_off[i + 1]].copy(),
                             cn[cn_off[i]:cn_off[i + 1]].copy(), float(length[i])))
        return out

    def route(self, start_m: object, goal_m: object, *, who: str = "query") -> Route:
        """One route (see :meth:`routes`)."""
        start = np.reshape(np.asarray(start_m, dtype=np.float64), (1, 2))
        goal = np.reshape(np.asarray(goal_m, dtype=np.float64), (1, 2))
        return self.routes(start, goal, who=who)[0]


def funnel(start_m: np.ndarray, goal_m: np.ndarray, left_m: np.ndarray, right_m: np.ndarray
           ) -> np.ndarray:
    """Shortest polyline (W, 2) from start to goal through portals (left/right end points as
    seen travelling along the corridor, (C-1, 2) each). Claim: C5."""
    n = left_m.shape[0]
    lefts = np.concatenate([start_m[None], left_m, goal_m[None]])
    rights = np.concatenate([start_m[None], right_m, goal_m[None]])
    out = np.zeros((n + 2, 2))
    w = _funnel(np.ascontiguousarray(lefts), np.ascontiguousarray(rights), out)
    return out[:w].copy()


@compiled_loop
def _cross(ax, ay, bx, by, cx, cy):  # noqa: ANN001
    """cross(b - a, c - a): > 0 when c is left of a -> b."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@compiled_loop
def _funnel(lefts, rights, out):  # noqa: ANN001
    """Simple stupid funnel over portals (first and last degenerate: start, goal); writes the
    corners into ``out`` and returns their count."""
    n = lefts.shape[0]
    ax, ay = lefts[0, 0], lefts[0, 1]
    lx, ly = lefts[0, 0], lefts[0, 1]
    rx, ry = rights[0, 0], rights[0, 1]
    apex_i = 0
    left_i = 0
    right_i = 0
    w = 0
    out[w, 0], out[w, 1] = ax, ay
    w += 1
    i = 1
    while i < n:
        plx, ply = lefts[i, 0], lefts[i, 1]
        prx, pry = rights[i, 0], rights[i, 1]
        restart = False
        # the right side tightens when the new right point is left of (or on) the right ray
        if _cross(ax, ay, rx, ry, prx, pry) >= 0.0:
            if (ax == rx and ay == ry) or _cross(ax, ay, lx, ly, prx, pry) < 0.0:
                rx, ry = prx, pry
                right_i = i
            else:
                ax, ay = lx, ly
                apex_i = left_i
                if out[w - 1, 0] != ax or out[w - 1, 1] != ay:
                    out[w, 0], out[w, 1] = ax, ay
                    w += 1
                lx, ly, rx, ry = ax, ay, ax, ay
                left_i = apex_i
                right_i = apex_i
                i = apex_i + 1
                restart = True
        if not restart:
            if _cross(ax, ay, lx, ly, plx, ply) <= 0.0:
                if (ax == lx and ay == ly) or _cross(ax, ay, rx, ry, plx, ply) > 0.0:
                    lx, ly = plx, ply
                    left_i = i
                else:
                    ax, ay = rx, ry
                    apex_i = right_i
                    if out[w - 1, 0] != ax or out[w - 1, 1] != ay:
                        out[w, 0], out[w, 1] = ax, ay
                        w += 1
                    lx, ly, rx, ry = ax, ay, ax, ay
                    left_i = apex_i
                    right_i = apex_i
                    i = apex_i + 1
                    restart = True
        if not restart:
            i += 1
    gx, gy = lefts[n - 1, 0], lefts[n - 1, 1]
    if out[w - 1, 0] != gx or out[w - 1, 1] != gy:
        out[w, 0], out[w, 1] = gx, gy
        w += 1
    return w


@compiled_loop
def _astar(sp, gp, sx, sy, gx, gy, neighbor, count, edge_a, edge_b, cost, min_cost, stamp,
           tag, g, parent, ex, ey, closed, heap_f, heap_p, path):  # noqa: ANN001
    """A* from polygon sp to gp; writes the corridor into ``path`` and returns its length
    (0 when unreachable). ``stamp``/``tag`` mark the entries of this query as fresh."""
    stamp[sp] = tag
    g[sp] = 0.0
    parent[sp] = -1
    ex[sp], ey[sp] = sx, sy
    closed[sp] = False
    size = 1
    heap_f[0] = np.hypot(gx - sx, gy - sy) * min_cost
    heap_p[0] = sp
    found = False
    while size > 0:
        f = heap_f[0]
        p = heap_p[0]
        size -= 1
        if size > 0:
            # sift the last entry down from the root
            lf, lp = heap_f[size], heap_p[size]
            i = 0
            while True:
                c = 2 * i + 1
                if c >= size:
                    break
                if c + 1 < size and heap_f[c + 1] < heap_f[c]:
                    c += 1
                if heap_f[c] >= lf:
                    break
                heap_f[i], heap_p[i] = heap_f[c], heap_p[c]
                i = c
            heap_f[i], heap_p[i] = lf, lp
        if closed[p]:
            continue
        closed[p] = True
        if p == gp:
            found = True
            break
        _ = f
        for j in range(count[p]):
            q = neighbor[p, j]
            if q < 0:
                continue
            mx = 0.5 * (edge_a[p, j, 0] + edge_b[p, j, 0])
            my = 0.5 * (edge_a[p, j, 1] + edge_b[p, j, 1])
            ng = g[p] + np.hypot(mx - ex[p], my - ey[p]) * cost[p]
            if stamp[q] != tag:
                stamp[q] = tag
                closed[q] = False
                g[q] = np.inf
            if closed[q] or ng >= g[q]:
                continue
            g[q] = ng
            parent[q] = p
            ex[q], ey[q] = mx, my
            nf = ng + np.hypot(gx - mx, gy - my) * min_cost
            # push and sift up
            i = size
            size += 1
            while i > 0:
                up = (i - 1) // 2
                if heap_f[up] <= nf:
                    break
                heap_f[i], heap_p[i] = heap_f[up], heap_p[up]
                i = up
            heap_f[i], heap_p[i] = nf, q
    if not found:
        return 0
    m = 0
    p = gp
    while p >= 0:
        path[m] = p
        m += 1
        p = parent[p]
    path[:m] = path[:m][::-1].copy()
    return m


@compiled_loop
def _route_batch(sp, gp, s, goal, neighbor, count, edge_a, edge_b, cost, min_cost,
                 stamp):  # noqa: ANN001
    """Corridors and funnel corners of many queries (CSR outputs) and their lengths."""
    n_poly = neighbor.shape[0]
    m = sp.shape[0]
    g = np.zeros(n_poly)
    parent = np.zeros(n_poly, np.int64)
    ex = np.zeros(n_poly)
    ey = np.zeros(n_poly)
    closed = np.zeros(n_poly, np.bool_)
    cap = n_poly * neighbor.shape[1] + 2
    heap_f = np.zeros(cap)
    heap_p = np.zeros(cap, np.int64)
    path = np.zeros(n_poly, np.int64)
    cor_off = np.zeros(m + 1, np.int64)
    cn_off = np.zeros(m + 1, np.int64)
    cor_parts = []
    cn_parts = []
    length = np.zeros(m)
    base = stamp.max()
    for q in range(m):
        tag = base + 1 + q
        c = _astar(sp[q], gp[q], s[q, 0], s[q, 1], goal[q, 0], goal[q, 1], neighbor, count,
                   edge_a, edge_b, cost, min_cost, stamp, tag, g, parent, ex, ey, closed,
                   heap_f, heap_p, path)
        corridor = path[:c].copy()
        lefts = np.zeros((c + 1, 2))
        rights = np.zeros((c + 1, 2))
        lefts[0, 0], lefts[0, 1] = s[q, 0], s[q, 1]
        rights[0, 0], rights[0, 1] = s[q, 0], s[q, 1]
        for k in range(c - 1):
            p = corridor[k]
            nxt = corridor[k + 1]
            for j in range(count[p]):
                if neighbor[p, j] == nxt:
                    # leaving a CCW polygon: the edge's end is on the left, its start right
                    lefts[k + 1, 0], lefts[k + 1, 1] = edge_b[p, j, 0], edge_b[p, j, 1]
                    rights[k + 1, 0], rights[k + 1, 1] = edge_a[p, j, 0], edge_a[p, j, 1]
                    break
        lefts[c, 0], lefts[c, 1] = goal[q, 0], goal[q, 1]
        rights[c, 0], rights[c, 1] = goal[q, 0], goal[q, 1]
        out = np.zeros((c + 2, 2))
        w = _funnel(lefts, rights, out)
        total = 0.0
        for k in range(w - 1):
            total += np.hypot(out[k + 1, 0] - out[k, 0], out[k + 1, 1] - out[k, 1])
        length[q] = total
        cor_parts.append(corridor)
        cn_parts.append(out[:w].copy())
        cor_off[q + 1] = cor_off[q] + c
        cn_off[q + 1] = cn_off[q] + w
    cor = np.zeros(cor_off[m], np.int64)
    cn = np.zeros((cn_off[m], 2))
    for q in range(m):
        cor[cor_off[q]:cor_off[q + 1]] = cor_parts[q]
        cn[cn_off[q]:cn_off[q + 1]] = cn_parts[q]
    return cor_off, cor, cn_off, cn, length


def corridor_portals(mesh: NavMesh, corridor: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Left and right end points ((C-1, 2) each) of the portals along a corridor, as seen
    travelling from its first polygon to its last. Claim: C5."""
    c = np.asarray(corridor, np.int64)
    left = np.zeros((max(c.size - 1, 0), 2))
    right = np.zeros_like(left)
    for k in range(c.size - 1):
        p, q = int(c[k]), int(c[k + 1])
        j = int(np.flatnonzero(mesh.neighbor[p, : mesh.poly_count[p]] == q)[0])
        a, b = mesh.portal(p, j)
        left[k], right[k] = b, a
    return left, right


def next_corner(x_m: np.ndarray, goal_m: np.ndarray, left_m: np.ndarray, right_m: np.ndarray
                ) -> tuple[np.ndarray, bool]:
    """The first corner of the shortest polyline from ``x_m`` to ``goal_m`` through the
    remaining portals (the string pulled again from where the body stands), and whether it is
    the goal. Claim: C5."""
    corners = funnel(np.asarray(x_m, float), np.asarray(goal_m, float), left_m, right_m)
    if corners.shape[0] < 2:
        return np.asarray(goal_m, float), True
    return corners[1], corners.shape[0] == 2
