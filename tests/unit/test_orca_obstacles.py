"""Obstacle processing (links, directions, convexity) and input validation. Claim: O5."""

from __future__ import annotations

import numpy as np
import pytest

from navproof.errors import InvalidInput
from navproof.obstacles import ObstacleSet, check_valid_polygon


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
