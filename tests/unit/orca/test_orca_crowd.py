"""Crowd simulator: input validation (state unchanged), agents in and out, diagnostics.

Claims: O1 (free agent keeps its preferred velocity), O4 (diagnostics of degraded solves).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from navproof.core.errors import InvalidInput
from navproof.orca.crowd import AgentDefaults, Crowd


def _crowd() -> Crowd:
    crowd = Crowd(0.25, defaults=AgentDefaults(10.0, 5, 2.0, 2.0, 0.5, 1.0))
    crowd.add_agents([(0.0, 0.0), (5.0, 0.0), (20.0, 20.0)],
                     pref_velocity=[(1.0, 0.0), (-1.0, 0.0), (0.3, 0.4)])
    return crowd


def _state(crowd: Crowd) -> dict:
    return {k: copy.deepcopy(v) for k, v in vars(crowd).items() if isinstance(v, np.ndarray)}


def _assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


@pytest.mark.parametrize("kwargs, field", [
    ({"position": [(float("nan"), 0.0)]}, "position[0, 0]"),
    ({"position": [(0.0, float("inf"))]}, "position[0, 1]"),
    ({"position": [(0.0, 0.0)], "radius": -1.0}, "radius[0]"),
    ({"position": [(0.0, 0.0)], "max_speed": -0.1}, "max_speed[0]"),
    ({"position": [(0.0, 0.0)], "time_horizon": 0.0}, "time_horizon[0]"),
    ({"position": [(0.0, 0.0)], "time_horizon_obst": -2.0}, "time_horizon_obst[0]"),
    ({"position": [(0.0, 0.0)], "neighbor_dist": float("nan")}, "neighbor_dist"),
    ({"position": [(0.0, 0.0)], "max_neighbors": 2.5}, "max_neighbors[0]"),
    ({"position": [(0.0, 0.0)], "velocity": [(0.0, float("nan"))]}, "velocity[0, 1]"),
    ({"position": [(0.0, 0.0, 0.0)]}, "position"),
])
def test_bad_agent_input_names_field_and_changes_nothing(kwargs, field) -> None:
    crowd = _crowd()
    before = _state(crowd)
    with pytest.raises(InvalidInput) as err:
        crowd.add_agents(**kwargs)
    assert err.value.field == field
    assert "must" in err.value.rule
    _assert_same(before, _state(crowd))


def test_bad_time_step() -> None:
    for value in (0.0, -0.1, float("nan")):
        with pytest.raises(InvalidInput):
            Crowd(value)
    crowd = _crowd()
    with pytest.raises(InvalidInput) as err:
        crowd.set_time_step(0.0)
    assert err.value.field == "time_step"
    assert crowd.time_step == 0.25


def test_unknown_agent_index_is_index_error_naming_it() -> None:
    crowd = _crowd()
    before = _state(crowd)
    with pytest.raises(IndexError, match=r"agent = 7: no such agent \(0 <= agent < 3\)"):
        crowd.set_agent_vector("pref_velocity", 7, (1.0, 0.0))
    with pytest.raises(IndexError):
        crowd.remove_agent(-1)
    with pytest.raises(IndexError):
        crowd.set_agent_scalar("radius", 3, 1.0)
    _assert_same(before, _state(crowd))


def test_bad_setter_values_keep_state() -> None:
    crowd = _crowd()
    before = _state(crowd)
    with pytest.raises(InvalidInput):
        crowd.set_agent_scalar("radius", 0, -1.0)
    with pytest.raises(InvalidInput):
        crowd.set_agent_vector("velocity", 0, (float("inf"), 0.0))
    with pytest.raises(InvalidInput):
        crowd.set_pref_velocities(np.zeros((2, 2)))
    _assert_same(before, _state(crowd))


def test_bad_obstacle_keeps_state() -> None:
    crowd = _crowd()
    with pytest.raises(InvalidInput):
        crowd.add_obstacle([(0.0, 0.0)])
    assert crowd.obstacles.polygons == []


def test_free_agent_keeps_preferred_velocity() -> None:
    crowd = _crowd()
    diag = crowd.step()
    assert diag.constraint_count[2] == 0
    assert crowd.velocity[2].tolist() == [0.3, 0.4]
    np.testing.assert_allclose(crowd.position[2], [20.075, 20.1])
    assert crowd.global_time == 0.25


def test_remove_agent_shifts_rows() -> None:
    crowd = _crowd()
    crowd.remove_agent(0)
    assert crowd.num_agents == 2
    np.testing.assert_array_equal(crowd.position[0], [5.0, 0.0])
    crowd.step()


def test_obstacle_added_after_steps_takes_effect() -> None:
    crowd = _crowd()
    crowd.step()
    crowd.add_obstacle([(1.0, -1.0), (1.5, -1.0), (1.5, 1.0), (1.0, 1.0)])
    diag = crowd.step()
    assert diag.num_hard[0] >= 1


def test_diagnostics_of_a_squeezed_agent() -> None:
    crowd = Crowd(0.25, defaults=AgentDefaults(5.0, 10, 2.0, 2.0, 1.0, 1.0))
    crowd.add_agents([(0, 0), (2.1, 0), (-2.1, 0), (0, 2.1), (0, -2.1)],
                     velocity=[(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)],
                     pref_velocity=[(1, 0), (-1, 0), (1, 0), (0, -1), (0, 1)])
    diag = crowd.step()
    assert not diag.feasible[0]
    assert not diag.zero_velocity_feasible[0]
    assert diag.max_violation[0] > 0.1
    assert diag.conflicting[0].sum() >= 2
    rec = diag.record(0)
    assert rec.label.startswith("degraded")
    assert rec.constraint_count == 4 and rec.obstacle_constraint_count == 0
    assert rec.snapshot_time_s == 0.0
    text = str(rec)
    assert "degraded" in text and "largest violation" in text
    data = rec.as_dict()
    assert data["conflicting_constraints"] == rec.conflicting_constraints
    with pytest.raises(IndexError):
        diag.record(5)


def test_active_constraints_of_a_feasible_solve() -> None:
    crowd = Crowd(0.25, defaults=AgentDefaults(10.0, 5, 2.0, 2.0, 0.5, 2.0))
    crowd.add_agents([(0, 0), (2, 0)], velocity=[(1, 0), (-1, 0)],
                     pref_velocity=[(1, 0), (-1, 0)])
    diag = crowd.step()
    assert diag.feasible.all()
    assert diag.active[0, 0] and diag.active[1, 0]
    assert not diag.conflicting.any()
    assert diag.zero_velocity_feasible.all()


def test_coincident_neighbours_give_duplicate_lines_and_a_feasible_solve() -> None:
    # ten agents at one point, one 1 m away moving at 1 m/s with a 0.5 m/s cap: its five
    # neighbours give five identical lines 2 vx + vy >= 0.75, which leave the closest point
    # (0.3, 0.15) to its preferred 0 (the C++ reference's answer). The solve is feasible,
    # names no failing or conflicting line and passes the monitor
    crowd = Crowd(0.25, defaults=AgentDefaults(4.0, 5, 2.0, 1.0, 0.5, 2.0), assertions=True)
    crowd.add_agents([(0.0, 0.0)] * 6 + [(0.0, 1.0)] + [(0.0, 0.0)] * 4,
                     velocity_mps=[(0.0, 0.0)] * 6 + [(1.0, 0.0)] + [(0.0, 0.0)] * 4,
                     pref_velocity_mps=[(0.0, 0.0)] * 11, radius_m=0.0,
                     max_speed_mps=[0.0] * 6 + [0.5] + [0.0] * 4)
    diag = crowd.step()
    assert diag.constraint_count[6] == 5
    assert (diag.line_point[6] == [0.5, -0.25]).all()
    assert (diag.line_dir[6] == [0.4472135954999579, -0.8944271909999159]).all()
    assert diag.feasible[6] and diag.fail_line[6] == -1
    assert diag.selected[6].tolist() == [0.3, 0.15]
    assert diag.max_violation[6] == 0.0
    assert not diag.conflicting[6].any()
    assert diag.active[6].all()
    assert not diag.zero_velocity_feasible[6]
    rec = diag.record(6)
    assert rec.label == "feasible" and rec.conflicting_constraints == []


def test_snapshot_is_taken_before_anyone_moves() -> None:
    # agents 0 and 1 are symmetric: with one snapshot their new velocities mirror exactly
    crowd = Crowd(0.25, defaults=AgentDefaults(10.0, 5, 2.0, 2.0, 0.5, 2.0))
    crowd.add_agents([(-1.5, 0.2), (1.5, -0.2)], velocity=[(1, 0), (-1, 0)],
                     pref_velocity=[(1, 0), (-1, 0)])
    crowd.step()
    np.testing.assert_allclose(crowd.velocity[0], -crowd.velocity[1], atol=1e-12)


def test_threaded_pieces_give_the_same_step(monkeypatch) -> None:
    import navproof.orca.crowd as crowd_module

    rng = np.random.default_rng(3)
    pos = rng.uniform(-150, 150, (5000, 2))
    pref = rng.uniform(-2, 2, (5000, 2))
    results = []
    for workers, piece_rows in ((1, 65536), (2, 65536), (3, 65536), (1, 1200), (2, 1700)):
        monkeypatch.setattr(crowd_module, "PIECE_ROWS", piece_rows)
        crowd = Crowd(0.25, workers=workers)
        crowd.add_agents(pos, pref_velocity=pref)
        crowd.add_obstacle([(-5.0, -5.0), (5.0, -5.0), (5.0, 5.0), (-5.0, 5.0)])
        crowd.step()
        diag = crowd.step()
        results.append((crowd.velocity.copy(), diag.constraint_count.copy()))
    for vel, count in results[1:]:
        np.testing.assert_array_equal(vel, results[0][0])
        np.testing.assert_array_equal(count, results[0][1])


@pytest.mark.parametrize("workers", [1, 2])
def test_dense_crowd_gives_the_full_range_neighbours(workers: int) -> None:
    # the crowd answers in pieces (threads with workers > 1): the same rows as one query
    from navproof.orca.neighbors import agent_neighbors

    rng = np.random.default_rng(8)
    pos = rng.uniform(-60, 60, (9000, 2))
    crowd = Crowd(0.25, defaults=AgentDefaults(15.0, 10, 10.0, 10.0, 0.4, 2.0),
                  workers=workers)
    crowd.add_agents(pos)
    crowd.compute_new_velocities()
    expect, _ = agent_neighbors(pos, crowd.neighbor_dist, crowd.max_neighbors)
    np.testing.assert_array_equal(crowd.agent_neighbor_idx, expect)


def test_empty_crowd_and_agents_without_neighbours_step() -> None:
    crowd = Crowd(0.25, assertions=True)
    assert crowd.step().selected.shape == (0, 2)
    crowd.add_agents([(0.0, 0.0), (1.0, 0.0)], max_neighbors=0,
                     pref_velocity=[(1.0, 0.0), (-1.0, 0.0)])
    crowd.step()
    # no agent neighbours: each keeps its preferred velocity even though they approach
    assert crowd.velocity.tolist() == [[1.0, 0.0], [-1.0, 0.0]]
    crowd.add_obstacle([(3.0, -1.0), (4.0, -1.0), (4.0, 1.0), (3.0, 1.0)])
    assert crowd.step().num_hard.tolist() == [1, 1]
    crowd.remove_agent(0)
    crowd.remove_agent(0)
    assert crowd.step().selected.shape == (0, 2)
