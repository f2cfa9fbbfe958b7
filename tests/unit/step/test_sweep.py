"""Exact minimum distance over the step against neighbour predictions (claim W1)."""

import numpy as np
import pytest

from navproof.step import sweep

DT = 0.1


def single(x0, u, v0, v1, other, other_v):
    return sweep.sweep_min_distance_m(np.array([x0], float), np.array([u], float),
                                      np.array([v0], float), np.array([v1], float), DT,
                                      np.array([[other]], float), np.array([[other_v]], float),
                                      np.ones((1, 1), bool))


def test_head_on_minimum_is_at_the_step_end():
    d, t = single([0, 0], [0, 0], [1, 0], [1, 0], [1, 0], [0, 0])
    assert d[0, 0] == pytest.approx(0.9) and t[0, 0] == pytest.approx(DT)


def test_passing_neighbour_has_an_interior_minimum():
    # neighbour crosses the body's path at mid-step, 0.3 m to the side
    d, t = single([0, 0], [0, 0], [0, 0], [0, 0], [-0.5, 0.3], [10, 0])
    assert d[0, 0] == pytest.approx(0.3) and t[0, 0] == pytest.approx(0.05)


def test_accelerating_curve_against_dense_evaluation():
    rng = np.random.default_rng(5)
    n, j = 500, 4
    x0, u = rng.normal(size=(n, 2)), rng.normal(size=(n, 2))
    v0, v1 = rng.normal(size=(n, 2)) * 3, rng.normal(size=(n, 2)) * 3
    op, ov = rng.normal(size=(n, j, 2)) * 0.5, rng.normal(size=(n, j, 2))
    d, _ = sweep.sweep_min_distance_m(x0, u, v0, v1, DT, op, ov, np.ones((n, j), bool))
    ts = np.linspace(0, DT, 5001)[None, :, None, None]
    x = x0[:, None, None] + (u + v0)[:, None, None] * ts + ((v1 - v0) / (2 * DT))[:, None, None] \
        * ts ** 2
    dense = np.linalg.norm(x - (op[:, None] + ov[:, None] * ts), axis=-1).min(axis=1)
    assert np.all(d <= dense + 1e-12)
    assert np.all(dense - d < 1e-6)


def test_margin_rule_and_first_contact():
    start, dmin, comb = np.array([[2.0, 0.5]]), np.array([[1.2, 0.4]]), np.array([[1.0, 1.0]])
    margin = sweep.sweep_margin_m(dmin, start, comb)
    assert margin[0].tolist() == pytest.approx([0.2, -0.1])
    assert not sweep.sweep_passes(margin)[0]
    # head-on at 2 m/s towards a static neighbour 1.1 m away, combined radius 1 m: contact at 0.05 s
    t = sweep.first_contact_time_s(np.zeros((1, 2)), np.zeros((1, 2)), np.array([[2.0, 0.0]]),
                                   np.array([[2.0, 0.0]]), DT, np.array([[[1.1, 0.0]]]),
                                   np.zeros((1, 1, 2)), np.ones((1, 1), bool), np.ones((1, 1)))
    assert t[0] == pytest.approx(0.05, abs=1e-9)


def test_invalid_pairs_never_bind():
    d, _ = sweep.sweep_min_distance_m(np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)),
                                      np.zeros((1, 2)), DT, np.zeros((1, 1, 2)),
                                      np.zeros((1, 1, 2)), np.zeros((1, 1), bool))
    assert d[0, 0] == np.inf
