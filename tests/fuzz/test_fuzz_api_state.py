"""Bad values written into the API's arrays (issue 20, "API"): refused naming the array.

A ``Crowd``'s public state arrays written after ``add_agents`` (a NaN, an infinity, a negative
radius, a wrong shape) are refused at the next step with InvalidInput naming the array and the
agent, and the crowd does not move. Every array of a ``StepInput`` is validated like the
agent's own before ``solve_safe_step`` computes anything: shape, finiteness and sign, with the
field named. Claim: O1, O2, S6, W1.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import navproof.boundary as b
from navproof import step as ss
from navproof.core.errors import InvalidInput
from navproof.orca.crowd import Crowd
from navproof.step.inputs import Neighbors

VECTORS = ("position", "velocity", "pref_velocity")
SCALARS = ("radius", "max_speed", "neighbor_dist", "time_horizon", "time_horizon_obst",
           "responsibility_weight", "priority")


def _crowd(n: int = 4) -> Crowd:
    crowd = Crowd(0.1)
    crowd.add_agents(np.stack([np.arange(n) * 2.0, np.zeros(n)], axis=1),
                     pref_velocity=np.ones((n, 2)) * 0.5)
    return crowd


@settings(max_examples=60)
@given(name=st.sampled_from(VECTORS + SCALARS), agent=st.integers(0, 3),
       bad=st.sampled_from([np.nan, np.inf, -np.inf]), component=st.integers(0, 1),
       call=st.sampled_from(["step", "compute_lines", "compute_new_velocities"]))
def test_a_non_finite_value_written_into_a_crowd_is_refused_naming_array_and_agent(
        name, agent, bad, component, call) -> None:
    crowd = _crowd()
    array = getattr(crowd, name)
    if array.ndim == 2:
        array[agent, component] = bad
    else:
        array[agent] = bad
    position = crowd.position.copy()
    with pytest.raises(InvalidInput) as info:
        getattr(crowd, call)()
    assert info.value.field.startswith(f"{name}[{agent}"), info.value
    assert f"agent {agent}" in str(info.value) and "refused at the next step" in str(info.value)
    np.testing.assert_array_equal(crowd.position, position)  # nothing moved
    assert crowd.global_time == 0.0


@pytest.mark.parametrize(("name", "value", "field"), [
    ("radius", np.array([0.5, -1.0, 0.5, 0.5]), "radius[1]"),
    ("time_horizon", np.array([1.0, 1.0, 0.0, 1.0]), "time_horizon[2]"),
    ("max_neighbors", np.array([10, 10, 10, -2]), "max_neighbors[3]"),
    ("position", np.zeros((3, 2)), "position"),
    ("velocity", np.zeros((4, 3)), "velocity"),
    ("radius", np.full(5, 0.5), "radius"),
    ("cooperative", np.ones(4), "cooperative"),
])
def test_a_value_outside_its_rule_or_shape_written_into_a_crowd_is_refused(name, value, field):
    crowd = _crowd()
    setattr(crowd, name, value)
    with pytest.raises(InvalidInput) as info:
        crowd.step()
    assert info.value.field == field, info.value
    assert crowd.global_time == 0.0


def test_a_crowd_with_valid_state_steps_as_before():
    crowd = _crowd()
    crowd.velocity = crowd.velocity + 0.1  # a finite write is fine
    crowd.step()
    assert crowd.global_time == pytest.approx(0.1)
    assert np.isfinite(crowd.position).all()


def _input(n: int = 2, **changes) -> ss.StepInput:
    edges = b.EdgeSet.build(np.tile([[(1.0, 0.0)]], (n, 1, 1)), np.full((n, 1), 3.0))
    fields = dict(
        position_m=np.stack([np.arange(n) * 3.0, np.zeros(n)], axis=1),
        velocity_mps=np.zeros((n, 2)), preferred_mps=np.full((n, 2), 0.5), dt_s=0.1,
        support=b.Support.translating(np.zeros((n, 2))), edges=edges, vh_mps=np.full(n, 2.0),
        accel_mps2=np.full(n, 1.0), radius_m=np.full(n, 0.3),
        orca_point=np.zeros((n, 1, 2)), orca_direction=np.tile([[(0.0, 1.0)]], (n, 1, 1)),
        orca_valid=np.ones((n, 1), bool),
        neighbors=Neighbors(np.ones((n, 1, 2)) * 10.0, np.zeros((n, 1, 2)), np.full((n, 1), 0.3),
                            np.ones((n, 1), bool)),
        orca_num_hard=np.zeros(n, np.int64))
    fields.update(changes)
    return ss.StepInput(**fields)


def _neighbors(**changes) -> Neighbors:
    fields = dict(position_m=np.ones((2, 1, 2)) * 10.0, velocity_mps=np.zeros((2, 1, 2)),
                  radius_m=np.full((2, 1), 0.3), valid=np.ones((2, 1), bool))
    fields.update(changes)
    return Neighbors(**fields)


@pytest.mark.parametrize(("changes", "field"), [
    ({"neighbors": _neighbors(radius_m=np.array([[0.3], [np.nan]]))}, "neighbors.radius_m[1, 0]"),
    ({"neighbors": _neighbors(radius_m=np.array([[-0.3], [0.3]]))}, "neighbors.radius_m[0, 0]"),
    ({"neighbors": _neighbors(radius_m=np.full((2, 2), 0.3))}, "neighbors.radius_m"),
    ({"neighbors": _neighbors(position_m=np.ones((2, 1, 3)))}, "neighbors.position_m"),
    ({"neighbors": _neighbors(velocity_mps=np.array([[[0.0, 0.0]], [[np.inf, 0.0]]]))},
     "neighbors.velocity_mps[1, 0, 0]"),
    ({"neighbors": _neighbors(valid=np.ones((2, 1)))}, "neighbors.valid"),
    ({"vh_mps": np.full(3, 2.0)}, "vh_mps"),
    ({"vh_mps": np.array([2.0, np.nan])}, "vh_mps[1]"),
    ({"accel_mps2": np.array([1.0, -1.0])}, "accel_mps2"),
    ({"radius_m": np.array([0.3, 0.0])}, "radius_m[1]"),
    ({"radius_m": np.full((2, 1), 0.3)}, "radius_m"),
    ({"position_m": np.array([[0.0, 0.0], [2e6, 0.0]])}, "position_m[1, 0]"),
    ({"velocity_mps": np.array([[0.0, 0.0], [0.0, 1e7]])}, "velocity_mps[1, 1]"),
    ({"preferred_mps": np.zeros((2, 3))}, "preferred_mps"),
    ({"orca_point": np.zeros((2, 2, 2))}, "orca_point"),
    ({"orca_direction": np.zeros((2, 1))}, "orca_direction"),
    ({"orca_valid": np.ones((2, 1))}, "orca_valid"),
    ({"orca_num_hard": np.array([0.0, np.nan])}, "orca_num_hard[1]"),
    ({"orca_num_hard": np.array([0.5, 0.0])}, "orca_num_hard[0]"),
    ({"orca_num_hard": np.array([0, 2])}, "orca_num_hard[1]"),
    ({"support": b.Support.translating(np.zeros((3, 2)))}, "support.motion."),
    ({"edges": b.EdgeSet.build(np.tile([[(1.0, 0.0)]], (3, 1, 1)), np.full((3, 1), 3.0))},
     "edges"),
])
def test_every_array_of_a_step_input_is_validated_naming_its_field(changes, field):
    with pytest.raises(InvalidInput) as info:
        ss.solve_safe_step(_input(**changes))
    assert info.value.field.startswith(field), info.value


def test_a_valid_step_input_is_solved():
    result = ss.solve_safe_step(_input())
    assert result.velocity_mps.shape == (2, 2) and np.isfinite(result.velocity_mps).all()
