"""The safe step on accelerating supports: the sweep follows the world curve with the support's
alpha t^2 / 2 (claims W1, B6), and a zero-budget hold on a support accelerating into a wall is
not labelled safe (S6, R3, B6)."""

import numpy as np
import pytest

from navproof import boundary as b
from navproof import step as ss
from navproof.step.inputs import Neighbors
from navproof.step.verify import sweep_end_velocity_mps, sweep_margins_m

DT = 0.1


def test_the_sweep_distance_is_that_of_the_accelerating_world_curve():
    rng = np.random.default_rng(5)
    n = 200
    x0 = rng.uniform(-1.0, 1.0, (n, 2))
    u = rng.uniform(-0.3, 0.3, (n, 2))
    alpha = rng.uniform(-3.0, 3.0, (n, 2))
    v0, v1 = rng.uniform(-1.5, 1.5, (n, 2)), rng.uniform(-1.5, 1.5, (n, 2))
    support = b.Support.translating(u, acceleration_mps2=alpha)
    other = x0[:, None, :] + rng.uniform(-1.5, 1.5, (n, 1, 2))
    other_v = rng.uniform(-1.0, 1.0, (n, 1, 2))
    nb = Neighbors(other, other_v, np.full((n, 1), 0.2), np.ones((n, 1), bool))
    dt = np.full(n, DT)
    v_sweep = sweep_end_velocity_mps(support, slice(None), v1, dt)
    margin, _ = sweep_margins_m(x0, u, v0, v_sweep, dt, np.full(n, 0.2), nb)
    t = np.linspace(0.0, DT, 4001)[:, None, None]
    world = x0 + (u + v0) * t + (v1 - v0) * t * t / (2.0 * DT) + 0.5 * alpha * t * t
    gap = np.hypot(*np.moveaxis(world - (other[:, 0] + other_v[:, 0] * t), -1, 0)).min(axis=0)
    start = np.hypot(*(x0 - other[:, 0]).T)
    # pairs that start apart and come near (within the exact band): the margin is the least
    # distance minus the combined radius; farther ones keep a certified lower bound
    apart = start > 0.4
    near = apart & (gap - 0.4 < 0.9)
    assert near.sum() > 50
    assert np.allclose(margin[near, 0], gap[near] - 0.4, atol=1e-6)
    assert np.all(margin[apart, 0] <= gap[apart] - 0.4 + 1e-6)
    # without the support's acceleration the sweep would follow another curve
    plain, _ = sweep_margins_m(x0, u, v0, v1, dt, np.full(n, 0.2), nb)
    assert np.abs(plain[near, 0] - (gap[near] - 0.4)).max() > 1e-3


@pytest.mark.parametrize("alpha, safe", [((0.05, 0.0), False), ((-0.05, 0.0), True)])
def test_a_zero_budget_hold_on_an_accelerating_conveyor(alpha, safe):
    # at rest on the belt (which is at rest now) 20 m from the wall x <= 20: accelerating
    # towards it the belt carries the body into it some day, accelerating away never
    support = b.Support.translating(np.zeros((1, 2)), acceleration_mps2=np.array([alpha]))
    edges = b.EdgeSet.build(np.array([[[1.0, 0.0]]]), np.array([[20.0]]))
    inp = ss.StepInput(np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)), DT, support, edges,
                       np.array([1.0]), np.array([0.0]), np.array([0.3]))
    res = ss.solve_safe_step(inp, assertions=True)
    assert res.flags[0] & ss.FLAG_NO_BRAKING_BUDGET
    assert bool(res.label[0] == ss.SAFE) is safe
