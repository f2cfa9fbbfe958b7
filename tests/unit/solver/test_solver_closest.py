"""The one closest-point solver on hand-solved cases: half-planes, the max-speed disk and the
second disk (claims O2, V1, V2), and what it reports where nothing is left."""

from __future__ import annotations

import numpy as np
import pytest

from navproof.core.tolerances import PARALLEL_DET
from navproof.solver.closest import closest_in_disks, closest_point
from navproof.solver.halfplanes import Disks, HalfPlanes


def _planes(normals, offsets) -> HalfPlanes:
    k = len(offsets)
    return HalfPlanes(np.array(normals, float).reshape(1, k, 2),
                      np.array(offsets, float).reshape(1, k), np.ones((1, k), bool))


def test_half_plane_inside_both_disks() -> None:
    # |v| <= 2, |v - (1, 0)| <= 0.5 and x <= 0.8: from (3, 0) the answer is (0.8, 0)
    res = closest_point(np.array([[3.0, 0.0]]), _planes([(1.0, 0.0)], [0.8]), np.array([2.0]),
                        second_centre_mps=np.array([[1.0, 0.0]]),
                        second_radius_mps=np.array([0.5]), tol_mps=0.0,
                        parallel_det=PARALLEL_DET)
    assert res.feasible[0]
    np.testing.assert_allclose(res.velocity[0], [0.8, 0.0], atol=1e-15)


def test_crossing_of_the_two_circles() -> None:
    # unit disk and the unit disk about (1, 0): from (0.5, 2) the nearest common point is the
    # upper crossing (0.5, sqrt(3)/2)
    res = closest_point(np.array([[0.5, 2.0]]), _planes([], []), np.array([1.0]),
                        second_centre_mps=np.array([[1.0, 0.0]]),
                        second_radius_mps=np.array([1.0]), tol_mps=0.0,
                        parallel_det=PARALLEL_DET)
    assert res.feasible[0]
    np.testing.assert_allclose(res.velocity[0], [0.5, np.sqrt(3.0) / 2.0], atol=1e-15)


def test_disks_apart_are_infeasible_without_a_slot() -> None:
    res = closest_point(np.array([[0.0, 0.0]]), _planes([(1.0, 0.0)], [5.0]), np.array([1.0]),
                        second_centre_mps=np.array([[3.0, 0.0]]),
                        second_radius_mps=np.array([1.0]), tol_mps=0.0,
                        parallel_det=PARALLEL_DET)
    assert not res.feasible[0]
    assert res.fail_slot[0] == -1


def test_half_plane_outside_the_disks_names_its_slot() -> None:
    # x >= 3 (normal (-1, 0), offset -3) misses the speed disk of radius 1
    res = closest_point(np.array([[0.0, 0.0]]), _planes([(0.0, 1.0), (-1.0, 0.0)], [5.0, -3.0]),
                        np.array([1.0]), tol_mps=0.0, parallel_det=PARALLEL_DET)
    assert not res.feasible[0]
    assert res.fail_slot[0] == 1


def test_disks_value_puts_the_speed_disk_about_the_origin() -> None:
    planes = _planes([(1.0, 0.0)], [0.8])
    off_origin = Disks(np.array([[[0.5, 0.0], [1.0, 0.0]]]), np.array([[2.0, 0.5]]),
                       np.ones((1, 2), bool))
    with pytest.raises(ValueError, match="origin"):
        closest_in_disks(np.array([[3.0, 0.0]]), planes, off_origin, tol_mps=0.0,
                         parallel_det=PARALLEL_DET)
    # a relaxed speed disk (not valid) may sit anywhere: it is no constraint
    relaxed = Disks(off_origin.centre, off_origin.radius, np.array([[False, True]]))
    res = closest_in_disks(np.array([[3.0, 0.0]]), planes, relaxed, tol_mps=0.0,
                           parallel_det=PARALLEL_DET)
    np.testing.assert_allclose(res.velocity[0], [0.8, 0.0], atol=1e-15)


@pytest.mark.parametrize("slots", [1, 2])
def test_disk_columns_are_the_numpy_expressions(slots: int) -> None:
    from navproof.solver.closest import _disk_columns

    rng = np.random.default_rng(12 + slots)
    m = 500
    centre = np.zeros((m, slots, 2))
    centre[:, slots - 1] = rng.choice([0.0, -0.0, 1.5, -2.0, np.nan, np.inf], (m, 2))
    centre[:, 0] = np.where(rng.random((m, 1)) < 0.5, 0.0, -0.0)
    radius = rng.choice([0.0, -0.0, 0.5, 3.0, np.inf, np.nan], (m, slots))
    valid = rng.random((m, slots)) < 0.7
    max_speed, second_centre, second_radius = np.empty(m), np.empty((m, 2)), np.empty(m)
    assert _disk_columns(centre, radius, valid, max_speed, second_centre, second_radius)
    expect = np.where(valid, radius, np.inf)
    assert max_speed.tobytes() == expect[:, 0].tobytes()
    if slots == 2:
        assert second_centre.tobytes() == np.ascontiguousarray(centre[:, 1]).tobytes()
        assert second_radius.tobytes() == expect[:, 1].tobytes()
    # a valid max-speed disk off the origin is refused; a relaxed one is not
    moved = centre.copy()
    moved[7, 0, 1] = 1e-300
    assert _disk_columns(moved, radius, valid, max_speed, second_centre,
                         second_radius) == (not valid[7, 0])


@pytest.mark.parametrize("earlier", [False, True])
def test_line_crossing_both_circles_on_chords_apart_is_infeasible(earlier: bool) -> None:
    # |v| <= 2 and |v - (3.5, 0)| <= 2 leave the lens 1.5 <= x <= 2; the line y = 1.5 crosses
    # the first circle for |x| <= 1.32 and the second for 2.18 <= x <= 4.82, so y >= 1.5 leaves
    # nothing of the lens; an earlier half-plane of the same normal (y >= 0.5) does not change that
    normals = [(0.0, -1.0), (0.0, -1.0)] if earlier else [(0.0, -1.0)]
    offsets = [-0.5, -1.5] if earlier else [-1.5]
    res = closest_point(np.array([[1.75, 0.0]]), _planes(normals, offsets), np.array([2.0]),
                        second_centre_mps=np.array([[3.5, 0.0]]),
                        second_radius_mps=np.array([2.0]), tol_mps=0.0,
                        parallel_det=PARALLEL_DET)
    assert not res.feasible[0]
    assert res.fail_slot[0] == len(offsets) - 1


def test_parallel_triple_outside_the_lens_is_infeasible() -> None:
    """A row of the safe-step property test (seed 8, k 8): the half-planes 0-2 share a normal and
    half-plane 1 leaves nothing of the lens of the two disks (every point of the lens violates
    one valid half-plane by at least 0.016 m/s); the solve once answered a point 0.028 m/s
    outside the speed disk, as the enumeration of every candidate shows."""
    from navproof.solver.candidates import closest_candidates

    normal = np.array([[[-0.9366937632501027, 0.35014967355169785]] * 3
                       + [[0.8125227416938289, 0.5829294933611984],
                          [0.49487357911394, -0.8689649824331007],
                          [-0.9780976481557874, 0.2081465605579818],
                          [0.8960005542379053, -0.4440529324364006],
                          [0.3808329489253195, 0.9246438584735449]]])
    offset = np.array([[1.1885977363170896, 0.8758010136613538, 1.3580304185832692,
                        1.1163986372503234, 1.7737887635156062, 1.4837169441495366,
                        1.640935917723647, 1.1384508846812682]])
    valid = np.array([[True, True, True, True, True, False, True, True]])
    preferred = np.array([[1.8929109035613516, 2.195146215640865]])
    centre = np.array([[[0.0, 0.0], [-2.2734548985341645, -1.407500886357387]]])
    radius = np.array([[2.0, 0.8125]])
    disk_valid = np.ones((1, 2), bool)
    res = closest_in_disks(preferred, HalfPlanes(normal, offset, valid),
                           Disks(centre, radius, disk_valid), tol_mps=0.5e-9,
                           parallel_det=PARALLEL_DET)
    _, dist = closest_candidates(preferred, normal, offset, valid, centre, radius, disk_valid)
    assert not np.isfinite(dist[0, 0])
    assert not res.feasible[0]
    assert res.fail_slot[0] == 1
