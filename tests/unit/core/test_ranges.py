"""A step outside the profile's ranges is refused when a profile is given (the proofs' hypotheses
become run-time input checks; claims B1, S3, S4, V1)."""

import dataclasses

import numpy as np
import pytest

from navproof import boundary as b
from navproof import step as ss
from navproof.core.errors import InvalidInput
from navproof.specs import load_profile

PROFILE = load_profile()


def _input(*, dt=0.1, a=1.0, vh=2.0, u=(0.0, 0.0), e=(0.0, 0.0)):
    edges = b.EdgeSet.build(np.array([[[1.0, 0.0]]]), np.array([[0.0]]),
                            edge_velocity_mps=np.array([[e]], float))
    return ss.StepInput(np.array([[-1.0, 0.0]]), np.zeros((1, 2)), np.array([[0.5, 0.0]]), dt,
                        b.Support.translating(np.array([u], float)), edges, np.array([vh]),
                        np.array([a]), np.array([0.3]))


def test_a_step_inside_the_ranges_is_solved():
    res = ss.solve_safe_step(_input(), profile=PROFILE, assertions=True)
    assert res.label_names() == ["safe"]


@pytest.mark.parametrize(
    ("change", "field", "parameter"),
    [
        (dict(dt=0.25), "dt_s", "step_s"),
        (dict(a=0.1), "accel_mps2", "brake_budget_mps2"),
        (dict(vh=9.0), "vh_mps", "surface_speed_cap_mps / slope_factor"),
        (dict(u=(1.0, 0.0)), "support.velocity_mps", "support_speed_mps"),
        (dict(e=(0.0, 0.5)), "edges.velocity_mps", "edge_speed_mps"),
    ],
)
def test_a_step_outside_a_range_names_the_parameter_and_changes_nothing(change, field, parameter):
    inp = _input(**change)
    before = dataclasses.replace(inp)
    with pytest.raises(InvalidInput) as info:
        ss.solve_safe_step(inp, profile=PROFILE)
    message = str(info.value)
    assert field in message and parameter in message and "profile 'default'" in message
    np.testing.assert_array_equal(inp.position_m, before.position_m)
    # Without a profile the seed's own examples (a 1 m/s conveyor) still run.
    ss.solve_safe_step(inp)


@pytest.mark.parametrize("moving_edges", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agents_outside_the_profile_are_those_of_the_whole_array_evaluation(seed, moving_edges):
    from navproof.core.ranges import RANGE_BOUND_REL, _step_values, agents_outside_profile

    rng = np.random.default_rng(seed)
    n, k = 3000, 5

    def speeds(shape, top):
        direction = rng.normal(size=(*shape, 2))
        direction /= np.hypot(direction[..., :1], direction[..., 1:])
        return direction * rng.uniform(0.0, top, shape)[..., None]

    normal = np.broadcast_to([1.0, 0.0], (n, k, 2))
    edge_velocity, edge_accel = speeds((n, k), 0.7), speeds((n, k), 1.0)
    if not moving_edges:
        edge_velocity = np.where(rng.random((n, k, 1)) < 0.5, 0.0, -0.0) * edge_velocity
        edge_accel = np.zeros((n, k, 2))
    motion = b.Motion(np.zeros((n, k, 2)), edge_velocity, np.zeros((n, k)),
                      np.zeros((n, k), np.int64), edge_accel)
    edges = b.EdgeSet.build(normal, np.ones((n, k)), valid=rng.random((n, k)) < 0.6,
                            motion=motion)
    support = b.Support.translating(speeds((n,), 0.8), acceleration_mps2=speeds((n,), 1.0))
    vh = rng.uniform(0.0, 12.0, n)
    accel = rng.uniform(0.0, 12.0, n)
    dt = rng.choice([0.1, 0.25, 0.01], n)
    inp = ss.StepInput(rng.normal(size=(n, 2)), np.zeros((n, 2)), np.zeros((n, 2)), dt, support,
                       edges, vh, accel, np.full(n, 0.3))
    want = np.zeros(n, bool)
    for _, _, values, lo, hi, _ in _step_values(inp, PROFILE):
        slack = RANGE_BOUND_REL * max(abs(lo), abs(hi), 1.0)
        bad = (values < lo - slack) | (values > hi + slack)
        want |= bad.reshape(n, -1).any(axis=1)
    got = agents_outside_profile(inp, PROFILE)
    assert 0 < want.sum() < n
    assert got.tolist() == want.tolist()
    known = support.carry_speed_range_mps(inp.position_m, dt)
    assert agents_outside_profile(inp, PROFILE, support_speed_mps=known).tolist() == want.tolist()
    if not moving_edges:
        assert agents_outside_profile(inp, PROFILE, fixed_edges=True).tolist() == want.tolist()
        for dt_s in (np.nan, np.inf):
            # a step that is not finite: the edges' speed ranges are evaluated as they are
            bad_dt = ss.StepInput(inp.position_m, inp.velocity_mps, inp.preferred_mps, dt_s,
                                  support, edges, vh, accel, inp.radius_m)
            assert agents_outside_profile(bad_dt, PROFILE, fixed_edges=True).tolist() \
                == agents_outside_profile(bad_dt, PROFILE).tolist()


def test_the_slackened_limits_are_those_of_the_profile_in_use():
    from fractions import Fraction

    from navproof.core.ranges import RANGE_BOUND_REL, _slackened_limits, _step_ranges

    def fresh(profile):
        return np.array([(lo - RANGE_BOUND_REL * max(abs(lo), abs(hi), 1.0),
                          hi + RANGE_BOUND_REL * max(abs(lo), abs(hi), 1.0))
                         for _, _, lo, hi, _ in _step_ranges(profile)])

    first = _slackened_limits(PROFILE)
    assert first.tobytes() == fresh(PROFILE).tobytes() and not first.flags.writeable
    assert _slackened_limits(PROFILE) is first
    # another parameter object, or the same one given other bounds, is read anew
    narrower = dataclasses.replace(PROFILE["edge_speed_mps"], max=Fraction(1, 10))
    other = dataclasses.replace(PROFILE, parameters={**PROFILE.parameters,
                                                     "edge_speed_mps": narrower})
    assert _slackened_limits(other).tobytes() == fresh(other).tobytes()
    assert _slackened_limits(other)[4, 1] < first[4, 1]
    assert _slackened_limits(PROFILE).tobytes() == first.tobytes()


@pytest.mark.parametrize("dt_s", [0.1, 1e-9, 50.0, np.nan, np.inf])
def test_one_step_length_is_every_agents_step_length(dt_s):
    from navproof.core.ranges import agents_outside_profile

    rng = np.random.default_rng(3)
    n, k = 40, 3
    edges = b.EdgeSet.build(np.broadcast_to([1.0, 0.0], (n, k, 2)), np.ones((n, k)),
                            valid=rng.random((n, k)) < 0.6)
    support = b.Support.translating(rng.normal(0.0, 0.5, (n, 2)))
    args = (rng.normal(size=(n, 2)), np.zeros((n, 2)), np.zeros((n, 2)))
    rest = (support, edges, rng.uniform(0.0, 12.0, n), rng.uniform(0.0, 12.0, n),
            np.full(n, 0.3))
    one = ss.StepInput(*args, dt_s, *rest)
    each = ss.StepInput(*args, np.full(n, dt_s), *rest)
    for fixed in (False, True):
        assert agents_outside_profile(one, PROFILE, fixed_edges=fixed).tolist() \
            == agents_outside_profile(each, PROFILE, fixed_edges=fixed).tolist()


@pytest.mark.parametrize("value", [2.0, 0.0, -0.0, 5e-324, 1e300, np.nan, np.inf, -np.inf])
def test_one_cap_and_budget_are_every_agents_own(value):
    from navproof.core.ranges import _per_row, agents_outside_profile

    for one in (value, np.float64(value), np.array(value)):
        rows = _per_row(one, 7)
        assert rows.dtype == np.float64 and rows.shape == (7,)
        assert rows.tobytes() == np.full(7, np.float64(value)).tobytes()
    rng = np.random.default_rng(4)
    n = 30
    edges = b.EdgeSet.build(np.broadcast_to([1.0, 0.0], (n, 2, 2)), np.ones((n, 2)),
                            valid=rng.random((n, 2)) < 0.6)
    support = b.Support.translating(rng.normal(0.0, 0.5, (n, 2)))
    args = (rng.normal(size=(n, 2)), np.zeros((n, 2)), np.zeros((n, 2)), 0.1, support, edges)
    one = ss.StepInput(*args, value, value, 0.3)
    each = ss.StepInput(*args, np.full(n, value), np.full(n, value), np.full(n, 0.3))
    for fixed in (False, True):
        assert agents_outside_profile(one, PROFILE, fixed_edges=fixed).tolist() \
            == agents_outside_profile(each, PROFILE, fixed_edges=fixed).tolist()
