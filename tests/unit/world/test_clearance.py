"""The World's agent clearance (W1 diagnostics): the compiled pass that skips the pairs that
cannot be a row's least reports, bit for bit, what every pair through the exact sweep gives."""

import numpy as np
import pytest

from navproof.world.clearance import _clearance_by_arrays, agent_clearance_m
from navproof.world.reach import bodies_within_reach, executed_reach_m


def _executed(rng, n, spread_m, step_m):
    x0 = rng.uniform(0.0, spread_m, (n, 2))
    mid = x0 + rng.normal(0.0, step_m, (n, 2))
    x1 = mid + rng.normal(0.0, step_m, (n, 2))
    return x0, mid, x1, rng.uniform(0.2, 0.5, n)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dt", [0.1, 0.05, 1 / 30, 719 / 10007])
def test_the_compiled_clearance_is_the_whole_array_clearance_to_the_bit(seed, dt):
    rng = np.random.default_rng(seed)
    n = [2, 30, 400, 3000, 200, 50][seed]
    # dense crowds (many pairs in contact or within the exact band) and sparse ones
    x0, mid, x1, radius = _executed(rng, n, spread_m=np.sqrt(n) * [0.6, 1.0, 2.0][seed % 3],
                                    step_m=[0.02, 0.1, 0.3][seed % 3])
    within = bodies_within_reach(x0, executed_reach_m(x0, mid, x1) + radius + 0.025)
    # extra listed neighbours (duplicates and padding), as the World appends ORCA's
    extra = rng.integers(-1, n, (n, 4))
    extra[extra == np.arange(n)[:, None]] = -1
    listed = np.concatenate([within, extra], axis=1)
    got = agent_clearance_m(x0, mid, x1, radius, listed, dt)
    want = _clearance_by_arrays(x0, mid, x1, radius, listed, dt, np.full(n, np.inf))
    assert got.tobytes() == want.tobytes()
    if seed == 3:
        assert np.any(got < 0.0) and np.any(np.isfinite(got))


def test_a_step_whose_square_python_rounds_otherwise_takes_the_whole_array_path():
    # Python's dt ** 2 (the generated formula on whole arrays) differs from dt * dt here
    dt = 719 / 10007
    assert dt**2 != dt * dt or (0.5 * dt) ** 2 != (0.5 * dt) * (0.5 * dt)


def test_rows_without_a_neighbour_have_infinite_clearance():
    x0 = np.array([[0.0, 0.0], [10.0, 0.0]])
    listed = np.full((2, 3), -1)
    listed[0, 0] = 1
    out = agent_clearance_m(x0, x0, x0, np.full(2, 0.4), listed, 0.1)
    assert out[0] == pytest.approx(10.0 - 0.8) and out[1] == np.inf
    assert np.all(agent_clearance_m(x0, x0, x0, np.full(2, 0.4), np.zeros((2, 0), int), 0.1)
                  == np.inf)
