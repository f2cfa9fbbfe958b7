"""Obstacles are simple counter-clockwise polygons of any shape: checked where they enter, their
clearance is the exact signed distance, the safe step keeps clear of them over the whole curve
and a body inside one (or outside its walls) is labelled in violation, never safe."""

import numpy as np
import pytest

from navproof import InvalidInput
from navproof.boundary.polygons import (
    check_valid_simple_polygon,
    convex_pieces,
    polygon_signed_distance_m,
    signed_area_m2,
)
from navproof.step import FLAG_OBSTACLE_STOP_UNCERTIFIED, IN_VIOLATION, LABEL_NAMES, SAFE
from navproof.world import Layout, SupportSpec, World
from navproof.world.layout import OBSTACLE_EDGE_ID
from navproof.world.summary import RunSummary

L_SHAPE = np.array([[0.0, 0.0], [6.0, 0.0], [6.0, 3.0], [3.0, 3.0], [3.0, 6.0], [0.0, 6.0]])
PILLAR = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
HALL = np.array([[-8.0, -4.0], [8.0, -4.0], [8.0, 4.0], [-8.0, 4.0]])


def winding_inside(vertices, points):
    """Inside test by the angle swept around each point (independent of the crossing number)."""
    rel = vertices[None, :, :] - points[:, None, :]
    angle = np.arctan2(rel[..., 1], rel[..., 0])
    turn = np.diff(np.concatenate([angle, angle[:, :1]], axis=1), axis=1)
    turn = (turn + np.pi) % (2.0 * np.pi) - np.pi
    return np.abs(turn.sum(axis=1)) > np.pi


def test_a_point_1_m_inside_an_l_shaped_obstacle_is_at_minus_1_m():
    d = polygon_signed_distance_m(L_SHAPE, np.array([[1.0, 1.0], [4.5, 4.5], [1.5, 4.5]]))
    np.testing.assert_allclose(d, [-1.0, 1.5, -1.5])  # (4.5, 4.5) is in the notch


def test_the_signed_distance_agrees_with_an_independent_inside_test_on_non_convex_polygons():
    rng = np.random.default_rng(7)
    angle = np.linspace(0, 2 * np.pi, 14, endpoint=False)
    arm = np.array([3.0, 1.0] * 7)
    star = np.stack([np.cos(angle) * arm, np.sin(angle) * arm], axis=1)
    for poly in (L_SHAPE, star, PILLAR):
        pts = rng.uniform(-4.0, 7.0, (4000, 2))
        d = polygon_signed_distance_m(poly, pts)
        inside = winding_inside(poly, pts)
        clear = np.abs(d) > 1e-9
        np.testing.assert_array_equal((d < 0)[clear], inside[clear])


def test_convex_pieces_cover_the_polygon_exactly():
    for poly in (L_SHAPE, PILLAR):
        pieces = convex_pieces(poly)
        assert sum(signed_area_m2(p) for p in pieces) == pytest.approx(signed_area_m2(poly))
        for p in pieces:
            d = np.roll(p, -1, axis=0) - p
            assert np.all(d[:, 0] * np.roll(d, -1, axis=0)[:, 1]
                          - d[:, 1] * np.roll(d, -1, axis=0)[:, 0] > 0.0)
    assert len(convex_pieces(PILLAR)) == 1


@pytest.mark.parametrize("vertices, rule", [
    (PILLAR[::-1], "clockwise"),
    ([[0.0, 0.0], [2.0, 2.0], [2.0, 0.0], [0.0, 2.0]], "not simple"),
    ([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], "not simple"),
    ([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], "repeated vertex"),
    ([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [2.0, 0.0], [0.0, 4.0]], "not simple"),
])
def test_clockwise_self_intersecting_and_degenerate_obstacles_are_refused_by_key(vertices, rule):
    with pytest.raises(InvalidInput) as exc:
        Layout(obstacles=[PILLAR, np.array(vertices, float)])
    assert exc.value.field == "obstacles[1].vertices"
    assert rule in str(exc.value)


def test_segments_and_non_convex_counter_clockwise_polygons_are_accepted():
    assert check_valid_simple_polygon("o", [[0.0, 0.0], [1.0, 0.0]]).shape == (2, 2)
    assert check_valid_simple_polygon("o", L_SHAPE).shape == (6, 2)


def test_a_body_starting_1_m_inside_an_l_shaped_obstacle_is_in_violation_never_safe():
    world = World(Layout(obstacles=[L_SHAPE]), assertions=True)
    world.add_agents([[1.0, 1.0]], [[[1.0, -4.0]]], radius_m=0.4)
    summary = RunSummary(world)
    first = world.step()
    summary.add(first, 0.0)
    assert first.label[0] == IN_VIOLATION
    assert first.wall_clearance_m[0] < -1.0
    for _ in range(60):
        x0 = world.position_m.copy()
        step = world.step()
        summary.add(step, 0.0)
        if polygon_signed_distance_m(L_SHAPE, x0)[0] < 0.4 - 1e-9:
            assert step.label[0] == IN_VIOLATION
        if step.label[0] == SAFE:
            assert step.wall_clearance_m[0] >= -1e-9
    result = summary.as_dict()
    assert result["labels"][LABEL_NAMES[IN_VIOLATION]] >= 1
    assert result["min_wall_clearance_m"] < -1.0


def test_a_body_starting_outside_the_corridor_is_in_violation():
    world = World(Layout(corridor_m=HALL))
    world.add_agents([[0.0, 5.0]], [[[0.0, 0.0]]], radius_m=0.4)
    assert world.step().label[0] == IN_VIOLATION


@pytest.mark.parametrize("horizon_obst_s", [0.1, 0.5, 2.0])
@pytest.mark.parametrize("max_accel_mps2", [0.5, 1.0, 3.0])
def test_one_agent_walking_at_a_pillar_is_never_safe_on_a_step_that_overlaps_it(
        horizon_obst_s, max_accel_mps2):
    world = World(Layout(obstacles=[PILLAR], corridor_m=HALL), assertions=True)
    world.add_agents([[-5.0, 0.0]], [[[5.0, 0.0]]], radius_m=0.4, max_speed_mps=1.2,
                     max_accel_mps2=max_accel_mps2, time_horizon_obst_s=horizon_obst_s)
    for _ in range(80):
        x0 = world.position_m.copy()
        step = world.step()
        started_inside = polygon_signed_distance_m(PILLAR, x0)[0] - 0.4 < -1e-9
        if step.label[0] == SAFE:
            assert not started_inside
            assert step.wall_clearance_m[0] >= -1e-9
        if started_inside:
            assert step.label[0] == IN_VIOLATION


def test_a_safe_step_heading_into_an_obstacle_it_cannot_stop_before_is_not_safe():
    # 1.2 m/s at 0.5 m/s^2 needs 1.44 m to stop; ORCA looks 0.1 s ahead only
    world = World(Layout(obstacles=[PILLAR], corridor_m=HALL))
    world.add_agents([[-5.0, 0.0]], [[[5.0, 0.0]]], radius_m=0.4, max_speed_mps=1.2,
                     max_accel_mps2=0.5, time_horizon_obst_s=0.1)
    flagged = False
    for _ in range(45):
        step = world.step()
        if step.flags[0] & FLAG_OBSTACLE_STOP_UNCERTIFIED:
            flagged = True
            assert step.label[0] != SAFE
    assert flagged


def _wall_clearance_by_arrays(layout, x_m, radius_m, edges):
    """The whole-array wall clearance the compiled pass replaced."""
    margin = edges.offset_m - (edges.normal[..., 0] * x_m[:, None, 0]
                               + edges.normal[..., 1] * x_m[:, None, 1])
    walls = edges.valid & (edges.edge_id < OBSTACLE_EDGE_ID)
    out = np.full(x_m.shape[0], np.inf)
    for k in range(margin.shape[1]):
        out = np.where(walls[:, k], np.minimum(margin[:, k], out), out)
    for poly in layout.obstacles:
        out = np.minimum(out, polygon_signed_distance_m(poly, x_m) - radius_m)
    return out


@pytest.mark.parametrize("obstacles", [[], [np.array([[2.0, 2.0], [4.0, 2.0], [3.0, 4.0]]),
                                            np.array([[-3.0, -1.0], [-1.0, -1.0]])]])
def test_wall_clearances_over_the_step_match_the_whole_array_evaluation(obstacles):
    corridor = np.array([[-6.0, -4.0], [6.0, -4.0], [6.0, 4.0], [-6.0, 4.0]])
    layout = Layout(corridor_m=corridor, obstacles=obstacles)
    rng = np.random.default_rng(3)
    n = 3000
    points = rng.uniform(-7.0, 7.0, (3, n, 2))
    # bodies on a wall (zero margins) and NaN positions
    points[:, :40, 0] = 6.0
    points[1, 40:50] = np.nan
    points[2, 50:55, 1] = np.nan
    radius = rng.uniform(0.1, 0.5, n)
    radius[60:70] = 0.0
    edges = layout.edges(np.full(n, -1), np.full(n, -1), position_m=points[0], radius_m=radius,
                         horizon_m=np.full(n, 3.0))
    each = [_wall_clearance_by_arrays(layout, p, radius, edges) for p in points]
    for p, want in zip(points, each, strict=True):
        assert layout.wall_clearance_m(p, radius, edges).tobytes() == want.tobytes()
    # signed zeros in the start clearance: numpy's minimum keeps the later one of equal values
    start = each[0].copy()
    start[:20] = -0.0
    start[100:200] = -0.0
    start[200:300] = np.nan
    got = layout.step_wall_clearance_m(start, points[1:3], radius, edges, 0.1)
    assert got.tobytes() == np.minimum.reduce([start, each[1], each[2]]).tobytes()


def test_wall_clearances_over_the_step_read_moving_walls_where_they_stand():
    # riders of a turning, accelerating platform next to bodies on the ground: the middle and
    # end points are measured against the platform's walls at dt/2 and dt (each point mapped
    # back through the wall's rigid motion, B6), the fixed walls exactly as before
    corridor = np.array([[-6.0, -4.0], [6.0, -4.0], [6.0, 4.0], [-6.0, 4.0]])
    platform = SupportSpec.build(name="p", kind="platform",
                                 vertices_m=[[-1.0, -1.0], [1.5, -1.0], [1.5, 1.0], [-1.0, 1.0]],
                                 pivot_m=(0.2, 0.1), velocity_mps=(0.15, -0.1), omega_radps=0.4,
                                 acceleration_mps2=(0.3, 0.2))
    layout = Layout(corridor_m=corridor, supports=[platform])
    rng = np.random.default_rng(5)
    n, dt_s = 400, 0.1
    start = rng.uniform(-1.5, 1.8, (n, 2))
    mid_end = start[None] + rng.uniform(-0.2, 0.2, (2, n, 2))
    radius = rng.uniform(0.0, 0.3, n)
    support = layout.support_of(start)
    assert (support == 0).any() and (support == -1).any()
    edges = layout.edges(np.full(n, -1), support)
    start_clear = layout.wall_clearance_m(start, radius, edges)
    got = layout.step_wall_clearance_m(start_clear, mid_end, radius, edges, dt_s)
    m = edges.motion
    want = start_clear.copy()
    for p, t in enumerate((0.5 * dt_s, dt_s)):
        c_t = m.pivot_m + m.velocity_mps * t + 0.5 * m.acceleration_mps2 * t * t
        d = mid_end[p][:, None, :] - c_t
        cos, sin = np.cos(-m.omega_radps * t), np.sin(-m.omega_radps * t)
        local = m.pivot_m + np.stack([cos * d[..., 0] - sin * d[..., 1],
                                      sin * d[..., 0] + cos * d[..., 1]], axis=-1)
        margin = edges.offset_m - np.einsum("nkj,nkj->nk", edges.normal, local)
        want = np.minimum(want, np.where(edges.valid, margin, np.inf).min(axis=1))
    assert np.allclose(got, want, rtol=0.0, atol=1e-12)
    # the ground bodies' walls do not move: bit for bit the one-pass evaluation
    ground = support == -1
    fixed = layout.step_wall_clearance_m(start_clear, mid_end, radius, edges, 0.0)
    assert got[ground].tobytes() == fixed[ground].tobytes()
    # a rider's middle and end read the moved walls, not the walls at the start of the step
    riders = support == 0
    assert (got[riders] != fixed[riders]).any()
