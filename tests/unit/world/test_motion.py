"""The motion controller's compiled pass gives the whole-array evaluation's positions, velocities
and middle points bit for bit (T4, B4, B6, F2)."""

import numpy as np
import pytest

from navproof._generated import formulas
from navproof.boundary import Motion, Support
from navproof.world.motion import execute


def numpy_execute(x0, v0, v1, commit, dt, m):
    """The whole-array evaluation the compiled pass replaced: end position, relative and world
    velocity, middle position."""

    def rotate(v, angle):
        c, s = np.cos(angle), np.sin(angle)
        return np.stack([c * v[:, 0] - s * v[:, 1], s * v[:, 0] + c * v[:, 1]], axis=1)

    def to_world(y, t):
        t = np.asarray(t, dtype=np.float64)
        return (m.pivot_m + m.velocity_mps * t + 0.5 * m.acceleration_mps2 * t * t
                + rotate(y - m.pivot_m, m.omega_radps * np.squeeze(t)))

    def relative(t):
        tt = np.minimum(np.broadcast_to(np.asarray(t, dtype=np.float64), commit.shape), commit)
        return x0 + formulas.accel_step_displacement(t=tt[:, None], dt=dt, v0=v0, v1=v1)

    position = to_world(relative(dt), dt)
    v_end = np.where((commit >= dt)[:, None], v1, 0.0)
    v_rel = rotate(v_end, m.omega_radps * dt)
    pivot_end = m.pivot_m + m.velocity_mps * dt + 0.5 * m.acceleration_mps2 * dt**2
    rel = position - pivot_end
    carry = (m.velocity_mps + m.acceleration_mps2 * dt
             + m.omega_radps[:, None] * np.stack([-rel[:, 1], rel[:, 0]], axis=1))
    return position, v_rel, carry + v_rel, to_world(relative(0.5 * dt), 0.5 * dt)


@pytest.mark.parametrize("turning", [True, False])
@pytest.mark.parametrize("dt", [0.1, 0.05, 0.033, 0.2, 0.0125])
def test_the_executed_step_equals_the_whole_array_evaluation_bit_for_bit(dt, turning):
    rng = np.random.default_rng(11)
    n = 5000

    def vectors():
        return rng.normal(size=(n, 2)) * 10.0 ** rng.integers(-4, 3, (n, 1))

    x0, v0, v1, pivot, vel, acc = (vectors() for _ in range(6))
    omega = rng.normal(size=n) * 10.0 ** rng.integers(-3, 2, n)
    omega[: n // 3] = 0.0
    omega[n // 3: n // 3 + 5] = -0.0
    if not turning:
        omega[n // 3 + 5:] = 0.0
    commit = np.where(rng.random(n) < 0.7, dt, rng.uniform(0.0, dt, n))
    commit[:4] = [0.0, -0.0, dt * (1 - 1e-16), np.nextafter(dt, 1.0)]
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 1e300])
    for arr in (x0, v0, v1):
        arr[10:10 + special.size, 0] = special
        arr[20:20 + special.size, 1] = special
    commit[30:30 + special.size] = special
    motion = Motion(pivot, vel, omega, np.zeros(n, np.int64), acc)
    with np.errstate(all="ignore"):
        expected = numpy_execute(x0, v0, v1, commit, dt, motion)
        got = execute(x0, v0, v1, commit, dt, Support(motion))
    for value, want in zip((got.position_m, got.velocity_rel_mps, got.velocity_world_mps,
                            got.mid_m), expected, strict=True):
        assert same_bits(value, want)


def same_bits(value, want):
    """The same bits wherever a value is a number (signed zeros included), NaN at the same
    places (the sign of a NaN is not defined by IEEE arithmetic)."""
    nan = np.isnan(want)
    return np.array_equal(np.isnan(value), nan) and value[~nan].tobytes() == want[~nan].tobytes()


@pytest.mark.parametrize("size", [1, 7, 16, 1000])
def test_numpy_gives_the_cosine_1_and_the_sine_of_signed_zeros_exactly(size):
    angle = np.where(np.arange(size) % 2 == 0, 0.0, -0.0)
    assert np.cos(angle).tobytes() == np.ones(size).tobytes()
    assert np.sin(angle).tobytes() == angle.tobytes()
