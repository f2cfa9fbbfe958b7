"""The state of one handoff and the operations every part of the controller shares: committing a
decision to the action record, the timeline event, the boundary verdict and the brake
(Claim: H1–H10, V1).

:class:`HandoffContext` is the one owner of the handoff's state: the action record, the target,
the parameters, the run epoch, the timeline and the :class:`MotionState`. The controller
(:mod:`navproof.handoff.controller`), its attempt steps (:mod:`navproof.handoff.attempts`) and
its checks of the actual state (:mod:`navproof.handoff.validity`) each receive the context and
act through it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navproof._generated import formulas
from navproof.boundary.slope import slope_factor
from navproof.core.errors import assertions_enabled
from navproof.handoff.access import BrakeMotion, CurveMotion, brake_from_velocity
from navproof.handoff.phases import (
    BoundaryVerdict,
    Phase,
    boundary_verdict,
    check_transition,
    parse_phase,
)
from navproof.handoff.record import ActionRow, HandoffRecord
from navproof.handoff.values import (
    Feedback,
    HandoffEvent,
    HandoffParams,
    HandoffTarget,
    xy_pair,
)


def _zero_xy() -> np.ndarray:
    return np.zeros(2)


@dataclass
class MotionState:
    """What the controller commands and what it last saw, changed only through its context.

    ``motion`` is the running curve or brake (None when the body is held), ``kind`` its name in
    the motion tags ("curve", "brake" or "none"), ``expected_velocity`` [m/s] the end velocity of
    the last command, ``last_fb`` the last actual feedback, ``tick`` the current logical tick,
    ``now_s`` [s] the end of the last commanded step, ``guarantee_voided`` whether the stop
    guarantee was voided (H8) and ``wait_logged_version`` the obstacle version of the last
    logged wait. ``stop_guaranteed`` is False while the running brake was started with no stop
    guarantee before the common edge (A5: reported when it starts, so A4 does not apply to it).
    """

    motion: CurveMotion | BrakeMotion | None = None
    kind: str = "none"
    expected_velocity: np.ndarray = field(default_factory=_zero_xy)
    last_fb: Feedback | None = None
    tick: int = 0
    now_s: float = 0.0
    guarantee_voided: bool = False
    wait_logged_version: int | None = None
    stop_guaranteed: bool = True


class HandoffContext:
    """The state of one handoff and the operations on it that the controller's parts share."""

    def __init__(self, record: HandoffRecord, target: HandoffTarget, params: HandoffParams,
                 *, epoch: int, assert_mode: bool | None = None,
                 listener: Callable[[HandoffEvent], None] | None = None,
                 on_dispatch: Callable[[int], None] | None = None) -> None:
        self.record = record
        self.target = target
        self.params = params
        self.epoch = epoch
        self.assert_mode = assertions_enabled(assert_mode)
        self.listener = listener
        self.on_dispatch = on_dispatch
        self.events: list[HandoffEvent] = []
        self.state = MotionState()

    @property
    def row(self) -> ActionRow:
        """The action's current row in the record."""
        return self.record.load(self.target.action_id)

    @property
    def phase(self) -> Phase:
        """The action's current phase in the record."""
        return parse_phase(self.row.phase)

    def event(self, kind: str, fb: Feedback | None, message: str) -> None:
        """Append a timeline event at the actual (or last valid) feedback; tell the listener."""
        fb = fb if fb is not None and fb.valid else self.state.last_fb
        pos = (math.nan, math.nan) if fb is None else xy_pair(fb.position)
        speed = math.nan if fb is None else fb.speed_mps
        self.events.append(HandoffEvent(
            time_s=math.nan if fb is None else float(fb.time_s), tick=self.state.tick,
            phase=self.row.phase, kind=kind, message=message,
            position_xy_m=pos, speed_mps=speed,
        ))
        if self.listener is not None:
            self.listener(self.events[-1])

    def decide(self, kind: str, fb: Feedback | None, *, new_phase: Phase | None = None,
               updates: dict[str, Any] | None = None,
               attempt_states: dict[int, str] | None = None,
               new_attempt: dict[str, Any] | None = None,
               detail: dict[str, Any] | None = None, message: str = "") -> ActionRow:
        """Commit a decision (and a checked phase transition) to the record, then log it."""
        updates = dict(updates or {})
        if new_phase is not None:
            check_transition(parse_phase(self.row.phase), new_phase)
            updates["phase"] = new_phase.value
        last_fb = self.state.last_fb
        time_s = float(fb.time_s) if fb is not None and fb.valid else (
            float(last_fb.time_s) if last_fb is not None else 0.0)
        row = self.record.decide(
            self.target.action_id, epoch=self.epoch, tick=self.state.tick, time_s=time_s,
            kind=kind, updates=updates, attempt_states=attempt_states, new_attempt=new_attempt,
            detail=detail,
        )
        self.event(kind, fb, message or kind)
        return row

    def verdict(self, fb: Feedback) -> BoundaryVerdict:
        """Whether the actual foot is on the common edge and stopped (Claim: H1)."""
        return boundary_verdict(
            foot_xy_m=fb.position, velocity_xy_mps=fb.velocity,
            edge_normal=self.target.normal, edge_offset_m=self.target.edge_offset_m,
            stop_speed_threshold_mps=self.params.stop_speed_threshold_mps,
        )

    def signed_edge_distance_m(self, fb: Feedback) -> float:
        """dot(n, x) - b [m]: negative inside P, positive beyond the common edge (in Q)."""
        return float(self.target.normal @ fb.position) - self.target.edge_offset_m

    def brake_accel_mps2(self, fb: Feedback) -> float:
        """Braking magnitude [m/s^2] on the patch the foot actually touches: P's access
        magnitude, or its horizontal share on Q (Claim: V1, H8)."""
        if fb.contact_patch == self.target.q_patch:
            return float(formulas.horizontal_cap(surface_cap=self.params.access_accel_mps2,
                                                 k=self.q_slope_factor()))
        return self.params.access_accel_mps2

    def q_slope_factor(self) -> float:
        """k of Q from its planar gradient (Claim: V1)."""
        return float(slope_factor(np.asarray(self.target.q_gradient_xy, dtype=float)))

    def start_brake(self, fb: Feedback, *, accel_mps2: float | None = None) -> None:
        """Brake from the actual velocity at the actual patch's magnitude, or at ``accel_mps2``
        [m/s^2] when given (Claim: H8)."""
        self.state.motion = brake_from_velocity(
            fb.velocity, accel_mps2=self.brake_accel_mps2(fb) if accel_mps2 is None
            else accel_mps2, start_time_s=fb.time_s
        )
        self.state.kind = "brake"
        self.state.stop_guaranteed = True

    def release(self) -> None:
        """No motion: the body is held (or, after the handoff, released)."""
        self.state.motion = None
        self.state.kind = "none"
        self.state.stop_guaranteed = True
