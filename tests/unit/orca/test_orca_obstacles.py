"""Obstacle processing (links, directions, convexity) and input validation. Claim: O5."""

from __future__ import annotations

import numpy as np
import pytest

from navproof.core.errors import InvalidInput
from navproof.core.validation import check_valid_polygon
from navproof.orca.obstacles import ObstacleSet


def test_square_links_and_directions() -> None:
    obs = ObstacleSet()
    first = obs.add([(0, 0), (2, 0), (2, 2), (0, 2)])
    obs.process()
    assert first == 0
    assert obs.next.tolist() == [1, 2, 3, 0]
    assert obs.prev.tolist() == [3, 0, 1, 2]
    np.testing.assert_allclose(obs.unit_dir, [[1, 0], [0, 1], [-1, 0], [0, -1]])
    assert obs.is_convex.all()


def test_clockwise_polygon_is_bounding_all_vertices_non_convex() -> None:
    obs = ObstacleSet()
    obs.add([(0, 0), (0, 10), (10, 10), (10, 0)])
    obs.process()
    assert not obs.is_convex.any()


def test_segment_is_two_convex_vertices() -> None:
    obs = ObstacleSet()
    obs.add([(0, 0), (3, 4)])
    obs.process()
    assert obs.is_convex.tolist() == [True, True]
    np.testing.assert_allclose(obs.unit_dir, [[0.6, 0.8], [-0.6, -0.8]])


def test_second_polygon_numbering_continues() -> None:
    obs = ObstacleSet()
    obs.add([(0, 0), (1, 0), (1, 1)])
    assert obs.add([(5, 5), (6, 5)]) == 3
    obs.process()
    assert obs.next[4] == 3


@pytest.mark.parametrize("vertices, field", [
    ([(0, 0)], "vertices"),
    ([], "vertices"),
    ([(0, 0), (0, 0), (1, 1)], "vertices[0]"),
    ([(0, 0), (1, 1), (0, 0)], "vertices[2]"),
    ([(0, 0), (float("nan"), 1)], "vertices[1]"),
    ([(0, 0), (float("inf"), 1)], "vertices[1]"),
    ([(0, 0, 0), (1, 1, 1)], "vertices"),
])
def test_invalid_polygons_rejected(vertices, field) -> None:
    obs = ObstacleSet()
    with pytest.raises(InvalidInput) as err:
        obs.add(vertices)
    assert err.value.field == field
    assert obs.polygons == []


def test_check_valid_polygon_returns_float_array() -> None:
    arr = check_valid_polygon([(0, 0), (1, 2)])
    assert arr.dtype == np.float64 and arr.shape == (2, 2)


def _brute_obstacle_neighbors(obs: ObstacleSet, pos: np.ndarray, range_sq: np.ndarray):
    found = []
    for i, p in enumerate(pos):
        row = []
        for v in range(obs.point.shape[0]):
            a, b = obs.point[v], obs.point[obs.next[v]]
            left = (a[0] - p[0]) * (b[1] - a[1]) - (a[1] - p[1]) * (b[0] - a[0])
            t = np.clip(np.dot(p - a, b - a) / np.dot(b - a, b - a), 0.0, 1.0)
            d = float(np.sum((p - (a + t * (b - a))) ** 2))
            if left < 0.0 and d < range_sq[i]:
                row.append((d, v))
        found.append([v for _, v in sorted(row)])
    return found


def test_obstacle_query_matches_brute_force_for_any_cell_size() -> None:
    rng = np.random.default_rng(4)
    obs = ObstacleSet()
    for _ in range(25):
        c = rng.uniform(-40, 40, 2)
        k = int(rng.integers(2, 6))
        angle = np.sort(rng.uniform(0, 2 * np.pi, k))
        obs.add(c + rng.uniform(1, 4) * np.stack([np.cos(angle), np.sin(angle)], axis=1))
    obs.process()
    pos = rng.uniform(-45, 45, (300, 2))
    range_sq = rng.uniform(1, 100, 300)
    expect = _brute_obstacle_neighbors(obs, pos, range_sq)
    for cells_per_range in (1, 3, 40):
        idx, _ = obs.neighbors(pos, range_sq, cells_per_range=cells_per_range)
        got = [[int(v) for v in row if v >= 0] for row in idx]
        assert got == expect
