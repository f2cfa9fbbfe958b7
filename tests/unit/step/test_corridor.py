"""Corridor regions, merging and portal sub-steps (claims C1-C3, B7)."""

import numpy as np
import pytest

from navproof import boundary as b
from navproof import step as ss
from navproof.core.errors import InvalidInput
from navproof.step import corridor as cor

DT = 0.1
FLAT = np.zeros(2)


def square(x0, x1, y0=-1.0, y1=1.0):
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)


def test_c1_same_gradient_convex_union_in_route_order_merges():
    a = cor.Region.build(1, square(-1, 0), FLAT)
    c = cor.Region.build(2, square(0, 1), FLAT)
    merged = cor.merge_regions(a, c, portal_index_a=3, portal_index_b=4)
    assert merged is not None
    assert sorted(map(tuple, merged.vertices_m.tolist())) == [(-1, -1), (-1, 1), (1, -1), (1, 1)]


def test_c1_no_merge_for_concave_union_other_gradient_or_illegal_order():
    a = cor.Region.build(1, square(-1, 0), FLAT)
    short = cor.Region.build(2, square(0, 1, 0.0, 1.0), FLAT)     # L-shaped union
    assert cor.merge_regions(a, short, portal_index_a=0, portal_index_b=1) is None
    slope = cor.Region.build(3, square(0, 1), np.array([np.sqrt(3.0), 0.0]))
    assert cor.merge_regions(a, slope, portal_index_a=0, portal_index_b=1) is None
    same = cor.Region.build(4, square(0, 1), FLAT)
    assert cor.merge_regions(a, same, portal_index_a=0, portal_index_b=2) is None
    assert cor.merge_regions(a, same, portal_index_a=1, portal_index_b=0) is None


def test_c1_c2_region_intersects_patch_without_second_erosion():
    """C1, C2: corridor ∩ patch piece, with the already-eroded region used as it is."""
    region = cor.Region.build(5, square(-1, 0), FLAT)
    patch = b.make_patch(9, square(-2, 0, -0.5, 0.5), FLAT)
    edges = cor.region_edges([region], [patch], portal_mask=[np.array([0, 1, 0, 0], bool)])
    assert edges.valid.sum() == 8
    # offsets are the polygons' own (already eroded by the body radius): no radius subtracted
    assert edges.offset_m[0, :4].tolist() == pytest.approx([1.0, 0.0, 1.0, 1.0])
    assert edges.offset_m[0, 4:].tolist() == pytest.approx([0.5, 0.0, 0.5, 2.0])
    assert edges.owner[0].tolist() == [5] * 4 + [9] * 4
    assert edges.kind[0].tolist() == [0, 1, 0, 0, 0, 0, 0, 0]
    # the right patch edge X = 0 stays a wall (handoff edge), the region's X = 0 is the portal
    assert edges.wall[0].tolist() == [True, False, True, True, True, True, True, True]


def test_c1_portal_on_a_different_gradient_is_refused():
    region = cor.Region.build(5, square(-1, 0), np.array([1.0, 0.0]))
    patch = b.make_patch(9, square(-2, 0), FLAT)
    with pytest.raises(InvalidInput, match="portal_mask"):
        cor.region_edges([region], [patch], portal_mask=[np.array([0, 1, 0, 0], bool)])


def test_c3_region_switch_only_on_the_edge_moving_inward_and_ownership_by_portal_index():
    normal = np.array([[1.0, 0.0]] * 3)
    switch = cor.may_switch_region(np.array([0.0, 0.0, 0.01]), normal,
                                   np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0]]))
    assert switch.tolist() == [True, False, False]
    owner = cor.shared_edge_owner(np.array([2, 3]), np.array([2, 2]), np.array([10, 10]),
                                  np.array([11, 11]))
    assert owner.tolist() == [10, 11]


def test_portal_crossing_time_is_exact():
    t = cor.portal_crossing_time_s(np.array([0.05, 0.5, 0.0]), DT, np.zeros(3), np.zeros(3),
                                   np.array([1.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0]))
    assert t.tolist() == pytest.approx([0.05, DT, 0.0])


def portal_world(x0, v0, pref, neighbors=None):
    n = len(x0)
    here = cor.Region.build(1, square(-1, 0), FLAT)
    there = cor.Region.build(2, square(0, 6), FLAT)
    big = b.make_patch(7, square(-2, 8, -2, 2), FLAT)
    edges = cor.region_edges([here] * n, [big] * n, portal_mask=[np.array([0, 1, 0, 0])] * n)
    # the portal X = 0 is checked by the sub-step logic, not as a wall
    current = b.EdgeSet(edges.normal, edges.offset_m, edges.valid & edges.wall, edges.edge_id,
                        edges.owner, edges.motion, edges.kind)
    nxt = cor.region_edges([there] * n, [big] * n)
    inp = ss.StepInput(np.array(x0, float), np.array(v0, float), np.array(pref, float), DT,
                       b.Support.translating(np.zeros((n, 2))), current, np.full(n, 2.0),
                       np.full(n, 1.0), np.full(n, 0.3), neighbors=neighbors)
    return inp, nxt


def test_b7_step_splits_at_the_portal_and_rebuilds_for_the_remaining_time():
    inp, nxt = portal_world([[-0.05, 0.0], [-0.5, 0.0]], [[1.0, 0.0], [1.0, 0.0]],
                            [[1.0, 0.0], [1.0, 0.0]])
    out = cor.step_with_portal(inp, region_id=np.array([1, 1]),
                               portal_normal=np.array([[1.0, 0.0]] * 2),
                               portal_offset_m=np.zeros(2), portal_valid=np.ones(2, bool),
                               next_region_id=np.array([2, 2]), next_edges=nxt,
                               assertions=True)
    assert out.split_time_s.tolist() == pytest.approx([0.05, DT])
    assert out.second_rows.tolist() == [0]
    assert out.second.commit_time_s.tolist() == pytest.approx([0.05])
    assert out.region_id.tolist() == [2, 1]
    assert out.position_m[0].tolist() == pytest.approx([0.05, 0.0])
    assert out.position_m[1].tolist() == pytest.approx([-0.4, 0.0])
    assert out.second.label[0] == ss.SAFE


def test_b7_neighbours_are_advanced_by_the_sub_step_time():
    # a neighbour crossing ahead: at t_p = 0.05 it has moved 0.05 m further
    nb = ss.Neighbors(np.array([[[0.5, -0.9]]]), np.array([[[0.0, 1.0]]]), np.array([[0.3]]),
                      np.ones((1, 1), bool))
    inp, nxt = portal_world([[-0.05, 0.0]], [[1.0, 0.0]], [[1.0, 0.0]], neighbors=nb)
    out = cor.step_with_portal(inp, region_id=np.array([1]), portal_normal=np.array([[1.0, 0.0]]),
                               portal_offset_m=np.zeros(1), portal_valid=np.ones(1, bool),
                               next_region_id=np.array([2]), next_edges=nxt)
    start = np.hypot(0.5 - 0.0, -0.9 + 0.05)
    assert out.second.margins.sweep_m[0, 0] == pytest.approx(
        np.hypot(0.5 - 0.05, -0.9 + 0.1) - 0.6, abs=1e-9)
    assert start - 0.6 > out.second.margins.sweep_m[0, 0]


def test_c3_positions_follow_the_curve_and_never_cross_a_wall():
    # heading for the back wall X = -1: braked before it, the position is the curve's own
    inp, nxt = portal_world([[-0.9, 0.0]], [[-0.1, 0.0]], [[-1.0, 0.0]])
    out = cor.step_with_portal(inp, region_id=np.array([1]), portal_normal=np.array([[1.0, 0.0]]),
                               portal_offset_m=np.zeros(1), portal_valid=np.ones(1, bool),
                               next_region_id=np.array([2]), next_edges=nxt, assertions=True)
    assert out.first.label[0] == ss.SAFE
    v1 = out.velocity_mps[0, 0]
    assert out.position_m[0, 0] == pytest.approx(-0.9 + DT * (-0.1 + v1) / 2.0)
    assert out.position_m[0, 0] >= -1.0
    assert out.region_id.tolist() == [1]


def test_c3_crossing_the_portal_line_outside_the_shared_segment_is_a_wall():
    # the next region is only 1.2 m wide (|y| <= 0.6): at y = 0.8 the line X = 0 is a wall
    n = 2
    here = cor.Region.build(1, square(-1, 0), FLAT)
    narrow = cor.Region.build(2, square(0, 6, -0.6, 0.6), FLAT)
    big = b.make_patch(7, square(-2, 8, -2, 2), FLAT)
    cur = cor.region_edges([here] * n, [big] * n, portal_mask=[np.array([0, 1, 0, 0])] * n)
    current = b.EdgeSet(cur.normal, cur.offset_m, cur.valid & cur.wall, cur.edge_id, cur.owner,
                        cur.motion, cur.kind)
    nxt = cor.region_edges([narrow] * n, [big] * n)
    inp = ss.StepInput(np.array([[-0.05, 0.8], [-0.05, 0.0]]), np.array([[1.0, 0.0]] * n),
                       np.array([[1.0, 0.0]] * n), DT, b.Support.translating(np.zeros((n, 2))),
                       current, np.full(n, 2.0), np.full(n, 20.0), np.full(n, 0.3))
    out = cor.step_with_portal(inp, region_id=np.ones(n, int),
                               portal_normal=np.array([[1.0, 0.0]] * n),
                               portal_offset_m=np.zeros(n), portal_valid=np.ones(n, bool),
                               next_region_id=np.full(n, 2), next_edges=nxt, assertions=True)
    assert out.second_rows.tolist() == [1]
    assert out.region_id.tolist() == [1, 2]
    assert out.split_time_s[0] == DT
    assert out.position_m[0, 0] <= 0.0
    assert out.first.margins.edge_curve_m[0].min() >= 0.0
    assert out.position_m[1, 0] > 0.0
