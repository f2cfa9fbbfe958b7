"""ORCA half-planes in velocity space (m/s) for a whole crowd, with RVO2's geometric cases.

Lines follow the convention of :mod:`navproof.orca.halfplanes`: the permitted side is LEFT of the
direction. Obstacle lines are hard (full responsibility, Claim O5); agent lines take the pair's
share (1/2 by default, per pair with responsibility weights, priorities and non-cooperative
neighbours, Claim O7) of the smallest change that leaves the truncated velocity obstacle (Claim
O3), and already-overlapping agents use the cut-off circle of one time step (Claim O6). The
agent-line geometry is evaluated with the expressions derived in ``navproof.proofs.orca``
(generated into :mod:`navproof._generated.formulas`), the ones the O3/O6/O7 proofs are about.
Zero-length vectors that the reference library would divide by (it returns NaN
there) get a deterministic direction instead, so no line is ever non-finite.
"""

from __future__ import annotations

import math

import numpy as np

from navproof._generated.formulas import (
    orca_cutoff_change_scale,
    orca_cutoff_offset,
    orca_leg_change,
    orca_leg_direction_x,
    orca_leg_direction_y,
    orca_line_point,
)
from navproof.core.jit import compiled_loop
from navproof.core.tolerances import ORCA_COVERED_TOL_M
from navproof.core.vec2 import det2
from navproof.orca.obstacles import ObstacleSet

_TINY = float(np.finfo(np.float64).tiny)
"""Smallest normal float: shorter vectors count as zero (their reciprocal would overflow)."""


def _safe_unit(x: np.ndarray, y: np.ndarray, fx: np.ndarray, fy: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit vector of (x, y) and its length; where the length is 0, the fallback (fx, fy)."""
    length = np.hypot(x, y)
    # subnormal lengths count as zero: their reciprocal would overflow
    zero = length < _TINY
    inv_len = 1.0 / np.where(zero, 1.0, length)
    return np.where(zero, fx, x * inv_len), np.where(zero, fy, y * inv_len), length


def agent_lines(position: np.ndarray, velocity: np.ndarray, radius: np.ndarray,
                time_horizon: np.ndarray, time_step: float, neighbor_idx: np.ndarray,
                *, responsibility: float | np.ndarray = 0.5, rows: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ORCA lines (point, direction) of every agent against its neighbours, shapes (N, k, 2).

    ``neighbor_idx (M, k)`` padded with -1 holds the neighbours of agent rows ``rows`` (default
    all N agents, M = N); returns ``(point, direction, valid)`` of shape (M, k, ...), zeros in
    the padded slots. Cases, as in RVO2's Agent::computeNewVelocity: no collision projected on
    the cut-off circle of ``time_horizon`` (s) or on a leg; already colliding projected on the
    cut-off circle of one ``time_step`` (s). ``point = v + share * u`` with ``responsibility``
    the share of every pair (a scalar) or of each slot (an (M, k) array, see
    :func:`pair_shares`). Claim: O3, O6, O7.
    """
    neighbor_idx = np.ascontiguousarray(neighbor_idx, dtype=np.int64)
    m, k = neighbor_idx.shape
    rows = (np.arange(m, dtype=np.int64) if rows is None
            else np.ascontiguousarray(rows, dtype=np.int64))
    # a scalar share is the (1, 1) table every slot reads
    share = np.ascontiguousarray(np.reshape(responsibility, (1, 1)) if np.ndim(responsibility) == 0
                                 else responsibility, dtype=np.float64)
    position = np.asarray(position, dtype=np.float64)
    velocity = np.asarray(velocity, dtype=np.float64)
    point = np.empty((m, k, 2))
    direction = np.empty((m, k, 2))
    _agent_lines(np.ascontiguousarray(position[:, 0]), np.ascontiguousarray(position[:, 1]),
                 np.ascontiguousarray(velocity[:, 0]), np.ascontiguousarray(velocity[:, 1]),
                 np.ascontiguousarray(radius, dtype=np.float64),
                 1.0 / np.asarray(time_horizon, dtype=np.float64), 1.0 / time_step, rows,
                 neighbor_idx, share, point, direction)
    return point, direction, neighbor_idx >= 0


@compiled_loop
def _agent_lines(px, py, vx, vy, radius, inv_th, inv_dt, rows, nb, share, point, direction):
    """Every slot of :func:`agent_lines`, one (agent, neighbour) pair at a time.

    Per-agent inputs are over the whole crowd (N,); ``share`` is (1, 1) or per slot (M, k).
    Claim: O3, O6, O7.
    """
    m, k = nb.shape
    share_rows, share_cols = share.shape[0] > 1, share.shape[1] > 1
    for i in range(m):
        me = rows[i]
        own_vx, own_vy = vx[me], vy[me]
        own_px, own_py = px[me], py[me]
        own_r, own_inv_th = radius[me], inv_th[me]
        for j in range(k):
            other = nb[i, j]
            if other < 0:
                point[i, j, 0] = 0.0
                point[i, j, 1] = 0.0
                direction[i, j, 0] = 0.0
                direction[i, j, 1] = 0.0
                continue
            rpx = px[other] - own_px
            rpy = py[other] - own_py
            rvx = own_vx - vx[other]
            rvy = own_vy - vy[other]
            dist_sq = rpx * rpx + rpy * rpy
            comb_r = own_r + radius[other]
            comb_r_sq = comb_r * comb_r
            if dist_sq > comb_r_sq:
                # no collision: w is the vector from the cut-off centre to the relative velocity
                wx = orca_cutoff_offset(rel_v=rvx, rel_p=rpx, inv_tau=own_inv_th)
                wy = orca_cutoff_offset(rel_v=rvy, rel_p=rpy, inv_tau=own_inv_th)
                w_len_sq = wx * wx + wy * wy
                dot1 = wx * rpx + wy * rpy
                if dot1 < 0.0 and dot1 * dot1 > comb_r_sq * w_len_sq:
                    # project on the cut-off circle (w is never zero here: dot1 < 0)
                    w_len = math.sqrt(w_len_sq)
                    unit_x, unit_y = wx / w_len, wy / w_len
                    dx, dy = unit_y, -unit_x
                    grow = orca_cutoff_change_scale(comb_r=comb_r, inv_tau=own_inv_th,
                                                    w_len=w_len)
                    ux, uy = grow * unit_x, grow * unit_y
                else:
                    # project on the left or the right leg (side +1 left, -1 right)
                    leg = math.sqrt(dist_sq - comb_r_sq)  # tangent length, positive
                    side = 1.0 if rpx * wy - rpy * wx > 0.0 else -1.0
                    dx = orca_leg_direction_x(rel_px=rpx, rel_py=rpy, comb_r=comb_r, leg_len=leg,
                                              side=side, dist_sq=dist_sq)
                    dy = orca_leg_direction_y(rel_px=rpx, rel_py=rpy, comb_r=comb_r, leg_len=leg,
                                              side=side, dist_sq=dist_sq)
                    dot2 = rvx * dx + rvy * dy
                    ux = orca_leg_change(v_dot_d=dot2, direction=dx, rel_v=rvx)
                    uy = orca_leg_change(v_dot_d=dot2, direction=dy, rel_v=rvy)
            else:
                # already colliding: cut-off circle of one time step; coincident agents with
                # equal velocities separate along +x / -x by index order, so the pair still
                # moves apart (the reference library divides by zero there)
                cwx = orca_cutoff_offset(rel_v=rvx, rel_p=rpx, inv_tau=inv_dt)
                cwy = orca_cutoff_offset(rel_v=rvy, rel_p=rpy, inv_tau=inv_dt)
                cw_len = math.hypot(cwx, cwy)
                if cw_len < _TINY:
                    # subnormal lengths count as zero: their reciprocal would overflow
                    cux, cuy = (1.0 if me < other else -1.0), 0.0
                else:
                    inv_len = 1.0 / cw_len
                    cux, cuy = cwx * inv_len, cwy * inv_len
                dx, dy = cuy, -cux
                grow = orca_cutoff_change_scale(comb_r=comb_r, inv_tau=inv_dt, w_len=cw_len)
                ux, uy = grow * cux, grow * cuy
            pair_share = share[i if share_rows else 0, j if share_cols else 0]
            point[i, j, 0] = orca_line_point(own_v=own_vx, share=pair_share, change=ux)
            point[i, j, 1] = orca_line_point(own_v=own_vy, share=pair_share, change=uy)
            direction[i, j, 0] = dx
            direction[i, j, 1] = dy


def obstacle_lines(position: np.ndarray, velocity: np.ndarray, radius: np.ndarray,
                   time_horizon_obst: np.ndarray, obstacles: ObstacleSet,
                   obstacle_idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hard ORCA lines of every agent against its obstacle edges, packed, shapes (N, m, 2).

    ``obstacle_idx (N, m)`` edge (first vertex) indices by increasing distance, -1 padded.
    Processed rank by rank because an edge is skipped when the lines already built cover it.
    Cases of RVO2: collision with the left vertex, the right vertex or the segment; oblique
    view (both legs from one vertex); non-convex vertices (leg along the edge, or ignored);
    legs pointing into the neighbouring edge (foreign legs, no line when projected on one);
    projection on the left or right cut-off circle, the cut-off line or a leg.
    Returns ``(point, direction, valid)``; valid lines occupy the first slots. Claim: O5.
    """
    n, m = obstacle_idx.shape
    point = np.zeros((n, m, 2))
    direction = np.zeros((n, m, 2))
    count = np.zeros(n, dtype=np.int64)
    if m == 0:
        return point, direction, np.zeros((n, 0), bool)
    opt = obstacles.point
    udir = obstacles.unit_dir
    convex = obstacles.is_convex
    nxt = obstacles.next
    prv = obstacles.prev
    inv_tho_all = 1.0 / time_horizon_obst
    for rank in range(m):
        rows = np.flatnonzero(obstacle_idx[:, rank] >= 0)
        if rows.size == 0:
            continue
        o1 = obstacle_idx[rows, rank]
        o2 = nxt[o1]
        pos = position[rows]
        vel = velocity[rows]
        r = radius[rows]
        inv_tho = inv_tho_all[rows]
        rp1 = opt[o1] - pos
        rp2 = opt[o2] - pos

        # already covered by earlier obstacle lines of this agent
        covered = np.zeros(rows.size, dtype=bool)
        width = int(count[rows].max())
        if width:
            lp = point[rows, :width]
            ld = direction[rows, :width]
            exist = np.arange(width)[None, :] < count[rows, None]
            c1 = det2(inv_tho[:, None] * rp1[:, None, 0] - lp[..., 0],
                      inv_tho[:, None] * rp1[:, None, 1] - lp[..., 1], ld[..., 0], ld[..., 1])
            c2 = det2(inv_tho[:, None] * rp2[:, None, 0] - lp[..., 0],
                      inv_tho[:, None] * rp2[:, None, 1] - lp[..., 1], ld[..., 0], ld[..., 1])
            margin = (inv_tho * r)[:, None]
            slack = -ORCA_COVERED_TOL_M
            covered = np.any(exist & (c1 - margin >= slack) & (c2 - margin >= slack), axis=1)

        dist_sq1 = np.einsum("ij,ij->i", rp1, rp1)
        dist_sq2 = np.einsum("ij,ij->i", rp2, rp2)
        r_sq = r * r
        obst_vec = opt[o2] - opt[o1]
        s = -np.einsum("ij,ij->i", rp1, obst_vec) / np.einsum("ij,ij->i", obst_vec, obst_vec)
        foot = -rp1 - s[:, None] * obst_vec
        dist_sq_line = np.einsum("ij,ij->i", foot, foot)

        out_p = np.zeros((rows.size, 2))
        out_d = np.zeros((rows.size, 2))
        add = np.zeros(rows.size, dtype=bool)
        todo = ~covered

        # collision with the left vertex (ignored when non-convex)
        hit_left = todo & (s < 0.0) & (dist_sq1 <= r_sq)
        ux, uy, _ = _safe_unit(-rp1[:, 1], rp1[:, 0], np.ones(rows.size), np.zeros(rows.size))
        sel = hit_left & convex[o1]
        out_d[sel] = np.stack([ux, uy], axis=1)[sel]
        add |= sel
        todo &= ~hit_left
        # collision with the right vertex (ignored when non-convex or the next edge takes it)
        hit_right = todo & (s > 1.0) & (dist_sq2 <= r_sq)
        ux, uy, _ = _safe_unit(-rp2[:, 1], rp2[:, 0], np.ones(rows.size), np.zeros(rows.size))
        sel = hit_right & convex[o2] & (det2(rp2[:, 0], rp2[:, 1], udir[o2, 0], udir[o2, 1]) >= 0.0)
        out_d[sel] = np.stack([ux, uy], axis=1)[sel]
        add |= sel
        todo &= ~hit_right
        # collision with the segment
        hit_seg = todo & (s >= 0.0) & (s <= 1.0) & (dist_sq_line <= r_sq)
        out_d[hit_seg] = -udir[o1[hit_seg]]
        add |= hit_seg
        todo &= ~hit_seg

        # no collision: legs; oblique view makes both legs come from one vertex
        oblique_left = todo & (s < 0.0) & (dist_sq_line <= r_sq)
        oblique_right = todo & ~oblique_left & (s > 1.0) & (dist_sq_line <= r_sq)
        todo &= ~(oblique_left & ~convex[o1]) & ~(oblique_right & ~convex[o2])
        a1 = np.where(oblique_right, o2, o1)
        a2 = np.where(oblique_left, o1, o2)
        leg1 = np.sqrt(np.maximum(dist_sq1 - r_sq, 0.0))
        leg2 = np.sqrt(np.maximum(dist_sq2 - r_sq, 0.0))
        inv1 = 1.0 / np.where(dist_sq1 > 0.0, dist_sq1, 1.0)
        inv2 = 1.0 / np.where(dist_sq2 > 0.0, dist_sq2, 1.0)
        # tangent directions from vertex 1 and vertex 2
        l1x = (rp1[:, 0] * leg1 - rp1[:, 1] * r) * inv1
        l1y = (rp1[:, 0] * r + rp1[:, 1] * leg1) * inv1
        r1x = (rp1[:, 0] * leg1 + rp1[:, 1] * r) * inv1
        r1y = (-rp1[:, 0] * r + rp1[:, 1] * leg1) * inv1
        l2x = (rp2[:, 0] * leg2 - rp2[:, 1] * r) * inv2
        l2y = (rp2[:, 0] * r + rp2[:, 1] * leg2) * inv2
        r2x = (rp2[:, 0] * leg2 + rp2[:, 1] * r) * inv2
        r2y = (-rp2[:, 0] * r + rp2[:, 1] * leg2) * inv2
        # usual situation: a non-convex vertex makes the leg extend the cut-off line
        usual_lx = np.where(convex[o1], l1x, -udir[o1, 0])
        usual_ly = np.where(convex[o1], l1y, -udir[o1, 1])
        usual_rx = np.where(convex[o2], r2x, udir[o1, 0])
        usual_ry = np.where(convex[o2], r2y, udir[o1, 1])
        left_x = np.where(oblique_left, l1x, np.where(oblique_right, l2x, usual_lx))
        left_y = np.where(oblique_left, l1y, np.where(oblique_right, l2y, usual_ly))
        right_x = np.where(oblique_left, r1x, np.where(oblique_right, r2x, usual_rx))
        right_y = np.where(oblique_left, r1y, np.where(oblique_right, r2y, usual_ry))

        # legs never point into the neighbouring edge at a convex vertex: foreign legs
        left_nb = prv[a1]
        left_foreign = convex[a1] & (det2(left_x, left_y, -udir[left_nb, 0], -udir[left_nb, 1])
                                     >= 0.0)
        left_x = np.where(left_foreign, -udir[left_nb, 0], left_x)
        left_y = np.where(left_foreign, -udir[left_nb, 1], left_y)
        right_foreign = convex[a2] & (det2(right_x, right_y, udir[a2, 0], udir[a2, 1]) <= 0.0)
        right_x = np.where(right_foreign, udir[a2, 0], right_x)
        right_y = np.where(right_foreign, udir[a2, 1], right_y)

        lcx = inv_tho * (opt[a1, 0] - pos[:, 0])
        lcy = inv_tho * (opt[a1, 1] - pos[:, 1])
        rcx = inv_tho * (opt[a2, 0] - pos[:, 0])
        rcy = inv_tho * (opt[a2, 1] - pos[:, 1])
        cvx, cvy = rcx - lcx, rcy - lcy
        same = a1 == a2
        cv_sq = cvx * cvx + cvy * cvy
        t = np.where(same, 0.5, ((vel[:, 0] - lcx) * cvx + (vel[:, 1] - lcy) * cvy)
                     / np.where(same, 1.0, cv_sq))
        t_left = (vel[:, 0] - lcx) * left_x + (vel[:, 1] - lcy) * left_y
        t_right = (vel[:, 0] - rcx) * right_x + (vel[:, 1] - rcy) * right_y
        rr = r * inv_tho

        # project on the left cut-off circle
        on_lc = todo & (((t < 0.0) & (t_left < 0.0)) | (same & (t_left < 0.0) & (t_right < 0.0)))
        fx, fy, _ = _safe_unit(-lcx, -lcy, np.ones(rows.size), np.zeros(rows.size))
        wx, wy, _ = _safe_unit(vel[:, 0] - lcx, vel[:, 1] - lcy, fx, fy)
        out_d[on_lc] = np.stack([wy, -wx], axis=1)[on_lc]
        out_p[on_lc] = np.stack([lcx + rr * wx, lcy + rr * wy], axis=1)[on_lc]
        add |= on_lc
        todo &= ~on_lc
        # project on the right cut-off circle
        on_rc = todo & (t > 1.0) & (t_right < 0.0)
        fx, fy, _ = _safe_unit(-rcx, -rcy, np.ones(rows.size), np.zeros(rows.size))
        wx, wy, _ = _safe_unit(vel[:, 0] - rcx, vel[:, 1] - rcy, fx, fy)
        out_d[on_rc] = np.stack([wy, -wx], axis=1)[on_rc]
        out_p[on_rc] = np.stack([rcx + rr * wx, rcy + rr * wy], axis=1)[on_rc]
        add |= on_rc
        todo &= ~on_rc

        # project on the cut-off line, the left leg or the right leg, whichever is closest
        inf = np.inf
        d_cut = np.where((t < 0.0) | (t > 1.0) | same, inf,
                         (vel[:, 0] - (lcx + t * cvx)) ** 2 + (vel[:, 1] - (lcy + t * cvy)) ** 2)
        d_left = np.where(t_left < 0.0, inf, (vel[:, 0] - (lcx + t_left * left_x)) ** 2
                          + (vel[:, 1] - (lcy + t_left * left_y)) ** 2)
        d_right = np.where(t_right < 0.0, inf, (vel[:, 0] - (rcx + t_right * right_x)) ** 2
                           + (vel[:, 1] - (rcy + t_right * right_y)) ** 2)
        on_cut = todo & (d_cut <= d_left) & (d_cut <= d_right)
        cdx, cdy = -udir[a1, 0], -udir[a1, 1]
        out_d[on_cut] = np.stack([cdx, cdy], axis=1)[on_cut]
        out_p[on_cut] = np.stack([lcx - rr * cdy, lcy + rr * cdx], axis=1)[on_cut]
        add |= on_cut
        todo &= ~on_cut
        on_left = todo & (d_left <= d_right)
        sel = on_left & ~left_foreign
        out_d[sel] = np.stack([left_x, left_y], axis=1)[sel]
        out_p[sel] = np.stack([lcx - rr * left_y, lcy + rr * left_x], axis=1)[sel]
        add |= sel
        sel = todo & ~on_left & ~right_foreign
        out_d[sel] = np.stack([-right_x, -right_y], axis=1)[sel]
        out_p[sel] = np.stack([rcx + rr * right_y, rcy - rr * right_x], axis=1)[sel]
        add |= sel

        dst = rows[add]
        slot = count[dst]
        point[dst, slot] = out_p[add]
        direction[dst, slot] = out_d[add]
        count[dst] += 1
    width = int(count.max()) if n else 0
    valid = np.arange(width)[None, :] < count[:, None]
    return point[:, :width], direction[:, :width], valid
