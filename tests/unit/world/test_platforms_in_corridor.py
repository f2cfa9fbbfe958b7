"""A platform's riders lose the corridor's walls, and their patch's, only while the platform is
certified inside the corridor (the patch) over the time they could still be stopping; a platform
that drives out never carries its rider through the wall, or across a patch edge, with safe
labels."""

import numpy as np
import pytest

from navproof.boundary import polygon_halfplanes
from navproof.step import SAFE, Neighbors, StepInput, solve_safe_step
from navproof.world import Layout, SupportSpec, World

CORRIDOR = np.array([[-8.0, -3.0], [8.0, -3.0], [8.0, 3.0], [-8.0, 3.0]])
CART = [[3.0, -1.0], [6.0, -1.0], [6.0, 1.0], [3.0, 1.0]]


def cart(**motion):
    return SupportSpec.build("cart", "platform", CART, pivot_m=(4.5, 0.0), **motion)


def test_a_platform_at_rest_well_inside_the_corridor_is_inside_over_any_lookahead():
    layout = Layout(corridor_m=CORRIDOR, supports=[cart()])
    assert layout.platforms_inside(10.0).all()


@pytest.mark.parametrize("motion, inside_after_s, out_after_s", [
    (dict(velocity_mps=(0.3, 0.0)), 6.0, 6.8),          # front edge at x = 6 reaches 8
    (dict(acceleration_mps2=(0.1, 0.0)), 6.0, 6.4),     # 2 = 0.05 t^2: t = 6.32 s
    (dict(omega_radps=0.2), 0.0, 50.0),                 # turning in place: r = 1.80 m < 3
])
def test_platform_containment_is_certified_over_the_lookahead(motion, inside_after_s,
                                                             out_after_s):
    layout = Layout(corridor_m=CORRIDOR, supports=[cart(**motion)])
    assert layout.platforms_inside(inside_after_s)[0]
    if "omega_radps" not in motion:
        assert not layout.platforms_inside(out_after_s)[0]


def test_a_turning_platform_whose_corner_sweeps_past_the_wall_is_not_inside():
    wide = SupportSpec.build("disc", "platform", [[-2.5, -1.0], [2.5, -1.0], [2.5, 1.0],
                                                  [-2.5, 1.0]], omega_radps=0.2)
    # its corners are 2.69 m from the pivot; the corridor's walls are 2.6 m from it
    layout = Layout(corridor_m=np.array([[-6.0, -2.6], [6.0, -2.6], [6.0, 2.6], [-6.0, 2.6]]),
                    supports=[wide])
    assert layout.platforms_inside(None)[0]
    assert not layout.platforms_inside(10.0)[0]


def test_riders_keep_the_corridor_walls_when_their_platform_may_leave():
    layout = Layout(corridor_m=CORRIDOR, supports=[cart(velocity_mps=(0.3, 0.0))])
    on = np.array([0])
    near = layout.edges(np.array([-1]), on, platform_lookahead_s=10.0)
    far = layout.edges(np.array([-1]), on, platform_lookahead_s=1.0)
    corridor_cols = slice(0, 4)
    assert near.valid[0, corridor_cols].all()
    assert not far.valid[0, corridor_cols].any()


@pytest.mark.parametrize("acceleration_mps2", [(0.0, 0.0), (0.05, 0.0)])
def test_a_platform_driving_out_of_the_corridor_never_carries_its_rider_out_labelled_safe(
        acceleration_mps2):
    world = World(Layout(corridor_m=CORRIDOR,
                         supports=[cart(velocity_mps=(0.3, 0.0),
                                        acceleration_mps2=acceleration_mps2)]),
                  assertions=True)
    world.add_agents([[5.5, 0.0]], [[[7.9, 0.0]]], radius_m=0.4)
    for _ in range(200):
        before = 8.0 - world.position_m[0, 0]
        step = world.step()
        after = 8.0 - world.position_m[0, 0]
        if step.label[0] == SAFE:
            assert before >= -1e-9 and after >= -1e-9


def test_a_body_at_rest_on_a_platform_accelerating_towards_the_wall_is_not_safe():
    # the cart's front edge 0.05 m from the wall, speeding up towards it from rest: it leaves
    # the corridor after 1 s, while the rider could still be stopping
    layout = Layout(corridor_m=CORRIDOR, supports=[SupportSpec.build(
        "cart", "platform", [[4.95, -1.0], [7.95, -1.0], [7.95, 1.0], [4.95, 1.0]],
        pivot_m=(6.45, 0.0), acceleration_mps2=(0.1, 0.0))])
    x0 = np.array([[7.4, 0.0]])
    on = layout.support_of(x0)
    assert on[0] == 0
    support = layout.support_motion(on)
    edges = layout.edges(np.array([-1]), on, platform_lookahead_s=0.1 + 1.2 / 1.0)
    assert edges.valid[0, :4].all()  # the corridor's walls are kept
    inp = StepInput(x0, np.zeros((1, 2)), np.zeros((1, 2)), 0.1, support, edges,
                    np.array([1.2]), np.array([1.0]), np.array([0.4]),
                    neighbors=Neighbors.none(1))
    result = solve_safe_step(inp, assertions=True)
    # at rest on the cart it would be carried into the wall: it must walk back, or not be safe
    if result.label[0] == SAFE:
        assert result.velocity_mps[0, 0] < 0.0


P_AND_Q = [("P", np.array([[-8.0, -3.0], [0.0, -3.0], [0.0, 3.0], [-8.0, 3.0]]), np.zeros(2)),
           ("Q", np.array([[0.0, -3.0], [8.0, -3.0], [8.0, 3.0], [0.0, 3.0]]), np.zeros(2))]
"""Two flat patches sharing the handoff edge x = 0."""


def test_platform_containment_in_each_patch_is_certified_over_the_lookahead():
    # the cart's back edge (x = -5) crosses into Q after 16.7 s, its front edge (x = -2) after
    # 6.7 s
    layout = Layout(corridor_m=CORRIDOR, patches=P_AND_Q, supports=[SupportSpec.build(
        "cart", "platform", [[-5.0, -1.0], [-2.0, -1.0], [-2.0, 1.0], [-5.0, 1.0]],
        pivot_m=(-3.5, 0.0), velocity_mps=(0.3, 0.0))])
    assert layout.platforms_inside_patches(6.0).tolist() == [[True, False]]
    assert layout.platforms_inside_patches(7.0).tolist() == [[False, False]]
    assert layout.platforms_inside_patches(7.0)[0].tolist() == [
        layout.platforms_inside(7.0, region=polygon_halfplanes(P_AND_Q[p][1]))[0]
        for p in range(2)]


def test_riders_keep_their_patch_walls_when_their_platform_may_leave_the_patch():
    layout = Layout(corridor_m=CORRIDOR, patches=P_AND_Q, supports=[SupportSpec.build(
        "cart", "platform", [[-5.0, -1.0], [-2.0, -1.0], [-2.0, 1.0], [-5.0, 1.0]],
        pivot_m=(-3.5, 0.0), velocity_mps=(0.3, 0.0))])
    on = np.array([0])
    patch_cols = slice(4, 8)
    near = layout.edges(np.array([0]), on, platform_lookahead_s=10.0)
    far = layout.edges(np.array([0]), on, platform_lookahead_s=1.0)
    assert near.valid[0, patch_cols].all()
    assert not far.valid[0, patch_cols].any()
    # a conveyor does not carry its riders off the patch: they keep its walls anyway
    belt = Layout(corridor_m=CORRIDOR, patches=P_AND_Q, supports=[SupportSpec.build(
        "belt", "conveyor", [[-5.0, -1.0], [-2.0, -1.0], [-2.0, 1.0], [-5.0, 1.0]],
        velocity_mps=(0.3, 0.0))])
    assert belt.edges(np.array([0]), on, platform_lookahead_s=1.0).valid[0, patch_cols].all()


def test_a_platform_driving_into_another_patch_never_carries_its_rider_across_labelled_safe():
    # the rider holds its goal in the world until the back edge picks it up at 3.3 s; it is on
    # the common edge x = 0 after 7.3 s
    world = World(Layout(corridor_m=CORRIDOR, patches=P_AND_Q, supports=[SupportSpec.build(
        "cart", "platform", [[-2.2, -1.0], [-0.2, -1.0], [-0.2, 1.0], [-2.2, 1.0]],
        pivot_m=(-1.2, 0.0), velocity_mps=(0.3, 0.0))]), assertions=True)
    world.add_agents([[-1.2, 0.0]], [[[-1.2, 0.0]]], radius_m=0.4)
    for _ in range(90):
        before = world.position_m[0, 0]
        step = world.step()
        if step.label[0] == SAFE:
            assert before <= 1e-9 and world.position_m[0, 0] <= 1e-9


def test_assertion_mode_accepts_a_safe_rider_at_its_moving_platforms_front_edge():
    # the rider stands 1 mm inside the front edge of a cart moving at 0.3 m/s and walks
    # towards the front: it ends each step beyond where that edge stood at the start of the
    # step, but on the cart (B5 holds in the cart's frame, as the independent check measures,
    # and the step's wall clearance reads the edge where it stands, not where it stood)
    from navproof.world.independent_check import check_world_step

    def run(assertions):
        world = World(Layout(corridor_m=CORRIDOR, supports=[cart(velocity_mps=(0.3, 0.0))]),
                      assertions=assertions)
        world.add_agents([[5.999, 0.0]], [[[7.5, 0.0]]], radius_m=0.4)
        steps, end_x_m = [], []
        for _ in range(5):
            steps.append(world.step())
            end_x_m.append(float(world.position_m[0, 0]))
        return world, steps, end_x_m

    world, steps, end_x_m = run(False)
    truths = [check_world_step(world, step) for step in steps]
    front_at_start_m = [6.0 + 0.3 * (step.time_s - world.dt_s) for step in steps]
    assert any(step.label[0] == SAFE and x > front + 1e-3
               for step, x, front in zip(steps, end_x_m, front_at_start_m, strict=True))
    assert not any(truth.violated[0] for truth in truths)
    for step, truth in zip(steps, truths, strict=True):
        assert step.wall_clearance_m[0] >= -1e-12
        assert step.wall_clearance_m[0] == pytest.approx(truth.wall_clearance_m[0], abs=1e-9)
    run(True)
