"""Input validation: the compiled pass over a step's lengths refuses what numpy's test did."""

import numpy as np
import pytest

from navproof.core import validation as v
from navproof.core.errors import InvalidInput

SPECIAL = np.array([0.1, 1.0, 5e-324, 1e-310, 1e300, 0.0, -0.0, -1e-310, -0.1, np.inf, -np.inf,
                    np.nan])


def test_first_bad_step_length_is_numpys_first_not_finite_or_not_positive() -> None:
    rng = np.random.default_rng(9)
    for size in (0, 1, 3, 40, 1000):
        for _ in range(200):
            dt = rng.uniform(1e-3, 0.2, size)
            hit = rng.random(size) < rng.choice([0.0, 0.01, 0.3])
            dt[hit] = rng.choice(SPECIAL, hit.sum())
            bad = ~np.isfinite(dt) | (dt <= 0.0)
            expect = int(np.flatnonzero(bad)[0]) if bad.any() else -1
            assert v._first_not_positive_finite(dt) == expect
            for shaped in (dt, dt.reshape(1, -1), dt[::-1], np.repeat(dt, 2)[::2]):
                if expect < 0 and not bad.any():
                    assert v.check_valid_step(shaped) is not None
                    continue
                flat = np.asarray(shaped, np.float64).ravel()
                first = int(np.flatnonzero(~np.isfinite(flat) | (flat <= 0.0))[0])
                with pytest.raises(InvalidInput, match=rf"dt_s\[{first}\]"):
                    v.check_valid_step(shaped)


def test_valid_step_lengths_come_back_as_float64() -> None:
    dt = np.array([0.1, 0.05], dtype=np.float32)
    out = v.check_valid_step(dt)
    assert isinstance(out, np.ndarray) and out.dtype == np.float64
    assert np.array_equal(out, dt.astype(np.float64))
    assert v.check_valid_step(0.1) == 0.1


@pytest.mark.parametrize("dt", [*SPECIAL.tolist(), 2.5e-7, 1e308])
def test_a_float_step_length_is_refused_or_returned_as_numpys_test_of_one_number_does(
        dt: float) -> None:
    refused = not np.isfinite(dt) or dt <= 0.0
    for value in (dt, np.float64(dt)):
        if refused:
            with pytest.raises(InvalidInput, match=r"^dt_s = ") as caught:
                v.check_valid_step(value)
            assert caught.value.value is value
            # the 0-d array's way, numpy's test of one number, refuses it alike
            with pytest.raises(InvalidInput, match=r"^dt_s = "):
                v.check_valid_step(np.array(dt))
        else:
            out = v.check_valid_step(value)
            assert type(out) is float
            assert np.float64(out).tobytes() == np.float64(dt).tobytes()
            assert out == v.check_valid_step(np.array(dt))


def test_floats_of_shape_is_numpys_conversion_and_broadcast() -> None:
    base = np.arange(6.0).reshape(3, 2)
    values = [base, base.T.copy().T, base[::-1], base.astype(np.float32), base.astype(">f8"),
              base.tolist(), base[:1], np.float64(2.5), 2.5, np.array(-0.0), base.view(np.matrix)]
    for value in values:
        for shape in ((3, 2), (1, 3, 2)):
            want = np.asarray(value, dtype=np.float64)
            if want.shape != shape:
                want = np.broadcast_to(want, shape)
            got = v.floats_of_shape(value, shape)
            assert type(got) is type(want) and got.dtype == want.dtype
            assert got.shape == want.shape and got.strides == want.strides
            assert got.tobytes() == want.tobytes()
            if isinstance(value, np.ndarray) and type(value) is np.ndarray \
                    and value.dtype == np.float64 and value.shape == shape:
                assert got is value
    with pytest.raises(ValueError):
        v.floats_of_shape(base, (2, 3))
