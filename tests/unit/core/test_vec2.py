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
