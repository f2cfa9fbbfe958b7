"""Assertion mode: KKT certificate, O1, O4 labelling; violations carry claim, agent, data."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from navproof.core.errors import ObligationViolation
from navproof.orca.crowd import AgentDefaults, Crowd
from navproof.orca.monitor import check_solve, kkt_residual


def _diag():
    crowd = Crowd(0.25, defaults=AgentDefaults(10.0, 5, 2.0, 2.0, 0.5, 2.0), assertions=True)
    crowd.add_agents([(0, 0), (2, 0.1), (30, 30)], velocity=[(1, 0), (-1, 0), (0, 0)],
                     pref_velocity=[(1.5, 0), (-1.5, 0), (0.5, 0.5)])
    return crowd, crowd.compute_new_velocities()


def test_correct_solve_passes() -> None:
    _, diag = _diag()
    check_solve(diag)


def test_suboptimal_velocity_fails_kkt_with_o2() -> None:
    _, diag = _diag()
    sel = diag.selected.copy()
    # still feasible (slower, more room) but not the closest point
    sel[0] *= 0.5
    bad = dataclasses.replace(diag, selected=sel)
    with pytest.raises(ObligationViolation) as err:
        check_solve(bad)
    assert err.value.claim_id == "O2"
    assert err.value.agent == 0
    assert err.value.observed > err.value.limit
    assert err.value.data["lines"]


def test_free_agent_changed_fails_o1() -> None:
    _, diag = _diag()
    sel = diag.selected.copy()
    sel[2] = (0.4, 0.5)
    with pytest.raises(ObligationViolation) as err:
        check_solve(dataclasses.replace(diag, selected=sel))
    assert err.value.claim_id == "O1" and err.value.agent == 2


def test_infeasible_answer_labelled_feasible_fails_o4() -> None:
    _, diag = _diag()
    sel = diag.selected.copy()
    sel[1] = (-1.9, 0.0)   # inside the disk but through the neighbour's line
    with pytest.raises(ObligationViolation) as err:
        check_solve(dataclasses.replace(diag, selected=sel))
    assert err.value.claim_id == "O4" and err.value.agent == 1


def test_false_infeasible_label_fails_o4() -> None:
    _, diag = _diag()
    feasible = diag.feasible.copy()
    fail_line = diag.fail_line.copy()
    feasible[0] = False
    fail_line[0] = 0
    with pytest.raises(ObligationViolation) as err:
        check_solve(dataclasses.replace(diag, feasible=feasible, fail_line=fail_line))
    assert err.value.claim_id == "O4" and err.value.agent == 0


def test_non_finite_velocity_fails() -> None:
    _, diag = _diag()
    sel = diag.selected.copy()
    sel[0, 0] = np.nan
    with pytest.raises(ObligationViolation):
        check_solve(dataclasses.replace(diag, selected=sel))


def test_overspeed_fails() -> None:
    _, diag = _diag()
    sel = diag.selected.copy()
    sel[2] = (5.0, 0.0)
    with pytest.raises(ObligationViolation) as err:
        check_solve(dataclasses.replace(diag, selected=sel))
    assert err.value.claim_id == "O2" and err.value.limit == 2.0


def test_kkt_residual_corner_and_disk() -> None:
    # x <= 0.5 and y <= 0.25, preferred (1, 1): optimum (0.5, 0.25) with both lines active
    point = np.array([[[0.5, 0.0], [0.0, 0.25]]])
    direction = np.array([[[0.0, 1.0], [-1.0, 0.0]]])
    valid = np.ones((1, 2), bool)
    tol = np.array([1e-9])
    good = kkt_residual(np.array([[1.0, 1.0]]), np.array([[0.5, 0.25]]), np.array([2.0]), point,
                        direction, valid, active_tol=tol)
    assert good[0] == 0.0
    # a point on one line only, away from the corner: residual is the missing component
    bad = kkt_residual(np.array([[1.0, 1.0]]), np.array([[0.5, 0.0]]), np.array([2.0]), point,
                       direction, valid, active_tol=tol)
    np.testing.assert_allclose(bad[0], 1.0)
    # on the speed circle only
    disk = kkt_residual(np.array([[2.0, 0.0]]), np.array([[1.0, 0.0]]), np.array([1.0]),
                        np.zeros((1, 0, 2)), np.zeros((1, 0, 2)), np.zeros((1, 0), bool),
                        active_tol=tol)
    assert disk[0] == 0.0


def test_environment_variable_turns_assertions_on(monkeypatch) -> None:
    monkeypatch.setenv("NAVPROOF_ASSERT", "1")
    assert Crowd(0.25).assertions
    monkeypatch.setenv("NAVPROOF_ASSERT", "0")
    assert not Crowd(0.25).assertions
    assert Crowd(0.25, assertions=True).assertions


def test_kkt_residual_is_the_same_in_threads_and_row_by_row(monkeypatch) -> None:
    from navproof.orca import monitor

    rng = np.random.default_rng(3)
    n, k = 3000, 7
    pref, sel = rng.normal(size=(n, 2)), rng.normal(size=(n, 2))
    sel[::5] = pref[::5]
    speed = np.hypot(sel[:, 0], sel[:, 1])
    max_speed = np.where(np.arange(n) % 3 == 0, speed, speed + 1.0)
    point, direction = rng.normal(size=(n, k, 2)), rng.normal(size=(n, k, 2))
    valid = rng.random((n, k)) < 0.8
    tol = np.full(n, 0.2)
    runs = []
    for threads in (1, 2):
        monkeypatch.setattr(monitor, "thread_count", lambda work, least, t=threads: t)
        runs.append(kkt_residual(pref, sel, max_speed, point, direction, valid, active_tol=tol))
    assert runs[0].tobytes() == runs[1].tobytes()
    assert np.any(runs[0] > 0.0) and np.any(runs[0] == 0.0)
    for i in range(0, n, 97):
        one = kkt_residual(pref[i:i + 1], sel[i:i + 1], max_speed[i:i + 1], point[i:i + 1],
                           direction[i:i + 1], valid[i:i + 1], active_tol=tol[i:i + 1])
        assert one[0] == runs[0][i]
