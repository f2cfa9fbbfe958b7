"""RVO2's own example scenarios (Circle, Blocks) run to the goal on the ORCA crowd.

Parameters are the examples': Circle has 250 agents on a ring of radius 200 m heading to the
antipodes (neighbour distance 15 m, 10 neighbours, horizons 10 s / 10 s, radius 1.5 m, speed
2 m/s); Blocks has 100 agents in four 5 x 5 blocks around four square obstacles heading to the
opposite block (neighbour distance 15 m, 10 neighbours, horizons 5 s / 5 s, radius 2 m, speed
2 m/s), preferred velocities perturbed by at most 1e-4 m/s as in the example. Time step 0.25 s.
Claims: O2, O3, O4, O5, O6, checked every step with assertion mode on (KKT certificate).

The reference semantics minimise the largest violation when an agent's constraints have no
common point (linearProgram3); such degraded solves can let discs overlap, and in the Circle's
central jam the reference itself overlaps by up to about 0.6 m. So the overlap test is the one
ORCA guarantees: two agents that see each other and both solved feasibly never overlap after
the step (O3, and O6 for a pair that already overlapped), and any overlap at all happens only
in steps with agents labelled degraded (O4).
"""

from __future__ import annotations

import numpy as np
import pytest

from navproof.orca.crowd import AgentDefaults, Crowd

OVERLAP_TOL_M = 1e-6


def _preferred(crowd: Crowd, goals: np.ndarray, rng: np.random.Generator | None) -> None:
    vec = goals - crowd.position
    dist = np.hypot(vec[:, 0], vec[:, 1])
    pref = vec * np.where(dist > 1.0, 1.0 / np.maximum(dist, 1e-300), 1.0)[:, None]
    if rng is not None:
        angle = rng.uniform(0.0, 2.0 * np.pi, len(pref))
        amount = rng.uniform(0.0, 1e-4, len(pref))
        pref += amount[:, None] * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    crowd.set_pref_velocities(pref)


def _guaranteed_pair_clearance(crowd: Crowd, feasible: np.ndarray) -> float:
    """Smallest clearance (m) after a step between mutual neighbours that both solved feasibly."""
    nb = crowd.agent_neighbor_idx
    n = crowd.num_agents
    rows, cols = np.nonzero(nb >= 0)
    i, j = rows, nb[rows, cols]
    mutual = np.isin(i * n + j, j * n + i)
    sel = mutual & feasible[i] & feasible[j]
    if not sel.any():
        return np.inf
    i, j = i[sel], j[sel]
    dist = np.hypot(*(crowd.position[i] - crowd.position[j]).T)
    return float(np.min(dist - crowd.radius[i] - crowd.radius[j]))


def _min_clearance(crowd: Crowd) -> float:
    """Smallest centre distance minus combined radius over all pairs (m)."""
    pos = crowd.position
    diff = pos[:, None, :] - pos[None, :, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    comb = crowd.radius[:, None] + crowd.radius[None, :]
    np.fill_diagonal(dist, np.inf)
    return float(np.min(dist - comb))


def _square_penetration(pos: np.ndarray, radius: np.ndarray, squares: list[tuple]) -> float:
    """Largest depth (m) by which an agent disc enters an axis-aligned square obstacle."""
    worst = -np.inf
    for x0, x1, y0, y1 in squares:
        cx = np.clip(pos[:, 0], x0, x1)
        cy = np.clip(pos[:, 1], y0, y1)
        gap = np.hypot(pos[:, 0] - cx, pos[:, 1] - cy)
        inside = (pos[:, 0] > x0) & (pos[:, 0] < x1) & (pos[:, 1] > y0) & (pos[:, 1] < y1)
        depth = np.where(inside, np.inf, radius - gap)
        worst = max(worst, float(depth.max()))
    return worst


@pytest.mark.slow
def test_circle_250_agents_reach_antipodes() -> None:
    n = 250
    crowd = Crowd(0.25, defaults=AgentDefaults(15.0, 10, 10.0, 10.0, 1.5, 2.0), assertions=True)
    angle = 2.0 * np.pi * np.arange(n) / n
    start = 200.0 * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    crowd.add_agents(start)
    goals = -start
    _run_to_goal(crowd, goals, None, arrive_m=crowd.radius, max_steps=6000)


def _run_to_goal(crowd: Crowd, goals: np.ndarray, rng: np.random.Generator | None, *,
                 arrive_m: np.ndarray | float, max_steps: int,
                 squares: list[tuple] | None = None) -> None:
    worst_guaranteed = np.inf
    worst_any = np.inf
    worst_obstacle = -np.inf
    for step in range(max_steps):
        _preferred(crowd, goals, rng)
        before = _min_clearance(crowd)
        diag = crowd.step()
        worst_guaranteed = min(worst_guaranteed, _guaranteed_pair_clearance(crowd, diag.feasible))
        after = _min_clearance(crowd)
        worst_any = min(worst_any, after)
        if after < min(before, 0.0) - OVERLAP_TOL_M:
            assert not diag.feasible.all(), f"overlap grew at step {step} with all solves feasible"
        if squares is not None:
            worst_obstacle = max(worst_obstacle,
                                 _square_penetration(crowd.position, crowd.radius, squares))
        gap = np.hypot(*(crowd.position - goals).T)
        if np.all(gap <= arrive_m):
            break
    assert np.all(gap <= arrive_m), f"{int(np.sum(gap > arrive_m))} agents short after {step} steps"
    assert worst_guaranteed >= -OVERLAP_TOL_M, f"feasible pair overlap {worst_guaranteed} m"
    assert worst_any > -0.5 * float(crowd.radius.min()), f"degraded overlap {worst_any} m"
    assert worst_obstacle <= OVERLAP_TOL_M, f"obstacle penetration {worst_obstacle} m"


@pytest.mark.slow
def test_blocks_100_agents_pass_the_obstacles() -> None:
    crowd = Crowd(0.25, defaults=AgentDefaults(15.0, 10, 5.0, 5.0, 2.0, 2.0), assertions=True)
    start = []
    for i in range(5):
        for j in range(5):
            start += [(55.0 + i * 10.0, 55.0 + j * 10.0), (-55.0 - i * 10.0, 55.0 + j * 10.0),
                      (55.0 + i * 10.0, -55.0 - j * 10.0), (-55.0 - i * 10.0, -55.0 - j * 10.0)]
    start_arr = np.array(start)
    crowd.add_agents(start_arr)
    goals = -start_arr
    crowd.add_obstacle([(-10.0, 40.0), (-40.0, 40.0), (-40.0, 10.0), (-10.0, 10.0)])
    crowd.add_obstacle([(10.0, 40.0), (10.0, 10.0), (40.0, 10.0), (40.0, 40.0)])
    crowd.add_obstacle([(10.0, -40.0), (40.0, -40.0), (40.0, -10.0), (10.0, -10.0)])
    crowd.add_obstacle([(-10.0, -40.0), (-10.0, -10.0), (-40.0, -10.0), (-40.0, -40.0)])
    squares = [(-40.0, -10.0, 10.0, 40.0), (10.0, 40.0, 10.0, 40.0), (10.0, 40.0, -40.0, -10.0),
               (-40.0, -10.0, -40.0, -10.0)]
    rng = np.random.default_rng(2008)
    _run_to_goal(crowd, goals, rng, arrive_m=20.0, max_steps=7000, squares=squares)
