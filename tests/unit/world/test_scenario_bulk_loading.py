"""Scenario files add their agents to the World in one call (issue 20, item 9): the World is the
one the agent-by-agent loading built, errors name the table of the offending agent, large
files report their loading, and a file asking for more agents than fit in memory is refused
naming the table before any agent is generated."""

from __future__ import annotations

import math

import numpy as np
import pytest

from navproof import scenario as scenario_module
from navproof.scenario import ScenarioError, load_scenario, world_memory_bytes
from navproof.world import World

MIXED = """
[agent_defaults]
radius_m = 0.3

[[agents]]
position = [0.0, 0.0]
goal = [3.0, 0.0]

[[agents]]
position = [0.0, 2.0]
route = [[1.0, 2.0], [2.0, 2.5], [3.0, 2.0]]
max_speed_mps = 1.0
velocity_mps = [0.2, 0.0]

[[rings]]
count = 7
center = [10.0, 0.0]
ring_radius_m = 4.0
goal_turn_rad = 0.2
max_neighbors = 4

[[blocks]]
rows = 2
cols = 3
origin = [-10.0, 0.0]
spacing_m = 1.5
goal_offset = [0.0, 6.0]
time_horizon_s = 3.0
"""

STATE = ("position_m", "velocity_mps", "radius_m", "max_speed_mps", "max_accel_mps2",
         "stop_range_m", "route_m", "route_count", "route_index", "patch")
CROWD = ("position", "velocity", "pref_velocity", "radius", "max_speed", "neighbor_dist",
         "max_neighbors", "time_horizon", "time_horizon_obst")


def _one_by_one(scenario) -> World:
    """The World the loader built before, adding one agent per call (same file order)."""
    old = scenario.world
    world = World(old.layout, time_step_s=old.dt_s, profile=old.profile)
    defaults = {"radius_m": 0.3}
    for i in range(2):
        route = old.route_m[i, :old.route_count[i]]
        params = dict(defaults)
        if i == 1:
            params.update(max_speed_mps=1.0, velocity_mps=np.array([0.2, 0.0]))
        world.add_agents(old.position_m[i][None], [route], **params)
    for j in range(7):
        angle = 2.0 * math.pi * j / 7
        start = np.array([10.0, 0.0]) + 4.0 * np.array([math.cos(angle), math.sin(angle)])
        goal = np.array([10.0, 0.0]) - 4.0 * np.array([math.cos(angle + 0.2),
                                                       math.sin(angle + 0.2)])
        world.add_agents(start[None], [goal[None]], max_neighbors=4, **defaults)
    for row in range(2):
        for col in range(3):
            start = np.array([-10.0, 0.0]) + 1.5 * np.array([col, row], dtype=np.float64)
            world.add_agents(start[None], [(start + [0.0, 6.0])[None]], time_horizon_s=3.0,
                             **defaults)
    return world


def test_bulk_loading_builds_the_world_the_agent_by_agent_loading_built(tmp_path):
    path = tmp_path / "mixed.toml"
    path.write_text(MIXED)
    scenario = load_scenario(path)
    expected = _one_by_one(scenario)
    try:
        assert scenario.world.count == expected.count == 15
        for name in STATE:
            np.testing.assert_array_equal(getattr(scenario.world, name),
                                          getattr(expected, name), err_msg=name)
        for name in CROWD:
            np.testing.assert_array_equal(getattr(scenario.world.crowd, name),
                                          getattr(expected.crowd, name), err_msg=name)
        for _ in range(3):
            got, want = scenario.world.step(), expected.step()
            np.testing.assert_array_equal(got.velocity_mps, want.velocity_mps)
            np.testing.assert_array_equal(got.label, want.label)
    finally:
        scenario.world.close()
        expected.close()


@pytest.mark.parametrize(("table", "key"), [
    ("[[agents]]\nposition = [0.0, 0.0]\ngoal = [1.0, 0.0]\n"
     "[[agents]]\nposition = [0.0, 3.0]\ngoal = [1.0, 3.0]\ntime_horizon_s = 1e9\n",
     "agents[1].time_horizon_s"),
    ("[[agents]]\nposition = [0.0, 0.0]\ngoal = [1.0, 0.0]\n"
     "[[rings]]\ncount = 5\nring_radius_m = 3.0\nmax_accel_mps2 = 1e6\n",
     "rings[0].max_accel_mps2"),
    ("[[blocks]]\nrows = 1\ncols = 2\nspacing_m = 2.0\ngoal_offset = [1.0, 0.0]\n"
     "[[blocks]]\nrows = 2\ncols = 2\nspacing_m = 2.0\ngoal_offset = [1.0, 0.0]\n"
     "velocity_mps = [1e9, 0.0]\n", "blocks[1].velocity_mps"),
    ("[[rings]]\ncount = 3\nring_radius_m = 2.0\ncenter = [2e6, 0.0]\n", "rings[0].center"),
])
def test_an_error_in_a_bulk_load_names_the_table_of_the_agent(tmp_path, table, key):
    path = tmp_path / "s.toml"
    path.write_text(table)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert info.value.key.startswith(key), info.value


def test_a_large_load_reports_its_stages_and_a_small_one_does_not(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text("[[blocks]]\nrows = 150\ncols = 150\nspacing_m = 1.5\n"
                   "goal_offset = [3.0, 0.0]\n")
    lines: list[str] = []
    scenario = load_scenario(big, progress=lines.append)
    scenario.world.close()
    assert scenario.world.count == 22500
    assert len(lines) == 2 and "adding 22500 agents" in lines[0] and "loaded" in lines[1]
    small = tmp_path / "small.toml"
    small.write_text("[[rings]]\ncount = 10\nring_radius_m = 5.0\n")
    quiet: list[str] = []
    load_scenario(small, progress=quiet.append).world.close()
    assert quiet == []


def test_agents_beyond_the_machines_memory_are_refused_naming_the_table(tmp_path, monkeypatch):
    # a machine of 1 GiB: half of it holds about 80,000 agents of 10 neighbour slots
    monkeypatch.setattr(scenario_module, "machine_memory_bytes", lambda: 2**30)
    fits = 2**29 // world_memory_bytes(1, 10)
    path = tmp_path / "s.toml"
    path.write_text("[[agents]]\nposition = [0.0, 0.0]\ngoal = [1.0, 0.0]\n"
                    f"[[rings]]\ncount = {fits + 10}\nring_radius_m = 1000.0\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert info.value.key == "rings[0].count"
    assert info.value.value == fits + 10
    assert "GiB" in info.value.rule and f"at most about {fits - 1} agents" in info.value.rule


def test_the_memory_of_the_machine_is_read_from_the_operating_system():
    memory = scenario_module.machine_memory_bytes()
    assert memory is None or memory > 2**20
    assert world_memory_bytes(10, 0) < world_memory_bytes(10, 10)


@pytest.mark.parametrize(("field", "key"), [
    ("corridor", "corridor.vertices"),
    ("corridor[2]", "corridor.vertices[2]"),
    ("obstacles[1]", "obstacles[1].vertices"),
    ("obstacles[1][3]", "obstacles[1].vertices[3]"),
    ("supports[0].vertices_m", "supports[0].vertices"),
    ("supports[2].pivot_m[1]", "supports[2].pivot[1]"),
    ("patches[1].gradient", "patches[1].gradient"),
    ("patches", "patches"),
])
def test_a_layout_field_is_named_by_its_key_in_the_file(field, key):
    # the Layout and the World name their fields in their own terms; the file's keys differ
    assert scenario_module._layout_key(field) == key
