"""Signed clearance between bodies over the whole executed step (the diagnostics of a World)."""

from __future__ import annotations

import numpy as np

from navproof.step.sweep import sweep_min_distance_m

CLEARANCE_EXACT_BAND_M = 0.05
"""Pairs whose certified lower distance bound exceeds the combined radius plus this band (m)
report that bound (already more clearance than the band); closer pairs get the exact minimum.
The reported clearance is therefore exact whenever it is below the band, a certified lower
bound otherwise."""


def agent_clearance_m(x0_m: np.ndarray, mid_m: np.ndarray, x1_m: np.ndarray,
                      radius_m: np.ndarray, neighbor_idx: np.ndarray, dt_s: float) -> np.ndarray:
    """Signed clearance (m, (N,)) of each body to its listed neighbours over the whole step
    (the World lists every body within reach of the executed step,
    :func:`navproof.world.reach.bodies_within_reach`): the minimum distance of the two executed
    curves (quadratic in time through their start, middle and end points; exact for bodies on
    translating supports) minus the combined radius. Claim: W1."""
    n = x0_m.shape[0]
    out = np.full(n, np.inf)
    if neighbor_idx.shape[0] != n or neighbor_idx.shape[1] == 0:
        return out
    valid = neighbor_idx >= 0
    rows = np.flatnonzero(valid.any(axis=1))
    if rows.size == 0:
        return out
    j = np.where(valid, neighbor_idx, 0)
    # each curve as p(tau) = x0 + B tau + A tau^2; the pair's relative curve is the difference,
    # handed to the exact sweep (W1) as a body ramping against a neighbour standing still
    b = 4.0 * (mid_m - x0_m) - (x1_m - x0_m)
    a = 2.0 * (x1_m - x0_m) - 4.0 * (mid_m - x0_m)
    db = b[:, None, :] - b[j]
    da = a[:, None, :] - a[j]
    comb = radius_m[:, None] + radius_m[j]
    k = neighbor_idx.shape[1]
    flat_x0 = np.repeat(x0_m[rows], k, axis=0)
    flat_u = (db[rows] / dt_s).reshape(-1, 2)
    flat_v1 = (2.0 * da[rows] / dt_s).reshape(-1, 2)
    dmin, _ = sweep_min_distance_m(
        flat_x0, flat_u, np.zeros_like(flat_u), flat_v1, dt_s,
        x0_m[j[rows]].reshape(-1, 1, 2), np.zeros((flat_x0.shape[0], 1, 2)),
        valid[rows].reshape(-1, 1),
        exact_within_m=comb[rows].reshape(-1, 1) + CLEARANCE_EXACT_BAND_M)
    out[rows] = np.min(dmin.reshape(rows.size, -1) - comb[rows], axis=1)
    return out
