"""Boundary half-planes and whole-step curve margins (claims B1-B6), with seed 000's numbers."""

import numpy as np
import pytest

from navproof import boundary as b
from navproof._generated import formulas
from navproof.boundary.step_length import per_agent
from navproof.core.errors import InvalidInput
from navproof.core.tolerances import UNIT_LENGTH_TOL
from navproof.core.validation import check_valid_step

DT = 0.1


def wall(offset=0.0, normal=(1.0, 0.0), velocity=(0.0, 0.0)):
    return b.EdgeSet.build(np.array([[normal]]), np.array([[offset]]),
                           edge_velocity_mps=np.array([[velocity]]))


def one(x):
    return np.array([x], dtype=float)


def test_b3_fixed_edge_subtracts_support_carry():
    edges, x0 = wall(), one([-0.05, 0.0])
    s = edges.initial_margin_m(x0)
    assert s[0, 0] == pytest.approx(0.05)
    # fixed edge, u = (1, 0): v_x <= -0.5
    assert b.step_halfplane_offset_mps(s, DT, 0.0, 1.0)[0, 0] == pytest.approx(-0.5)
    support = b.Support.translating(one([1.0, 0.0]))
    zero = one([0.0, 0.0])
    # v = 0 ends at X = 0.05 (outside), v_x = -0.6 ends at X = -0.01
    assert b.end_margin_m(edges, support, x0, zero, zero, DT)[0, 0] == pytest.approx(-0.05)
    v = one([-0.6, 0.0])
    assert b.end_margin_m(edges, support, x0, v, v, DT)[0, 0] == pytest.approx(0.01)
    assert b.curve_min_margin_m(edges, support, x0, v, v, DT)[0, 0] == pytest.approx(0.01)


def test_b3_co_moving_edge_keeps_margin_and_mixes_with_fixed():
    support = b.Support.translating(one([1.0, 0.0]))
    x0, zero = one([-0.05, 0.0]), one([0.0, 0.0])
    co = wall(velocity=(1.0, 0.0))
    assert b.step_halfplane_offset_mps(co.initial_margin_m(x0), DT, 1.0, 1.0)[0, 0] == \
        pytest.approx(0.5)
    assert b.end_margin_m(co, support, x0, zero, zero, DT)[0, 0] == pytest.approx(0.05)
    # one intersection: a fixed right wall and a co-moving top edge, each with its own e
    mixed = b.EdgeSet.build(np.array([[[1.0, 0.0], [0.0, 1.0]]]), np.array([[0.0, 1.0]]),
                            edge_velocity_mps=np.array([[[0.0, 0.0], [1.0, 0.0]]]))
    e = mixed.edge_velocity_mps(x0)
    n_dot_e = np.einsum("nkj,nkj->nk", mixed.normal, e)
    off = b.step_halfplane_offset_mps(mixed.initial_margin_m(x0), DT, n_dot_e,
                                      np.einsum("nkj,nj->nk", mixed.normal, one([1.0, 0.0])))
    assert off[0].tolist() == pytest.approx([-0.5, 10.0])


def test_b5_endpoint_counterexample_and_required_braking():
    edges, x0 = wall(), one([-0.05, 0.0])
    support = b.Support.translating(one([1.0, 0.0]))
    v0, v1 = one([0.0, 0.0]), one([-0.6, 0.0])
    # accelerating from 0 to -0.6 ends at X = 0.02
    assert b.end_margin_m(edges, support, x0, v0, v1, DT)[0, 0] == pytest.approx(-0.02)
    bound = b.accel_halfplane_offset_mps(edges.initial_margin_m(x0), DT, 0.0, 1.0, 0.0)
    assert bound[0, 0] == pytest.approx(-1.0)
    assert abs(bound[0, 0] - 0.0) / DT == pytest.approx(10.0)   # 10 m/s^2 at least


def test_b5_endpoints_alone_do_not_cover_the_step():
    # endpoints inside, interior extremum outside: the curve dips out and comes back
    edges, x0 = wall(), one([-0.01, 0.0])
    support = b.Support.translating(one([1.0, 0.0]))
    v0, v1 = one([0.0, 0.0]), one([-3.0, 0.0])
    assert edges.initial_margin_m(x0)[0, 0] >= 0.0
    assert b.end_margin_m(edges, support, x0, v0, v1, DT)[0, 0] > 0.0
    margin, t_min = b.translating_curve_margins_from_state(edges, support, x0, v0, v1, DT)
    assert margin[0, 0] == pytest.approx(0.01 - 1.0 / 30.0 + 15.0 / 900.0)
    assert t_min[0, 0] == pytest.approx(1.0 / 30.0)
    assert b.curve_min_margin_m(edges, support, x0, v0, v1, DT)[0, 0] < 0.0
    # the B5 cutting plane at t* is a half-plane in v1 that removes this candidate
    q = b.accel_margin_at_time_offset_mps(np.array([[0.01]]), np.array([[1.0 / 30.0]]), DT,
                                          0.0, 1.0, 0.0)
    assert -3.0 > q[0, 0]


def test_b5_extremum_guard_when_v1_equals_v0():
    t = b.accel_extremum_time_s(DT, np.array([0.0]), np.array([1.0]), np.array([0.5]),
                                np.array([0.5]))
    assert np.isnan(t[0])


def test_b6_body_at_rest_on_rotating_platform_keeps_constant_margin():
    motion = b.Motion.rotating(np.array([[[0.0, 0.0], [0.0, 0.0]]]), np.array([[1.5, 1.5]]))
    edges = b.EdgeSet.build(np.array([[[1.0, 0.0], [0.0, -1.0]]]), np.array([[1.0, 2.0]]),
                            motion=motion)
    support = b.Support(b.Motion.rotating(np.array([[0.0, 0.0]]), np.array([1.5])))
    x0, zero = one([0.5, 0.2]), one([0.0, 0.0])
    f = b.local_frame_excess_m(edges, support, x0, zero, zero, DT, np.linspace(0.0, DT, 7))
    assert np.ptp(f, axis=0).max() == 0.0
    assert b.curve_min_margin_m(edges, support, x0, zero, zero, DT)[0].tolist() == \
        pytest.approx([0.5, 2.2])


def test_b6_certified_bound_is_below_the_true_minimum():
    rng = np.random.default_rng(3)
    n = 200
    ang = rng.uniform(0, 2 * np.pi, (n, 1))
    normal = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    edges = b.EdgeSet.build(normal, rng.uniform(0.5, 2.0, (n, 1)),
                            motion=b.Motion.rotating(rng.normal(size=(n, 1, 2)),
                                                     rng.uniform(-3, 3, (n, 1)),
                                                     velocity_mps=rng.normal(size=(n, 1, 2))))
    support = b.Support(b.Motion.rotating(rng.normal(size=(n, 2)), rng.uniform(-3, 3, n),
                                          velocity_mps=rng.normal(size=(n, 2))))
    x0, v0, v1 = rng.normal(size=(n, 2)), rng.normal(size=(n, 2)), rng.normal(size=(n, 2))
    bound = b.curve_min_margin_m(edges, support, x0, v0, v1, DT)
    dense = -b.local_frame_excess_m(edges, support, x0, v0, v1, DT,
                                    np.linspace(0.0, DT, 4001)).max(axis=0)
    assert np.all(bound <= dense + 1e-12)
    assert np.all(dense - bound < 0.05)


def test_translating_margin_matches_generated_formula():
    m = b.translating_curve_margins_m(np.array([0.3]), DT, np.array([0.2]), np.array([0.1]),
                                      np.array([1.0]), np.array([4.0]))[0]
    ts = np.linspace(0, DT, 10001)
    dense = formulas.accel_margin(s=0.3, t=ts, dt=DT, n_dot_e=0.2, n_dot_u=0.1, n_dot_v0=1.0,
                                  n_dot_v1=4.0).min()
    assert m[0] == pytest.approx(dense, abs=1e-12)


@pytest.mark.parametrize("normal, field", [((0.0, 0.0), "normal"), ((1.0, 1.0), "normal"),
                                           ((np.nan, 0.0), "normal")])
def test_bad_normals_are_refused(normal, field):
    with pytest.raises(InvalidInput) as err:
        b.EdgeSet.build(np.array([[normal]]), np.array([[0.0]]))
    assert err.value.field.startswith(field)


def test_bad_offsets_steps_and_pieces_are_refused():
    with pytest.raises(InvalidInput, match="offset_m"):
        b.EdgeSet.build(np.array([[[1.0, 0.0]]]), np.array([[np.nan]]))
    with pytest.raises(InvalidInput, match="dt_s"):
        check_valid_step(0.0)
    with pytest.raises(InvalidInput, match="dt_s"):
        check_valid_step(-0.1)
    with pytest.raises(InvalidInput, match="convex"):
        b.make_patch(1, np.array([[0, 0], [2, 0], [1, 0.2], [2, 2], [0, 2]]), np.zeros(2))
    with pytest.raises(InvalidInput, match="convex"):
        b.make_patch(1, np.array([[0, 0], [0, 1], [1, 0]]), np.zeros(2))  # clockwise


def test_edge_set_keeps_valid_edges_and_names_the_first_bad_one_among_many():
    """The compiled pass keeps what the exact tests accept: a normal off unit length by more
    than half the tolerance but within it is kept, an invalid slot may hold anything (zeroed),
    and the first bad valid edge of a large set is the one the error names."""
    n, k = 300, 3
    normal = np.tile(np.array([1.0, 0.0]), (n, k, 1))
    offset = np.ones((n, k))
    valid = np.ones((n, k), bool)
    normal[5, 1] = [1.0 + 0.75 * UNIT_LENGTH_TOL, 0.0]
    normal[7, 2], offset[7, 2], valid[7, 2] = [np.nan, np.inf], np.nan, False
    edges = b.EdgeSet.build(normal, offset, valid=valid)
    assert edges.normal[5, 1, 0] == 1.0 + 0.75 * UNIT_LENGTH_TOL
    assert np.all(edges.normal[7, 2] == 0.0) and edges.offset_m[7, 2] == 0.0
    assert np.array_equal(edges.offset_m[valid], offset[valid])
    offset[200, 0], normal[250, 1] = np.inf, [0.6, 0.6]
    with pytest.raises(InvalidInput) as err:
        b.EdgeSet.build(normal, offset, valid=valid)
    assert err.value.field == "normal[250, 1]"
    normal[250, 1] = [0.6, 0.8]
    with pytest.raises(InvalidInput) as err:
        b.EdgeSet.build(normal, offset, valid=valid)
    assert err.value.field == "offset_m[200, 0]"


def test_patch_halfplanes_and_slope_factor():
    q = b.make_patch(7, np.array([[0, 0], [1, 0], [1, 1], [0, 1]]), np.array([np.sqrt(3), 0.0]))
    assert q.slope_factor == pytest.approx(2.0)
    normal, offset = q.halfplanes()
    assert np.allclose(normal, [[0, -1], [1, 0], [0, 1], [-1, 0]])
    assert offset.tolist() == pytest.approx([0, 1, 1, 0])


@pytest.mark.parametrize("dt", [0.1, np.float32(0.1), np.array(1 / 30), np.array([0.05]),
                                np.array([0.1, 0.2, 0.3]), [0.1, 0.2, 0.3], -0.0, np.nan])
def test_per_agent_step_is_numpys_broadcast_copy(dt):
    got = per_agent(dt, 3)
    want = np.broadcast_to(np.asarray(dt, dtype=np.float64), (3,)).copy()
    assert got.dtype == np.float64 and got.flags.c_contiguous and got.flags.writeable
    assert got.tobytes() == want.tobytes()
    source = np.array([0.1, 0.2, 0.3])
    assert per_agent(source, 3) is not source
    with pytest.raises(ValueError):
        per_agent(np.ones(2), 3)
