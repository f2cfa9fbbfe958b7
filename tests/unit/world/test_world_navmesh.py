"""The World on a navigation mesh: routes per radius, set_goal replans, C4 in assertion mode.
Claim: C3, C4, C5."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navproof.core.errors import ObligationViolation
from navproof.navmesh import MeshCache, NoRoute, PlanPatch, walkable_area
from navproof.world import World
from navproof.world.layout import Layout
from navproof.world.mesh_region import MeshNavigation, corridor_regions

L_SHAPE = [[0.0, 0.0], [12.0, 0.0], [12.0, 10.0], [10.0, 10.0], [10.0, 2.0], [0.0, 2.0]]


def _world(**kw):
    area = walkable_area(L_SHAPE, [])
    nav = MeshNavigation(MeshCache([PlanPatch("floor", area, np.zeros(2), 0.0)]))
    return World(Layout(), navigation=nav, **kw), nav


def test_each_radius_routes_on_its_own_mesh():
    world, nav = _world(assertions=False)
    world.add_agents(np.array([[1.0, 1.0], [1.0, 1.0]]), [[[11.0, 9.0]], [[11.0, 9.0]]],
                     radius_m=np.array([0.3, 0.6]))
    a, b = nav.agents
    assert a.radius_m == 0.3 and b.radius_m == 0.6
    assert nav.mesh(0.3) is not nav.mesh(0.6)
    # each route keeps its own radius from the inner wall corner (10, 2)
    for plan in (a, b):
        d = np.hypot(*(plan.route.corners_m - [10.0, 2.0]).T)
        assert d.min() >= plan.radius_m - 1e-9
    assert np.hypot(*(b.route.corners_m - [10.0, 2.0]).T).min() >= 0.6 - 1e-9
    assert not np.allclose(a.route.length_m, b.route.length_m)
    assert world.route_count.tolist() == [a.route.corners_m.shape[0] - 1,
                                          b.route.corners_m.shape[0] - 1]


def test_no_route_adds_nothing():
    world, _ = _world(assertions=False)
    with pytest.raises(NoRoute, match="agent 0"):
        world.add_agents(np.array([[1.0, 1.0]]), [[[20.0, 9.0]]], radius_m=0.3)
    assert world.count == 0


def test_regions_are_convex_and_end_with_the_goal_region():
    world, nav = _world(assertions=False)
    world.add_agents(np.array([[1.0, 1.0]]), [[[11.0, 9.0]]], radius_m=0.3)
    plan = nav.agents[0]
    regions = corridor_regions(nav.mesh(0.3), plan.route.corridor)
    assert regions[0].start == 0 and regions[-1].stop == plan.route.corridor.size
    assert regions[-1].portal == -1
    for r in regions[:-1]:
        assert r.portal >= 0
    for r in regions:
        v = r.vertices_m
        d = np.roll(v, -1, axis=0) - v
        assert np.all(d[:, 0] * np.roll(d, -1, axis=0)[:, 1]
                      - d[:, 1] * np.roll(d, -1, axis=0)[:, 0] > 0.0)


def test_set_goal_replans_and_the_agent_arrives():
    world, nav = _world(assertions=True)
    world.add_agents(np.array([[1.0, 1.0]]), [[[11.0, 9.0]]], radius_m=0.3)
    for _ in range(30):
        world.step()
    world.set_goal(0, [2.0, 1.0])
    assert nav.replans == 1
    assert np.allclose(world.route_m[0, world.route_count[0] - 1], [2.0, 1.0])
    for _ in range(300):
        world.step()
        if world.arrived.all():
            break
    assert world.arrived.all()
    assert nav.mesh(0.3).locate(world.position_m)[0] >= 0


def test_c4_names_a_position_off_the_mesh():
    world, nav = _world(assertions=True)
    world.add_agents(np.array([[1.0, 1.0]]), [[[11.0, 9.0]]], radius_m=0.3)
    with pytest.raises(ObligationViolation, match=r"\[C4\].*left the eroded mesh"):
        nav.check_c4(np.array([[1.0, 0.2]]), np.zeros(1), np.zeros(0, np.int64))
    with pytest.raises(ObligationViolation, match=r"\[C4\].*crossed a wall edge"):
        nav.check_c4(np.array([[1.0, 1.0]]), np.array([-0.01]), np.zeros(0, np.int64))


MAZE = [[-2.0, -6.0], [12.0, -6.0], [12.0, 6.0], [-2.0, 6.0]]
MAZE_HOLES = [
    [[2.0, -6.0], [2.5, -6.0], [2.5, 3.0], [2.0, 3.0]],
    [[5.0, -3.0], [5.5, -3.0], [5.5, 6.0], [5.0, 6.0]],
    [[3.0, 4.0], [4.0, 4.5], [3.2, 5.0]],
    [[8.0, -6.0], [8.5, -6.0], [8.5, 3.0], [8.0, 3.0]],
]


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_c4_holds_on_random_routes_through_a_maze(seed):
    rng = np.random.default_rng(seed)
    area = walkable_area(MAZE, MAZE_HOLES)
    nav = MeshNavigation(MeshCache([PlanPatch("floor", area, np.zeros(2), 0.0)]))
    world = World(Layout(), navigation=nav, assertions=True)
    mesh = nav.mesh(0.3)
    pts = []
    while len(pts) < 4:
        x = rng.uniform([-2.0, -6.0], [12.0, 6.0])
        if mesh.locate(x[None])[0] >= 0:
            pts.append(x)
    world.add_agents(np.array(pts[:2]), [[pts[2]], [pts[3]]], radius_m=0.3)
    for _ in range(150):
        world.step()  # assertion mode raises ObligationViolation("C4", ...) on any breach
    assert np.all(mesh.locate(world.position_m) >= 0)


ROOMS_CROWD = """
[agent_defaults]
radius_m = 0.2
max_speed_mps = 1.5
max_accel_mps2 = 20.0
[navmesh]
walkable = [[0.0, 0.0], [14.0, 0.0], [14.0, 8.0], [0.0, 8.0]]
holes = [[[6.8, 0.0], [7.2, 0.0], [7.2, 3.2], [6.8, 3.2]],
         [[6.8, 4.8], [7.2, 4.8], [7.2, 8.0], [6.8, 8.0]]]
""" + "".join(f"[[agents]]\nposition = {list(p)}\ngoal = {list(g)}\n" for p, g in (
    ((2.7197309992884753, 4.7274402701733615), (11.254321824648324, 0.9587020146786918)),
    ((7.579007949329245, 6.36228357467522), (2.0561240859680456, 2.1403167273268746)),
    ((6.473869013062776, 3.7918445526571354), (12.518768707646332, 3.834472460895345)),
    ((11.33440884326497, 1.5543149681646675), (4.309163949711131, 6.576317150003077)),
    ((3.639087262299808, 5.688762993410432), (11.528468852217555, 0.9482200675889811)),
    ((12.049381477720903, 4.6376970805192235), (2.3076059570942737, 0.71708226028825)),
    ((5.693163421873674, 3.809243620658268), (11.81294354439482, 6.651689601788372)),
    ((11.784776901667215, 6.947690673087122), (2.8697804240044635, 6.106361396896598)),
    ((3.167726336304564, 7.049107051931648), (12.77319996202825, 1.1821801681161404)),
    ((8.315813161204014, 2.0189085886319615), (6.292880833389217, 3.553133066392005)),
    ((4.259889745200824, 2.6071833889785374), (10.543457902974357, 3.201063811914318))))
"""Eleven bodies swapping two rooms through a door at 20 m/s^2 (found by a random probe)."""


def test_pairs_with_a_body_split_at_its_portal_are_measured_on_its_two_ramps(tmp_path):
    # at step 126 agent 0 was labelled safe while it overlapped a body that crossed the
    # door's portal by 1.5 um (W1): the World measured the split body through the quadratic
    # of its start, middle and end points, up to 1.1 mm away from its two ramps
    from navproof.scenario import load_world_scenario
    from navproof.step import SAFE
    from navproof.world.independent_check import check_world_step

    path = tmp_path / "rooms.toml"
    path.write_text(ROOMS_CROWD)
    world = load_world_scenario(path, assertions=False).world
    with world:
        for k in range(130):
            step = world.step()
            truth = check_world_step(world, step)
            assert not truth.lying.any(), (k, truth.claim[truth.lying], truth.margin[truth.lying])
            # the World's clearance of a safe body is the check's wherever that is close
            near = (step.label == SAFE) & (truth.agent_clearance_m < 0.01)
            assert np.all(step.agent_clearance_m[near]
                          <= truth.agent_clearance_m[near] + 1e-9)
