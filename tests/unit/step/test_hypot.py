"""numpy's hypot of the usual vector, written out for compiled loops: the same bits.

The reference is ``np.hypot`` (the C library's, which compiled loops call for ``math.hypot``);
Python's own ``math.hypot`` rounds some lengths differently."""

import numpy as np
import pytest

from navproof.step import sweep
from navproof.step.hypot import usual_hypot, usual_hypot_is_the_library


def _components(rng: np.random.Generator, n: int) -> np.ndarray:
    """(2, n) components of every kind: unit-scale, near-equal, one negligible beside the
    other, widely scaled, at the scaling limits, subnormal, zeros of both signs, huge,
    infinite, NaN and random bit patterns."""
    kinds = []
    x, y = rng.normal(size=n), rng.normal(size=n)
    kinds.append((x, y))
    kinds.append((x, x * (1.0 + rng.normal(size=n) * 1e-9)))
    kinds.append((x, x * 2.0 ** rng.integers(-70, -40, n)))
    kinds.append((x * 10.0 ** rng.integers(-300, 300, n), y * 10.0 ** rng.integers(-300, 300, n)))
    kinds.append((x * 2.0 ** rng.integers(505, 515, n), y * 2.0 ** rng.integers(-465, -455, n)))
    kinds.append((x * 2.0 ** rng.integers(-465, -455, n), y * 2.0 ** rng.integers(-465, -455, n)))
    kinds.append((x * 5e-324 * rng.integers(1, 1000, n), y))
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, 1.7976931348623157e308,
                        2.0 ** 511, 2.0 ** -459, 2.0 ** -54, 1.0, -3.0])
    kinds.append((rng.choice(special, n), rng.choice(special, n)))
    kinds.append((rng.choice(special, n), y))
    bits = rng.integers(0, 2 ** 63, (2, n), dtype=np.int64).view(np.float64)
    kinds.append((bits[0], bits[1]))
    return np.concatenate([np.stack(k) for k in kinds], axis=1)


def test_this_c_librarys_hypot_is_the_common_path_written_out() -> None:
    # on another C library the sweep calls the library for every length (tested below); on
    # this machine's the common path is the library's, which the tests here show to the bit
    if not usual_hypot_is_the_library():
        pytest.skip("this C library computes hypot otherwise: the sweep calls it for every "
                    "length")
    assert usual_hypot_is_the_library()


def test_usual_vectors_give_numpys_hypot_to_the_bit() -> None:
    if not usual_hypot_is_the_library():
        pytest.skip("this C library computes hypot otherwise: the sweep calls it for every "
                    "length")
    rng = np.random.default_rng(3)
    xy = _components(rng, 400)
    length = usual_hypot.compiled()
    usual = 0
    for x, y in xy.T:
        value, ok = length(x, y)
        if ok:
            usual += 1
            assert np.float64(value).view(np.uint64) == np.hypot(x, y).view(np.uint64), (x, y)
    # the common path is taken (not every vector left to the library)
    assert usual > xy.shape[1] // 2


def test_block_lower_bounds_equal_numpys_hypots_to_the_bit() -> None:
    rng = np.random.default_rng(4)
    n = 200_000
    curve = np.empty((6, n))
    for c in range(3):
        xy = _components(rng, n // 10)
        curve[2 * c:2 * c + 2] = xy[:, rng.permutation(xy.shape[1])[:n]]
    # half the curves of the usual kind in every slot, as the sweep sees them
    curve[:, ::2] = rng.normal(size=(6, n // 2)) * rng.choice([1e-3, 1.0, 30.0], (6, n // 2))
    with np.errstate(all="ignore"):
        expect = (np.hypot(curve[0], curve[1]) - np.hypot(curve[2], curve[3])
                  - np.hypot(curve[4], curve[5]))
    # the library for every length on any C library; the common path where it is this one
    for usual in (False, True) if usual_hypot_is_the_library() else (False,):
        lower = np.empty(n)
        sweep._block_lower_bounds(curve, n, lower, usual)
        assert np.array_equal(lower.view(np.uint64), expect.view(np.uint64))
        # only the first ``count`` curves are written
        lower[:] = 7.0
        sweep._block_lower_bounds(curve, 10, lower, usual)
        assert np.all(lower[10:] == 7.0)
