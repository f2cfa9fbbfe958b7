"""The closest verified velocity's search: where the B5 cutting planes go."""

import numpy as np

from navproof.step import search


def test_interior_dips_equal_numpys_expression() -> None:
    rng = np.random.default_rng(9)
    a, k = 300, 4
    exact = rng.normal(0.0, 1.0, (a, k))
    dt = rng.uniform(0.05, 0.1, a)
    t_min = rng.uniform(-0.02, 0.12, (a, k))
    t_min[::7, 1], t_min[::5, 2] = 0.0, dt[::5]
    exact[::11, 3], t_min[::13, 0] = np.nan, np.nan
    accepted = rng.random(a) < 0.3
    outcome = search._RoundOutcome(accepted, np.zeros((a, 2)), exact, t_min)
    dips, rows = search._interior_dips(outcome, dt)
    expect = ((exact < 0.0) & (t_min > 0.0) & (t_min < dt[:, None]) & ~accepted[:, None])
    assert np.array_equal(dips, expect)
    assert np.array_equal(rows, expect.any(axis=1))
