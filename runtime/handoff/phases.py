"""Phases of a slope handoff, their legal transitions, and the boundary and completion verdicts.

A handoff moves ``Following -> Approaching -> Stopping -> AtBoundary -> Adopting -> Following``;
``Cancelling`` brakes and releases the mover on an abandoned handoff and ``Failure`` ends it.
``AtBoundary`` needs the actual foot on the common edge and the body stopped (H1); route
completion never reports an arrival that the actual velocity and contact do not support (H10).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from navproof.core.errors import InvalidInput, ObligationViolation, assertions_enabled
from navproof.core.tolerances import EPS


class Phase(StrEnum):
    """One phase of the handoff state machine (Claim: H1)."""

    FOLLOWING = "Following"
    APPROACHING = "Approaching"
    STOPPING = "Stopping"
    AT_BOUNDARY = "AtBoundary"
    ADOPTING = "Adopting"
    CANCELLING = "Cancelling"
    FAILURE = "Failure"


# Approaching: an access curve owns the mover. Stopping: braking, or stopped and waiting for
# re-validation after an interruption. A retry goes back to Approaching from the actual stop point.
LEGAL_TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.FOLLOWING: frozenset({Phase.APPROACHING}),
    Phase.APPROACHING: frozenset({Phase.STOPPING, Phase.AT_BOUNDARY, Phase.CANCELLING}),
    Phase.STOPPING: frozenset(
        {Phase.APPROACHING, Phase.AT_BOUNDARY, Phase.CANCELLING, Phase.FAILURE}
    ),
    Phase.AT_BOUNDARY: frozenset({Phase.ADOPTING, Phase.STOPPING, Phase.CANCELLING, Phase.FAILURE}),
    Phase.ADOPTING: frozenset(
        {Phase.FOLLOWING, Phase.AT_BOUNDARY, Phase.STOPPING, Phase.CANCELLING}
    ),
    Phase.CANCELLING: frozenset({Phase.FAILURE}),
    Phase.FAILURE: frozenset(),
}

# Phases in which the handoff owns the mover and ordinary following is paused (H4).
MOVER_OWNED: frozenset[Phase] = frozenset(
    {Phase.APPROACHING, Phase.STOPPING, Phase.AT_BOUNDARY, Phase.ADOPTING, Phase.CANCELLING}
)
TERMINAL: frozenset[Phase] = frozenset({Phase.FOLLOWING, Phase.FAILURE})


def parse_phase(value: str) -> Phase:
    """The phase named ``value`` (as stored in a record); InvalidInput for an unknown name."""
    try:
        return Phase(value)
    except ValueError:
        raise InvalidInput("phase", value, f"must be one of {[p.value for p in Phase]}") from None


def is_legal_transition(old: Phase, new: Phase) -> bool:
    """True when ``old -> new`` is in the transition table (Claim: H1, H8)."""
    return new in LEGAL_TRANSITIONS[old]


def check_transition(old: Phase, new: Phase) -> None:
    """Raise ObligationViolation (H1) for a transition the table does not allow.

    Skipping ``AtBoundary`` (for example ``Stopping -> Adopting`` from a saved target, H8) or
    resuming ordinary following from the middle of an access curve are such transitions.
    """
    if not is_legal_transition(old, new):
        raise ObligationViolation(
            "H1",
            f"illegal handoff transition {old.value} -> {new.value}",
            observed=new.value,
            limit=sorted(p.value for p in LEGAL_TRANSITIONS[old]),
            data={"from": old.value, "to": new.value},
        )


def _finite_vector(field: str, value: object) -> np.ndarray:
    vec = np.asarray(value, dtype=float)
    if vec.shape != (2,) or not np.all(np.isfinite(vec)):
        raise InvalidInput(field, value, "must be a finite 2-vector")
    return vec


@dataclass(frozen=True)
class BoundaryVerdict:
    """Whether the actual state may be recorded as ``AtBoundary``, with signed margins.

    ``edge_margin_m`` is the position tolerance minus the foot's distance to the common edge and
    ``speed_margin_mps`` the stop threshold minus the full actual speed (sliding along the edge
    counts); both must be >= 0. Claim: H1.
    """

    on_edge: bool
    stopped: bool
    edge_margin_m: float
    speed_margin_mps: float

    @property
    def at_boundary(self) -> bool:
        return self.on_edge and self.stopped


def boundary_verdict(
    *,
    foot_xy_m: object,
    velocity_xy_mps: object,
    edge_normal: object,
    edge_offset_m: float,
    stop_speed_threshold_mps: float,
    position_tolerance_m: float = EPS,
) -> BoundaryVerdict:
    """Distance of the actual foot to the common edge ``dot(n, x) = b`` [m] and its full speed
    [m/s] against the tolerances, as a verdict (Claim: H1).

    The position tolerance only recognises a foot already on the edge; it never authorises
    moving the body onto it. The speed is the full velocity relative to the stop reference, so a
    foot sliding along the edge is not stopped.
    """
    foot = _finite_vector("foot_xy_m", foot_xy_m)
    velocity = _finite_vector("velocity_xy_mps", velocity_xy_mps)
    normal = _finite_vector("edge_normal", edge_normal)
    if not math.isfinite(edge_offset_m):
        raise InvalidInput("edge_offset_m", edge_offset_m, "must be finite")
    if not (math.isfinite(stop_speed_threshold_mps) and stop_speed_threshold_mps >= 0):
        raise InvalidInput("stop_speed_threshold_mps", stop_speed_threshold_mps, "must be >= 0")
    distance_m = abs(float(normal @ foot) - edge_offset_m)
    speed_mps = float(np.hypot(*velocity))
    edge_margin_m = position_tolerance_m - distance_m
    speed_margin_mps = stop_speed_threshold_mps + EPS - speed_mps
    return BoundaryVerdict(
        on_edge=edge_margin_m >= 0,
        stopped=speed_margin_mps >= 0,
        edge_margin_m=edge_margin_m,
        speed_margin_mps=speed_margin_mps,
    )


def check_at_boundary(verdict: BoundaryVerdict, *, assert_mode: bool | None = None) -> None:
    """Raise ObligationViolation (H1) in assertion mode when ``AtBoundary`` would be recorded for
    a state that is off the edge or still moving."""
    if not assertions_enabled(assert_mode) or verdict.at_boundary:
        return
    margin = min(verdict.edge_margin_m, verdict.speed_margin_mps)
    raise ObligationViolation(
        "H1",
        "AtBoundary needs the actual foot on the common edge and stopped",
        observed={
            "edge_margin_m": verdict.edge_margin_m,
            "speed_margin_mps": verdict.speed_margin_mps,
        },
        limit=0.0,
        margin=margin,
    )


class RouteStatus(StrEnum):
    """What route completion may report (Claim: H10)."""

    RUNNING = "Running"
    ARRIVED = "Arrived"
    FAILURE = "Failure"


def route_completion(
    *,
    velocity_diff_xy_mps: object,
    contact_stable: bool,
    arrival_velocity_threshold_mps: float,
    target_reached: bool,
    failed: bool = False,
) -> RouteStatus:
    """Route status from the full velocity difference to the target frame [m/s] and the ground
    contact (Claim: H10).

    ``Arrived`` needs the target reached, the full velocity difference within the threshold and
    stable contact; a failed handoff is ``Failure``; anything else is ``Running``. The status is
    never promoted to an arrival that the actual state does not show.
    """
    diff = _finite_vector("velocity_diff_xy_mps", velocity_diff_xy_mps)
    if failed:
        return RouteStatus.FAILURE
    within = float(np.hypot(*diff)) <= arrival_velocity_threshold_mps + EPS
    if target_reached and within and contact_stable:
        return RouteStatus.ARRIVED
    return RouteStatus.RUNNING
