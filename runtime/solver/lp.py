"""Batched closest-velocity linear programs of ORCA (RVO2's linearProgram1/2/3) on numpy arrays.

Line convention (identical to RVO2's ``Line``): a constraint is a directed line through
``point`` (m/s) with unit ``direction``. The permitted half-plane is the LEFT side of the
direction, i.e. a velocity ``v`` satisfies the line when

    det(direction, point - v) <= 0        (det(a, b) = a.x * b.y - a.y * b.x)

and ``det(direction, point - v)`` is its signed violation in m/s (positive: outside).

Constraints for ``N`` agents are held as arrays ``line_point (N, K, 2)``, ``line_dir (N, K, 2)``
with a validity mask ``valid (N, K)``. The first ``num_hard[n]`` slots of row ``n`` are hard
lines (obstacles, boundaries): the fallback of :func:`solve_closest` never relaxes them. Every
function loops over the constraint index only; agents are processed as whole arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof.core.tolerances import RVO_EPSILON


def det2(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    """2-D cross product ``a.x * b.y - a.y * b.x`` of component arrays (m^2/s^2 or unitless)."""
    return ax * by - ay * bx


def line_violation(velocity: np.ndarray, line_point: np.ndarray, line_dir: np.ndarray,
                   valid: np.ndarray) -> np.ndarray:
    """Signed violation ``det(dir, point - v)`` (m/s) of every line; ``-inf`` where not valid.

    Claim: O2 (the half-planes of the closest-point problem), O4 (largest violation).
    """
    px = line_point[..., 0] - velocity[:, None, 0]
    py = line_point[..., 1] - velocity[:, None, 1]
    # det2(direction, point - v), computed in place
    py *= line_dir[..., 0]
    px *= line_dir[..., 1]
    py -= px
    np.copyto(py, -np.inf, where=~valid)
    return py


def _planes(lp: np.ndarray, ld: np.ndarray, lv: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Line components as contiguous (K, M) planes: line index first, one row per line."""
    point = np.ascontiguousarray(lp.transpose(2, 1, 0))
    direction = np.ascontiguousarray(ld.transpose(2, 1, 0))
    return point[0], point[1], direction[0], direction[1], np.ascontiguousarray(lv.T)


def _lp1(planes: tuple[np.ndarray, ...], i: int, rows: np.ndarray, radius: np.ndarray,
         opt: np.ndarray, direction_opt: bool) -> tuple[np.ndarray, np.ndarray]:
    """Optimum on line ``i`` inside the disk and the valid lines ``j < i`` (RVO2 linearProgram1).

    ``planes`` are the (K, M) line planes of :func:`_planes`; the program is solved for the
    columns ``rows`` (``radius`` and ``opt`` given for those rows). Returns ``(ok, result)``;
    ``ok`` is False where the disk and the earlier lines leave nothing of line ``i``.
    Claim: O2.
    """
    pxs, pys, dxs, dys, lvs = planes
    px, py = pxs[i, rows], pys[i, rows]
    dx, dy = dxs[i, rows], dys[i, rows]
    dot = px * dx + py * dy
    disc = dot * dot + radius * radius - (px * px + py * py)
    ok = disc >= 0.0
    sqrt_disc = np.sqrt(np.maximum(disc, 0.0))
    t_left = -dot - sqrt_disc
    t_right = -dot + sqrt_disc
    if i > 0:
        pjx, pjy = np.take(pxs[:i], rows, axis=1), np.take(pys[:i], rows, axis=1)
        djx, djy = np.take(dxs[:i], rows, axis=1), np.take(dys[:i], rows, axis=1)
        vj = np.take(lvs[:i], rows, axis=1)
        denominator = det2(dx, dy, djx, djy)
        numerator = det2(djx, djy, px - pjx, py - pjy)
        parallel = np.abs(denominator) <= RVO_EPSILON
        # (almost) parallel lines: line i lies wholly outside line j
        ok &= ~np.any(vj & parallel & (numerator < 0.0), axis=0)
        crossing = vj & ~parallel
        t = numerator / np.where(crossing, denominator, 1.0)
        # line j bounds line i on the right (denominator >= 0) or on the left
        t_right = np.minimum(t_right, np.min(np.where(crossing & (denominator >= 0.0), t, np.inf),
                                             axis=0))
        t_left = np.maximum(t_left, np.max(np.where(crossing & (denominator < 0.0), t, -np.inf),
                                           axis=0))
        ok &= t_left <= t_right
    if direction_opt:
        take_right = opt[:, 0] * dx + opt[:, 1] * dy > 0.0
        t_sel = np.where(take_right, t_right, t_left)
    else:
        t_sel = dx * (opt[:, 0] - px) + dy * (opt[:, 1] - py)
        t_sel = np.where(t_sel < t_left, t_left, np.where(t_sel > t_right, t_right, t_sel))
    result = np.stack([px + t_sel * dx, py + t_sel * dy], axis=1)
    return ok, result


def _lp2(lp: np.ndarray, ld: np.ndarray, lv: np.ndarray, radius: np.ndarray, opt: np.ndarray,
         direction_opt: bool) -> tuple[np.ndarray, np.ndarray]:
    """Closest point to ``opt`` (or furthest along unit ``opt``) in disk ∩ lines (linearProgram2).

    Returns ``(result (M, 2) m/s, fail (M,))`` where ``fail`` is the index of the first line the
    incremental solve could not satisfy, or ``K`` when all were satisfied.
    Claim: O2.
    """
    m, k = lv.shape
    if direction_opt:
        result = opt * radius[:, None]
    else:
        opt_sq = np.einsum("ij,ij->i", opt, opt)
        outside = opt_sq > radius * radius
        inv_len = 1.0 / np.sqrt(np.where(outside, opt_sq, 1.0))
        result = np.where(outside[:, None], opt * (inv_len * radius)[:, None], opt)
    fail = np.full(m, k, dtype=np.int64)
    active = np.ones(m, dtype=bool)
    planes = _planes(lp, ld, lv)
    pxs, pys, dxs, dys, lvs = planes
    for i in range(k):
        cand = active & lvs[i]
        if not cand.any():
            continue
        viol = det2(dxs[i], dys[i], pxs[i] - result[:, 0], pys[i] - result[:, 1])
        rows = np.flatnonzero(cand & (viol > 0.0))
        if rows.size == 0:
            continue
        ok, res = _lp1(planes, i, rows, radius[rows], opt[rows], direction_opt)
        if ok.all():
            result[rows] = res
            continue
        result[rows[ok]] = res[ok]
        bad = rows[~ok]
        fail[bad] = i
        active[bad] = False
    return result, fail


def _lp3(lp: np.ndarray, ld: np.ndarray, lv: np.ndarray, num_hard: np.ndarray, begin: np.ndarray,
         radius: np.ndarray, result: np.ndarray) -> np.ndarray:
    """Velocity minimising the largest violation of soft lines, hard lines kept (linearProgram3).

    Rows start at line ``begin``; returns the largest soft violation reached (m/s) and updates
    ``result`` in place. Claim: O4 (the degraded answer; never labelled feasible).
    """
    m, k = lv.shape
    distance = np.zeros(m)
    slot = np.arange(k)
    for i in range(k):
        cand = lv[:, i] & (begin <= i)
        if not cand.any():
            continue
        viol = det2(ld[:, i, 0], ld[:, i, 1], lp[:, i, 0] - result[:, 0],
                    lp[:, i, 1] - result[:, 1])
        rows = np.flatnonzero(cand & (viol > distance))
        if rows.size == 0:
            continue
        pix, piy = lp[rows, i, 0][:, None], lp[rows, i, 1][:, None]
        dix, diy = ld[rows, i, 0][:, None], ld[rows, i, 1][:, None]
        pj, dj, vj = lp[rows], ld[rows], lv[rows]
        hard = slot[None, :] < num_hard[rows, None]
        soft = ~hard & (slot[None, :] < i) & vj
        determinant = det2(dix, diy, dj[..., 0], dj[..., 1])
        parallel = np.abs(determinant) <= RVO_EPSILON
        same_dir = parallel & (dix * dj[..., 0] + diy * dj[..., 1] > 0.0)
        # lines i and j pointing opposite ways: the bisector passes midway between them
        t = det2(dj[..., 0], dj[..., 1], pix - pj[..., 0], piy - pj[..., 1]) / np.where(
            parallel, 1.0, determinant)
        qx = np.where(parallel, 0.5 * (pix + pj[..., 0]), pix + t * dix)
        qy = np.where(parallel, 0.5 * (piy + pj[..., 1]), piy + t * diy)
        bx, by = dj[..., 0] - dix, dj[..., 1] - diy
        blen = np.hypot(bx, by)
        # equal directions are the skipped same-direction case; subnormal lengths count as 0
        usable = blen >= np.finfo(np.float64).tiny
        inv_blen = 1.0 / np.where(usable, blen, 1.0)
        proj_valid = soft & ~same_dir & usable
        proj_point = np.where(hard[..., None], pj, np.stack([qx, qy], axis=-1))
        proj_dir = np.where(hard[..., None], dj,
                            np.stack([bx * inv_blen, by * inv_blen], axis=-1))
        proj_ok = (hard & vj) | proj_valid
        opt = np.concatenate([-diy, dix], axis=1)
        res, fail = _lp2(proj_point, proj_dir, proj_ok, radius[rows], opt, True)
        # a failure here is floating-point noise only: the current result stays
        keep = fail < k
        res[keep] = result[rows[keep]]
        result[rows] = res
        distance[rows] = det2(ld[rows, i, 0], ld[rows, i, 1], lp[rows, i, 0] - res[:, 0],
                              lp[rows, i, 1] - res[:, 1])
    return distance


@dataclass(frozen=True)
class ClosestResult:
    """Outcome of :func:`solve_closest` per agent.

    ``velocity`` (N, 2) m/s; ``feasible`` (N,) True when the velocity is the exact closest point
    of disk ∩ all lines; ``fail_line`` (N,) index of the line where the exact solve stopped, -1 if
    feasible; ``fallback_violation`` (N,) largest soft-line violation left by the fallback (m/s,
    0 when feasible). Claim: O2, O4.
    """

    velocity: np.ndarray
    feasible: np.ndarray
    fail_line: np.ndarray
    fallback_violation: np.ndarray


def solve_closest(preferred: np.ndarray, radius: np.ndarray, line_point: np.ndarray,
                  line_dir: np.ndarray, valid: np.ndarray, num_hard: np.ndarray | None = None
                  ) -> ClosestResult:
    """Velocity (m/s) closest to ``preferred`` inside the disk of ``radius`` and all half-planes.

    Exactly RVO2's order: linearProgram2 over the lines in slot order; where it fails at line
    ``i``, linearProgram3 from ``i`` minimises the largest violation of the soft lines (slots
    ``>= num_hard``) while keeping the hard lines (slots ``< num_hard``, e.g. obstacles). The
    fallback answer is labelled ``feasible = False``.

    ``preferred (N, 2)``, ``radius (N,)`` max speed, ``line_point/line_dir (N, K, 2)``,
    ``valid (N, K)``, ``num_hard (N,)`` ints (default 0). Convention: a line allows the LEFT of
    its direction, ``det(direction, point - v) <= 0``.
    Claim: O1, O2, O4.
    """
    preferred = np.asarray(preferred, dtype=np.float64)
    radius = np.asarray(radius, dtype=np.float64)
    n = preferred.shape[0]
    k = valid.shape[1]
    if num_hard is None:
        num_hard = np.zeros(n, dtype=np.int64)
    velocity, fail = _lp2(line_point, line_dir, valid, radius, preferred.copy(), False)
    infeasible = fail < k
    violation = np.zeros(n)
    if infeasible.any():
        rows = np.flatnonzero(infeasible)
        sub_velocity = velocity[rows]
        violation[rows] = _lp3(line_point[rows], line_dir[rows], valid[rows], num_hard[rows],
                               fail[rows], radius[rows], sub_velocity)
        velocity[rows] = sub_velocity
    return ClosestResult(velocity, ~infeasible, np.where(infeasible, fail, -1), violation)
