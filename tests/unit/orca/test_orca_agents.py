"""Per-agent ORCA parameters: defaults from the profile, ranges from the profile.

Claims: O1-O8 hold over the profile's ranges of radius, max speed, neighbour distance and count,
and the two time horizons; a crowd given a profile refuses values outside them.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from navproof.core.errors import InvalidInput
from navproof.orca.agents import PROFILE_PARAMETERS, AgentDefaults
from navproof.orca.crowd import Crowd
from navproof.specs.profile import DEFAULT_PROFILE_PATH, load_profile


def _profile_with(tmp_path: Path, replacements: dict[str, str]):
    text = DEFAULT_PROFILE_PATH.read_text(encoding="utf-8")
    for old, new in replacements.items():
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / "profile.toml"
    path.write_text(text, encoding="utf-8")
    return load_profile(path)


def test_defaults_are_the_default_profile_values() -> None:
    profile = load_profile()
    defaults = AgentDefaults()
    for name, parameter in PROFILE_PARAMETERS.items():
        assert getattr(defaults, name) == profile[parameter].default_float
    assert isinstance(defaults.max_neighbors, int)
    assert AgentDefaults.from_profile(profile) == defaults
    # fields given keep their value, the others come from the profile
    assert AgentDefaults(radius=0.4).max_speed == profile["max_speed_mps"].default_float


def test_a_profile_sets_the_defaults_of_new_agents(tmp_path: Path) -> None:
    profile = _profile_with(tmp_path, {
        '[parameters.agent_radius_m]\nunit = "m"\ndefault = 1.5':
            '[parameters.agent_radius_m]\nunit = "m"\ndefault = 0.7',
        '[parameters.max_neighbors]\nunit = "count"\ndefault = 10':
            '[parameters.max_neighbors]\nunit = "count"\ndefault = 4'})
    crowd = Crowd(0.1, profile=profile)
    crowd.add_agent((0.0, 0.0))
    assert crowd.radius[0] == 0.7
    assert crowd.max_neighbors[0] == 4
    assert crowd.max_speed[0] == profile["max_speed_mps"].default_float


@pytest.mark.parametrize("name, value, parameter", [
    ("radius", 3.5, "agent_radius_m"),
    ("max_speed", 0.05, "max_speed_mps"),
    ("neighbor_dist", 150.0, "neighbor_dist_m"),
    ("time_horizon", 25.0, "orca_time_horizon_s"),
    ("time_horizon_obst", 0.05, "obstacle_time_horizon_s"),
    ("max_neighbors", 65, "max_neighbors"),
])
def test_values_outside_the_profile_ranges_are_refused(name, value, parameter) -> None:
    crowd = Crowd(0.1, profile=load_profile())
    crowd.add_agents([(0.0, 0.0), (4.0, 0.0)])
    before = {k: copy.deepcopy(v) for k, v in vars(crowd).items() if isinstance(v, np.ndarray)}
    with pytest.raises(InvalidInput) as err:
        crowd.add_agents([(9.0, 0.0), (12.0, 0.0)], **{name: [1.0, value] if name !=
                                                          "max_neighbors" else [1, value]})
    assert err.value.field == f"{name}[1]"
    assert parameter in err.value.rule and "profile 'default'" in err.value.rule
    with pytest.raises(InvalidInput) as err:
        crowd.set_agent_scalar(name, 0, value)
    assert parameter in err.value.rule
    after = {k: v for k, v in vars(crowd).items() if isinstance(v, np.ndarray)}
    assert before.keys() == after.keys()
    for key in before:
        np.testing.assert_array_equal(before[key], after[key], err_msg=key)
    # without a profile only the working bounds apply (RVO2 takes any positive value)
    free = Crowd(0.1)
    free.add_agents([(0.0, 0.0)], **{name: value})


def test_a_time_step_outside_the_profile_range_is_refused() -> None:
    with pytest.raises(InvalidInput) as err:
        Crowd(0.25, profile=load_profile())
    assert err.value.field == "time_step" and "step_s" in err.value.rule
    crowd = Crowd(0.1, profile=load_profile())
    with pytest.raises(InvalidInput):
        crowd.set_time_step(0.5)
    assert crowd.time_step == 0.1
