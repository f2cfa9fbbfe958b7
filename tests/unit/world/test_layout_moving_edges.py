"""Which edges move during a step (:func:`navproof.world.layout._moving_edges`): the compiled
pass against numpy's expression, with zeros of both signs and NaN rates. Claim: B5, B6."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from navproof.world.layout import _moving_edges


def _numpy_moving(valid, omega, velocity, acceleration) -> np.ndarray:
    return valid & ((omega != 0.0) | (velocity != 0.0).any(axis=-1)
                    | (acceleration != 0.0).any(axis=-1))


def test_moving_edges_match_numpys_expression() -> None:
    rng = np.random.default_rng(7)
    choices = np.array([0.0, -0.0, 0.3, -1e-300, np.nan, np.inf])
    for rows, k in ((0, 4), (1, 1), (50, 4), (300, 7)):
        valid = rng.random((rows, k)) < 0.8
        # mostly zeros, so that rows with no moving edge occur
        omega = np.where(rng.random((rows, k)) < 0.8, 0.0, rng.choice(choices, (rows, k)))
        velocity = np.where(rng.random((rows, k, 2)) < 0.8, -0.0,
                            rng.choice(choices, (rows, k, 2)))
        acceleration = np.where(rng.random((rows, k, 2)) < 0.9, 0.0,
                                rng.choice(choices, (rows, k, 2)))
        edges = SimpleNamespace(valid=valid, motion=SimpleNamespace(
            omega_radps=omega, velocity_mps=velocity, acceleration_mps2=acceleration))
        moving, any_moving = _moving_edges(edges)
        expected = _numpy_moving(valid, omega, velocity, acceleration)
        assert np.array_equal(moving, expected)
        assert any_moving == bool(expected.any())


def test_fixed_edges_do_not_move_and_broadcast_rates_are_read_per_edge() -> None:
    valid = np.ones((3, 2), bool)
    edges = SimpleNamespace(valid=valid, motion=SimpleNamespace(
        omega_radps=np.zeros(()), velocity_mps=np.zeros(2), acceleration_mps2=np.zeros(2)))
    moving, any_moving = _moving_edges(edges)
    assert not any_moving and not moving.any()
    edges.motion.velocity_mps = np.array([0.0, 0.2])
    moving, any_moving = _moving_edges(edges)
    assert any_moving and moving.all()


def test_the_served_edges_moving_edges_are_found_once_and_read_only() -> None:
    from navproof.world import Layout

    corridor = np.array([[-8.0, -3.0], [8.0, -3.0], [8.0, 3.0], [-8.0, 3.0]])
    layout = Layout(corridor_m=corridor)
    patch = np.full(5, -1, np.int64)
    support = np.full(5, -1, np.int64)
    edges = layout.edges(patch, support)
    assert layout.edges(patch.copy(), support) is edges  # served again
    first = layout._moving_edges_of(edges)
    again = layout._moving_edges_of(edges)
    assert again[0] is first[0] and again[1] == first[1]
    assert not first[0].flags.writeable
    want = _moving_edges(edges)
    assert np.array_equal(first[0], want[0]) and first[1] == want[1]
    # other edges (not the ones served) are looked at each time
    rng = np.random.default_rng(3)
    other = SimpleNamespace(valid=np.ones((2, 3), bool), motion=SimpleNamespace(
        omega_radps=np.zeros((2, 3)), velocity_mps=rng.normal(size=(2, 3, 2)),
        acceleration_mps2=np.zeros((2, 3, 2))))
    got = layout._moving_edges_of(other)
    assert got[1] and got[0].all() and got[0].flags.writeable


def test_served_edges_are_recognised_by_numpys_array_equal_of_the_indices() -> None:
    from navproof.world.layout import _same_indices

    cached = np.array([0, -1, 2, 2], np.int64)
    for index in (cached.copy(), [0, -1, 2, 2], np.array([0, -1, 2, 3]), cached[:3],
                  cached.reshape(2, 2), np.array([0.0, -1.0, 2.0, 2.0]),
                  np.array([0.0, -1.0, 2.0, np.nan]), np.array([], np.int64), [[0, -1, 2, 2]]):
        assert _same_indices(cached, index) == np.array_equal(cached, index)
