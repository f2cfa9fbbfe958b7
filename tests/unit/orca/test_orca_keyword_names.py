"""Unit-suffixed keyword names of the crowd API, and the old spellings kept for one release: they
still work, give the same crowd, and warn with DeprecationWarning naming the new name."""

import dataclasses
import warnings

import numpy as np
import pytest

from navproof.orca.agents import AGENT_DEFAULT_ALIASES, AgentDefaults
from navproof.orca.crowd import ADD_AGENTS_ALIASES, Crowd
from navproof.orca.responsibility import STALL_SPEED_FRACTION, stall_count, stalled_now
from navproof.world.agents import AgentDefaults as WorldAgentDefaults

POS = np.array([[-10.0, 0.0], [10.0, 0.0]])
NEW = dict(velocity_mps=(0.5, 0.0), pref_velocity_mps=(1.0, 0.0), radius_m=1.0,
           max_speed_mps=2.0, neighbor_dist_m=15.0, max_neighbors=10, time_horizon_s=10.0,
           time_horizon_obst_s=10.0)


def _state(crowd):
    return [crowd.position, crowd.velocity, crowd.pref_velocity, crowd.radius, crowd.max_speed,
            crowd.neighbor_dist, crowd.time_horizon, crowd.time_horizon_obst,
            crowd.max_neighbors]


def test_new_names_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        crowd = Crowd(time_step_s=0.25)
        crowd.add_agents(position_m=POS, **NEW)
        crowd.add_agent((0.0, 5.0), velocity_mps=(0.0, 0.1), radius_m=0.5)
        AgentDefaults(radius_m=0.4, max_speed_mps=1.0)
    assert crowd.num_agents == 3 and crowd.time_step == 0.25
    assert crowd.radius.tolist() == [1.0, 1.0, 0.5]


def test_old_names_warn_and_build_the_same_crowd():
    old_of = {new: old for old, new in ADD_AGENTS_ALIASES.items()}
    new_crowd = Crowd(0.25)
    new_crowd.add_agents(POS, **NEW)
    with pytest.warns(DeprecationWarning, match="'time_step' is deprecated, use 'time_step_s'"):
        old_crowd = Crowd(time_step=0.25)
    with pytest.warns(DeprecationWarning) as caught:
        old_crowd.add_agents(position=POS, **{old_of.get(k, k): v for k, v in NEW.items()})
    messages = " ".join(str(w.message) for w in caught)
    for old, new in ADD_AGENTS_ALIASES.items():
        assert f"'{old}' is deprecated, use '{new}'" in messages
    for a, b in zip(_state(new_crowd), _state(old_crowd), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_keyword_under_both_names_or_an_unknown_keyword_is_a_type_error():
    crowd = Crowd(0.25)
    with pytest.raises(TypeError, match="both 'radius' and its new name 'radius_m'"):
        crowd.add_agents(POS, radius=1.0, radius_m=1.0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'raduis'"):
        crowd.add_agents(POS, raduis=1.0)
    assert crowd.num_agents == 0


def test_agent_defaults_old_field_names_warn_as_keywords_and_attributes():
    new = AgentDefaults(15.0, 10, 10.0, 10.0, 0.4, 2.0)
    with pytest.warns(DeprecationWarning, match="'radius' is deprecated, use 'radius_m'"):
        old = AgentDefaults(neighbor_dist=15.0, max_neighbors=10, time_horizon=10.0,
                            time_horizon_obst=10.0, radius=0.4, max_speed=2.0)
    assert old == new
    for old_name, new_name in AGENT_DEFAULT_ALIASES.items():
        with pytest.warns(DeprecationWarning, match=f"AgentDefaults.{old_name} is deprecated"):
            assert getattr(new, old_name) == getattr(new, new_name)
    with pytest.raises(AttributeError):
        _ = new.radius_mm


def test_the_world_agent_defaults_extend_the_crowd_agent_parameter_set():
    crowd_fields = {f.name for f in dataclasses.fields(AgentDefaults)}
    world_fields = {f.name for f in dataclasses.fields(WorldAgentDefaults)}
    assert issubclass(WorldAgentDefaults, AgentDefaults)
    assert world_fields - crowd_fields == {"max_accel_mps2", "stop_range_m"}


def test_o8_one_stall_rule_below_the_fraction_of_the_maximum_speed():
    max_speed = np.array([2.0, 2.0, 2.0, 2.0])
    edge = STALL_SPEED_FRACTION * 2.0
    speed = np.array([0.0, np.nextafter(edge, 0.0), edge, 0.0])
    pref = np.array([1.0, 1.0, 1.0, 0.0])  # the last one wants to stand: no stall
    assert stalled_now(speed, pref, max_speed).tolist() == [True, True, False, False]
    selected = np.stack([speed, np.zeros(4)], axis=1)
    preferred = np.stack([pref, np.zeros(4)], axis=1)
    assert stall_count(np.array([3, 3, 3, 3]), selected, preferred, max_speed).tolist() == \
        [4, 4, 0, 0]
