"""The crowd state's compiled range tests give the verdict of the whole-array rule
(:func:`navproof.orca.state._within`) on arrays with a miss anywhere, at block edges
included: NaN, infinities, values just outside a bound and zeros of both signs at it."""

from __future__ import annotations

import numpy as np

from navproof.orca.state import _BLOCK_ROWS, _values_inside, _vectors_inside, _within


def _sizes() -> list[int]:
    return [0, 1, 2, _BLOCK_ROWS - 1, _BLOCK_ROWS, _BLOCK_ROWS + 1, 3 * _BLOCK_ROWS + 7]


def test_vector_and_value_ranges_match_the_whole_array_rule():
    rng = np.random.default_rng(11)
    bound = 5.0
    misses = [np.nan, np.inf, -np.inf, np.nextafter(bound, np.inf), -np.nextafter(bound, np.inf),
              bound, -bound, 0.0, -0.0]
    for n in _sizes():
        for trial in range(40):
            vectors = rng.uniform(-bound, bound, (n, 2))
            values = rng.uniform(0.0, bound, n)
            if n and trial:
                at = int(rng.integers(0, n))
                vectors[at, int(rng.integers(0, 2))] = misses[trial % len(misses)]
                values[at] = misses[trial % len(misses)]
            assert _vectors_inside(vectors, bound) == _within(vectors, -bound, bound, False)
            for low, low_open in ((0.0, True), (0.0, False), (-0.0, True)):
                assert (_values_inside(values, low, bound, low_open)
                        == _within(values, low, bound, low_open))
            counts = rng.integers(0, 12, n)
            if n and trial % 2:
                counts[int(rng.integers(0, n))] = 11 + trial % 3
            assert _values_inside(counts, 0, 11, False) == _within(counts, 0, 11, False)
