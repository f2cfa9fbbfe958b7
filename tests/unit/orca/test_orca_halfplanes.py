"""ORCA lines through the one solver (RVO2's linear programs 1/2/3 in half-plane form) against
hand-solved cases and the reference port.

Claims: O1 (no constraint), O2 (closest point in disk ∩ half-planes), O4 (degraded fallback).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from navproof.core.tolerances import RVO_EPSILON
from navproof.orca.halfplanes import line_violation, solve_lines, to_halfplanes
from navproof.solver.closest import closest_point

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "reference"))
import rvo2_reference as ref  # noqa: E402


def _one(pref, radius, lines, num_hard=0):
    k = len(lines)
    point = np.array([[p for p, _ in lines]], dtype=float).reshape(1, k, 2)
    direction = np.array([[d for _, d in lines]], dtype=float).reshape(1, k, 2)
    valid = np.ones((1, k), dtype=bool)
    return solve_lines(np.array([pref], float), np.array([radius], float), point, direction,
                         valid, np.array([num_hard]))


def test_no_lines_returns_preferred_inside_disk() -> None:
    res = _one((0.3, -0.4), 1.0, [])
    assert res.feasible[0]
    assert res.velocity[0].tolist() == [0.3, -0.4]


def test_no_lines_clamps_preferred_to_disk() -> None:
    res = _one((3.0, 4.0), 1.0, [])
    np.testing.assert_allclose(res.velocity[0], [0.6, 0.8])


def test_single_line_projects_preferred() -> None:
    # permitted side is left of direction (0, 1): x <= 0.5
    res = _one((1.0, 0.2), 2.0, [((0.5, 0.0), (0.0, 1.0))])
    np.testing.assert_allclose(res.velocity[0], [0.5, 0.2])
    assert res.feasible[0]


def test_line_satisfied_leaves_preferred() -> None:
    res = _one((-1.0, 0.2), 2.0, [((0.5, 0.0), (0.0, 1.0))])
    np.testing.assert_allclose(res.velocity[0], [-1.0, 0.2])


def test_two_lines_corner() -> None:
    # x <= 0.5 and y <= 0.25 (direction (-1, 0) permits the side below)
    res = _one((1.0, 1.0), 2.0, [((0.5, 0.0), (0.0, 1.0)), ((0.0, 0.25), (-1.0, 0.0))])
    np.testing.assert_allclose(res.velocity[0], [0.5, 0.25])


def test_line_and_disk_intersection() -> None:
    res = _one((1.0, 1.0), 1.0, [((0.6, 0.0), (0.0, 1.0))])
    np.testing.assert_allclose(res.velocity[0], [0.6, 0.8])


def test_opposite_parallel_lines_fall_back_and_are_labelled() -> None:
    # x <= -0.5 and x >= 0.5 cannot both hold: the fallback splits the violation
    lines = [((-0.5, 0.0), (0.0, 1.0)), ((0.5, 0.0), (0.0, -1.0))]
    res = _one((0.0, 0.3), 2.0, lines)
    assert not res.feasible[0]
    assert res.fail_slot[0] == 1
    np.testing.assert_allclose(res.velocity[0, 0], 0.0, atol=1e-12)
    np.testing.assert_allclose(res.fallback_violation[0], 0.5)


def test_duplicate_lines_keep_their_common_boundary() -> None:
    # five copies of one line (coincident neighbours): 2 vx + vy >= 0.75, whose closest point
    # to 0 is 0.75 / 5 * (2, 1), inside the 0.5 disk. Each copy holds all of the boundary of
    # the next (RVO2: det(d, p - p) = 0), although the room of the foot point b n in the
    # half-plane rounds below 0 here
    point, direction = (0.5, -0.25), (0.4472135954999579, -0.8944271909999159)
    nx, ny = direction[1], -direction[0]
    b = nx * point[0] + ny * point[1]
    assert b - (nx * (b * nx) + ny * (b * ny)) < 0.0
    res = _one((0.0, 0.0), 0.5, [(point, direction)] * 5)
    assert res.feasible[0] and res.fail_slot[0] == -1
    assert res.velocity[0].tolist() == [0.3, 0.15]
    assert res.fallback_violation[0] == 0.0
    lines = [ref.Line(ref.V(*point), ref.V(*direction)) for _ in range(5)]
    fail, v = ref.linear_program2(lines, 0.5, ref.V(0.0, 0.0), False, ref.V())
    assert fail == 5
    np.testing.assert_allclose(res.velocity[0], [v.x, v.y], atol=1e-15, rtol=0)


@pytest.mark.parametrize("pref", [(0.0, -1.0), (0.5, 1.0), (-1.0, 0.5)])
def test_nearly_opposite_line_through_a_point_of_the_boundary(pref) -> None:
    # vy >= 0, vx <= 0.75, and vy <= ~0 through (1.9e-16, 0), a point of the first boundary:
    # parallel within RVO_EPSILON, so RVO2 keeps all of the third line (its point is on the
    # first line: det = 0) where the foot point b n lies 2e-32 outside the first half-plane
    lines = [((0.0, 0.0), (1.0, -0.0)), ((0.75, 0.0), (0.0, 1.0)),
             ((1.9428902930940237e-16, 0.0), (-1.0, -1.0408340855860843e-16))]
    res = _one(pref, 2.0, lines)
    ref_lines = [ref.Line(ref.V(*p), ref.V(*d)) for p, d in lines]
    fail, v = ref.linear_program2(ref_lines, 2.0, ref.V(*pref), False, ref.V())
    assert fail == 3
    assert res.feasible[0] and res.fail_slot[0] == -1
    np.testing.assert_allclose(res.velocity[0], [v.x, v.y], atol=1e-15, rtol=0)


def test_fallback_with_duplicate_lines_splits_the_violation_as_the_reference() -> None:
    # two copies of line a and a line c that no velocity of the 0.366 m/s disk satisfies with
    # it: linearProgram3 projects onto the bisector of c and each copy, the same line twice.
    # The second copy holds all of the first (its crossing with c is the same point), so the
    # projected problem is solved, not left at the exact solve's last point
    point_a, dir_a = (-0.23517730662575978, -0.26898950118283227), (-0.7528380940952429,
                                                                      0.6582057460088313)
    point_c, dir_c = (0.43818571196807704, -0.10890977940888218), (-0.24120832074458243,
                                                                     -0.9704733618207038)
    lines = [(point_a, dir_a), (point_a, dir_a), (point_c, dir_c)]
    radius = 0.36586006445649943
    res = _one((0.0, 0.0), radius, lines)
    ref_lines = [ref.Line(ref.V(*p), ref.V(*d)) for p, d in lines]
    fail, v = ref.linear_program2(ref_lines, radius, ref.V(0.0, 0.0), False, ref.V())
    assert fail == 2
    v = ref.linear_program3(ref_lines, 0, fail, radius, v)
    assert not res.feasible[0] and res.fail_slot[0] == 2
    np.testing.assert_allclose(res.velocity[0], [v.x, v.y], atol=1e-15, rtol=0)
    # on the bisector: a and c violated alike, by the reported largest violation
    k = len(lines)
    violation = line_violation(res.velocity, np.array([[p for p, _ in lines]]).reshape(1, k, 2),
                               np.array([[d for _, d in lines]]).reshape(1, k, 2),
                               np.ones((1, k), dtype=bool))[0]
    np.testing.assert_allclose(violation, res.fallback_violation[0], atol=1e-15, rtol=0)
    assert res.fallback_violation[0] > 0.1


def test_fallback_through_far_crossing_stays_inside_disk() -> None:
    # two nearly opposite lines: linearProgram3 projects on their bisector, which passes
    # through their crossing about 1e5 m/s from the origin; the chord of the disk on it must not
    # lose precision there (the max-speed cap held only to 1e-4 before, Claim O2)
    a = 2.922
    b = a + np.pi + 1.5e-5
    res = _one((0.32, 1.16), 0.5, [((-1.57, -1.77), (np.cos(a), np.sin(a))),
                                   ((0.82, 1.86), (np.cos(b), np.sin(b)))])
    assert not res.feasible[0]
    assert np.hypot(*res.velocity[0]) <= 0.5 + 1e-9


def test_fallback_keeps_hard_line() -> None:
    # hard: x <= -0.5; soft: x >= 0.5 -> soft violated by 1, hard respected
    lines = [((-0.5, 0.0), (0.0, 1.0)), ((0.5, 0.0), (0.0, -1.0))]
    res = _one((0.0, 0.0), 2.0, lines, num_hard=1)
    assert not res.feasible[0]
    assert res.velocity[0, 0] <= -0.5 + 1e-12
    np.testing.assert_allclose(res.fallback_violation[0], 1.0)


def test_line_outside_disk_is_infeasible() -> None:
    res = _one((0.0, 0.0), 1.0, [((2.0, 0.0), (0.0, -1.0))])   # needs x >= 2 with |v| <= 1
    assert not res.feasible[0]
    np.testing.assert_allclose(res.velocity[0], [1.0, 0.0], atol=1e-12)


def test_invalid_slots_are_ignored() -> None:
    point = np.array([[[0.5, 0.0], [9.0, 9.0]]])
    direction = np.array([[[0.0, 1.0], [1.0, 0.0]]])
    valid = np.array([[True, False]])
    res = solve_lines(np.array([[1.0, 0.0]]), np.array([2.0]), point, direction, valid)
    np.testing.assert_allclose(res.velocity[0], [0.5, 0.0])


def test_line_violation_sign_convention() -> None:
    point = np.array([[[0.5, 0.0]]])
    direction = np.array([[[0.0, 1.0]]])
    valid = np.ones((1, 1), bool)
    assert line_violation(np.array([[1.0, 0.0]]), point, direction, valid)[0, 0] == pytest.approx(0.5)
    assert line_violation(np.array([[0.0, 0.0]]), point, direction, valid)[0, 0] == pytest.approx(-0.5)


def _random_lines(rng, n, k):
    angle = rng.uniform(0, 2 * np.pi, (n, k))
    direction = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    point = rng.uniform(-1.5, 1.5, (n, k, 2))
    return point, direction


@pytest.mark.parametrize("k", [1, 3, 8, 15])
def test_batch_matches_reference_linear_programs(k: int) -> None:
    rng = np.random.default_rng(k)
    n = 300
    point, direction = _random_lines(rng, n, k)
    counts = rng.integers(0, k + 1, n)
    valid = np.arange(k)[None, :] < counts[:, None]
    num_hard = np.minimum(rng.integers(0, 3, n), counts)
    pref = rng.uniform(-2.5, 2.5, (n, 2))
    radius = rng.uniform(0.5, 2.0, n)
    res = solve_lines(pref, radius, point, direction, valid, num_hard)
    for i in range(n):
        lines = [ref.Line(ref.V(*point[i, j]), ref.V(*direction[i, j])) for j in range(counts[i])]
        fail, v = ref.linear_program2(lines, radius[i], ref.V(*pref[i]), False, ref.V())
        if fail < len(lines):
            v = ref.linear_program3(lines, int(num_hard[i]), fail, radius[i], v)
        np.testing.assert_allclose(res.velocity[i], [v.x, v.y], atol=1e-9, err_msg=f"row {i}")
        assert bool(res.feasible[i]) == (fail == len(lines))


def test_copies_of_lines_solve_as_the_reference_linear_programs() -> None:
    # coincident neighbours give copies of one line: rows of up to 8 slots, each a copy of one
    # of 3 lines, solved and labelled as the reference port solves them, fallback included
    rng = np.random.default_rng(11)
    n, k = 400, 8
    counts = rng.integers(1, k + 1, n)
    which = rng.integers(0, 3, (n, k))
    angle = np.take_along_axis(rng.uniform(0, 2 * np.pi, (n, 3)), which, 1)
    point = np.take_along_axis(rng.uniform(-1.5, 1.5, (n, 3, 2)), which[..., None], 1)
    direction = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    valid = np.arange(k)[None, :] < counts[:, None]
    num_hard = np.minimum(rng.integers(0, 3, n), counts)
    pref = rng.uniform(-2.5, 2.5, (n, 2))
    radius = rng.uniform(0.3, 2.0, n)
    res = solve_lines(pref, radius, point, direction, valid, num_hard)
    assert (~res.feasible).any() and res.feasible.any()
    for i in range(n):
        lines = [ref.Line(ref.V(*point[i, j]), ref.V(*direction[i, j])) for j in range(counts[i])]
        fail, v = ref.linear_program2(lines, radius[i], ref.V(*pref[i]), False, ref.V())
        if fail < len(lines):
            v = ref.linear_program3(lines, int(num_hard[i]), fail, radius[i], v)
        assert res.fail_slot[i] == (fail if fail < len(lines) else -1), f"row {i}"
        np.testing.assert_allclose(res.velocity[i], [v.x, v.y], atol=1e-9, rtol=0,
                                   err_msg=f"row {i}")


def test_lines_converted_row_by_row_solve_as_the_batched_half_planes() -> None:
    # the crowd's path (each row's lines converted in the compiled loop) and the solver's batched
    # entry on the converted half-planes are one algorithm: bit for bit the same answer (the
    # crowd's anchors, the lines' points, decide only between parallel boundaries, which random
    # directions do not give)
    rng = np.random.default_rng(7)
    n, k = 400, 9
    point, direction = _random_lines(rng, n, k)
    valid = rng.random((n, k)) < 0.9
    num_hard = rng.integers(0, 3, n)
    pref = rng.uniform(-2.5, 2.5, (n, 2))
    radius = rng.uniform(0.5, 2.0, n)
    rows = solve_lines(pref, radius, point, direction, valid, num_hard)
    batched = closest_point(pref, to_halfplanes(point, direction, valid), radius,
                            num_hard=num_hard, least_violation=True, tol_mps=0.0,
                            parallel_det=RVO_EPSILON)
    assert (~rows.feasible).any() and rows.feasible.any()
    np.testing.assert_array_equal(rows.velocity, batched.velocity)
    np.testing.assert_array_equal(rows.fail_slot, batched.fail_slot)
    np.testing.assert_array_equal(rows.fallback_violation, batched.fallback_violation)


def test_to_halfplanes_keeps_the_left_side() -> None:
    # x <= 0.5 as an RVO2 line (point (0.5, 0), direction (0, 1)) and shifted by u = (0.25, 0)
    point = np.array([[[0.5, 0.0]]])
    direction = np.array([[[0.0, 1.0]]])
    planes = to_halfplanes(point, direction, np.ones((1, 1), bool))
    np.testing.assert_array_equal(planes.normal[0, 0], [1.0, -0.0])
    assert planes.offset[0, 0] == 0.5
    shifted = to_halfplanes(point, direction, np.ones((1, 1), bool),
                            shift_mps=np.array([[0.25, 0.0]]))
    assert shifted.offset[0, 0] == 0.25
