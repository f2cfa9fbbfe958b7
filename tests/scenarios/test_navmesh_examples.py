"""The navigation-mesh examples arrive with assertion mode on (C4 checked every step), report
per-agent outcomes, and bad [navmesh] input names the key. Claim: C1, C2, C3, C4, C5, B7."""

import math
from pathlib import Path

import pytest

from navproof.scenario import ScenarioError, load_scenario, run_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MESH_EXAMPLES = ["u_cup", "l_corridor", "maze", "pillars_crowd", "two_rooms_door", "ramp_floors"]


@pytest.mark.slow
@pytest.mark.parametrize("name", MESH_EXAMPLES)
def test_mesh_example_arrives_with_assertions(name):
    scenario = load_scenario(EXAMPLES / f"{name}.toml", assertions=True)
    with scenario.world:
        summary = run_scenario(scenario)
    assert summary["expectations"] == []
    assert summary["arrived"] == summary["agents"]
    assert summary["min_wall_clearance_m"] >= -1e-9
    per = summary["per_agent"]
    assert [p["index"] for p in per] == list(range(summary["agents"]))
    for p in per:
        assert p["arrived"] and p["reason"] is None
        assert p["arrival_time_s"] > 0.0
        # nobody travels less than its planned (shortest in the corridor) route, minus the
        # stop range at the goal
        assert p["distance_travelled_m"] >= p["planned_route_length_m"] - 0.2
    if name == "ramp_floors":
        # both changes of gradient are taken by the slope handoff, never merged (C1)
        assert [h["phase"] for h in summary["handoffs"]] == ["Following"] * 2
        assert summary["labels"]["moved by its handoff controller"] > 0


def test_u_cup_route_goes_around_the_cup():
    scenario = load_scenario(EXAMPLES / "u_cup.toml")
    with scenario.world as world:
        plan = world.navigation.agents[0]
        # the straight line is 8 m; around the cup the route is longer, its corners on the mesh
        assert plan.route.length_m > 8.0 + 2.0
        assert math.isclose(float(plan.route.corners_m[-1][0]), 10.6)
        assert len(plan.regions) >= 2


def _write(tmp_path, body):
    f = tmp_path / "s.toml"
    f.write_text(body)
    return f


ROOM = "walkable = [[0.0, 0.0], [10.0, 0.0], [10.0, 6.0], [0.0, 6.0]]\n"


@pytest.mark.parametrize(("navmesh", "agent", "match"), [
    (ROOM + "holes = [[[20.0, 20.0], [21.0, 20.0], [21.0, 21.0]]]\n",
     "position = [1.0, 1.0]\ngoal = [9.0, 5.0]\n", r"navmesh.holes\[0\].*entirely outside"),
    ("walkable = [[0.0, 0.0], [4.0, 4.0], [4.0, 0.0], [0.0, 4.0]]\n",
     "position = [1.0, 1.0]\ngoal = [3.0, 1.0]\n", r"navmesh.walkable.*simple polygon"),
    (ROOM, "position = [1.0, 1.0]\ngoal = [9.9, 5.0]\nradius_m = 0.3\n",
     r"agents\[0\].goal.*goal outside the eroded mesh \(0.206 m"),
    (ROOM + "holes = [[[4.0, 0.0], [5.0, 0.0], [5.0, 5.0], [4.0, 5.0]]]\n",
     "position = [1.0, 1.0]\ngoal = [9.0, 1.0]\nradius_m = 0.6\n",
     r"agents\[0\].goal.*radius 0.6 m separates start and goal"),
    (ROOM + "holes = [[[4.0, -1.0], [5.0, -1.0], [5.0, 7.0], [4.0, 7.0]]]\n",
     "position = [1.0, 1.0]\ngoal = [9.0, 1.0]\nradius_m = 0.3\n",
     r"agents\[0\].goal.*goal on another island"),
    (ROOM + 'obj = "x.obj"\n', "position = [1.0, 1.0]\ngoal = [9.0, 1.0]\n",
     r"exactly one of walkable"),
])
def test_bad_navmesh_input_names_the_key(tmp_path, navmesh, agent, match):
    f = _write(tmp_path, f"[navmesh]\n{navmesh}\n[[agents]]\n{agent}")
    with pytest.raises(ScenarioError, match=match):
        load_scenario(f)


def test_malformed_obj_names_the_line(tmp_path):
    (tmp_path / "bad.obj").write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 7\n")
    f = _write(tmp_path, '[navmesh]\nobj = "bad.obj"\n[[agents]]\nposition = [0.5, 0.2]\n'
                         'goal = [0.9, 0.5]\n')
    with pytest.raises(ScenarioError, match=r"bad.obj:4.*names no vertex"):
        load_scenario(f)
