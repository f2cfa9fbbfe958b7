"""The 2-vector helpers give numpy's values bit for bit."""

import numpy as np
import pytest

from navproof.core.vec2 import dot2, norm2


@pytest.mark.parametrize("shape", [(0, 2), (1, 2), (257, 2), (31, 5, 2), (3, 0, 2)])
@pytest.mark.parametrize("scale", [0.0, 1e-300, 1e-160, 1.0, 1e150, 1e200])
def test_norm2_is_numpys_row_norm_bit_for_bit(shape, scale):
    rng = np.random.default_rng(len(shape) * 1000 + int(np.log10(scale + 1e-320)))
    v = rng.normal(size=shape) * scale
    if v.size > 12:
        v.flat[::7] = 0.0
        v.flat[1::11] = -0.0
        v.flat[3], v.flat[5], v.flat[9] = np.nan, np.inf, -np.inf
    with np.errstate(over="ignore"):
        expected = np.linalg.norm(v, axis=-1)
    got = norm2(v)
    assert got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


def test_norm2_of_a_strided_view_and_dot2():
    v = np.arange(24.0).reshape(3, 4, 2)[:, ::2]
    assert norm2(v).tobytes() == np.linalg.norm(v, axis=-1).tobytes()
    assert np.array_equal(dot2(v, v), np.einsum("...j,...j->...", v, v))


def _hypot_cases() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Components and limits: random lengths with limits at, just off and far off them (a few
    units in the last place up to well beyond the decision slack), zeros of both signs, NaN,
    infinities, subnormal, tiny and huge values, limits outside the decided range."""
    rng = np.random.default_rng(11)
    n = 20000
    scale = 10.0 ** rng.integers(-170, 170, n)
    x, y = rng.normal(size=n) * scale, rng.normal(size=n) * scale
    length = np.hypot(x, y)
    rel = rng.choice([0.0, 1e-16, -1e-16, 3e-16, -3e-16, 1e-12, -1e-12, 1e-9, -1e-9, 1.1e-9,
                      -1.1e-9, 1e-6, -1e-6, 0.5, -0.5], n)
    limit = length * (1.0 + rel)
    limit[::5] = np.nextafter(length[::5], np.inf)
    limit[1::5] = np.nextafter(length[1::5], -np.inf)
    special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, 1e-310, 1e-160, 1e-100,
                        1e100, 1e154, 1e160, 1e300, 1.0, -1.0])
    sx, sy, sl = np.meshgrid(special, special, special)
    return (np.concatenate([x, sx.ravel()]), np.concatenate([y, sy.ravel()]),
            np.concatenate([limit, sl.ravel()]))


def test_hypot_comparisons_are_numpys_hypot_compared():
    from navproof.core.vec2 import hypot_above, hypot_at_most, hypot_side

    x, y, limit = _hypot_cases()
    with np.errstate(over="ignore", invalid="ignore"):
        length = np.hypot(x, y)
        at_most, above = length <= limit, length > limit
    got_at_most = np.array([hypot_at_most(a, b, c) for a, b, c in zip(x, y, limit, strict=True)])
    got_above = np.array([hypot_above(a, b, c) for a, b, c in zip(x, y, limit, strict=True)])
    decided = np.array([hypot_side(a, b, c) for a, b, c in zip(x, y, limit, strict=True)]) != 0
    assert np.array_equal(got_at_most, at_most)
    assert np.array_equal(got_above, above)
    # comparisons far off the limit are decided without hypot (NaN components never are),
    # never one at its limit
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        far = ((limit >= 1e-90) & (limit <= 1e90) & (np.abs(length / limit - 1.0) > 1e-6)
               & ~np.isnan(x) & ~np.isnan(y))
    assert far.sum() > 1000 and decided[far].all()
    assert not decided[length == limit].any()
