"""Batched closest-velocity linear programs of ORCA (RVO2's linearProgram1/2/3) on numpy arrays,
in the solver's half-plane form (:mod:`navproof.solver.halfplanes`).

A constraint is the half-plane ``dot(normal, v) <= offset`` with a unit ``normal`` (m/s); its
signed violation is ``dot(normal, v) - offset`` (positive: outside). Along its boundary line the
points are ``offset * normal + t * direction`` with ``direction = (-normal.y, normal.x)``, so the
permitted side lies to the right of the direction (RVO2's lines, whose permitted side is LEFT of
their direction, arrive through :func:`navproof.solver.halfplanes.from_rvo_lines`).

Constraints for ``N`` agents are :class:`HalfPlanes` of shape (N, K). The first ``num_hard[n]``
slots of row ``n`` are hard (obstacles, boundaries): the fallback of :func:`solve_closest` never
relaxes them. Every function loops over the constraint index only; agents are processed as whole
arrays. The tolerances are RVO2's own (exact comparisons and ``RVO_EPSILON`` for parallel lines),
so the crowd takes RVO2's case decisions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof.core.tolerances import RVO_EPSILON
from navproof.solver.halfplanes import HalfPlanes
from navproof.solver.on_line import disk_interval, halfplane_interval, nearest_on_line


def det2(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    """2-D cross product ``a.x * b.y - a.y * b.x`` of component arrays (m^2/s^2 or unitless)."""
    return ax * by - ay * bx


def line_violation(velocity: np.ndarray, line_point: np.ndarray, line_dir: np.ndarray,
                   valid: np.ndarray) -> np.ndarray:
    """Signed violation ``det(dir, point - v)`` (m/s) of every RVO2 line; ``-inf`` where not
    valid. Claim: O2 (the half-planes of the closest-point problem), O4 (largest violation).
    """
    px = line_point[..., 0] - velocity[:, None, 0]
    py = line_point[..., 1] - velocity[:, None, 1]
    # det2(direction, point - v), computed in place
    py *= line_dir[..., 0]
    px *= line_dir[..., 1]
    py -= px
    np.copyto(py, -np.inf, where=~valid)
    return py


def _planes(planes: HalfPlanes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Normals, offsets and validity as contiguous (K, M) planes: slot first, one row per slot."""
    normal = np.ascontiguousarray(planes.normal.transpose(2, 1, 0))
    return (normal[0], normal[1], np.ascontiguousarray(planes.offset.T),
            np.ascontiguousarray(planes.valid.T))


def _lp1(planes: tuple[np.ndarray, ...], i: int, rows: np.ndarray, radius: np.ndarray,
         opt: np.ndarray, direction_opt: bool) -> tuple[np.ndarray, np.ndarray]:
    """Optimum on the boundary of half-plane ``i`` inside the disk and the valid half-planes
    ``j < i`` (RVO2 linearProgram1).

    ``planes`` are the (K, M) planes of :func:`_planes`; the program is solved for the columns
    ``rows`` (``radius`` and ``opt`` given for those rows). Returns ``(ok, result)``; ``ok`` is
    False where the disk and the earlier half-planes leave nothing of line ``i``. Claim: O2.
    """
    nxs, nys, cs, vs = planes
    nx, ny, c = nxs[i, rows], nys[i, rows], cs[i, rows]
    # the line's point nearest the origin, q = c n, and its direction d = (-n.y, n.x)
    qx, qy = c * nx, c * ny
    dx, dy = -ny, nx
    ok, t_left, t_right = disk_interval(qx, qy, dx, dy, 0.0, 0.0, radius)
    if i > 0:
        ok_j, lo_j, hi_j = halfplane_interval(
            qx, qy, dx, dy, np.take(nxs[:i], rows, axis=1), np.take(nys[:i], rows, axis=1),
            np.take(cs[:i], rows, axis=1), np.take(vs[:i], rows, axis=1),
            parallel_det=RVO_EPSILON, tol=0.0, axis=0)
        t_left, t_right = np.maximum(t_left, lo_j), np.minimum(t_right, hi_j)
        ok &= ok_j & (t_left <= t_right)
    if direction_opt:
        take_right = opt[:, 0] * dx + opt[:, 1] * dy > 0.0
        t_sel = np.where(take_right, t_right, t_left)
        result = np.stack([qx + t_sel * dx, qy + t_sel * dy], axis=1)
    else:
        result = nearest_on_line(qx, qy, dx, dy, opt, t_left, t_right)
    return ok, result


def _lp2(planes: HalfPlanes, radius: np.ndarray, opt: np.ndarray, direction_opt: bool
         ) -> tuple[np.ndarray, np.ndarray]:
    """Closest point to ``opt`` (or furthest along unit ``opt``) in disk ∩ half-planes
    (linearProgram2).

    Returns ``(result (M, 2) m/s, fail (M,))`` where ``fail`` is the index of the first
    half-plane the incremental solve could not satisfy, or ``K`` when all were satisfied.
    Claim: O2.
    """
    m, k = planes.valid.shape
    if direction_opt:
        result = opt * radius[:, None]
    else:
        opt_sq = np.einsum("ij,ij->i", opt, opt)
        outside = opt_sq > radius * radius
        inv_len = 1.0 / np.sqrt(np.where(outside, opt_sq, 1.0))
        result = np.where(outside[:, None], opt * (inv_len * radius)[:, None], opt)
    fail = np.full(m, k, dtype=np.int64)
    active = np.ones(m, dtype=bool)
    cols = _planes(planes)
    nxs, nys, cs, vs = cols
    for i in range(k):
        cand = active & vs[i]
        if not cand.any():
            continue
        viol = nxs[i] * result[:, 0] + nys[i] * result[:, 1] - cs[i]
        rows = np.flatnonzero(cand & (viol > 0.0))
        if rows.size == 0:
            continue
        ok, res = _lp1(cols, i, rows, radius[rows], opt[rows], direction_opt)
        if ok.all():
            result[rows] = res
            continue
        result[rows[ok]] = res[ok]
        bad = rows[~ok]
        fail[bad] = i
        active[bad] = False
    return result, fail


def _lp3(planes: HalfPlanes, num_hard: np.ndarray, begin: np.ndarray, radius: np.ndarray,
         result: np.ndarray) -> np.ndarray:
    """Velocity minimising the largest violation of soft half-planes, hard ones kept
    (linearProgram3).

    Rows start at slot ``begin``; returns the largest soft violation reached (m/s) and updates
    ``result`` in place. Claim: O4 (the degraded answer; never labelled feasible).
    """
    nrm, off, val = planes.normal, planes.offset, planes.valid
    m, k = val.shape
    distance = np.zeros(m)
    slot = np.arange(k)
    for i in range(k):
        cand = val[:, i] & (begin <= i)
        if not cand.any():
            continue
        viol = nrm[:, i, 0] * result[:, 0] + nrm[:, i, 1] * result[:, 1] - off[:, i]
        rows = np.flatnonzero(cand & (viol > distance))
        if rows.size == 0:
            continue
        nix, niy = nrm[rows, i, 0][:, None], nrm[rows, i, 1][:, None]
        ci = off[rows, i][:, None]
        nj, cj, vj = nrm[rows], off[rows], val[rows]
        hard = slot[None, :] < num_hard[rows, None]
        soft = ~hard & (slot[None, :] < i) & vj
        # det(d_i, d_j) of the directions d = (-n.y, n.x)
        determinant = det2(nix, niy, nj[..., 0], nj[..., 1])
        parallel = np.abs(determinant) <= RVO_EPSILON
        same_dir = parallel & (nix * nj[..., 0] + niy * nj[..., 1] > 0.0)
        # the boundaries' crossing (Cramer), or for opposite parallel lines the midpoint of
        # their points nearest the origin: the bisector passes midway between them
        inv_det = 1.0 / np.where(parallel, 1.0, determinant)
        qx = np.where(parallel, 0.5 * (ci * nix + cj * nj[..., 0]),
                      (ci * nj[..., 1] - cj * niy) * inv_det)
        qy = np.where(parallel, 0.5 * (ci * niy + cj * nj[..., 1]),
                      (nix * cj - nj[..., 0] * ci) * inv_det)
        # the bisector's normal n_j - n_i (RVO2's direction d_j - d_i turned the same way)
        bx, by = nj[..., 0] - nix, nj[..., 1] - niy
        blen = np.hypot(bx, by)
        # equal normals are the skipped same-direction case; subnormal lengths count as 0
        usable = blen >= np.finfo(np.float64).tiny
        inv_blen = 1.0 / np.where(usable, blen, 1.0)
        bnx, bny = bx * inv_blen, by * inv_blen
        proj_valid = soft & ~same_dir & usable
        proj_normal = np.where(hard[..., None], nj, np.stack([bnx, bny], axis=-1))
        proj_offset = np.where(hard, cj, bnx * qx + bny * qy)
        proj_ok = (hard & vj) | proj_valid
        opt = -np.concatenate([nix, niy], axis=1)
        res, fail = _lp2(HalfPlanes(proj_normal, proj_offset, proj_ok), radius[rows], opt, True)
        # a failure here is floating-point noise only: the current result stays
        keep = fail < k
        res[keep] = result[rows[keep]]
        result[rows] = res
        distance[rows] = (nrm[rows, i, 0] * res[:, 0] + nrm[rows, i, 1] * res[:, 1]
                          - off[rows, i])
    return distance


@dataclass(frozen=True)
class ClosestResult:
    """Outcome of :func:`solve_closest` per agent.

    ``velocity`` (N, 2) m/s; ``feasible`` (N,) True when the velocity is the exact closest point
    of disk ∩ all half-planes; ``fail_line`` (N,) index of the half-plane where the exact solve
    stopped, -1 if feasible; ``fallback_violation`` (N,) largest soft violation left by the
    fallback (m/s, 0 when feasible). Claim: O2, O4.
    """

    velocity: np.ndarray
    feasible: np.ndarray
    fail_line: np.ndarray
    fallback_violation: np.ndarray


def solve_closest(preferred: np.ndarray, radius: np.ndarray, planes: HalfPlanes,
                  num_hard: np.ndarray | None = None) -> ClosestResult:
    """Velocity (m/s) closest to ``preferred`` inside the disk of ``radius`` and all half-planes.

    Exactly RVO2's order: linearProgram2 over the half-planes in slot order; where it fails at
    slot ``i``, linearProgram3 from ``i`` minimises the largest violation of the soft half-planes
    (slots ``>= num_hard``) while keeping the hard ones (slots ``< num_hard``, e.g. obstacles).
    The fallback answer is labelled ``feasible = False``.

    ``preferred (N, 2)``, ``radius (N,)`` max speed, ``planes`` (N, K), ``num_hard (N,)`` ints
    (default 0). Claim: O1, O2, O4.
    """
    preferred = np.asarray(preferred, dtype=np.float64)
    radius = np.asarray(radius, dtype=np.float64)
    n = preferred.shape[0]
    k = planes.valid.shape[1]
    if num_hard is None:
        num_hard = np.zeros(n, dtype=np.int64)
    velocity, fail = _lp2(planes, radius, preferred.copy(), False)
    infeasible = fail < k
    violation = np.zeros(n)
    if infeasible.any():
        rows = np.flatnonzero(infeasible)
        sub_velocity = velocity[rows]
        violation[rows] = _lp3(planes.take(rows), num_hard[rows], fail[rows], radius[rows],
                               sub_velocity)
        velocity[rows] = sub_velocity
    return ClosestResult(velocity, ~infeasible, np.where(infeasible, fail, -1), violation)
