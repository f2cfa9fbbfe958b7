"""One entry point for every scenario file: ``navproof.scenario.load_scenario`` reads a World
scenario, the P/Q demo's data and ``navproof explain``'s JSON, each with the one ScenarioError
naming the file, the key, the value and the rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navproof import ScenarioError, load_scenario
from navproof.demos.pq_handoff.data import DEFAULT_FILE, PQScenario
from navproof.explain_scenario import BUILTIN, VelocityScenario
from navproof.scenario import Scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_world_file_builds_its_world():
    scenario = load_scenario(EXAMPLES / "circle.toml")
    assert isinstance(scenario, Scenario) and scenario.world.count > 0


def test_the_pq_demo_file_gives_its_data():
    scenario = load_scenario(DEFAULT_FILE)
    assert isinstance(scenario, PQScenario)
    assert (scenario.plane, scenario.slope) == ("P", "Q")


def test_an_explain_json_file_gives_its_crowd_and_boundary(tmp_path):
    path = tmp_path / "corridor.json"
    path.write_text(json.dumps(BUILTIN["corridor"]), encoding="utf-8")
    scenario = load_scenario(path)
    assert isinstance(scenario, VelocityScenario) and scenario.source == str(path)
    assert scenario.crowd.num_agents == 3 and scenario.boundary is not None


@pytest.mark.parametrize(("text", "key", "rule"), [
    ("{not json", "<file>", "is not valid JSON"),
    ('{"agents": [{"velocity": [0, 0]}]}', "agents[0]", "must be an object with a position"),
    ('{"boundary": {"accel_mps2": -1}, "agents": []}', "boundary.accel_mps2", "must be > 0"),
])
def test_a_bad_explain_file_is_a_scenario_error_naming_file_and_key(tmp_path, text, key, rule):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert info.value.file == str(path) and info.value.key == key and rule in info.value.rule


@pytest.mark.parametrize("name", ["a.toml", "a.json"])
def test_a_missing_file_is_a_scenario_error_of_every_kind(tmp_path, name):
    with pytest.raises(ScenarioError) as info:
        load_scenario(tmp_path / name)
    assert info.value.key == "<file>" and "cannot be read" in info.value.rule


def test_a_bad_pq_file_is_the_same_scenario_error(tmp_path):
    bad = tmp_path / "pq.toml"
    bad.write_text(DEFAULT_FILE.read_text(encoding="utf-8").replace("start_x_m = -0.09",
                                                                    "start_x_m = 0.5"))
    with pytest.raises(ScenarioError) as info:
        load_scenario(bad)
    assert info.value.key == "body.start_x_m"


def test_explain_reads_its_file_through_the_loader(tmp_path, capsys):
    from navproof.cli import EXIT_BAD_INPUT, EXIT_OK, main

    good = tmp_path / "crossing.json"
    good.write_text(json.dumps(BUILTIN["crossing"]), encoding="utf-8")
    assert main(["explain", str(good)]) == EXIT_OK
    bad = tmp_path / "bad.json"
    bad.write_text('{"agents": 3}', encoding="utf-8")
    capsys.readouterr()
    assert main(["explain", str(bad)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert str(bad) in err and "agents" in err and "must be a list" in err
    assert main(["explain", str(EXAMPLES / "circle.toml")]) == EXIT_BAD_INPUT
    assert "velocity-space scenario file (*.json)" in capsys.readouterr().err


def test_simulate_names_a_pq_file_given_as_a_world_file(capsys):
    from navproof.cli import EXIT_BAD_INPUT, main

    assert main(["simulate", str(DEFAULT_FILE)]) == EXIT_BAD_INPUT
    assert "simulate pq-handoff --scenario-file" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["world\x00.toml", "explain\x00.json"])
def test_a_path_with_a_nul_byte_is_a_scenario_error_not_a_crash(name):
    with pytest.raises(ScenarioError, match="cannot be read"):
        load_scenario(name)
