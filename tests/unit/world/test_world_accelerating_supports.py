"""Accelerating supports in the World (claims B3, B6, T4): the motion controller carries a body
by w dt + alpha dt^2 / 2 and with the support velocity at the end of the step, the next step
reads the updated support velocity, a platform's pivot moves with it, and the scenario key
``acceleration_mps2`` builds it."""

from pathlib import Path

import numpy as np
import pytest

from navproof import InvalidInput
from navproof import boundary as b
from navproof.core.ranges import check_step_in_profile
from navproof.scenario import ScenarioError, load_scenario, run_scenario
from navproof.specs.profile import load_profile
from navproof.world import Layout, SupportSpec, World
from navproof.world.motion import execute

DT = 0.1
BELT = [[-10.0, -5.0], [10.0, -5.0], [10.0, 5.0], [-10.0, 5.0]]


def test_execute_carries_by_the_accelerating_support():
    support = b.Support.translating(np.array([[0.2, 0.0]]),
                                    acceleration_mps2=np.array([[0.5, -0.3]]))
    x0, v0, v1 = np.array([[1.0, 2.0]]), np.array([[0.1, 0.0]]), np.array([[0.2, 0.05]])
    out = execute(x0, v0, v1, np.array([DT]), DT, support)
    rel = (v0 + v1) * DT / 2.0
    carried = np.array([[0.2, 0.0]]) * DT + 0.5 * np.array([[0.5, -0.3]]) * DT**2
    np.testing.assert_allclose(out.position_m, x0 + rel + carried, atol=1e-15)
    # the world velocity at the end of the step: support velocity w + alpha dt plus v1
    np.testing.assert_allclose(out.velocity_world_mps, [[0.25 + 0.2, -0.03 + 0.05]], atol=1e-15)
    np.testing.assert_allclose(out.velocity_rel_mps, v1)


def test_the_next_step_reads_the_updated_conveyor_velocity():
    belt = SupportSpec.build("belt", "conveyor", BELT, velocity_mps=(0.1, 0.0),
                             acceleration_mps2=(0.2, 0.0))
    world = World(Layout(supports=[belt]), assertions=True)
    world.add_agents([[0.0, 0.0]], [[[0.0, 4.0]]], velocity_mps=[[0.1, 0.0]], radius_m=0.4)
    start = world.position_m[0].copy()
    world.step()
    assert world.layout.support_velocity_mps[0] == pytest.approx([0.12, 0.0])
    # the executed world velocity is the belt's at the end of the step plus the relative v1;
    # the body ramped from relative rest to v1 and was carried by w dt + alpha dt^2 / 2
    v1 = world.velocity_mps[0] - [0.12, 0.0]
    carried = np.array([0.1 * DT + 0.5 * 0.2 * DT**2, 0.0])
    np.testing.assert_allclose(world.position_m[0] - start, carried + v1 * DT / 2.0,
                               atol=1e-12)
    assert np.hypot(*v1) <= 1.0 * DT + 1e-12
    support = world.layout.support_motion(np.array([0]))
    assert support.motion.velocity_mps[0] == pytest.approx([0.12, 0.0])
    assert support.motion.acceleration_mps2[0] == pytest.approx([0.2, 0.0])
    world.step()
    assert world.layout.support_velocity_mps[0] == pytest.approx([0.14, 0.0])
    world.close()


def test_an_accelerating_platform_moves_its_walls_and_pivot():
    cart = SupportSpec.build("cart", "platform", [[-2.0, -1.0], [2.0, -1.0], [2.0, 1.0],
                                                  [-2.0, 1.0]], velocity_mps=(0.1, 0.0),
                             acceleration_mps2=(0.0, 0.4))
    layout = Layout(supports=[cart])
    layout.advance(DT)
    shift = np.array([0.1 * DT, 0.5 * 0.4 * DT**2])
    np.testing.assert_allclose(layout.support_pivot_m(0), shift, atol=1e-15)
    np.testing.assert_allclose(layout.platform_vertices(0), cart.vertices_m + shift,
                               atol=1e-15)
    edges = layout.edges(np.array([-1]), np.array([0]))
    sup = layout.support_motion(np.array([0]))
    # the cart's walls share its accelerating motion: the margin is read in its own frame
    assert b.rigid.same_motion(edges, sup)[edges.valid].all()
    assert b.rotating_stop_pairs(edges, sup) is None


def test_support_spec_refuses_a_bad_acceleration():
    with pytest.raises(InvalidInput, match="acceleration_mps2"):
        SupportSpec.build("belt", "conveyor", BELT, acceleration_mps2=(np.nan, 0.0))
    with pytest.raises(InvalidInput, match="acceleration_mps2"):
        SupportSpec.build("belt", "conveyor", BELT, acceleration_mps2=(1.0, 0.0, 0.0))


def test_the_scenario_key_builds_an_accelerating_support(tmp_path):
    text = ('[[agents]]\nposition = [0.0, 0.0]\ngoal = [0.0, 3.0]\n'
            '[[supports]]\nname = "belt"\nkind = "conveyor"\n'
            'vertices = [[-5.0, -5.0], [5.0, -5.0], [5.0, 5.0], [-5.0, 5.0]]\n'
            'velocity_mps = [0.1, 0.0]\nacceleration_mps2 = ACC\n')
    good = tmp_path / "good.toml"
    good.write_text(text.replace("ACC", "[0.05, 0.0]"))
    scenario = load_scenario(good)
    with scenario.world:
        spec = scenario.world.layout.supports[0]
        assert spec.acceleration_mps2 == pytest.approx([0.05, 0.0])
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("ACC", '"fast"'))
    with pytest.raises(ScenarioError, match=r"supports\[0\]\.acceleration_mps2"):
        load_scenario(bad)


def test_profile_check_takes_the_largest_support_speed_over_the_step():
    from navproof import step as ss

    profile = load_profile()

    def inp(w, alpha):
        support = b.Support.translating(np.array([w]), acceleration_mps2=np.array([alpha]))
        edges = b.EdgeSet.build(np.zeros((1, 0, 2)), np.zeros((1, 0)))
        return ss.StepInput(np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)), DT, support,
                            edges, np.array([1.0]), np.array([1.0]), np.array([0.3]))

    check_step_in_profile(inp([0.29, 0.0], [0.05, 0.0]), profile)  # 0.295 m/s at the end
    with pytest.raises(InvalidInput, match="support_speed_mps"):
        check_step_in_profile(inp([0.29, 0.0], [0.5, 0.0]), profile)  # 0.34 m/s at the end
    # decelerating through zero: the start is the fastest
    check_step_in_profile(inp([0.3, 0.0], [-3.0, 0.0]), profile)


@pytest.mark.slow
def test_accelerating_platform_example_runs_safe_with_simulate(tmp_path):
    from navproof.cli import main as cli_main

    path = Path(__file__).resolve().parents[3] / "examples" / "accelerating_platform.toml"
    out = tmp_path / "cart.json"
    assert cli_main(["simulate", str(path), "--assert", "--json", str(out)]) == 0
    scenario = load_scenario(path, assertions=True)
    with scenario.world:
        summary = run_scenario(scenario)
    assert summary["arrived"] == summary["agents"]
    assert summary["min_wall_clearance_m"] >= 0.0
    # the cart's walls share its motion: no step lacks a stop guarantee or a solution (the
    # labels of the walls); crossing bodies may relax a neighbour's line now and then (F1)
    labels = summary["labels"]
    assert labels["no stop guarantee"] == 0 and labels["solve failed"] == 0
    assert labels["safe"] >= 0.99 * sum(labels.values())
