"""A small crowd's one-call solve gives the general path's neighbours, lines, velocities and
labels bit for bit: dense and sparse crowds, overlapping and coincident agents, per-agent
ranges, neighbour counts and radii, integer state arrays, no neighbour at all. Claim: O1-O4,
O6."""

from __future__ import annotations

import numpy as np
import pytest

import navproof.orca.crowd as crowd_module
from navproof.orca.crowd import Crowd


def _crowd(rng: np.random.Generator, n: int, spread_m: float) -> Crowd:
    crowd = Crowd(0.25, workers=1)
    position = rng.uniform(-spread_m, spread_m, (n, 2))
    position[: n // 10] = position[0]  # coincident agents
    crowd.add_agents(position, velocity_mps=rng.normal(0.0, 1.0, (n, 2)),
                     pref_velocity_mps=rng.normal(0.0, 1.5, (n, 2)),
                     radius_m=rng.uniform(0.2, 1.0, n), max_speed_mps=rng.uniform(0.5, 2.5, n),
                     neighbor_dist_m=rng.uniform(2.0, 10.0, n),
                     max_neighbors=rng.integers(0, 12, n))
    return crowd


def _steps(crowd: Crowd, small: bool, monkeypatch: pytest.MonkeyPatch, steps: int) -> list:
    if not small:
        monkeypatch.setattr(crowd_module, "solve_small_crowd", lambda *args: None)
    out = []
    for _ in range(steps):
        diag = crowd.step()
        out.append([np.asarray(a).tobytes() for a in (
            diag.selected, diag.line_point, diag.line_dir, diag.valid, diag.feasible,
            diag.fail_line, diag.num_hard, diag.stalled_steps, crowd.agent_neighbor_idx,
            crowd.obstacle_neighbor_idx, crowd.position)]
                   + [np.asarray(a).shape for a in (diag.line_point, crowd.agent_neighbor_idx,
                                                    crowd.obstacle_neighbor_idx)])
    monkeypatch.undo()
    return out


@pytest.mark.parametrize("n, spread_m", [(1, 5.0), (40, 3.0), (300, 30.0), (900, 300.0)])
def test_small_crowd_solve_equals_the_general_path(monkeypatch, n, spread_m):
    for seed in range(3):
        small = _crowd(np.random.default_rng(seed), n, spread_m)
        general = _crowd(np.random.default_rng(seed), n, spread_m)
        assert _steps(small, True, monkeypatch, 4) == _steps(general, False, monkeypatch, 4)


def test_small_crowd_without_neighbours_and_integer_arrays(monkeypatch):
    for case in range(3):
        rng = np.random.default_rng(100 + case)
        crowds = [_crowd(rng, 50, 8.0), _crowd(np.random.default_rng(100 + case), 50, 8.0)]
        for crowd in crowds:
            if case == 0:
                crowd.max_neighbors = np.zeros(50, dtype=np.int64)
            elif case == 1:
                crowd.neighbor_dist = np.zeros(50)
            else:
                crowd.radius = np.ones(50, dtype=np.int64)
                crowd.max_speed = np.full(50, 2, dtype=np.int32)
        assert (_steps(crowds[0], True, monkeypatch, 2)
                == _steps(crowds[1], False, monkeypatch, 2))


def _lines(crowd: Crowd, small: bool, monkeypatch: pytest.MonkeyPatch) -> list:
    if not small:
        monkeypatch.setattr(crowd_module, "small_crowd_lines", lambda *args: None)
    lines = crowd.compute_lines()
    monkeypatch.undo()
    arrays = (*lines, crowd.agent_neighbor_idx, crowd.obstacle_neighbor_idx)
    return [(a.dtype, a.shape, np.asarray(a).tobytes()) for a in arrays]


@pytest.mark.parametrize("n, spread_m", [(1, 5.0), (40, 3.0), (300, 30.0), (900, 300.0)])
def test_small_crowd_lines_equal_the_general_path(monkeypatch, n, spread_m):
    for seed in range(3):
        small = _crowd(np.random.default_rng(seed), n, spread_m)
        general = _crowd(np.random.default_rng(seed), n, spread_m)
        for _ in range(3):
            assert _lines(small, True, monkeypatch) == _lines(general, False, monkeypatch)
            small.step()
            general.step()


def test_small_crowd_lines_without_neighbours_and_integer_arrays(monkeypatch):
    for case in range(3):
        crowds = [_crowd(np.random.default_rng(200 + case), 50, 8.0) for _ in range(2)]
        for crowd in crowds:
            if case == 0:
                crowd.max_neighbors = np.zeros(50, dtype=np.int64)
            elif case == 1:
                crowd.neighbor_dist = np.zeros(50)
            else:
                crowd.radius = np.ones(50, dtype=np.int64)
                crowd.velocity = np.round(crowd.velocity).astype(np.int32)
        assert _lines(crowds[0], True, monkeypatch) == _lines(crowds[1], False, monkeypatch)
