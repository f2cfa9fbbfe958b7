"""Campaign files: key paths, distributions against the profile ranges, validation of every
sampled scenario before anything runs, errors naming key, value and rule."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from conftest import write_spec

from navproof.campaigns.driver import validate_spec
from navproof.campaigns.search import Distribution, make_task
from navproof.campaigns.spec import CampaignError, load_spec, set_path


def test_sampled_values_are_written_at_their_key_paths(spec_file: Path) -> None:
    spec = load_spec(spec_file)
    task = make_task(spec, 3, Distribution())
    doc = tomllib.loads(task["scenario"])
    values = task["values"]
    assert doc["supports"][0]["velocity_mps"][0] == values["supports[0].velocity_mps[0]"]
    assert -0.3 <= values["supports[0].velocity_mps[0]"] <= 0.3
    # one draw written into every agent, truncated to the profile's max_speed_mps range
    speeds = {a["max_speed_mps"] for a in doc["agents"]}
    assert speeds == {values["agents[*].max_speed_mps"]}
    assert 0.2 <= values["agents[*].max_speed_mps"] <= 8.0
    assert doc["scenario"]["time_step_s"] in (0.05, 0.1)
    assert doc["scenario"]["steps"] == spec.steps
    # the same index draws the same scenario (resume), another index another one
    assert make_task(spec, 3, Distribution()) == task
    assert make_task(spec, 4, Distribution())["values"] != values


def test_whole_numbers_and_profile_parameters(tmp_path: Path) -> None:
    base = """
[[rings]]
count = 4
ring_radius_m = 5.0
"""
    spec = load_spec(write_spec(tmp_path, base=base, vary="""
[[vary]]
key = "rings[0].count"
uniform = [2, 6]

[[vary]]
key = "profile.agent_radius_m"
uniform = [0.3, 0.5]
"""))
    for i in range(5):
        task = make_task(spec, i, Distribution())
        count = tomllib.loads(task["scenario"])["rings"][0]["count"]
        assert isinstance(count, int) and 2 <= count <= 6
        profile = tomllib.loads(task["profile"])
        radius = profile["parameters"]["agent_radius_m"]["default"]
        assert radius == task["values"]["profile.agent_radius_m"]
    validate_spec(spec)


@pytest.mark.parametrize(("vary", "key", "rule"), [
    ('key = "agents[0].max_speed_mps"\nuniform = [0.5, 50.0]', "vary[0].uniform[1]",
     "profile range"),
    ('key = "agents[7].radius_m"\nuniform = [0.3, 0.4]', "vary[0].key", "does not exist"),
    ('key = "supports[0].velocity_mps[0]"\nnormal = { mean = 0.0, std = 0.1 }\nmin = -1.0',
     "vary[0].min", "profile range"),
    ('key = "agents[0].goal[0]"\nnormal = { mean = 0.0, std = 0.1 }', "vary[0].normal",
     "no profile range"),
    ('key = "agents[0].radius_m"\nuniform = [0.3, 0.4]\nchoice = [0.3]', "vary[0]",
     "exactly one"),
    ('key = "profile.no_such"\nuniform = [0.3, 0.4]', "vary[0].key", "unknown profile"),
    ('key = "scenario.time_step_s"\nchoice = [0.05, 0.5]', "vary[0].choice[1]",
     "profile range"),
])
def test_bad_distributions_name_the_key(tmp_path: Path, vary: str, key: str, rule: str) -> None:
    with pytest.raises(CampaignError) as exc:
        load_spec(write_spec(tmp_path, vary="[[vary]]\n" + vary))
    assert exc.value.key == key
    assert rule in str(exc.value)


def test_an_invalid_sampled_scenario_is_an_error_of_the_spec(tmp_path: Path) -> None:
    # a ring radius of zero is drawn: the scenario file rule (> 0) names the key
    spec = load_spec(write_spec(tmp_path, base="""
[[rings]]
count = 3
ring_radius_m = 5.0
""", vary="""
[[vary]]
key = "rings[0].ring_radius_m"
choice = [5.0, 0.0]
"""))
    with pytest.raises(CampaignError) as exc:
        validate_spec(spec)
    assert "rings[0].ring_radius_m" in str(exc.value) and "must be > 0" in str(exc.value)


def test_a_base_that_does_not_load_and_unknown_keys(tmp_path: Path) -> None:
    spec = write_spec(tmp_path)
    (tmp_path / "base.toml").write_text("[scenario\n", encoding="utf-8")
    with pytest.raises(CampaignError, match="campaign.base"):
        load_spec(spec)
    spec.write_text('[campaign]\nbase = "base.toml"\nruns = 2\nsteps = 3\nwhat = 1\n')
    with pytest.raises(CampaignError, match="campaign.what"):
        load_spec(spec)


def test_set_path_refuses_missing_elements() -> None:
    doc = {"agents": [{"position": [0.0, 0.0]}]}
    set_path(doc, "agents[*].radius_m", 0.3)
    assert doc["agents"][0]["radius_m"] == 0.3
    with pytest.raises(KeyError):
        set_path(doc, "agents[2].radius_m", 0.3)
    assert np.isclose(doc["agents"][0]["radius_m"], 0.3)
