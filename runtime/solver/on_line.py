"""The one-dimensional problem on a boundary line of the incremental closest-point solver.

Where the optimum so far violates a half-plane, the new optimum lies on its boundary line
``q + t d`` (``q = offset * normal``, ``d = (-normal.y, normal.x)``): the point of the interval of
``t`` that the disks and the earlier half-planes leave, nearest the target (or furthest along a
direction). Claim: O2 (combined), V1, V2.
"""

from __future__ import annotations

import numpy as np


def disk_interval(qx: np.ndarray, qy: np.ndarray, dx: np.ndarray, dy: np.ndarray,
                  cx: np.ndarray | float, cy: np.ndarray | float, radius: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ok, lo, hi): the parameters of the points of line ``q + t d`` inside the disk
    (centre, radius); ``ok`` False where the line misses it."""
    wx, wy = qx - cx, qy - cy
    b = dx * wx + dy * wy
    disc = b * b - (wx * wx + wy * wy) + radius * radius
    half = np.sqrt(np.maximum(disc, 0.0))
    return disc >= 0.0, -b - half, -b + half


def halfplane_interval(qx: np.ndarray, qy: np.ndarray, dx: np.ndarray, dy: np.ndarray,
                       njx: np.ndarray, njy: np.ndarray, cj: np.ndarray, vj: np.ndarray, *,
                       parallel_det: float, tol: float, axis: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ok, lo, hi): the parameters of line ``q + t d`` inside every valid half-plane
    ``dot(n_j, v) <= c_j`` of ``njx, njy, cj, vj`` (reduced over ``axis``; the line's arrays
    broadcast against them). A boundary within ``parallel_det`` of parallel leaves all of the
    line or, when it lies more than ``tol`` outside, none of it."""
    # dot(n_j, q + t d) <= c_j reads t dot(n_j, d) <= c_j - dot(n_j, q)
    slope = njx * dx + njy * dy
    room = cj - (njx * qx + njy * qy)
    parallel = np.abs(slope) <= parallel_det
    ok = ~np.any(vj & parallel & (room < -tol), axis=axis)
    crossing = vj & ~parallel
    bound = room / np.where(crossing, slope, 1.0)
    hi = np.min(np.where(crossing & (slope > 0.0), bound, np.inf), axis=axis)
    lo = np.max(np.where(crossing & (slope < 0.0), bound, -np.inf), axis=axis)
    return ok, lo, hi


def nearest_on_line(qx: np.ndarray, qy: np.ndarray, dx: np.ndarray, dy: np.ndarray,
                    target: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The point (R, 2) of line ``q + t d`` with ``t`` in [lo, hi] nearest ``target`` (R, 2)."""
    t = dx * (target[:, 0] - qx) + dy * (target[:, 1] - qy)
    t = np.minimum(np.maximum(t, lo), hi)
    return np.stack([qx + t * dx, qy + t * dy], axis=1)
