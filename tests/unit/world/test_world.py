"""The World pipeline: executed state read back (T4), the motion controller's support carry and
rotation carry, Arrive without overshoot, slope handoffs, assertion mode over the whole step."""

import dataclasses

import numpy as np
import pytest

from navproof import InvalidInput, ObligationViolation
from navproof import step as safe_step
from navproof.world import Layout, SupportSpec, World
from navproof.world import world as world_module

CONVEYOR = SupportSpec.build("belt", "conveyor", [[-10.0, -5.0], [10.0, -5.0], [10.0, 5.0],
                                                 [-10.0, 5.0]], velocity_mps=(0.3, 0.0))


def test_t4_orca_reads_the_executed_state_not_the_suggestion():
    world = World(Layout(supports=[CONVEYOR]), assertions=True)
    world.add_agents([[0.0, 0.0], [3.0, 0.0]], [[[8.0, 0.0]], [[-8.0, 0.0]]], radius_m=0.4)
    first = world.step()
    executed = world.velocity_mps.copy()
    # executed world velocity = carry + relative velocity, not the preferred relative velocity
    np.testing.assert_allclose(executed, first.preferred_mps + [0.3, 0.0])
    world.step()
    np.testing.assert_array_equal(world.crowd.velocity, executed)  # what ORCA read
    world.close()


def test_a_body_riding_a_conveyor_is_carried_and_ramps_its_own_velocity():
    world = World(Layout(supports=[CONVEYOR]))
    # at rest on the belt (world velocity = the belt's), walking on along it
    world.add_agents([[0.0, 0.0]], [[[5.0, 0.0]]], velocity_mps=[[0.3, 0.0]], radius_m=0.4)
    world.step()
    # carried 0.3 m/s for 0.1 s plus the B4 ramp from 0 to maxAccel dt = 0.1 m/s
    assert world.position_m[0, 0] == pytest.approx(0.3 * 0.1 + 0.5 * 0.1 * 0.1)
    np.testing.assert_allclose(world.velocity_mps[0], [0.4, 0.0])
    world.close()


def test_a_body_at_rest_in_the_world_on_a_conveyor_holds_its_goal():
    world = World(Layout(supports=[CONVEYOR]))
    world.add_agents([[0.0, 0.0]], [[[0.05, 0.0]]], radius_m=0.4)
    for _ in range(5):
        world.step()
    # it already walks against the belt at exactly the belt's speed: it stays where it is
    assert world.position_m[0, 0] == pytest.approx(0.0, abs=1e-12)
    assert world.arrived.all()
    world.close()


def test_rotation_carry_turns_the_body_and_its_velocity_with_the_platform():
    omega = 0.05
    platform = SupportSpec.build("disc", "platform", [[-4.0, -4.0], [4.0, -4.0], [4.0, 4.0],
                                                      [-4.0, 4.0]], omega_radps=omega)
    world = World(Layout(supports=[platform]), assertions=True)
    world.add_agents([[2.0, 0.0]], [[[2.0, 0.0]]], radius_m=0.4, stop_range_m=0.5)
    world.step()
    angle = omega * 0.1
    # the goal is 0 m away: the body stays at relative rest and rides the platform
    rel = world.velocity_mps[0] - omega * np.array([-world.position_m[0, 1],
                                                    world.position_m[0, 0]])
    assert np.hypot(*world.position_m[0]) == pytest.approx(2.0, abs=0.02)
    assert np.hypot(*rel) <= 0.1 + 1e-9  # at most one step of maxAccel dt relative speed
    assert world.position_m[0, 1] != 0.0 or angle == 0.0
    world.close()


def test_t3_a_lone_agent_arrives_inside_its_stop_range_without_passing_the_goal():
    world = World(Layout(), assertions=True)
    world.add_agents([[0.0, 0.0]], [[[6.0, 0.0]]], radius_m=0.4, max_speed_mps=2.0,
                     stop_range_m=0.1)
    furthest = 0.0
    for _ in range(200):
        world.step()
        furthest = max(furthest, world.position_m[0, 0])
    assert world.arrived.all()
    assert abs(world.position_m[0, 0] - 6.0) <= 0.1
    assert furthest <= 6.0 + 0.1
    world.close()


def test_waypoints_are_passed_then_the_goal_is_arrived_at():
    world = World(Layout(), assertions=True)
    world.add_agents([[0.0, 0.0]], [[[2.0, 2.0], [4.0, 0.0]]], radius_m=0.4)
    for _ in range(300):
        world.step()
    assert world.route_index[0] == 1 and world.arrived.all()
    world.close()


def test_p_to_q_handoff_adopts_q_and_halves_the_caps():
    sqrt3 = 3.0 ** 0.5
    layout = Layout(patches=[("P", np.array([[-5.0, -3.0], [0.0, -3.0], [0.0, 3.0],
                                             [-5.0, 3.0]]), np.zeros(2)),
                             ("Q", np.array([[0.0, -3.0], [5.0, -3.0], [5.0, 3.0],
                                             [0.0, 3.0]]), np.array([sqrt3, 0.0]))])
    assert (0, 1) in layout.common_edges
    world = World(layout, assertions=True)
    world.add_agents([[-2.0, 0.0]], [[[3.0, 0.0]]], radius_m=0.3, max_speed_mps=1.0)
    moved_by_controller = 0
    for _ in range(300):
        step = world.step()
        moved_by_controller += int(step.label[0] == -1)
    assert moved_by_controller > 0
    assert world.patch[0] == 1
    assert [o.phase for o in world.handoffs.outcomes] == ["Following"]
    vh, accel = world._caps()
    assert vh[0] == pytest.approx(0.5) and accel[0] == pytest.approx(0.5)
    assert world.arrived.all()
    world.close()


def test_a_body_braking_before_its_handoff_stops_in_p_at_its_own_budget():
    # a 20 m/s^2 body reaches the trigger distance fast (its steps on P stop before the common
    # edge at 20 m/s^2); braking at the access magnitude of 1 m/s^2 crossed into Q before
    # adoption (A4 in assertion mode, a failed handoff in plain mode)
    half = 3.0
    layout = Layout(corridor_m=np.array([[-half, -half], [half, -half], [half, half],
                                         [-half, half]]),
                    patches=[("P", np.array([[-half, -half], [0.0, -half], [0.0, half],
                                             [-half, half]]), np.zeros(2)),
                             ("Q", np.array([[0.0, -half], [half, -half], [half, half],
                                             [0.0, half]]), np.array([1.0, 0.0]))])
    world = World(layout, assertions=True, time_step_s=0.1)
    world.add_agents([[-1.5, 0.0]], [[[1.5, 0.0]]], radius_m=0.2, max_speed_mps=2.0,
                     max_accel_mps2=20.0)
    with world:
        for _ in range(60):
            world.step()
        outcome, = world.handoffs.outcomes
        assert outcome.phase == "Following" and outcome.attempts_used == 1
        assert "guarantee-void" not in outcome.events
        assert world.patch[0] == 1


def test_a_riders_wall_clearance_reads_the_platform_walls_where_they_stand():
    # a body holding its world position on a platform moving at 0.2 m/s: the platform's
    # trailing wall comes 0.02 m closer every 0.1 s step; the step's clearance is the least
    # over the step, at its end, as the independent check measures it in the platform's frame
    corridor = np.array([[-5.0, -5.0], [5.0, -5.0], [5.0, 5.0], [-5.0, 5.0]])
    platform = SupportSpec.build(name="p", kind="platform",
                                 vertices_m=[[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]],
                                 pivot_m=(0.0, 0.0), velocity_mps=(0.2, 0.0))
    world = World(Layout(corridor_m=corridor, supports=[platform]), assertions=True,
                  time_step_s=0.1)
    world.add_agents([[-0.55, 0.0]], [[[-0.55, 0.0]]], radius_m=0.4)
    with world:
        for k in range(3):
            step = world.step()
            assert world.position_m[0, 0] == pytest.approx(-0.55, abs=1e-9)
            assert step.wall_clearance_m[0] == pytest.approx(0.43 - 0.02 * k, abs=1e-9)
            assert step.wall_clearance_m[0] == pytest.approx(step.truth.wall_clearance_m[0],
                                                             abs=1e-9)


def test_assertion_mode_names_the_claim_when_a_safe_body_crosses_a_wall(monkeypatch):
    real = safe_step.solve_safe_step

    def careless(inp, *, assertions=None, profile=None):
        result = real(inp, assertions=False)
        # a "safe" answer that walks straight through the wall at x = 1
        return dataclasses.replace(result, velocity_mps=np.full_like(result.velocity_mps, 30.0))

    monkeypatch.setattr(world_module, "solve_safe_step", careless)
    corridor = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    world = World(Layout(corridor_m=corridor), assertions=True)
    world.add_agents([[0.9, 0.0]], [[[0.0, 0.0]]], radius_m=0.4)
    with pytest.raises(ObligationViolation) as info:
        world.step()
    assert info.value.claim_id == "B5"
    assert info.value.margin < 0
    world.close()


def test_bad_agents_are_refused_by_name_and_nothing_is_added():
    world = World(Layout())
    with pytest.raises(InvalidInput, match=r"radius_m\[1\]"):
        world.add_agents([[0.0, 0.0], [1.0, 0.0]], [[[1.0, 1.0]], [[2.0, 2.0]]],
                         radius_m=[0.4, -1.0])
    with pytest.raises(InvalidInput, match="stop_range_m"):
        world.add_agents([[0.0, 0.0]], [[[1.0, 1.0]]], stop_range_m=9.0)
    # the ORCA parameters keep to the profile's ranges too (radius, neighbours, horizons)
    with pytest.raises(InvalidInput, match="agent_radius_m"):
        world.add_agents([[0.0, 0.0]], [[[1.0, 1.0]]], radius_m=3.5)
    with pytest.raises(InvalidInput, match="orca_time_horizon_s"):
        world.add_agents([[0.0, 0.0]], [[[1.0, 1.0]]], time_horizon_s=30.0)
    assert world.count == 0
    world.close()


def test_caps_pass_gives_horizontal_caps_bit_for_bit_and_leaves_bad_values_to_its_checks():
    rng = np.random.default_rng(5)
    n = 400
    patch_k = np.concatenate([1.0 + rng.exponential(0.3, 6), [1.0, np.nextafter(1.0, 2.0), 1.0]])
    speed = rng.uniform(1e-300, 3.0, n)
    accel = rng.exponential(1.0, n)
    speed[:5] = [5e-324, 1e308, 1.7976931348623157e308, 0.1, 1.0]
    patch = rng.integers(-patch_k.size, patch_k.size, n)
    vh, a = np.empty(n), np.empty(n)
    assert world_module._clear_caps(speed, accel, patch, patch_k, vh, a)
    want_vh, want_a = world_module.horizontal_caps(speed, accel, patch_k[patch])
    assert vh.tobytes() == want_vh.tobytes() and a.tobytes() == want_a.tobytes()
    for caps, index, bad in ((speed, 7, 0.0), (speed, 8, np.nan), (accel, 9, -1.0),
                             (accel, 10, np.inf), (patch_k, 3, 0.5), (patch_k, 3, np.nan)):
        kept = caps[index]
        caps[index] = bad
        valid = world_module._clear_caps(speed, accel, np.arange(n) % patch_k.size, patch_k,
                                         vh, a)
        assert not valid
        with pytest.raises(InvalidInput):
            world_module.horizontal_caps(speed, accel, patch_k[np.arange(n) % patch_k.size])
        caps[index] = kept
    for q in (patch_k.size, -patch_k.size - 1):
        assert not world_module._clear_caps(speed[:1], accel[:1], np.array([q]), patch_k,
                                            vh, a)


def test_neighbour_fallbacks_relabel_like_the_whole_array_evaluation():
    rng = np.random.default_rng(2)
    n = 500
    label = rng.integers(-1, 9, n).astype(np.int8)
    clearance = rng.normal(0.0, 1e-9, n)
    clearance[:10] = np.nan
    clearance[10:20] = -world_module.EPS
    clearance[20:30] = -np.inf
    want = label.copy()
    want[(want == safe_step.SAFE) & (clearance < -world_module.EPS)] = \
        safe_step.NEIGHBOUR_FALLBACK
    world_module._neighbour_fallbacks(clearance, -world_module.EPS, label)
    assert label.tobytes() == want.tobytes()
