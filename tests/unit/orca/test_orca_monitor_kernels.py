"""The ORCA monitor's compiled passes equal the numpy expressions they replaced, on random
inputs with zeros of both signs, NaN, inf, parallel and near-parallel lines (a NaN is compared
as NaN, a zero as zero: neither changes a verdict). Claim: O4."""

from __future__ import annotations

import types

import numpy as np
import pytest

from navproof.core.tolerances import RVO_EPSILON
from navproof.orca.monitor import infeasibility_margin


def _numpy_infeasibility_margin(diag, rows: np.ndarray) -> np.ndarray:
    """The O4 chord as numpy computed it before the compiled pass."""
    i = diag.fail_line[rows]
    p = diag.line_point[rows, i]
    d = diag.line_dir[rows, i]
    radius = diag.max_speed[rows]
    dot = np.einsum("ij,ij->i", p, d)
    disc = dot * dot + radius * radius - np.einsum("ij,ij->i", p, p)
    sq = np.sqrt(np.maximum(disc, 0.0))
    t_left, t_right = -dot - sq, -dot + sq
    k = diag.valid.shape[1]
    before = diag.valid[rows] & (np.arange(k)[None, :] < i[:, None])
    pj, dj = diag.line_point[rows], diag.line_dir[rows]
    denominator = d[:, None, 0] * dj[..., 1] - d[:, None, 1] * dj[..., 0]
    numerator = (dj[..., 0] * (p[:, None, 1] - pj[..., 1])
                 - dj[..., 1] * (p[:, None, 0] - pj[..., 0]))
    parallel = np.abs(denominator) <= RVO_EPSILON
    outside_parallel = np.any(before & parallel & (numerator < 0.0), axis=1)
    cross = before & ~parallel
    t = numerator / np.where(cross, denominator, 1.0)
    t_right = np.minimum(t_right, np.min(np.where(cross & (denominator >= 0), t, np.inf),
                                         axis=1))
    t_left = np.maximum(t_left, np.max(np.where(cross & (denominator < 0), t, -np.inf),
                                       axis=1))
    margin = np.where(disc < 0.0, -np.inf, t_right - t_left)
    return np.where(outside_parallel, -np.inf, margin)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_infeasibility_margin_equals_the_numpy_expression():
    rng = np.random.default_rng(23)
    n, k = 3000, 8
    point = rng.normal(0.0, 1.5, (n, k, 2))
    angle = rng.uniform(0.0, 2.0 * np.pi, (n, k))
    direction = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    # parallel and near-parallel to the failing line, and edge values
    direction[::7, 1] = direction[::7, 0] * (1.0 + rng.choice([0.0, 1e-7, 1e-3], n)[::7, None])
    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-300])
    pick = rng.random(point.shape) < 0.01
    point[pick] = rng.choice(specials, int(pick.sum()))
    pick = rng.random(direction.shape) < 0.01
    direction[pick] = rng.choice(specials, int(pick.sum()))
    diag = types.SimpleNamespace(
        line_point=point, line_dir=direction, valid=rng.random((n, k)) < 0.8,
        max_speed=rng.uniform(0.0, 2.0, n), fail_line=rng.integers(-1, k, n))
    rows = np.flatnonzero(rng.random(n) < 0.7)
    got = infeasibility_margin(diag, rows)
    want = _numpy_infeasibility_margin(diag, rows)
    assert np.array_equal(got, want, equal_nan=True)
