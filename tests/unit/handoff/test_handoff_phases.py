"""Handoff phases, the transition table, the AtBoundary verdict and route completion (H1, H8,
H10)."""

from __future__ import annotations

import pytest

from navproof.core.errors import InvalidInput, ObligationViolation
from navproof.handoff.phases import (
    LEGAL_TRANSITIONS,
    MOVER_OWNED,
    Phase,
    RouteStatus,
    boundary_verdict,
    check_at_boundary,
    check_transition,
    is_legal_transition,
    parse_phase,
    route_completion,
)

EDGE = {"edge_normal": (1.0, 0.0), "edge_offset_m": 0.0, "stop_speed_threshold_mps": 0.01}


def test_the_nominal_cycle_is_legal():
    cycle = [Phase.FOLLOWING, Phase.APPROACHING, Phase.STOPPING, Phase.AT_BOUNDARY,
             Phase.ADOPTING, Phase.FOLLOWING]
    for old, new in zip(cycle, cycle[1:], strict=False):
        check_transition(old, new)
    check_transition(Phase.STOPPING, Phase.APPROACHING)
    check_transition(Phase.APPROACHING, Phase.AT_BOUNDARY)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (Phase.STOPPING, Phase.ADOPTING),  # skipping AtBoundary from a saved target (H8)
        (Phase.APPROACHING, Phase.ADOPTING),
        (Phase.FOLLOWING, Phase.AT_BOUNDARY),
        (Phase.APPROACHING, Phase.FOLLOWING),  # following never resumes mid-curve
        (Phase.CANCELLING, Phase.APPROACHING),
        (Phase.FAILURE, Phase.FOLLOWING),
    ],
)
def test_illegal_transitions_raise_h1(old, new):
    assert not is_legal_transition(old, new)
    with pytest.raises(ObligationViolation) as info:
        check_transition(old, new)
    assert info.value.claim_id == "H1"


def test_failure_is_terminal_and_every_phase_has_a_row():
    assert set(LEGAL_TRANSITIONS) == set(Phase)
    assert LEGAL_TRANSITIONS[Phase.FAILURE] == frozenset()
    assert Phase.FOLLOWING not in MOVER_OWNED and Phase.APPROACHING in MOVER_OWNED


def test_parse_phase_rejects_unknown_names():
    assert parse_phase("AtBoundary") is Phase.AT_BOUNDARY
    with pytest.raises(InvalidInput):
        parse_phase("Arrived")


def test_at_boundary_needs_the_foot_on_the_edge_and_stopped():
    verdict = boundary_verdict(foot_xy_m=(0.0, 0.3), velocity_xy_mps=(0.0, 0.0), **EDGE)
    assert verdict.at_boundary
    check_at_boundary(verdict, assert_mode=True)


def test_sliding_along_the_edge_is_not_stopped():
    verdict = boundary_verdict(foot_xy_m=(0.0, 0.0), velocity_xy_mps=(0.0, 0.2), **EDGE)
    assert verdict.on_edge and not verdict.stopped and not verdict.at_boundary
    assert verdict.speed_margin_mps == pytest.approx(0.01 - 0.2, abs=1e-8)
    with pytest.raises(ObligationViolation) as info:
        check_at_boundary(verdict, assert_mode=True)
    assert info.value.claim_id == "H1" and info.value.margin < 0
    check_at_boundary(verdict, assert_mode=False)


def test_a_foot_short_of_the_edge_is_not_at_the_boundary():
    verdict = boundary_verdict(foot_xy_m=(-0.001, 0.0), velocity_xy_mps=(0.0, 0.0), **EDGE)
    assert verdict.stopped and not verdict.on_edge
    assert verdict.edge_margin_m < 0


def test_boundary_verdict_rejects_non_finite_input():
    with pytest.raises(InvalidInput):
        boundary_verdict(foot_xy_m=(float("nan"), 0.0), velocity_xy_mps=(0.0, 0.0), **EDGE)


def test_route_completion_never_fakes_an_arrival():
    kwargs = {"arrival_velocity_threshold_mps": 0.05}
    assert route_completion(velocity_diff_xy_mps=(0.0, 0.0), contact_stable=True,
                            target_reached=True, **kwargs) is RouteStatus.ARRIVED
    assert route_completion(velocity_diff_xy_mps=(0.0, 0.06), contact_stable=True,
                            target_reached=True, **kwargs) is RouteStatus.RUNNING
    assert route_completion(velocity_diff_xy_mps=(0.0, 0.0), contact_stable=False,
                            target_reached=True, **kwargs) is RouteStatus.RUNNING
    assert route_completion(velocity_diff_xy_mps=(0.0, 0.0), contact_stable=True,
                            target_reached=False, **kwargs) is RouteStatus.RUNNING
    assert route_completion(velocity_diff_xy_mps=(0.0, 0.0), contact_stable=True,
                            target_reached=True, failed=True, **kwargs) is RouteStatus.FAILURE
