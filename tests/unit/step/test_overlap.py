"""Already-overlapping neighbours (O6): the compiled test equals numpy's expression."""

import numpy as np

from navproof.step import overlap


def test_overlapping_rows_equal_numpys_any_over_the_neighbour_slots() -> None:
    rng = np.random.default_rng(3)
    n, j = 500, 7
    valid = rng.random((n, j)) < 0.6
    start = rng.uniform(0.0, 3.0, (n, j))
    comb = rng.uniform(0.0, 3.0, (n, j))
    start[::9, 2], comb[::11, 4] = np.nan, np.nan
    comb[::13, 1] = start[::13, 1]
    out = np.empty(n, bool)
    overlap._overlapping(valid, start, comb, out)
    assert np.array_equal(out, np.any(valid & (start < comb), axis=1))
    empty = np.empty(n, bool)
    overlap._overlapping(np.zeros((n, 0), bool), np.zeros((n, 0)), np.zeros((n, 0)), empty)
    assert not empty.any()
