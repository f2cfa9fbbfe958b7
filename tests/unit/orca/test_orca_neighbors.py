"""Grid neighbour search equals brute force: k nearest strictly within range, by distance."""

from __future__ import annotations

import numpy as np
import pytest

from navproof.orca.neighbors import agent_neighbors


def _brute(pos, rng_m, maxn):
    n = len(pos)
    k = int(maxn.max()) if n else 0
    out = np.full((n, k), -1)
    for i in range(n):
        d = np.sum((pos - pos[i]) ** 2, axis=1)
        cand = [j for j in np.argsort(d, kind="stable") if j != i and d[j] < rng_m[i] ** 2]
        cand = cand[: maxn[i]]
        out[i, : len(cand)] = cand
    return out


@pytest.mark.parametrize("cells_per_range", [1, 2, 3])
@pytest.mark.parametrize("seed", range(5))
def test_grid_matches_brute_force(seed: int, cells_per_range: int) -> None:
    rng = np.random.default_rng(seed)
    n = 400
    pos = rng.uniform(-50, 50, (n, 2))
    rng_m = rng.uniform(2.0, 12.0, n)
    maxn = rng.integers(0, 12, n)
    idx, dist_sq = agent_neighbors(pos, rng_m, maxn, cells_per_range=cells_per_range)
    expect = _brute(pos, rng_m, maxn)
    np.testing.assert_array_equal(idx, expect)
    ok = idx >= 0
    assert np.all(np.diff(np.where(ok, dist_sq, 1e300), axis=1) >= 0)


def test_sparse_world_uses_binary_search_and_agrees() -> None:
    # agents spread over a huge area: the direct strip table would be too large
    rng = np.random.default_rng(11)
    pos = np.concatenate([rng.uniform(0, 20, (50, 2)), rng.uniform(1e5, 1e5 + 20, (50, 2))])
    idx, _ = agent_neighbors(pos, np.full(100, 5.0), np.full(100, 4))
    np.testing.assert_array_equal(idx, _brute(pos, np.full(100, 5.0), np.full(100, 4)))


def test_range_is_strict() -> None:
    pos = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 2.999]])
    idx, _ = agent_neighbors(pos, np.full(3, 3.0), np.full(3, 5))
    assert idx[0].tolist()[:2] == [2, -1]


def test_zero_max_neighbors_and_empty() -> None:
    pos = np.zeros((3, 2))
    idx, _ = agent_neighbors(pos, np.full(3, 1.0), np.zeros(3, dtype=int))
    assert idx.shape == (3, 0)
    idx, _ = agent_neighbors(np.zeros((0, 2)), np.zeros(0), np.zeros(0, dtype=int))
    assert idx.shape == (0, 0)


def test_coincident_agents_find_each_other() -> None:
    pos = np.zeros((4, 2))
    idx, d = agent_neighbors(pos, np.full(4, 1.0), np.full(4, 3))
    for i in range(4):
        assert sorted(idx[i].tolist()) == sorted(set(range(4)) - {i})
    assert np.all(d == 0)


def test_exact_ties_go_to_the_lower_grid_slot() -> None:
    # a square lattice has four neighbours at each of 5, 7.07 and 10 m: the 10th place is a
    # four-way tie, decided (like the order within every tie) by the grid slot
    from navproof.orca.neighbors import build_grid

    g = np.arange(-6, 7) * 5.0
    pos = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)
    rng_m = np.full(len(pos), 15.0)
    maxn = np.where(np.arange(len(pos)) % 7 == 0, 3, 10)
    idx, _ = agent_neighbors(pos, rng_m, maxn)
    slot = build_grid(pos, rng_m, maxn).slot_of
    for i in range(len(pos)):
        d = np.sum((pos - pos[i]) ** 2, axis=1)
        cand = [j for j in np.lexsort((slot, d)) if j != i and d[j] < 225.0][: maxn[i]]
        assert idx[i, : len(cand)].tolist() == cand
        assert np.all(idx[i, len(cand):] == -1)
