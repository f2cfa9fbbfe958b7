"""Scenario files: the documented schema builds a World; bad files name the key."""

import pytest

from navproof.cli import main as cli_main
from navproof.scenario import ScenarioError, load_scenario, run_scenario

GOOD = """
[scenario]
name = "two"
steps = 5

[agent_defaults]
radius_m = 0.4

[[agents]]
position = [0.0, 0.0]
goal = [3.0, 0.0]

[[agents]]
position = [0.0, 2.0]
route = [[1.0, 2.0], [3.0, 2.0]]
max_speed_mps = 1.0
"""


def _write(tmp_path, text):
    path = tmp_path / "s.toml"
    path.write_text(text)
    return path


def test_a_scenario_file_builds_its_world(tmp_path):
    scenario = load_scenario(_write(tmp_path, GOOD))
    with scenario.world as world:
        assert scenario.name == "two" and scenario.steps == 5
        assert world.count == 2
        assert world.radius_m.tolist() == [0.4, 0.4]
        assert world.max_speed_mps[1] == 1.0
        assert world.route_count.tolist() == [1, 2]
        summary = run_scenario(scenario)
    assert summary["steps"] == 5 and summary["agents"] == 2
    assert set(summary["not_arrived"]) == {"0", "1"}
    assert all(r.startswith("on its way") for r in summary["not_arrived"].values())


@pytest.mark.parametrize(("old", "new", "key"), [
    ("goal = [3.0, 0.0]", "goal = [3.0]", "agents[0].goal"),
    ("goal = [3.0, 0.0]", "goal = [3.0, 0.0]\nspeed = 2", "agents[0].speed"),
    ("radius_m = 0.4", "radius_m = -0.4", "agent_defaults.radius_m"),
    ("max_speed_mps = 1.0", "max_speed_mps = 50.0", "agents[1].max_speed_mps"),
    ("[scenario]", "[scenery]", "scenery"),
    ("steps = 5", "steps = 2.5", "scenario.steps"),
    ("goal = [3.0, 0.0]", "", "agents[0].goal"),
])
def test_bad_files_name_the_key(tmp_path, old, new, key):
    text = GOOD.replace(old, new, 1)
    assert text != GOOD
    with pytest.raises(ScenarioError) as info:
        load_scenario(_write(tmp_path, text))
    assert info.value.key == key
    assert str(tmp_path) in str(info.value)


def test_a_concave_corridor_is_refused_with_its_key(tmp_path):
    text = GOOD + "\n[corridor]\nvertices = [[0, 0], [4, 0], [1, 1], [4, 4], [0, 4]]\n"
    with pytest.raises(ScenarioError) as info:
        load_scenario(_write(tmp_path, text))
    assert info.value.key == "corridor.vertices"


def test_simulate_exits_3_on_a_bad_file_and_names_the_key(tmp_path, capsys):
    path = _write(tmp_path, GOOD.replace("radius_m = 0.4", "radius_m = 0"))
    assert cli_main(["simulate", str(path)]) == 3
    assert "agent_defaults.radius_m" in capsys.readouterr().err


def test_simulate_refuses_the_record_options_for_scenario_files(tmp_path, capsys):
    path = _write(tmp_path, GOOD)
    assert cli_main(["simulate", str(path), "--db", str(tmp_path / "x.db")]) == 3
    assert "pq-handoff" in capsys.readouterr().err


def test_simulate_assert_fails_a_missed_expectation(tmp_path, capsys):
    path = _write(tmp_path, GOOD + "\n[expect]\narrived = \"all\"\n")
    assert cli_main(["simulate", str(path), "--assert", "--steps", "3"]) == 1
    assert "EXPECTATION MISSED" in capsys.readouterr().out
