"""Layout values are held to the profile's ranges, where the proofs hold: refused at
construction by key, value, range and profile, or, where they drift out during a run, labelled
on every step they are out (never safe)."""

import numpy as np
import pytest

from navproof import InvalidInput
from navproof.boundary import EDGE_OBSTACLE, EDGE_WALL
from navproof.scenario import ScenarioError, load_scenario
from navproof.step import FLAG_OUT_OF_RANGE, OUT_OF_RANGE, SAFE
from navproof.world import Layout, SupportSpec, World
from navproof.world.layout import OBSTACLE_EDGE_ID

CORRIDOR = np.array([[-8.0, -3.0], [8.0, -3.0], [8.0, 3.0], [-8.0, 3.0]])
SQUARE = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]


@pytest.mark.parametrize("layout, key, parameter", [
    (dict(patches=[("P", CORRIDOR, np.array([np.sqrt(99.0), 0.0]))]), "patches[0].gradient",
     "slope_factor"),
    (dict(supports=[SupportSpec.build("belt", "conveyor", [[-6.0, -1.0], [-1.0, -1.0],
                                                            [-1.0, 1.0], [-6.0, 1.0]],
                                      velocity_mps=(5.0, 0.0))]),
     "supports[0].velocity_mps", "support_speed_mps"),
    (dict(supports=[SupportSpec.build("disc", "platform", SQUARE, omega_radps=10.0)]),
     "supports[0].omega_radps", "support_speed_mps"),
    # 0.2 m/s at the pivot, 0.25 rad/s at 1.41 m from it: 0.55 m/s at the far side
    (dict(supports=[SupportSpec.build("disc", "platform", SQUARE, omega_radps=0.25,
                                      velocity_mps=(0.2, 0.0))]),
     "supports[0].omega_radps", "support_speed_mps"),
])
def test_layout_values_outside_the_proven_ranges_are_refused_at_construction(layout, key,
                                                                             parameter):
    with pytest.raises(InvalidInput) as exc:
        World(Layout(corridor_m=CORRIDOR, **layout))
    assert exc.value.field == key
    assert parameter in exc.value.rule and "profile 'default'" in exc.value.rule


def test_a_scenario_file_names_the_layout_key_of_a_slope_factor_out_of_range(tmp_path):
    path = tmp_path / "steep.toml"
    path.write_text("""
[corridor]
vertices = [[-8.0, -3.0], [8.0, -3.0], [8.0, 3.0], [-8.0, 3.0]]

[[patches]]
name = "P"
vertices = [[-8.0, -3.0], [8.0, -3.0], [8.0, 3.0], [-8.0, 3.0]]
gradient = [9.9498743710662, 0.0]

[[agents]]
position = [-7.0, 0.0]
goal = [6.0, 0.0]
""")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)
    assert "patches[0].gradient" in str(exc.value)
    assert "slope_factor" in str(exc.value)


def test_a_support_accelerating_out_of_the_range_labels_every_step_it_is_out():
    # 0.25 m/s plus 0.2 m/s^2: leaves the 0.3 m/s range after 0.25 s
    belt = SupportSpec.build("belt", "conveyor", [[-8.0, -3.0], [8.0, -3.0], [8.0, 3.0],
                                                   [-8.0, 3.0]],
                             velocity_mps=(0.25, 0.0), acceleration_mps2=(0.2, 0.0))
    world = World(Layout(supports=[belt]), assertions=True)  # no wall to brake for
    world.add_agents([[-4.0, 0.0]], [[[-4.0, 0.0]]], radius_m=0.4)
    labels_out = []
    for _ in range(20):
        speed_before = float(np.hypot(*world.layout.support_velocity_mps[0]))
        step = world.step()
        out = speed_before + 0.2 * world.dt_s > 0.3 + 1e-12
        assert bool(step.flags[0] & FLAG_OUT_OF_RANGE) == out
        if out:
            labels_out.append(int(step.label[0]))
    # out of range: never safe; the label names the range where the step was otherwise safe
    assert labels_out and SAFE not in labels_out
    assert OUT_OF_RANGE in labels_out


def test_only_the_bodies_on_a_support_out_of_the_range_are_flagged():
    # one belt accelerates out of the 0.3 m/s range, the other stays inside; ground between
    fast = SupportSpec.build("fast", "conveyor", [[-8.0, 1.0], [8.0, 1.0], [8.0, 3.0],
                                                   [-8.0, 3.0]],
                             velocity_mps=(0.25, 0.0), acceleration_mps2=(0.2, 0.0))
    slow = SupportSpec.build("slow", "conveyor", [[-8.0, -3.0], [8.0, -3.0], [8.0, -1.0],
                                                   [-8.0, -1.0]], velocity_mps=(-0.1, 0.0))
    world = World(Layout(supports=[fast, slow]))
    start = [[-4.0, 2.0], [-4.0, 0.0], [-4.0, -2.0], [4.0, 2.0]]
    world.add_agents(start, [[p] for p in start], radius_m=0.4)
    seen = set()
    for _ in range(12):
        speed_before = float(np.hypot(*world.layout.support_velocity_mps[0]))
        on_fast = world.layout.support_of(world.position_m) == 0
        step = world.step()
        out = on_fast & (speed_before + 0.2 * world.dt_s > 0.3 + 1e-12)
        assert ((step.flags & FLAG_OUT_OF_RANGE) != 0).tolist() == out.tolist()
        seen.add(bool(out.any()))
    assert seen == {False, True}


def test_the_supports_too_fast_are_found_again_only_when_their_inputs_change():
    import dataclasses

    fast = SupportSpec.build("fast", "conveyor", [[-8.0, 1.0], [8.0, 1.0], [8.0, 3.0],
                                                   [-8.0, 3.0]], velocity_mps=(0.25, 0.0))
    slow = SupportSpec.build("slow", "conveyor", [[-8.0, -3.0], [8.0, -3.0], [8.0, -1.0],
                                                   [-8.0, -1.0]], velocity_mps=(-0.1, 0.0))
    world = World(Layout(supports=[fast, slow]))

    def fresh():
        speed = world.layout.support_speed_range_mps(world.dt_s)
        hi = min(float(world.profile["support_speed_mps"].max),
                 float(world.profile["edge_speed_mps"].max))
        return np.append(speed > hi * (1.0 + 1e-12), False)

    assert world._supports_too_fast() is None and not fresh().any()
    first = world._too_fast
    assert world._supports_too_fast() is None and world._too_fast is first
    # the first support's state leaves the range: found, then reused
    world.layout.support_velocity_mps[0] = (0.31, 0.0)
    found = world._supports_too_fast()
    assert found is not None and found.tolist() == fresh().tolist() == [True, False, False]
    assert not found.flags.writeable and world._supports_too_fast() is found
    # another step length, another profile with a wider range: found again
    world.dt_s = 0.05
    again = world._supports_too_fast()
    assert again is not found and again.tolist() == fresh().tolist()
    wider = {name: dataclasses.replace(world.profile[name], max=world.profile[name].max * 2)
             for name in ("support_speed_mps", "edge_speed_mps")}
    world.profile = dataclasses.replace(world.profile,
                                        parameters={**world.profile.parameters, **wider})
    assert world._supports_too_fast() is None and not fresh().any()


def test_a_step_inside_every_range_is_not_flagged():
    world = World(Layout(corridor_m=CORRIDOR))
    world.add_agents([[-4.0, 0.0]], [[[4.0, 0.0]]], radius_m=0.4)
    for _ in range(5):
        step = world.step()
        assert not step.flags[0] & FLAG_OUT_OF_RANGE
        assert step.label[0] == SAFE


def test_support_motion_gathers_each_support_like_the_whole_array_evaluation():
    belt = SupportSpec.build("belt", "conveyor", [[0.0, 0.0], [4.0, 0.0], [4.0, 2.0], [0.0, 2.0]],
                             velocity_mps=(0.3, -0.1), acceleration_mps2=(0.2, 0.0))
    disc = SupportSpec.build("disc", "platform", [[5.0, 0.0], [7.0, 0.0], [7.0, 2.0], [5.0, 2.0]],
                             velocity_mps=(0.1, 0.2), pivot_m=(6.0, 1.0), omega_radps=-0.4)
    layout = Layout(supports=[belt, disc])
    layout.advance(0.1)
    layout.support_version[1] = 3
    rng = np.random.default_rng(5)
    index = rng.integers(-1, 2, 500)
    motion = layout.support_motion(index).motion
    on = index >= 0
    idx = index[on]
    table_pivot = np.array([layout.support_pivot_m(s) for s in range(2)])
    want_pivot, want_vel, want_acc = np.zeros((500, 2)), np.zeros((500, 2)), np.zeros((500, 2))
    want_omega, want_version = np.zeros(500), np.zeros(500, np.int64)
    want_pivot[on], want_vel[on] = table_pivot[idx], layout.support_velocity_mps[idx]
    want_acc[on] = np.array([s.acceleration_mps2 for s in layout.supports])[idx]
    want_omega[on] = np.array([s.omega_radps for s in layout.supports])[idx]
    want_version[on] = layout.support_version[idx] + 1000 * (idx + 1)
    for got, want in ((motion.pivot_m, want_pivot), (motion.velocity_mps, want_vel),
                      (motion.acceleration_mps2, want_acc), (motion.omega_radps, want_omega),
                      (motion.version, want_version)):
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert Layout().support_motion(np.full(3, -1)).motion.pivot_m.tolist() == [[0.0, 0.0]] * 3


def test_support_and_carry_is_support_motion_and_its_carry_to_the_bit():
    belt = SupportSpec.build("belt", "conveyor", [[0.0, 0.0], [4.0, 0.0], [4.0, 2.0], [0.0, 2.0]],
                             velocity_mps=(0.3, -0.1), acceleration_mps2=(0.2, 0.0))
    disc = SupportSpec.build("disc", "platform", [[5.0, 0.0], [7.0, 0.0], [7.0, 2.0], [5.0, 2.0]],
                             velocity_mps=(0.1, 0.2), pivot_m=(6.0, 1.0), omega_radps=-0.4)
    layout = Layout(supports=[belt, disc])
    layout.advance(0.1)
    rng = np.random.default_rng(11)
    special = np.array([0.0, -0.0, 5e-324, -1e-310, 1e300, -1e300, np.inf, -np.inf, np.nan, 6.0,
                        1.0])
    for n in (0, 1, 7, 600):
        index = rng.integers(-1, 2, n)
        x = rng.uniform(-10.0, 10.0, (n, 2))
        hit = rng.random((n, 2)) < 0.2
        x[hit] = rng.choice(special, hit.sum())
        support, carry = layout.support_and_carry(index, x)
        want_support = layout.support_motion(index)
        want = want_support.carry_mps(x)
        assert carry.dtype == want.dtype and carry.shape == want.shape
        # the same bits wherever numpy's carry is a number (a NaN's sign may differ: a body's
        # position is finite)
        number = ~np.isnan(want)
        assert np.array_equal(np.isnan(carry), ~number)
        assert carry[number].tobytes() == want[number].tobytes()
        finite = np.isfinite(x).all(axis=1)
        assert carry[finite].tobytes() == want[finite].tobytes()
        for name in ("pivot_m", "velocity_mps", "acceleration_mps2", "omega_radps", "version"):
            got_a, want_a = getattr(support.motion, name), getattr(want_support.motion, name)
            assert got_a.dtype == want_a.dtype and got_a.tobytes() == want_a.tobytes()
        # a position array in another layout is read as numpy reads it
        fortran = np.asfortranarray(x)
        assert layout.support_and_carry(index, fortran)[1].tobytes() == carry.tobytes()


def test_support_motion_reuses_its_tables_until_a_pivot_moves():
    belt = SupportSpec.build("belt", "conveyor", [[0.0, 0.0], [4.0, 0.0], [4.0, 2.0], [0.0, 2.0]],
                             velocity_mps=(0.3, -0.1), acceleration_mps2=(0.2, 0.0))
    cart = SupportSpec.build("cart", "platform", [[5.0, 0.0], [7.0, 0.0], [7.0, 2.0], [5.0, 2.0]],
                             velocity_mps=(0.1, 0.2), pivot_m=(6.0, 1.0),
                             acceleration_mps2=(0.0, 0.5))
    index = np.array([-1, 0, 1, 1, 0])

    def fresh(layout):
        # the tables built anew for this call
        layout._motion_table_key = None
        return layout.support_motion(index).motion

    for supports, moves in (([belt], False), ([belt, cart], True)):
        layout = Layout(supports=supports)
        index = np.minimum(index, len(supports) - 1)
        for _ in range(3):
            first = layout._motion_table()
            got = layout.support_motion(index).motion
            assert layout._motion_table() is first
            want = fresh(layout)
            for a, b in ((got.pivot_m, want.pivot_m), (got.velocity_mps, want.velocity_mps),
                         (got.acceleration_mps2, want.acceleration_mps2),
                         (got.omega_radps, want.omega_radps), (got.version, want.version)):
                assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
            kept = layout._motion_table()
            assert not any(table.flags.writeable for table in kept)
            layout.advance(0.1)
            # a platform's pivot moves: its tables are built again
            assert (layout._motion_table() is not kept) == moves
    # other supports: other tables
    layout.supports = [cart]
    assert layout._motion_table()[0].tolist() == [[6.0, 1.0]]


def test_the_carry_speed_range_per_support_is_the_supports_own_when_nothing_turns():
    rng = np.random.default_rng(9)
    belts = [SupportSpec.build(f"belt{k}", "conveyor",
                               [[4.0 * k, 0.0], [4.0 * k + 3.0, 0.0], [4.0 * k + 3.0, 2.0],
                                [4.0 * k, 2.0]], velocity_mps=velocity, acceleration_mps2=accel)
             for k, (velocity, accel) in enumerate([((0.3, -0.1), (0.2, 0.0)),
                                                    ((0.0, 0.0), (0.0, 0.0)),
                                                    ((-0.0, 0.2), (0.0, -4.0)),
                                                    ((0.25, 0.0), (-2.5, 0.0))])]
    still = SupportSpec.build("still", "platform", SQUARE, velocity_mps=(0.1, 0.0))
    for layout in (Layout(supports=belts), Layout(supports=belts + [still]),
                   Layout(supports=[belts[1], still]), Layout()):
        count = len(layout.supports)
        index = rng.integers(-1, count, 400) if count else np.full(400, -1)
        position = rng.uniform(-10.0, 20.0, (400, 2))
        # the same step again, another step, and the supports' next velocities
        for dt in (0.1, 0.1, 0.05, 1 / 30, 0.2, 0.2, 0.2):
            layout.advance(dt)
            got = layout.carry_speed_range_mps(index, dt)
            want = layout.support_motion(index).carry_speed_range_mps(position, dt)
            assert got is not None and got.tobytes() == want.tobytes()
    turning = SupportSpec.build("disc", "platform", SQUARE, omega_radps=0.2)
    assert Layout(supports=[turning]).carry_speed_range_mps(np.zeros(3, np.int64), 0.1) is None


def test_edges_validity_ids_and_kinds_match_the_whole_array_evaluation():
    corridor = np.array([[-20.0, -20.0], [40.0, -20.0], [40.0, 20.0], [-20.0, 20.0]])
    belt = SupportSpec.build("belt", "conveyor", [[0.0, 0.0], [4.0, 0.0], [4.0, 2.0], [0.0, 2.0]],
                             velocity_mps=(0.3, 0.0))
    disc = SupportSpec.build("disc", "platform", [[5.0, 0.0], [7.0, 0.0], [7.0, 2.0], [5.0, 2.0]],
                             pivot_m=(6.0, 1.0), omega_radps=-0.4)
    square = np.array([[10.0, 10.0], [12.0, 10.0], [12.0, 12.0], [10.0, 12.0]])
    rng = np.random.default_rng(9)
    n = 400
    position = rng.uniform(-5.0, 15.0, (n, 2))
    radius = np.full(n, 0.3)
    for layout, horizon in ((Layout(corridor_m=corridor, supports=[belt, disc]), None),
                            (Layout(corridor_m=corridor, supports=[belt]), None),
                            (Layout(corridor_m=corridor, obstacles=[square]), 4.0)):
        support = rng.integers(-1, len(layout.supports), n) if layout.supports \
            else np.full(n, -1)
        walls = {} if horizon is None else dict(position_m=position, radius_m=radius,
                                                horizon_m=np.full(n, horizon))
        edges = layout.edges(np.full(n, -1), support, platform_lookahead_s=0.5, **walls)
        platforms = [s for s, spec in enumerate(layout.supports) if spec.kind == "platform"]
        carried = np.isin(support, platforms)
        inside = np.append(layout.platforms_inside(0.5), False)
        sheltered = carried & inside[support]
        kc = layout.corridor_normal.shape[0]
        want_v = np.broadcast_to(~sheltered[:, None], (n, kc))
        want_id = np.broadcast_to(np.arange(kc), (n, kc))
        assert edges.valid[:, :kc].tobytes() == np.ascontiguousarray(want_v).tobytes()
        assert edges.edge_id[:, :kc].tobytes() == np.ascontiguousarray(want_id).tobytes()
        want_kind = np.where(edges.edge_id >= OBSTACLE_EDGE_ID, EDGE_OBSTACLE, EDGE_WALL)
        assert edges.kind is not None
        assert edges.kind.dtype == want_kind.dtype
        assert edges.kind.tobytes() == want_kind.tobytes()
        assert edges.motion.acceleration_mps2.tobytes() == np.zeros((n, edges.valid.shape[1],
                                                                     2)).tobytes()
    assert (edges.kind == EDGE_OBSTACLE).any()


def test_edges_that_depend_on_the_patches_alone_are_the_last_answer_read_only():
    corridor = np.array([[-20.0, -20.0], [40.0, -20.0], [40.0, 20.0], [-20.0, 20.0]])
    belt = SupportSpec.build("belt", "conveyor", [[0.0, 0.0], [4.0, 0.0], [4.0, 2.0], [0.0, 2.0]],
                             velocity_mps=(0.3, 0.0))
    patches = [("A", np.array([[-20.0, -20.0], [10.0, -20.0], [10.0, 20.0], [-20.0, 20.0]]),
                np.zeros(2)),
               ("B", np.array([[10.0, -20.0], [40.0, -20.0], [40.0, 20.0], [10.0, 20.0]]),
                np.array([0.1, 0.0]))]

    def arrays(edges):
        m = edges.motion
        return [edges.normal, edges.offset_m, edges.valid, edges.edge_id, edges.owner,
                edges.kind, m.pivot_m, m.velocity_mps, m.omega_radps, m.version,
                m.acceleration_mps2]

    rng = np.random.default_rng(4)
    patch = rng.integers(-1, 2, 300)
    support = rng.integers(-1, 1, 300)
    layout = Layout(corridor_m=corridor, patches=patches, supports=[belt])
    first = layout.edges(patch, support)
    again = layout.edges(patch.copy(), support)
    assert again is first
    fresh = Layout(corridor_m=corridor, patches=patches, supports=[belt])._built_edges(
        patch, support, [], position_m=None, radius_m=None, horizon_m=None,
        platform_lookahead_s=None)
    for got, want in zip(arrays(first), arrays(fresh), strict=True):
        assert not got.flags.writeable
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    # another patch of one body: built anew
    patch[7] = -1 if patch[7] >= 0 else 0
    moved = layout.edges(patch, support)
    assert moved is not first and moved.valid[7].tolist() != first.valid[7].tolist()
    # obstacle walls depend on the positions: never reused
    square = np.array([[10.0, 10.0], [12.0, 10.0], [12.0, 12.0], [10.0, 12.0]])
    walled = Layout(corridor_m=corridor, obstacles=[square])
    walls = dict(position_m=rng.uniform(0.0, 15.0, (300, 2)), radius_m=np.full(300, 0.3),
                 horizon_m=np.full(300, 4.0))
    one = walled.edges(np.full(300, -1), np.full(300, -1), **walls)
    assert walled.edges(np.full(300, -1), np.full(300, -1), **walls) is not one
    assert one.normal.flags.writeable


def test_support_speed_range_pass_gives_the_numpy_expression_bit_for_bit():
    from navproof.world.layout import _support_speed_range

    def numpy_range(w, alpha, dt, vertices, pivot, omega):
        speed = max(float(np.hypot(*w)), float(np.hypot(*(w + alpha * dt))))
        return speed + abs(omega) * float(np.max(np.hypot(*(vertices - pivot).T)))

    rng = np.random.default_rng(9)
    special = np.array([0.0, -0.0, 1e-310, -1e300, 3.0, np.nan])
    for trial in range(3000):
        w, alpha, pivot = (rng.normal(0.0, 10.0 ** rng.integers(-3, 4), 2) for _ in range(3))
        vertices = rng.normal(0.0, 10.0 ** rng.integers(-2, 3), (rng.integers(1, 7), 2))
        if trial % 5 == 0:
            for arr in (w, alpha, pivot, vertices.reshape(-1)):
                arr[rng.integers(arr.size)] = rng.choice(special)
        dt, omega = float(rng.choice([0.1, 0.05, 0.0, 1e-9])), float(rng.normal())
        got = _support_speed_range(w, alpha, dt, vertices, pivot, omega)
        want = numpy_range(w, alpha, dt, vertices, pivot, omega)
        assert np.float64(got).tobytes() == np.float64(want).tobytes() or (
            np.isnan(got) and np.isnan(want))
