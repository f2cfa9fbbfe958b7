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
