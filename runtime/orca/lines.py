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
from navproof.core.parallel import piece_bounds, run_pieces
from navproof.core.tolerances import ORCA_COVERED_TOL_M
from navproof.orca.obstacles import ObstacleSet

_TINY = float(np.finfo(np.float64).tiny)
"""Smallest normal float: shorter vectors count as zero (their reciprocal would overflow)."""


def agent_lines(position: np.ndarray, velocity: np.ndarray, radius: np.ndarray,
                time_horizon: np.ndarray, time_step: float, neighbor_idx: np.ndarray,
                *, responsibility: float | np.ndarray = 0.5, rows: np.ndarray | None = None,
                threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ORCA lines (point, direction) of every agent against its neighbours, shapes (N, k, 2).

    ``neighbor_idx (M, k)`` padded with -1 holds the neighbours of agent rows ``rows`` (default
    all N agents, M = N); returns ``(point, direction, valid)`` of shape (M, k, ...), zeros in
    the padded slots. Cases, as in RVO2's Agent::computeNewVelocity: no collision projected on
    the cut-off circle of ``time_horizon`` (s) or on a leg; already colliding projected on the
    cut-off circle of one ``time_step`` (s). ``point = v + share * u`` with ``responsibility``
    the share of every pair (a scalar) or of each slot (an (M, k) array, see
    :func:`pair_shares`). ``threads`` > 1 shares the rows between that many threads (each
    row is written by one piece alone). Claim: O3, O6, O7.
    """
    neighbor_idx = np.ascontiguousarray(neighbor_idx, dtype=np.int64)
    m, k = neighbor_idx.shape
    rows = (np.arange(m, dtype=np.int64) if rows is None
            else np.ascontiguousarray(rows, dtype=np.int64))
    # a scalar share is the (1, 1) table every slot reads
    share = (np.full((1, 1), responsibility) if isinstance(responsibility, float)
             else np.ascontiguousarray(np.reshape(responsibility, (1, 1))
                                       if np.ndim(responsibility) == 0 else responsibility,
                                       dtype=np.float64))
    point = np.empty((m, k, 2))
    direction = np.empty((m, k, 2))
    valid = np.empty((m, k), dtype=np.bool_)
    args = (np.asarray(position, dtype=np.float64), np.asarray(velocity, dtype=np.float64),
            np.asarray(radius, dtype=np.float64), np.asarray(time_horizon, dtype=np.float64),
            1.0 / time_step, rows, neighbor_idx, share, point, direction, valid)
    bounds = piece_bounds(m, threads)
    run_pieces(lambda i: agent_line_rows(*args, bounds[i], bounds[i + 1]), len(bounds) - 1,
               threads=threads)
    return point, direction, valid


@compiled_loop
def agent_line_rows(position, velocity, radius, time_horizon, inv_dt, rows, nb, share, point,
                    direction, valid, lo, hi):
    """Slots of rows ``lo:hi`` of :func:`agent_lines`, one (agent, neighbour) pair at a time.

    Per-agent inputs are over the whole crowd ((N, 2) and (N,)); ``share`` is (1, 1) or per
    slot (M, k). Claim: O3, O6, O7.
    """
    k = nb.shape[1]
    share_rows, share_cols = share.shape[0] > 1, share.shape[1] > 1
    for i in range(lo, hi):
        me = rows[i]
        own_vx, own_vy = velocity[me, 0], velocity[me, 1]
        own_px, own_py = position[me, 0], position[me, 1]
        own_r, own_inv_th = radius[me], 1.0 / time_horizon[me]
        for j in range(k):
            other = nb[i, j]
            valid[i, j] = other >= 0
            if other < 0:
                point[i, j, 0] = 0.0
                point[i, j, 1] = 0.0
                direction[i, j, 0] = 0.0
                direction[i, j, 1] = 0.0
                continue
            rpx = position[other, 0] - own_px
            rpy = position[other, 1] - own_py
            rvx = own_vx - velocity[other, 0]
            rvy = own_vy - velocity[other, 1]
            dist_sq = rpx * rpx + rpy * rpy
            comb_r = own_r + radius[other]
            comb_r_sq = comb_r * comb_r
            if dist_sq > comb_r_sq:
                # no collision: w is the vector from the cut-off centre to the relative velocity
                wx = orca_cutoff_offset(rel_v=rvx, rel_p=rpx, inv_tau=own_inv_th)
                wy = orca_cutoff_offset(rel_v=rvy, rel_p=rpy, inv_tau=own_inv_th)
                w_len_sq = wx * wx + wy * wy
                dot1 = wx * rpx + wy * rpy
                # (w is never zero when dot1 < 0, but its squared length can underflow to 0
                # below about 1e-162 m/s: such a pair is taken on a leg, never divided by 0)
                if dot1 < 0.0 and dot1 * dot1 > comb_r_sq * w_len_sq and w_len_sq > 0.0:
                    # project on the cut-off circle
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
    Taken in that order because an edge is skipped when the lines already built cover it.
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
    if m:
        _obstacle_lines(np.ascontiguousarray(position, dtype=np.float64),
                        np.ascontiguousarray(velocity, dtype=np.float64),
                        np.ascontiguousarray(radius, dtype=np.float64),
                        1.0 / np.asarray(time_horizon_obst, dtype=np.float64),
                        obstacles.point, obstacles.unit_dir, obstacles.is_convex, obstacles.next,
                        obstacles.prev, np.ascontiguousarray(obstacle_idx, dtype=np.int64),
                        point, direction, count)
    width = int(count.max()) if n else 0
    valid = np.arange(width)[None, :] < count[:, None]
    return point[:, :width], direction[:, :width], valid


@compiled_loop
def _unit_or(x, y, fx, fy):
    """Unit vector of (x, y) and its length; where the length is 0, the fallback (fx, fy)."""
    length = math.hypot(x, y)
    if length < _TINY:
        # subnormal lengths count as zero: their reciprocal would overflow
        return fx, fy, length
    inv_len = 1.0 / length
    return x * inv_len, y * inv_len, length


@compiled_loop
def _ratio(num, den):
    """``num / den`` with IEEE results for ``den == 0`` (+-inf, or NaN for 0 / 0)."""
    if den != 0.0:
        return num / den
    if num > 0.0:
        return np.inf
    if num < 0.0:
        return -np.inf
    return np.nan


@compiled_loop
def _obstacle_lines(position, velocity, radius, inv_tho, opt, udir, convex, nxt, prv,
                    obstacle_idx, point, direction, count):
    """Every agent's obstacle lines (see :func:`obstacle_lines`), appended at ``count``.

    Claim: O5."""
    n, m = obstacle_idx.shape
    slack = -ORCA_COVERED_TOL_M
    for i in range(n):
        px, py = position[i, 0], position[i, 1]
        vx, vy = velocity[i, 0], velocity[i, 1]
        r, inv_t = radius[i], inv_tho[i]
        for rank in range(m):
            o1 = obstacle_idx[i, rank]
            if o1 < 0:
                continue
            o2 = nxt[o1]
            rp1x, rp1y = opt[o1, 0] - px, opt[o1, 1] - py
            rp2x, rp2y = opt[o2, 0] - px, opt[o2, 1] - py

            # already covered by earlier obstacle lines of this agent
            margin = inv_t * r
            covered = False
            for j in range(count[i]):
                lpx, lpy = point[i, j, 0], point[i, j, 1]
                ldx, ldy = direction[i, j, 0], direction[i, j, 1]
                c1 = (inv_t * rp1x - lpx) * ldy - (inv_t * rp1y - lpy) * ldx
                c2 = (inv_t * rp2x - lpx) * ldy - (inv_t * rp2y - lpy) * ldx
                if c1 - margin >= slack and c2 - margin >= slack:
                    covered = True
                    break
            if covered:
                continue

            dist_sq1 = rp1x * rp1x + rp1y * rp1y
            dist_sq2 = rp2x * rp2x + rp2y * rp2y
            r_sq = r * r
            ovx, ovy = opt[o2, 0] - opt[o1, 0], opt[o2, 1] - opt[o1, 1]
            s = _ratio(-(rp1x * ovx + rp1y * ovy), ovx * ovx + ovy * ovy)
            footx, footy = -rp1x - s * ovx, -rp1y - s * ovy
            dist_sq_line = footx * footx + footy * footy

            out_px = out_py = 0.0
            if s < 0.0 and dist_sq1 <= r_sq:
                # collision with the left vertex (ignored when non-convex)
                if not convex[o1]:
                    continue
                out_dx, out_dy, _ = _unit_or(-rp1y, rp1x, 1.0, 0.0)
            elif s > 1.0 and dist_sq2 <= r_sq:
                # collision with the right vertex (ignored when non-convex or the next edge
                # takes it)
                if not (convex[o2] and rp2x * udir[o2, 1] - rp2y * udir[o2, 0] >= 0.0):
                    continue
                out_dx, out_dy, _ = _unit_or(-rp2y, rp2x, 1.0, 0.0)
            elif s >= 0.0 and s <= 1.0 and dist_sq_line <= r_sq:
                # collision with the segment
                out_dx, out_dy = -udir[o1, 0], -udir[o1, 1]
            else:
                # no collision: legs; oblique view makes both legs come from one vertex
                oblique_left = s < 0.0 and dist_sq_line <= r_sq
                oblique_right = not oblique_left and s > 1.0 and dist_sq_line <= r_sq
                if (oblique_left and not convex[o1]) or (oblique_right and not convex[o2]):
                    continue
                a1 = o2 if oblique_right else o1
                a2 = o1 if oblique_left else o2
                if oblique_left or oblique_right:
                    # tangent directions from the one vertex seen
                    ox, oy, d_sq = (rp1x, rp1y, dist_sq1) if oblique_left else (rp2x, rp2y,
                                                                               dist_sq2)
                    leg = math.sqrt(max(d_sq - r_sq, 0.0))
                    inv = 1.0 / (d_sq if d_sq > 0.0 else 1.0)
                    left_x = (ox * leg - oy * r) * inv
                    left_y = (ox * r + oy * leg) * inv
                    right_x = (ox * leg + oy * r) * inv
                    right_y = (-ox * r + oy * leg) * inv
                else:
                    # usual situation: a non-convex vertex makes the leg extend the cut-off line
                    if convex[o1]:
                        leg1 = math.sqrt(max(dist_sq1 - r_sq, 0.0))
                        inv1 = 1.0 / (dist_sq1 if dist_sq1 > 0.0 else 1.0)
                        left_x = (rp1x * leg1 - rp1y * r) * inv1
                        left_y = (rp1x * r + rp1y * leg1) * inv1
                    else:
                        left_x, left_y = -udir[o1, 0], -udir[o1, 1]
                    if convex[o2]:
                        leg2 = math.sqrt(max(dist_sq2 - r_sq, 0.0))
                        inv2 = 1.0 / (dist_sq2 if dist_sq2 > 0.0 else 1.0)
                        right_x = (rp2x * leg2 + rp2y * r) * inv2
                        right_y = (-rp2x * r + rp2y * leg2) * inv2
                    else:
                        right_x, right_y = udir[o1, 0], udir[o1, 1]

                # legs never point into the neighbouring edge at a convex vertex: foreign legs
                left_nb = prv[a1]
                left_foreign = convex[a1] and (left_x * -udir[left_nb, 1]
                                               - left_y * -udir[left_nb, 0]) >= 0.0
                if left_foreign:
                    left_x, left_y = -udir[left_nb, 0], -udir[left_nb, 1]
                right_foreign = convex[a2] and (right_x * udir[a2, 1]
                                                - right_y * udir[a2, 0]) <= 0.0
                if right_foreign:
                    right_x, right_y = udir[a2, 0], udir[a2, 1]

                lcx, lcy = inv_t * (opt[a1, 0] - px), inv_t * (opt[a1, 1] - py)
                rcx, rcy = inv_t * (opt[a2, 0] - px), inv_t * (opt[a2, 1] - py)
                cvx, cvy = rcx - lcx, rcy - lcy
                same = a1 == a2
                t = 0.5 if same else _ratio((vx - lcx) * cvx + (vy - lcy) * cvy,
                                            cvx * cvx + cvy * cvy)
                t_left = (vx - lcx) * left_x + (vy - lcy) * left_y
                t_right = (vx - rcx) * right_x + (vy - rcy) * right_y
                rr = r * inv_t

                if (t < 0.0 and t_left < 0.0) or (same and t_left < 0.0 and t_right < 0.0):
                    # project on the left cut-off circle
                    fx, fy, _ = _unit_or(-lcx, -lcy, 1.0, 0.0)
                    wx, wy, _ = _unit_or(vx - lcx, vy - lcy, fx, fy)
                    out_dx, out_dy = wy, -wx
                    out_px, out_py = lcx + rr * wx, lcy + rr * wy
                elif t > 1.0 and t_right < 0.0:
                    # project on the right cut-off circle
                    fx, fy, _ = _unit_or(-rcx, -rcy, 1.0, 0.0)
                    wx, wy, _ = _unit_or(vx - rcx, vy - rcy, fx, fy)
                    out_dx, out_dy = wy, -wx
                    out_px, out_py = rcx + rr * wx, rcy + rr * wy
                else:
                    # the cut-off line, the left leg or the right leg, whichever is closest
                    d_cut = np.inf
                    if not (t < 0.0 or t > 1.0 or same):
                        ex, ey = vx - (lcx + t * cvx), vy - (lcy + t * cvy)
                        d_cut = ex * ex + ey * ey
                    d_left = np.inf
                    if not t_left < 0.0:
                        ex, ey = vx - (lcx + t_left * left_x), vy - (lcy + t_left * left_y)
                        d_left = ex * ex + ey * ey
                    d_right = np.inf
                    if not t_right < 0.0:
                        ex, ey = vx - (rcx + t_right * right_x), vy - (rcy + t_right * right_y)
                        d_right = ex * ex + ey * ey
                    if d_cut <= d_left and d_cut <= d_right:
                        out_dx, out_dy = -udir[a1, 0], -udir[a1, 1]
                        out_px, out_py = lcx - rr * out_dy, lcy + rr * out_dx
                    elif d_left <= d_right:
                        if left_foreign:
                            continue
                        out_dx, out_dy = left_x, left_y
                        out_px, out_py = lcx - rr * left_y, lcy + rr * left_x
                    else:
                        if right_foreign:
                            continue
                        out_dx, out_dy = -right_x, -right_y
                        out_px, out_py = rcx + rr * right_y, rcy - rr * right_x
            c = count[i]
            point[i, c, 0] = out_px
            point[i, c, 1] = out_py
            direction[i, c, 0] = out_dx
            direction[i, c, 1] = out_dy
            count[i] = c + 1
