"""The step monitor's compiled search for the first violated row equals the numpy expression it
replaced (row minimum column by column, owed rows, first below -EPS) on random margins with
zeros of both signs, NaN and inf. Claim: B5, S3, S7, B6, V2, W1, R2."""

from __future__ import annotations

import numpy as np
import pytest

from navproof.core.tolerances import EPS
from navproof.step.monitor import _first_below

SPECIALS = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, -EPS, -2.0 * EPS, -1.0])


def _numpy_first_below(margin: np.ndarray, owed: np.ndarray) -> tuple[int, float]:
    m = np.full(margin.shape[0], np.inf)
    for j in range(margin.shape[1]):
        np.minimum(m, margin[:, j], out=m)
    bad = owed & (m < -EPS)
    if not bad.any():
        return -1, 0.0
    agent = int(np.flatnonzero(bad)[0])
    return agent, float(m[agent])


@pytest.mark.parametrize("columns", [0, 1, 7])
def test_first_below_equals_the_numpy_row_minimum(columns):
    rng = np.random.default_rng(31 + columns)
    for _ in range(200):
        n = int(rng.integers(0, 40))
        margin = rng.uniform(-1e-9, 1.0, (n, columns))
        pick = rng.random(margin.shape) < 0.05
        margin[pick] = rng.choice(SPECIALS, int(pick.sum()))
        owed = rng.random(n) < 0.7
        got = _first_below(margin, owed, -EPS)
        want = _numpy_first_below(margin, owed)
        assert got[0] == want[0]
        assert np.float64(got[1]).tobytes() == np.float64(want[1]).tobytes()
