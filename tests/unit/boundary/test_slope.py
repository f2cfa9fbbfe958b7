"""Slope budgets and the reachable disk (claims V1, V2)."""

import numpy as np
import pytest

from navproof.boundary import slope
from navproof.core.errors import InvalidInput


def test_slope_factor_of_q_is_two_and_caps_halve():
    k = slope.slope_factor(np.array([[np.sqrt(3.0), 0.0], [0.0, 0.0]]))
    assert k.tolist() == pytest.approx([2.0, 1.0])
    vh, ah = slope.horizontal_caps(np.array([4.0, 4.0]), np.array([1.0, 1.0]), k)
    assert vh.tolist() == pytest.approx([2.0, 4.0])
    assert ah.tolist() == pytest.approx([0.5, 1.0])


def test_adopted_budget_applies_only_from_the_next_solve():
    budget = slope.SlopeBudget.start(np.array([1.0, 1.0]), 4.0, 1.0)
    adopted = budget.adopt(np.array([True, False]), np.array([2.0, 2.0]))
    # the step planned before adoption keeps P's budget
    assert adopted.caps()[0].tolist() == pytest.approx([4.0, 4.0])
    nxt = adopted.begin_solve()
    vh, ah = nxt.caps()
    assert vh.tolist() == pytest.approx([2.0, 4.0])
    assert ah.tolist() == pytest.approx([0.5, 1.0])
    assert np.all(np.isnan(nxt.k_pending))


def test_v2_disk_is_centred_at_the_actual_end_velocity():
    centre, radius = slope.reachable_disk(np.array([[0.3, -0.2]]), np.array([1.0]), 0.1)
    assert centre[0].tolist() == [0.3, -0.2]
    assert radius[0] == pytest.approx(0.1)
    inside = slope.reach_margin_mps(np.array([[0.35, -0.2]]), centre, radius)
    outside = slope.reach_margin_mps(np.array([[0.45, -0.2]]), centre, radius)
    assert inside[0] == pytest.approx(0.05) and outside[0] == pytest.approx(-0.05)
    assert slope.speed_margin_mps(np.array([[3.0, 4.0]]), np.array([4.0]))[0] == \
        pytest.approx(-1.0)


def test_bad_budgets_are_refused():
    with pytest.raises(InvalidInput, match="k"):
        slope.SlopeBudget.start(np.array([0.5]), 4.0, 1.0)
    with pytest.raises(InvalidInput, match="surface_accel_cap_mps2"):
        slope.SlopeBudget.start(np.array([1.0]), 4.0, -1.0)
    with pytest.raises(InvalidInput, match="a_active_mps2"):
        slope.reachable_disk(np.zeros((1, 2)), np.array([np.nan]), 0.1)
    with pytest.raises(InvalidInput, match="dt_s"):
        slope.reachable_disk(np.zeros((1, 2)), np.array([1.0]), 0.0)
