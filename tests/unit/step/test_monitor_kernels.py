"""The step monitor's compiled search for the first violated row equals the numpy expression it
replaced (row minimum column by column, owed rows, first below -EPS) on random margins with
zeros of both signs, NaN and inf. Claim: B5, S3, S7, B6, V2, W1, R2."""

from __future__ import annotations

import numpy as np
import pytest

from navproof.core.tolerances import EPS
from navproof.step.monitor import (
    OWES_CORRIDOR,
    OWES_ENVELOPE,
    OWES_REACH,
    OWES_ROTATING,
    OWES_SWEEP,
    _first_below,
    _owed_claims,
)
from navproof.step.result import (
    DYNAMIC_AVOIDANCE_FAILED,
    FLAG_CARRY_EXCEEDS_CANCEL,
    LABEL_NAMES,
    OVERLAP_RECOVERY,
    SAFE,
)

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
        got = _first_below(margin, owed.astype(np.uint8) * 4 + 1, 4, -EPS)
        want = _numpy_first_below(margin, owed)
        assert got[0] == want[0]
        assert np.float64(got[1]).tobytes() == np.float64(want[1]).tobytes()


@pytest.mark.parametrize("flags_dtype", [np.uint8, np.int64])
def test_owed_claims_equal_the_numpy_masks(flags_dtype):
    rng = np.random.default_rng(37)
    for _ in range(200):
        n = int(rng.integers(0, 60))
        label = rng.integers(0, len(LABEL_NAMES), n).astype(np.int8)
        accel = rng.choice([0.0, -0.0, 1.0, np.nan, np.inf, -1.0, 1e-300], n)
        exists = rng.random(n) < 0.8
        reachable = exists & (rng.random(n) < 0.9)
        flags = rng.integers(0, 8, n).astype(flags_dtype)
        owed = np.empty(n, np.uint8)
        first_r2 = _owed_claims(label, accel, exists, reachable, flags,
                                FLAG_CARRY_EXCEEDS_CANCEL, owed)
        safe = label == SAFE
        separating = label == OVERLAP_RECOVERY
        corridor = safe | separating | (label == DYNAMIC_AVOIDANCE_FAILED)
        braking = accel > 0.0
        for bit, mask in ((OWES_CORRIDOR, corridor),
                          (OWES_ENVELOPE, corridor & exists & braking),
                          (OWES_ROTATING, corridor & exists),
                          (OWES_REACH, np.ones(n, bool)),
                          (OWES_SWEEP, safe | separating)):
            assert np.array_equal((owed & bit) != 0, mask)
        carry = ((flags & FLAG_CARRY_EXCEEDS_CANCEL) != 0) | ~reachable
        r2 = np.where(carry & safe, -1.0, 0.0)[:, None]
        assert first_r2 == _numpy_first_below(r2, safe)[0]
