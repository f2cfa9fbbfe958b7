"""Batched closest-velocity linear programs of ORCA (RVO2's linearProgram1/2/3) on numpy arrays.

Line convention (identical to RVO2's ``Line``): a constraint is a directed line through
``point`` (m/s) with unit ``direction``. The permitted half-plane is the LEFT side of the
direction, i.e. a velocity ``v`` satisfies the line when

    det(direction, point - v) <= 0        (det(a, b) = a.x * b.y - a.y * b.x)

and ``det(direction, point - v)`` is its signed violation in m/s (positive: outside).

Constraints for ``N`` agents are held as arrays ``line_point (N, K, 2)``, ``line_dir (N, K, 2)``
with a validity mask ``valid (N, K)``. The first ``num_hard[n]`` slots of row ``n`` are hard
lines (obstacles, boundaries): the fallback of :func:`solve_closest` never relaxes them.

The programs are RVO2's own incremental algorithm, one agent at a time in a compiled loop
(:mod:`navproof.core.jit`): the work per agent depends on its lines (most agents stop after a
few), which whole-array code can only follow with masks over every agent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navproof.core.jit import compiled_loop
from navproof.core.parallel import run_pieces
from navproof.core.tolerances import RVO_EPSILON

_TINY = float(np.finfo(np.float64).tiny)
"""Smallest normal float: shorter bisector directions count as zero (their inverse overflows)."""


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


@compiled_loop
def _lp1(px, py, dx, dy, valid, i, radius, opt_x, opt_y, direction_opt, out):
    """Optimum on line ``i`` inside the disk and the valid lines ``j < i`` (linearProgram1).

    Writes the point into ``out`` and returns True, or returns False (``out`` untouched).
    Claim: O2.
    """
    pix, piy, dix, diy = px[i], py[i], dx[i], dy[i]
    dot = pix * dix + piy * diy
    # squared distance of the line from the origin as det(d, p)^2, not RVO2's |p|^2 - dot^2
    # (equal for a unit d): projected lines of linearProgram3 pass through crossings of nearly
    # parallel lines far from the origin, where |p|^2 - dot^2 cancels (O2 overshoot)
    offset = dix * piy - diy * pix
    disc = radius * radius - offset * offset
    if not disc >= 0.0:
        return False
    sqrt_disc = math.sqrt(disc)
    t_left = -dot - sqrt_disc
    t_right = -dot + sqrt_disc
    for j in range(i):
        if not valid[j]:
            continue
        denominator = dix * dy[j] - diy * dx[j]
        numerator = dx[j] * (piy - py[j]) - dy[j] * (pix - px[j])
        if abs(denominator) <= RVO_EPSILON:
            if numerator < 0.0:
                return False
            continue
        t = numerator / denominator
        if denominator >= 0.0:
            t_right = min(t_right, t)
        else:
            t_left = max(t_left, t)
        if t_left > t_right:
            return False
    if direction_opt:
        t = t_right if opt_x * dix + opt_y * diy > 0.0 else t_left
    else:
        t = dix * (opt_x - pix) + diy * (opt_y - piy)
        if t < t_left:
            t = t_left
        elif t > t_right:
            t = t_right
    out[0] = pix + t * dix
    out[1] = piy + t * diy
    return True


@compiled_loop
def _lp2(px, py, dx, dy, valid, radius, opt_x, opt_y, direction_opt, out):
    """Closest point to ``opt`` (or furthest along unit ``opt``) in disk ∩ lines (linearProgram2).

    Writes the point into ``out``; returns the first line it could not satisfy, or K.
    Claim: O2.
    """
    if direction_opt:
        out[0] = opt_x * radius
        out[1] = opt_y * radius
    else:
        opt_sq = opt_x * opt_x + opt_y * opt_y
        if opt_sq > radius * radius:
            scale = 1.0 / math.sqrt(opt_sq) * radius
            out[0] = opt_x * scale
            out[1] = opt_y * scale
        else:
            out[0] = opt_x
            out[1] = opt_y
    for i in range(valid.size):
        if not valid[i]:
            continue
        if dx[i] * (py[i] - out[1]) - dy[i] * (px[i] - out[0]) > 0.0:
            if not _lp1(px, py, dx, dy, valid, i, radius, opt_x, opt_y, direction_opt, out):
                return i
    return valid.size


@compiled_loop
def _lp3(px, py, dx, dy, valid, num_hard, begin, radius, out, work_px, work_py, work_dx,
         work_dy, work_valid, trial):
    """Velocity minimising the largest soft violation, hard lines kept (linearProgram3).

    Starts from ``out`` at line ``begin``, updates ``out`` and returns the largest soft
    violation reached (m/s). ``work_*`` and ``trial`` are scratch arrays of the caller.
    Claim: O4 (the degraded answer; never labelled feasible).
    """
    k = valid.size
    distance = 0.0
    for i in range(begin, k):
        if not valid[i]:
            continue
        pix, piy, dix, diy = px[i], py[i], dx[i], dy[i]
        if not dix * (piy - out[1]) - diy * (pix - out[0]) > distance:
            continue
        for j in range(k):
            work_valid[j] = False
            if j < num_hard:
                work_px[j], work_py[j], work_dx[j], work_dy[j] = px[j], py[j], dx[j], dy[j]
                work_valid[j] = valid[j]
                continue
            if j >= i or not valid[j]:
                continue
            determinant = dix * dy[j] - diy * dx[j]
            parallel = abs(determinant) <= RVO_EPSILON
            if parallel and dix * dx[j] + diy * dy[j] > 0.0:
                continue
            bx, by = dx[j] - dix, dy[j] - diy
            b_len = math.hypot(bx, by)
            if not b_len >= _TINY:
                continue
            if parallel:
                work_px[j] = 0.5 * (pix + px[j])
                work_py[j] = 0.5 * (piy + py[j])
            else:
                t = (dx[j] * (piy - py[j]) - dy[j] * (pix - px[j])) / determinant
                work_px[j] = pix + t * dix
                work_py[j] = piy + t * diy
            inv_b_len = 1.0 / b_len
            work_dx[j] = bx * inv_b_len
            work_dy[j] = by * inv_b_len
            work_valid[j] = True
        if _lp2(work_px, work_py, work_dx, work_dy, work_valid, radius, -diy, dix, True,
                trial) == k:
            # a failure here is floating-point noise only: the current result stays
            out[0] = trial[0]
            out[1] = trial[1]
        distance = dix * (piy - out[1]) - diy * (pix - out[0])
    return distance


@compiled_loop
def _solve_rows(preferred, radius, point, direction, valid, num_hard, lo, hi, velocity, fail_line,
               violation):
    """Rows ``lo:hi`` of :func:`solve_closest`, written into its output arrays. Claim: O2, O4."""
    k = valid.shape[1]
    px, py, dx, dy = np.empty(k), np.empty(k), np.empty(k), np.empty(k)
    work_px, work_py, work_dx, work_dy = np.empty(k), np.empty(k), np.empty(k), np.empty(k)
    work_valid = np.empty(k, dtype=np.bool_)
    out = np.empty(2)
    trial = np.empty(2)
    for r in range(lo, hi):
        for j in range(k):
            px[j], py[j] = point[r, j, 0], point[r, j, 1]
            dx[j], dy[j] = direction[r, j, 0], direction[r, j, 1]
        fail = _lp2(px, py, dx, dy, valid[r], radius[r], preferred[r, 0], preferred[r, 1], False,
                    out)
        if fail < k:
            fail_line[r] = fail
            violation[r] = _lp3(px, py, dx, dy, valid[r], num_hard[r], fail, radius[r], out,
                                work_px, work_py, work_dx, work_dy, work_valid, trial)
        else:
            fail_line[r] = -1
            violation[r] = 0.0
        velocity[r, 0] = out[0]
        velocity[r, 1] = out[1]


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
                  line_dir: np.ndarray, valid: np.ndarray, num_hard: np.ndarray | None = None,
                  *, threads: int = 1) -> ClosestResult:
    """Velocity (m/s) closest to ``preferred`` inside the disk of ``radius`` and all half-planes.

    Exactly RVO2's order: linearProgram2 over the lines in slot order; where it fails at line
    ``i``, linearProgram3 from ``i`` minimises the largest violation of the soft lines (slots
    ``>= num_hard``) while keeping the hard lines (slots ``< num_hard``, e.g. obstacles). The
    fallback answer is labelled ``feasible = False``.

    ``preferred (N, 2)``, ``radius (N,)`` max speed, ``line_point/line_dir (N, K, 2)``,
    ``valid (N, K)``, ``num_hard (N,)`` ints (default 0). Convention: a line allows the LEFT of
    its direction, ``det(direction, point - v) <= 0``. ``threads`` > 1 shares the agents
    between that many threads (each agent's answer is the same either way).
    Claim: O1, O2, O4.
    """
    preferred = np.ascontiguousarray(preferred, dtype=np.float64)
    radius = np.ascontiguousarray(radius, dtype=np.float64)
    line_point = np.ascontiguousarray(line_point, dtype=np.float64)
    line_dir = np.ascontiguousarray(line_dir, dtype=np.float64)
    valid = np.ascontiguousarray(valid, dtype=bool)
    n = preferred.shape[0]
    num_hard = (np.zeros(n, dtype=np.int64) if num_hard is None
                else np.ascontiguousarray(num_hard, dtype=np.int64))
    velocity = np.empty((n, 2))
    fail_line = np.empty(n, dtype=np.int64)
    violation = np.empty(n)
    pieces = max(1, min(16, n // 1024)) if threads > 1 else 1
    bounds = np.linspace(0, n, pieces + 1).astype(int).tolist()
    run_pieces(lambda i: _solve_rows(preferred, radius, line_point, line_dir, valid, num_hard,
                                     bounds[i], bounds[i + 1], velocity, fail_line, violation),
               pieces, threads=threads)
    return ClosestResult(velocity, fail_line < 0, fail_line, violation)
