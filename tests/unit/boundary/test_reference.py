"""Reference velocity r and stop target vStop (claims R1-R3), with seed 000's numbers."""

import numpy as np
import pytest

from navproof import boundary as b
from navproof.boundary import reference as ref

RIGHT_AND_TOP = np.array([[[1.0, 0.0], [0.0, 1.0]]])


def edges_with(velocities, ids=(0, 1)):
    return b.EdgeSet.build(RIGHT_AND_TOP, np.array([[0.0, 1.0]]),
                           edge_velocity_mps=np.array([velocities], dtype=float),
                           edge_id=np.array([ids]))


def test_all_fixed_edges_give_world_rest_and_r2_unreachable_carry():
    support = b.Support.translating(np.array([[1.0, 0.0]]))
    res = ref.reference_velocity(edges_with([[0, 0], [0, 0]]), support,
                                 np.array([[-0.05, 0.0]]), np.array([0.8]))
    assert res.r_mps[0].tolist() == pytest.approx([0.0, 0.0])
    # carry 1 m/s against a relative cap of 0.8 m/s: vStop = (-1, 0) is unreachable
    assert res.v_stop_mps[0].tolist() == pytest.approx([-1.0, 0.0])
    assert res.exists[0] and not res.reachable[0]
    assert res.stop_margin_mps[0] == pytest.approx(-0.2)
    assert ref.CARRY_EXCEEDS_CANCEL == "support carry exceeds cancel capacity"


def test_all_co_moving_edges_give_r_equal_u_and_zero_stop_target():
    support = b.Support.translating(np.array([[1.0, 0.0]]))
    res = ref.reference_velocity(edges_with([[1, 0], [1, 0]]), support,
                                 np.array([[-0.05, 0.0]]), np.array([0.8]))
    assert res.r_mps[0].tolist() == pytest.approx([1.0, 0.0])
    assert res.v_stop_mps[0].tolist() == pytest.approx([0.0, 0.0])
    assert res.reachable[0]


def test_mixed_edges_choose_the_closest_admissible_reference():
    support = b.Support.translating(np.array([[1.0, 0.5]]))
    res = ref.reference_velocity(edges_with([[0, 0], [1, 0.5]]), support,
                                 np.array([[-0.5, 0.0]]), np.array([2.0]))
    # fixed right wall forbids r_x > 0; co-moving top edge forbids r_y > 0.5
    assert res.r_mps[0].tolist() == pytest.approx([0.0, 0.5])


def test_r3_holding_at_r_never_decreases_a_margin():
    rng = np.random.default_rng(0)
    n, k = 300, 3
    ang = rng.uniform(0, 2 * np.pi, (n, k))
    normal = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    edges = b.EdgeSet.build(normal, rng.uniform(0.1, 1.0, (n, k)),
                            edge_velocity_mps=rng.uniform(-0.3, 0.3, (n, k, 2)))
    support = b.Support.translating(rng.uniform(-0.3, 0.3, (n, 2)))
    x0 = np.zeros((n, 2))
    res = ref.reference_velocity(edges, support, x0, np.full(n, 2.0))
    rate = ref.holding_margin_rate_mps(edges, x0, res.r_mps)
    assert np.all(rate[res.exists] >= -1e-9)
    assert res.exists.any()


def test_edge_id_order_makes_the_reference_reproducible():
    support = b.Support.translating(np.array([[0.7, 0.3]]))
    a = ref.reference_velocity(edges_with([[0, 0], [0.2, 0.1]], ids=(4, 9)), support,
                               np.zeros((1, 2)), np.array([2.0]))
    swapped = b.EdgeSet.build(RIGHT_AND_TOP[:, ::-1], np.array([[1.0, 0.0]]),
                              edge_velocity_mps=np.array([[[0.2, 0.1], [0.0, 0.0]]]),
                              edge_id=np.array([[9, 4]]))
    c = ref.reference_velocity(swapped, support, np.zeros((1, 2)), np.array([2.0]))
    assert np.array_equal(a.r_mps, c.r_mps)


def _reference_by_closest_row(normal, offset, walls, edge_id, u, vh):
    """Each row's reference as closest_row gives it from the walls in edge-ID order (no
    shortcut), with the check against every wall and the R2 margin, row by row."""
    from navproof._generated.formulas import stop_target_margin
    from navproof.core.tolerances import EPS, RVO_EPSILON
    from navproof.solver.closest import closest_row

    n, k = offset.shape
    r, exists, margin = np.empty((n, 2)), np.empty(n, bool), np.empty(n)
    for i in range(n):
        order = np.argsort(np.where(walls[i], edge_id[i], np.iinfo(np.int64).max),
                           kind="stable")
        row_n, row_b, row_v = (np.ascontiguousarray(normal[i][order]),
                               np.ascontiguousarray(offset[i][order]),
                               np.ascontiguousarray(walls[i][order]))
        w = np.empty(2)
        found = closest_row(row_n, row_b, row_v, ref.REFERENCE_SEARCH_RADIUS_MPS, 0.0, 0.0,
                            np.inf, 0.0, 0.0, False, 0.0, RVO_EPSILON, w) == k
        for j in range(k):
            if found and row_v[j] and not ((row_n[j, 0] * w[0] + row_n[j, 1] * w[1])
                                           - row_b[j] <= EPS):
                found = False
        r[i] = (u[i, 0] + w[0], u[i, 1] + w[1]) if found else u[i]
        sx, sy = r[i, 0] - u[i, 0], r[i, 1] - u[i, 1]
        exists[i] = found
        margin[i] = stop_target_margin(vh=vh[i], carry=np.sqrt(sx * sx + sy * sy))
    return r, exists, margin


def test_rows_whose_origin_meets_every_wall_take_the_origin_as_closest_row_does():
    rng = np.random.default_rng(7)
    n, k = 400, 4
    ang = rng.uniform(0, 2 * np.pi, (n, k))
    normal = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    # offsets of both signs, zeros of both signs and NaN: the origin inside, on and outside
    offset = rng.choice([0.0, -0.0, 0.3, -0.3, 1e-300, -1e-300, np.nan], (n, k))
    offset[: n // 2] = np.abs(offset[: n // 2])
    walls = rng.random((n, k)) < 0.8
    ids = rng.permutation(n * k).reshape(n, k)
    edges = b.EdgeSet.build(normal, np.ones((n, k)), edge_id=ids)
    u = rng.choice([0.0, -0.0, 0.7, -1.2], (n, 2))
    vh = np.full(n, 2.0)
    got = ref.reference_from_offsets(edges, u, offset, vh,
                                     certified=~walls & edges.wall)
    want_r, want_exists, want_margin = _reference_by_closest_row(
        np.asarray(edges.normal), offset, edges.wall & walls, np.asarray(edges.edge_id), u, vh)
    assert got.r_mps.tobytes() == want_r.tobytes()
    assert got.exists.tobytes() == want_exists.tobytes()
    assert got.stop_margin_mps.tobytes() == want_margin.tobytes()
    assert want_exists.any() and not want_exists.all()
