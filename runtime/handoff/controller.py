"""The slope handoff controller: access attempts, interruption, retries, deadline, adoption and
crash recovery, driven by actual feedback and made durable by the action record.

The controller owns the mover from the first ``Approaching`` until ``Following`` on the new
patch or ``Failure``. Each physics step it hands the mover one command (a displacement and end
velocity computed from the generated access-curve and brake formulas) tagged with the run
epoch, action ID, attempt number and motion; the displacement the mover reports back is
accepted only when those tags are current. Decisions are committed to the record before they
take effect; the body is only ever moved by commands, never set to a position.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from navproof._generated import formulas
from navproof.boundary.slope import SlopeBudget, slope_factor
from navproof.core.errors import EPS, InvalidInput, ObligationViolation, assertions_enabled
from navproof.handoff.access import (
    AccessCurve,
    BrakeMotion,
    CurveMotion,
    brake_from_velocity,
    check_stop_within,
    plan_interrupt,
    stop_guarantee,
)
from navproof.handoff.phases import (
    MOVER_OWNED,
    TERMINAL,
    BoundaryVerdict,
    Phase,
    RouteStatus,
    boundary_verdict,
    check_at_boundary,
    check_transition,
    parse_phase,
    route_completion,
)
from navproof.handoff.record import ActionRow, ActionSpec, HandoffRecord, MotionTags

@dataclass(frozen=True)
class HandoffParams:
    """Controller parameters, read from a profile (units in the names)."""

    tick_s: float
    step_s: float
    max_access_attempts: int
    handoff_deadline_ticks: int
    access_speed_cap_mps: float
    access_accel_mps2: float
    stop_speed_threshold_mps: float
    arrival_velocity_threshold_mps: float
    surface_speed_cap_mps: float
    brake_budget_mps2: float
    reaction_s: float = 0.0

    @classmethod
    def from_profile(cls, profile: Any = None, **overrides: float) -> HandoffParams:
        """Defaults of ``profile`` (the embedded default when None), each override checked
        against the profile's range."""
        if profile is None:
            from navproof.specs.profile import load_profile

            profile = load_profile()
        defaults = profile.defaults()
        values: dict[str, Any] = {}
        for name in (
            "tick_s", "step_s", "max_access_attempts", "handoff_deadline_ticks",
            "access_speed_cap_mps", "access_accel_mps2", "stop_speed_threshold_mps",
            "arrival_velocity_threshold_mps", "surface_speed_cap_mps", "brake_budget_mps2",
        ):
            value = overrides.get(name, defaults[name])
            try:
                profile.check_value(name, float(value))
            except ValueError as exc:
                raise InvalidInput(name, value, str(exc)) from None
            values[name] = value
        values["max_access_attempts"] = int(values["max_access_attempts"])
        values["handoff_deadline_ticks"] = int(values["handoff_deadline_ticks"])
        reaction_s = float(overrides.get("reaction_s", 0.0))
        if not (math.isfinite(reaction_s) and reaction_s >= 0):
            raise InvalidInput("reaction_s", reaction_s, "must be finite and >= 0")
        typed: dict[str, Any] = {
            k: (v if isinstance(v, int) else float(v)) for k, v in values.items()
        }
        return cls(**typed, reaction_s=reaction_s)


@dataclass(frozen=True)
class Versions:
    """Versions the handoff is registered against (Claim: H2)."""

    p: int
    q: int
    edge: int
    support: int
    nav: int


@dataclass(frozen=True)
class HandoffTarget:
    """Original patch P, neighbour patch Q, their common edge ``dot(n, x) = b`` (n points from P
    into Q) and Q's planar gradient and support velocity."""

    action_id: str
    p_patch: str
    q_patch: str
    edge_id: str
    edge_normal_xy: tuple[float, float]
    edge_offset_m: float
    support_id: str
    q_support_id: str
    q_gradient_xy: tuple[float, float]
    q_support_velocity_xy_mps: tuple[float, float]
    versions: Versions
    p_gradient_xy: tuple[float, float] = (0.0, 0.0)

    @property
    def normal(self) -> np.ndarray:
        return np.asarray(self.edge_normal_xy, dtype=float)


@dataclass(frozen=True)
class Feedback:
    """Actual state of the body from the world: pose, world velocity, contact and support."""

    time_s: float
    position_xy_m: tuple[float, float]
    velocity_xy_mps: tuple[float, float]
    contact_patch: str | None
    support_id: str | None
    contact_stable: bool = True

    @property
    def valid(self) -> bool:
        values = (self.time_s, *self.position_xy_m, *self.velocity_xy_mps)
        return all(math.isfinite(float(v)) for v in values)

    @property
    def position(self) -> np.ndarray:
        return np.asarray(self.position_xy_m, dtype=float)

    @property
    def velocity(self) -> np.ndarray:
        return np.asarray(self.velocity_xy_mps, dtype=float)

    @property
    def speed_mps(self) -> float:
        return float(np.hypot(*self.velocity))

    def as_record(self) -> dict[str, Any]:
        return {
            "time_s": self.time_s,
            "x_m": float(self.position_xy_m[0]),
            "y_m": float(self.position_xy_m[1]),
            "vx_mps": float(self.velocity_xy_mps[0]),
            "vy_mps": float(self.velocity_xy_mps[1]),
            "contact": self.contact_patch,
            "support": self.support_id,
        }


@dataclass(frozen=True)
class Snapshot:
    """What the environment says at a logical tick: obstacle and map versions, validity of the
    target and the support, whether the foot's contact with Q passes the step rules, and a sweep
    test of a straight access segment."""

    obstacle_version: int
    versions: Versions
    target_valid: bool
    support_valid: bool
    q_contact_ok: bool
    sweep_clear: Callable[[np.ndarray, np.ndarray], bool]


@dataclass(frozen=True)
class MotionCommand:
    """One physics step for the mover: displacement [m] and end velocity [m/s], with its tags."""

    tags: MotionTags
    step_index: int
    t0_s: float
    t1_s: float
    displacement_xy_m: tuple[float, float]
    end_velocity_xy_mps: tuple[float, float]


@dataclass(frozen=True)
class StepReport:
    """What the mover reports after a step: the displacement it executed, under the tags of the
    command it executed, and the actual state afterwards."""

    tags: MotionTags
    step_index: int
    t0_s: float
    t1_s: float
    displacement_xy_m: tuple[float, float]
    feedback: Feedback


@dataclass(frozen=True)
class HandoffEvent:
    """One entry of the controller's timeline."""

    time_s: float
    tick: int
    phase: str
    kind: str
    message: str
    position_xy_m: tuple[float, float]
    speed_mps: float


def check_attempt_budget(*, attempt_no: int, max_attempts: int, tick: int, deadline_tick: int,
                         assert_mode: bool | None = None) -> None:
    """Raise ObligationViolation (H5) in assertion mode when an access attempt would be
    registered beyond the attempt budget [count] or at or after the deadline [ticks]."""
    if not assertions_enabled(assert_mode):
        return
    if attempt_no > max_attempts:
        raise ObligationViolation(
            "H5", "access attempt beyond the per-handoff budget", observed=attempt_no,
            limit=max_attempts, margin=float(max_attempts - attempt_no),
        )
    if tick >= deadline_tick:
        raise ObligationViolation(
            "H5", "access attempt at or after the handoff deadline", observed=tick,
            limit=deadline_tick - 1, margin=float(deadline_tick - 1 - tick),
        )


def _vec(value: Any) -> list[float]:
    return [float(v) for v in np.asarray(value, dtype=float)]


def _xy(value: Any) -> tuple[float, float]:
    x, y = _vec(value)
    return x, y


class HandoffController:
    """Handoff state machine of one action (Claim: H1–H10, A3–A5, V1).

    Build with :meth:`begin` (a new handoff) or :meth:`recover` (after a process restart). Per
    physics step call :meth:`tick` with the actual feedback and environment snapshot, then
    :meth:`command`, hand the command to the mover and pass its report to :meth:`accept`.

    ``on_dispatch(attempt_no)``, when given, is called after an attempt is durably registered
    and before it is dispatched: the one point where a crash must leave the attempt registered
    but never dispatched (H7), so a caller can observe or interrupt it there.
    """

    def __init__(self, record: HandoffRecord, target: HandoffTarget, params: HandoffParams,
                 *, epoch: int, assert_mode: bool | None = None,
                 listener: Callable[[HandoffEvent], None] | None = None,
                 on_dispatch: Callable[[int], None] | None = None) -> None:
        self.record = record
        self.listener = listener
        self.on_dispatch = on_dispatch
        self.target = target
        self.params = params
        self.epoch = epoch
        self.assert_mode = assertions_enabled(assert_mode)
        self.events: list[HandoffEvent] = []
        self._motion: CurveMotion | BrakeMotion | None = None
        self._motion_kind = "none"
        self._expected_velocity = np.zeros(2)
        self._last_fb: Feedback | None = None
        self._tick = 0
        self._wait_logged_version: int | None = None
        self._guarantee_voided = False
        self._now_s = 0.0

    # --- construction -----------------------------------------------------------------------

    @classmethod
    def begin(
        cls, record: HandoffRecord, target: HandoffTarget, params: HandoffParams, *,
        epoch: int, tick: int, feedback: Feedback, snapshot: Snapshot,
        assert_mode: bool | None = None, listener: Callable[[HandoffEvent], None] | None = None,
        on_dispatch: Callable[[int], None] | None = None,
    ) -> HandoffController:
        """Register a new handoff: ``Following -> Approaching`` with the deadline counted from
        this tick and the attempt budget of the profile; the first access attempt is registered
        and dispatched when the body is at rest, otherwise it brakes first (Claim: H1, H5)."""
        if not feedback.valid:
            raise InvalidInput("feedback", feedback, "must be finite to begin a handoff")
        ctrl = cls(record, target, params, epoch=epoch, assert_mode=assert_mode,
                   listener=listener, on_dispatch=on_dispatch)
        ctrl._tick = tick
        spec = ActionSpec(
            action_id=target.action_id,
            p_patch=target.p_patch, p_version=target.versions.p,
            q_patch=target.q_patch, q_version=target.versions.q,
            edge_id=target.edge_id, edge_version=target.versions.edge,
            support_id=target.support_id, support_version=target.versions.support,
            nav_version=target.versions.nav,
            edge_normal_xy=target.edge_normal_xy, edge_offset_m=target.edge_offset_m,
            first_approach_tick=tick,
            deadline_tick=tick + params.handoff_deadline_ticks,
            max_attempts=params.max_access_attempts,
        )
        check_transition(Phase.FOLLOWING, Phase.APPROACHING)
        record.create_action(
            spec, epoch=epoch, phase=Phase.APPROACHING.value, patch=target.p_patch,
            obstacle_version=snapshot.obstacle_version, time_s=feedback.time_s,
            detail={"position_xy_m": _vec(feedback.position), "params": asdict(params)},
        )
        ctrl._last_fb = feedback
        ctrl._expected_velocity = feedback.velocity
        ctrl._event("approach", feedback,
                    f"Following -> Approaching: handoff {target.action_id} to {target.q_patch}, "
                    f"deadline tick {spec.deadline_tick}, at most {spec.max_attempts} curves")
        if feedback.speed_mps <= params.stop_speed_threshold_mps:
            ctrl._register_and_dispatch(feedback, snapshot, from_phase=Phase.APPROACHING)
        else:
            ctrl._start_brake(feedback)
            ctrl._decide("approach-brake", feedback, updates={"current_motion": "brake"},
                         message="braking to rest before the access curve")
        return ctrl

    @classmethod
    def recover(
        cls, record: HandoffRecord, target: HandoffTarget, params: HandoffParams, *,
        epoch: int, tick: int, feedback: Feedback, snapshot: Snapshot,
        assert_mode: bool | None = None, listener: Callable[[HandoffEvent], None] | None = None,
        on_dispatch: Callable[[int], None] | None = None,
    ) -> HandoffController:
        """Resume an action after a process restart (Claim: H7, H8).

        Ordinary following stays off; saved curves are void (registered or dispatched attempts
        are marked void and never dispatched or accepted again); the body brakes from its actual
        velocity; the deadline and the attempts used are the stored ones. The recovery decision
        (with the last decision it read) is committed before any motion is dispatched. The body
        is never moved to a saved position, and ``AtBoundary`` is kept only when the actual foot
        is on the edge and stopped.
        """
        row = record.load(target.action_id)
        ctrl = cls(record, target, params, epoch=epoch, assert_mode=assert_mode,
                   listener=listener, on_dispatch=on_dispatch)
        ctrl._tick = tick
        ctrl._last_fb = feedback
        ctrl._expected_velocity = feedback.velocity if feedback.valid else np.zeros(2)
        phase = parse_phase(row.phase)
        if phase in TERMINAL:
            ctrl._event("recover", feedback, f"action already ended in {phase.value}")
            return ctrl
        last = record.last_decision(target.action_id)
        voided = [a.attempt_no for a in record.attempts(target.action_id)
                  if a.state in ("registered", "dispatched")]
        if not feedback.valid:
            ctrl._decide(
                "recover", feedback,
                new_phase=Phase.CANCELLING if phase != Phase.CANCELLING else None,
                updates={"current_epoch": epoch, "current_motion": "none",
                         "fault": "stop not confirmable: no valid feedback after restart"},
                attempt_states={n: "void" for n in voided},
                detail={"previous_phase": phase.value, "voided_attempts": voided},
                message="recovery without valid feedback: Cancelling, fault reported",
            )
            return ctrl
        verdict = ctrl._verdict(feedback)
        if phase in (Phase.AT_BOUNDARY, Phase.ADOPTING) and verdict.at_boundary:
            new_phase = Phase.AT_BOUNDARY
        elif phase == Phase.CANCELLING:
            new_phase = Phase.CANCELLING
        else:
            new_phase = Phase.STOPPING
        moving = feedback.speed_mps > params.stop_speed_threshold_mps
        detail = {
            "previous_phase": phase.value,
            "previous_epoch": row.current_epoch,
            "last_decision": None if last is None else
            {"id": last.id, "kind": last.kind, "run_epoch": last.run_epoch},
            "actual_position_xy_m": _vec(feedback.position),
            "actual_velocity_xy_mps": _vec(feedback.velocity),
            "voided_attempts": voided,
            "deadline_tick": row.deadline_tick,
            "attempts_used": row.attempts_used,
            "attempts_left": row.attempts_left,
            "brake_from_actual_velocity": moving,
        }
        message = (
            f"recovered from {phase.value} (epoch {row.current_epoch} -> {epoch}); saved curves "
            f"void {voided or '[]'}; deadline tick {row.deadline_tick}, "
            f"{row.attempts_left} attempt(s) left; "
            + ("braking from the actual velocity" if moving else "body at rest where it is")
        )
        ctrl._decide(
            "recover", feedback, new_phase=new_phase if new_phase != phase else None,
            updates={"current_epoch": epoch, "current_motion": "brake" if moving else "none"},
            attempt_states={n: "void" for n in voided}, detail=detail, message=message,
        )
        if moving:
            ctrl._start_brake(feedback)
        ctrl._guarantee_voided = ctrl._signed_edge_distance_m(feedback) > EPS
        return ctrl

    # --- state --------------------------------------------------------------------------------

    @property
    def row(self) -> ActionRow:
        return self.record.load(self.target.action_id)

    @property
    def phase(self) -> Phase:
        return parse_phase(self.row.phase)

    @property
    def done(self) -> bool:
        return self.phase in TERMINAL

    def route_status(self) -> RouteStatus:
        """Route status of the handoff: never an arrival, only Running or Failure (Claim: H10)."""
        fb = self._last_fb
        diff = np.zeros(2) if fb is None or not fb.valid else (
            fb.velocity - np.asarray(self.target.q_support_velocity_xy_mps, dtype=float)
        )
        return route_completion(
            velocity_diff_xy_mps=diff,
            contact_stable=bool(fb is not None and fb.contact_stable),
            arrival_velocity_threshold_mps=self.params.arrival_velocity_threshold_mps,
            target_reached=False,
            failed=self.phase == Phase.FAILURE,
        )

    # --- helpers ------------------------------------------------------------------------------

    def _event(self, kind: str, fb: Feedback | None, message: str) -> None:
        fb = fb if fb is not None and fb.valid else self._last_fb
        pos = (math.nan, math.nan) if fb is None else _xy(fb.position)
        speed = math.nan if fb is None else fb.speed_mps
        self.events.append(HandoffEvent(
            time_s=math.nan if fb is None else float(fb.time_s), tick=self._tick,
            phase=self.row.phase, kind=kind, message=message,
            position_xy_m=pos, speed_mps=speed,
        ))
        if self.listener is not None:
            self.listener(self.events[-1])

    def _decide(self, kind: str, fb: Feedback | None, *, new_phase: Phase | None = None,
                updates: dict[str, Any] | None = None,
                attempt_states: dict[int, str] | None = None,
                new_attempt: dict[str, Any] | None = None,
                detail: dict[str, Any] | None = None, message: str = "") -> ActionRow:
        updates = dict(updates or {})
        if new_phase is not None:
            check_transition(parse_phase(self.row.phase), new_phase)
            updates["phase"] = new_phase.value
        time_s = float(fb.time_s) if fb is not None and fb.valid else (
            float(self._last_fb.time_s) if self._last_fb is not None else 0.0)
        row = self.record.decide(
            self.target.action_id, epoch=self.epoch, tick=self._tick, time_s=time_s, kind=kind,
            updates=updates, attempt_states=attempt_states, new_attempt=new_attempt,
            detail=detail,
        )
        self._event(kind, fb, message or kind)
        return row

    def _verdict(self, fb: Feedback) -> BoundaryVerdict:
        return boundary_verdict(
            foot_xy_m=fb.position, velocity_xy_mps=fb.velocity,
            edge_normal=self.target.normal, edge_offset_m=self.target.edge_offset_m,
            stop_speed_threshold_mps=self.params.stop_speed_threshold_mps,
        )

    def _signed_edge_distance_m(self, fb: Feedback) -> float:
        """dot(n, x) - b: negative inside P, positive beyond the common edge (in Q)."""
        return float(self.target.normal @ fb.position) - self.target.edge_offset_m

    def _brake_accel_mps2(self, fb: Feedback) -> float:
        """Braking magnitude on the patch the foot actually touches: P's access magnitude, or
        its horizontal share on Q (Claim: V1, H8)."""
        if fb.contact_patch == self.target.q_patch:
            return float(formulas.horizontal_cap(surface_cap=self.params.access_accel_mps2,
                                                 k=self._q_slope_factor()))
        return self.params.access_accel_mps2

    def _q_slope_factor(self) -> float:
        """k of Q from its planar gradient (Claim: V1)."""
        return float(slope_factor(np.asarray(self.target.q_gradient_xy, dtype=float)))

    def _start_brake(self, fb: Feedback) -> None:
        self._motion = brake_from_velocity(
            fb.velocity, accel_mps2=self._brake_accel_mps2(fb), start_time_s=fb.time_s
        )
        self._motion_kind = "brake"

    def _release(self) -> None:
        self._motion = None
        self._motion_kind = "none"

    # --- attempts -----------------------------------------------------------------------------

    def _register_and_dispatch(self, fb: Feedback, snap: Snapshot, *, from_phase: Phase) -> None:
        """Register a new attempt from the ACTUAL stop point to the nearest edge point, commit
        it (identity, endpoints, pieces) and only then dispatch it (Claim: H5, H6, H7)."""
        row = self.row
        attempt_no = row.attempts_used + 1
        check_attempt_budget(attempt_no=attempt_no, max_attempts=row.max_attempts,
                             tick=self._tick, deadline_tick=row.deadline_tick,
                             assert_mode=self.assert_mode)
        start = fb.position
        distance_m = -self._signed_edge_distance_m(fb)
        end = start + distance_m * self.target.normal
        curve = AccessCurve.plan(
            distance_m, vcap_mps=self.params.access_speed_cap_mps,
            accel_mps2=self.params.access_accel_mps2,
        )
        pieces = curve.pieces_s()
        self._decide(
            "register-attempt", fb,
            new_phase=Phase.APPROACHING if from_phase != Phase.APPROACHING else None,
            updates={"attempts_used": attempt_no, "current_attempt": attempt_no,
                     "current_motion": "none", "obstacle_version": snap.obstacle_version},
            new_attempt={
                "attempt_no": attempt_no, "start_x_m": start[0], "start_y_m": start[1],
                "end_x_m": end[0], "end_y_m": end[1], "length_m": curve.length_m,
                "accel_s": pieces["accel_s"], "cruise_s": pieces["cruise_s"],
                "brake_s": pieces["brake_s"], "total_s": pieces["total_s"],
            },
            detail={"attempt_no": attempt_no, "length_m": curve.length_m,
                    "peak_speed_mps": curve.peak_speed_mps, **pieces},
            message=(
                f"attempt {attempt_no}/{row.max_attempts} registered from the actual stop point: "
                f"d = {curve.length_m:.4f} m; {curve.accel_time_s:.4f} s up to "
                f"{curve.peak_speed_mps:.4f} m/s over {curve.position_m(curve.accel_time_s):.4f} m"
                f", {curve.cruise_time_s:.4f} s cruise, {curve.accel_time_s:.4f} s down (A1/A2)"
            ),
        )
        if self.on_dispatch is not None:
            self.on_dispatch(attempt_no)
        self.record.mark_dispatched(self.target.action_id, attempt_no, epoch=self.epoch,
                                    tick=self._tick, time_s=fb.time_s)
        self._motion = CurveMotion(curve, origin_xy_m=start, tangent_xy=self.target.normal,
                                   start_time_s=fb.time_s)
        self._motion_kind = "curve"
        self._event("dispatch", fb, f"attempt {attempt_no} dispatched; the curve owns the mover")

    def _interrupt(self, fb: Feedback, snap: Snapshot, reason: str) -> None:
        """Invalidate the running attempt, keep the mover, brake at once (Claim: A4, A5, H4, H6)."""
        motion = self._motion
        assert isinstance(motion, CurveMotion)
        t_local = motion.local_time_s(fb.time_s)
        travelled_m = float(self.target.normal @ (fb.position - motion.origin_xy_m))
        plan = plan_interrupt(motion.curve, t_local, speed_mps=fb.speed_mps,
                              travelled_m=travelled_m, reaction_s=self.params.reaction_s)
        check_stop_within(stop_point_m=plan.stop_point_m, length_m=motion.curve.length_m,
                          assert_mode=self.assert_mode and plan.guarantee.guaranteed)
        if plan.keeps_scheduled_deceleration:
            self._motion_kind = "brake"
        else:
            self._start_brake(fb)
        stop_xy = motion.origin_xy_m + plan.stop_point_m * motion.tangent_xy
        with_reaction = motion.origin_xy_m[0] + motion.curve.stop_point_m(
            t_local, reaction_s=self.params.step_s) * motion.tangent_xy[0]
        attempt_no = self.row.current_attempt
        how = ("the scheduled deceleration is kept (H4)" if plan.keeps_scheduled_deceleration
               else "immediate brake along the tangent")
        guarantee = ("" if plan.guarantee.guaranteed else
                     f"; NO STOP GUARANTEE: short by {-plan.guarantee.margin_m:.4f} m (A5)")
        self._decide(
            "interrupt", fb, new_phase=Phase.STOPPING if self.phase != Phase.STOPPING else None,
            updates={"current_motion": "brake", "obstacle_version": snap.obstacle_version},
            attempt_states={attempt_no: "interrupted"},
            detail={"reason": reason, "curve_time_s": t_local, "travelled_m": travelled_m,
                    "stop_point_xy_m": _vec(stop_xy),
                    "kept_scheduled_deceleration": plan.keeps_scheduled_deceleration,
                    "stop_guaranteed": plan.guarantee.guaranteed,
                    "stop_margin_m": plan.guarantee.margin_m},
            message=(
                f"{reason}: attempt {attempt_no} invalidated; {how}, stop point "
                f"X = {stop_xy[0]:.4f} (A4); with a {self.params.step_s:g} s reaction step it "
                f"would be X = {with_reaction:.4f} (A5){guarantee}"
            ),
        )

    def _cancel(self, fb: Feedback, reason: str, *, fault: str | None = None) -> None:
        """Abandon the handoff: brake from the actual velocity, then release the mover and end in
        ``Failure`` once the stop is confirmed (Claim: H5, H6)."""
        row = self.row
        states = {}
        if row.current_attempt:
            state = next((a.state for a in self.record.attempts(row.action_id)
                          if a.attempt_no == row.current_attempt), None)
            if state in ("registered", "dispatched"):
                states[row.current_attempt] = "interrupted"
        moving = fb.valid and fb.speed_mps > self.params.stop_speed_threshold_mps
        if fb.valid and (moving or self._motion is not None):
            self._start_brake(fb)
        elif not fb.valid and self._motion is not None:
            # no trustworthy state: brake what the last command left the body with
            self._motion = brake_from_velocity(
                self._expected_velocity, accel_mps2=self.params.access_accel_mps2,
                start_time_s=self._now_s,
            )
            self._motion_kind = "brake"
        updates: dict[str, Any] = {"current_motion": self._motion_kind}
        if fault:
            updates["fault"] = fault
        self._decide("cancel", fb, new_phase=Phase.CANCELLING, updates=updates,
                     attempt_states=states, detail={"reason": reason, "fault": fault},
                     message=f"Cancelling: {reason}" + (f"; FAULT: {fault}" if fault else ""))
        self._finish_cancel(fb)

    def _finish_cancel(self, fb: Feedback) -> None:
        """In ``Cancelling``: once the actual stop is confirmed, release the mover and fail;
        a stop that cannot be confirmed keeps ``Cancelling`` and reports a fault (Claim: H6)."""
        if not fb.valid:
            if self.row.fault is None:
                self._decide("fault", fb, updates={"fault": "stop not confirmable: no valid "
                                                            "feedback"},
                             message="FAULT: stop not confirmable (no valid feedback); "
                                     "staying in Cancelling")
            return
        stopped = fb.speed_mps <= self.params.stop_speed_threshold_mps + EPS
        brake_done = self._motion is None or self._motion.finished(fb.time_s)
        if stopped and brake_done:
            self._release()
            self._decide("release", fb, new_phase=Phase.FAILURE,
                         updates={"current_motion": "none", "fault": None},
                         message="stopped; mover released; handoff Failure")
        elif brake_done and not stopped:
            fault = f"stop not confirmable: actual speed {fb.speed_mps:.4f} m/s after the brake"
            if self.row.fault != fault:
                self._decide("fault", fb, updates={"fault": fault},
                             message=f"FAULT: {fault}; staying in Cancelling")

    # --- per-tick logic -----------------------------------------------------------------------

    def tick(self, tick: int, feedback: Feedback, snapshot: Snapshot) -> None:
        """Process one logical tick with the actual feedback and environment (Claim: H1–H9)."""
        self._tick = tick
        row = self.row
        phase = parse_phase(row.phase)
        if phase in TERMINAL:
            return
        fb = feedback
        if phase == Phase.CANCELLING:
            self._finish_cancel(fb)
            return
        if not fb.valid:
            self._cancel(fb, "invalid feedback", fault="stop not confirmable: no valid feedback")
            return
        self._last_fb = fb
        if tick >= row.deadline_tick:
            self._cancel(fb, f"deadline expired (tick {tick} >= {row.deadline_tick}, counted "
                             f"from the first Approaching at tick {row.first_approach_tick})")
            return
        if self._guarantee_void(fb, phase):
            return
        phase = self.phase
        if self._motion_kind == "curve" and snapshot.obstacle_version != row.obstacle_version:
            self._interrupt(fb, snapshot, f"obstacle version {row.obstacle_version} -> "
                                          f"{snapshot.obstacle_version}")
            return
        if (phase == Phase.APPROACHING and isinstance(self._motion, CurveMotion)
                and self._motion.curve.in_scheduled_deceleration(
                    self._motion.local_time_s(fb.time_s))
                and not self._motion.finished(fb.time_s)):
            self._decide("scheduled-deceleration", fb, new_phase=Phase.STOPPING,
                         message=f"attempt {row.current_attempt} in its scheduled deceleration: "
                                 "Stopping (the curve keeps the mover, H4)")
        if self._motion is not None and self._motion.finished(fb.time_s):
            kind = self._motion_kind
            self._release()
            if kind == "curve":
                self._decide("curve-complete", fb, attempt_states={row.current_attempt:
                                                                   "completed"},
                             updates={"current_motion": "none"},
                             message=f"attempt {row.current_attempt} curve complete")
            else:
                self._decide("brake-complete", fb, updates={"current_motion": "none"},
                             message="brake complete")
        if self._motion is not None:
            return
        phase = self.phase
        stopped = fb.speed_mps <= self.params.stop_speed_threshold_mps + EPS
        if phase in (Phase.APPROACHING, Phase.STOPPING) and stopped:
            verdict = self._verdict(fb)
            if verdict.at_boundary:
                check_at_boundary(verdict, assert_mode=self.assert_mode)
                self._decide("at-boundary", fb, new_phase=Phase.AT_BOUNDARY,
                             detail={"edge_margin_m": verdict.edge_margin_m,
                                     "speed_margin_mps": verdict.speed_margin_mps},
                             message="actual foot on the common edge and stopped: AtBoundary")
            else:
                self._revalidate(fb, snapshot)
                return
        if self.phase == Phase.AT_BOUNDARY:
            self._adopt(fb, snapshot)

    def _guarantee_void(self, fb: Feedback, phase: Phase) -> bool:
        """Crossing, support change or a velocity the commands do not explain before the stop:
        record the actual contact, support and velocity, stop the old motion and brake from the
        actual velocity; no snapping back, no clamp counted as braking (Claim: H8)."""
        if phase not in (Phase.APPROACHING, Phase.STOPPING, Phase.AT_BOUNDARY):
            return False
        # Once void, the brake from the actual velocity owns the body; only a new deviation
        # from what it commands re-triggers.
        crossed = self._signed_edge_distance_m(fb) > EPS and not self._guarantee_voided
        support_changed = (fb.support_id not in (None, self.target.support_id)
                           and not self._guarantee_voided)
        deviation = float(np.hypot(*(fb.velocity - self._expected_velocity)))
        overspeed = deviation > self.params.stop_speed_threshold_mps + EPS
        if not (crossed or support_changed or overspeed):
            return False
        self._guarantee_voided = True
        causes = [c for c, hit in (("crossed the common edge", crossed),
                                   ("support changed", support_changed),
                                   ("velocity not explained by the commands", overspeed)) if hit]
        row = self.row
        states = {}
        if self._motion_kind == "curve" and row.current_attempt:
            states[row.current_attempt] = "interrupted"
        self._start_brake(fb)
        guarantee = stop_guarantee(
            remaining_m=max(-self._signed_edge_distance_m(fb), 0.0), speed_mps=fb.speed_mps,
            accel_mps2=self._brake_accel_mps2(fb),
        )
        detail = {"causes": causes, "actual_position_xy_m": _vec(fb.position),
                  "actual_velocity_xy_mps": _vec(fb.velocity), "contact": fb.contact_patch,
                  "support": fb.support_id, "old_guarantee": "void",
                  "stop_guaranteed": guarantee.guaranteed, "stop_margin_m": guarantee.margin_m}
        self._decide(
            "guarantee-void", fb, new_phase=Phase.STOPPING if phase != Phase.STOPPING else None,
            updates={"current_motion": "brake"}, attempt_states=states, detail=detail,
            message=(f"{', '.join(causes)} before the stop: old guarantee void; actual contact "
                     f"{fb.contact_patch}, support {fb.support_id}; braking from the actual "
                     f"velocity (H8)"
                     + ("" if guarantee.guaranteed else
                        f"; NO STOP GUARANTEE before the edge: short by "
                        f"{-guarantee.margin_m:.4f} m (A5)")),
        )
        self._expected_velocity = fb.velocity
        return True

    def _revalidate(self, fb: Feedback, snap: Snapshot) -> None:
        """Stopped short of the edge: cancel, register a new attempt from the actual stop point,
        or stay stopped until the next tick or obstacle-version change (Claim: H5, H6, H8)."""
        row = self.row
        if self._signed_edge_distance_m(fb) > EPS:
            self._cancel(fb, f"stopped beyond the common edge in {fb.contact_patch}; no "
                             "snapping back, no AtBoundary from a saved target (H8)")
            return
        if not snap.target_valid or not snap.support_valid:
            which = "target" if not snap.target_valid else "support"
            self._cancel(fb, f"{which} no longer valid")
            return
        if fb.support_id not in (None, self.target.support_id):
            self._cancel(fb, f"support changed from {self.target.support_id} to "
                             f"{fb.support_id}")
            return
        if row.attempts_used >= row.max_attempts:
            self._cancel(fb, f"attempts exhausted ({row.attempts_used}/{row.max_attempts})")
            return
        end = fb.position - self._signed_edge_distance_m(fb) * self.target.normal
        if snap.sweep_clear(fb.position, end):
            self._register_and_dispatch(fb, snap, from_phase=parse_phase(row.phase))
            return
        if self._wait_logged_version != snap.obstacle_version \
                or snap.obstacle_version != row.obstacle_version:
            self._wait_logged_version = snap.obstacle_version
            self._decide("wait", fb, updates={"obstacle_version": snap.obstacle_version},
                         message=f"stopped at the actual stop point; sweep blocked (obstacle "
                                 f"version {snap.obstacle_version}); re-validating every tick")

    def _adopt(self, fb: Feedback, snap: Snapshot) -> None:
        """Adopt Q: re-validate P, Q, the edge, the support and the navigation version, then
        store new patch, gradient, world end velocity, new support velocity and ``Following``
        together (Claim: H2, H3, H9, V1)."""
        row = self.row
        self._decide("adopting", fb, new_phase=Phase.ADOPTING,
                     message="Adopting: re-validating P, Q, edge, support, navigation")
        versions = snap.versions
        checks = {
            "original_patch": versions.p == row.p_version,
            "neighbour_patch": versions.q == row.q_version,
            "common_edge": versions.edge == row.edge_version,
            "support_surface": versions.support == row.support_version and snap.support_valid,
            "navigation": versions.nav == row.nav_version and snap.target_valid,
        }
        verdict = self._verdict(fb)
        if not verdict.at_boundary:
            self._decide("adoption-aborted", fb, new_phase=Phase.STOPPING,
                         detail={"edge_margin_m": verdict.edge_margin_m,
                                 "speed_margin_mps": verdict.speed_margin_mps},
                         message="actual contact or stop changed during adoption: Stopping (H9)")
            return
        k = self._q_slope_factor()
        k_p = float(slope_factor(np.asarray(self.target.p_gradient_xy, dtype=float)))
        # P's budget governs until the next solve; Q's comes into force with it (V1)
        budget = SlopeBudget.start(
            np.array([k_p]), self.params.surface_speed_cap_mps, self.params.brake_budget_mps2
        ).adopt(np.array([True]), np.array([k]))
        now_speed_cap, now_accel_cap = (float(c[0]) for c in budget.caps())
        speed_cap_mps, accel_cap_mps2 = (float(c[0]) for c in budget.begin_solve().caps())
        world_end = fb.velocity
        new_support = np.asarray(self.target.q_support_velocity_xy_mps, dtype=float)
        # Both are horizontal world velocities: their difference is the horizontal projection of
        # the relative velocity, the solver's variable on Q (zero only when relatively stopped).
        relative = world_end - new_support
        relative_speed_mps = float(np.hypot(*relative))
        checks["start_velocity_in_q_budget"] = relative_speed_mps <= speed_cap_mps + EPS
        checks["q_contact"] = snap.q_contact_ok and fb.contact_stable
        failed = sorted(name for name, ok in checks.items() if not ok)
        if failed:
            self._decide("adoption-incomplete", fb, new_phase=Phase.AT_BOUNDARY,
                         detail={"failed_checks": failed},
                         message=f"handoff incomplete, failed checks {failed} (H2/H3)")
            return
        adoption = {
            "patch": self.target.q_patch,
            "gradient_xy": list(self.target.q_gradient_xy),
            "slope_factor": k,
            "world_end_velocity_xy_mps": _vec(world_end),
            "support_velocity_xy_mps": _vec(new_support),
            "relative_initial_velocity_xy_mps": _vec(relative),
            "horizontal_speed_cap_mps": speed_cap_mps,
            "horizontal_accel_cap_mps2": accel_cap_mps2,
            "budget_applies_from": "next solve",
            "caps_until_next_solve": {"slope_factor": k_p,
                                      "horizontal_speed_cap_mps": now_speed_cap,
                                      "horizontal_accel_cap_mps2": now_accel_cap},
        }
        self._decide(
            "adopt", fb, new_phase=Phase.FOLLOWING,
            updates={"patch": self.target.q_patch, "adoption": adoption,
                     "current_motion": "none"},
            detail=adoption,
            message=(f"adopted {self.target.q_patch}: k = {k:g}, horizontal caps "
                     f"{speed_cap_mps:g} m/s and {accel_cap_mps2:g} m/s^2 from the next solve; "
                     f"relative initial velocity {_vec(relative)} m/s; Following"),
        )

    def owner_patch(self, fb: Feedback) -> str:
        """Patch that owns the foot: the side it is on, or, on the common edge (it belongs to
        both), the patch the handoff record holds (Claim: H9)."""
        signed = self._signed_edge_distance_m(fb)
        if signed < -EPS:
            return self.target.p_patch
        if signed > EPS:
            return self.target.q_patch
        return self.row.patch

    # --- motion -------------------------------------------------------------------------------

    def command(self, step_index: int, t0_s: float, t1_s: float) -> MotionCommand | None:
        """The mover's command for the physics step [t0, t1] (Claim: A3, H4).

        ``None`` once the handoff has ended (the mover is released). While owned and at rest the
        command holds the body (zero displacement).
        """
        row = self.row
        if parse_phase(row.phase) not in MOVER_OWNED:
            return None
        if self._motion is None:
            disp, vel = np.zeros(2), np.zeros(2)
        else:
            disp, vel = self._motion.step(t0_s, t1_s)
        self._expected_velocity = vel
        self._now_s = t1_s
        if self.assert_mode and self._last_fb is not None and self._last_fb.valid:
            self._check_commanded_stays_in_p(self._last_fb.position, disp)
        tags = MotionTags(self.epoch, row.action_id, row.current_attempt, self._motion_kind)
        return MotionCommand(tags, step_index, t0_s, t1_s, _xy(disp), _xy(vel))

    def _check_commanded_stays_in_p(self, start_xy: np.ndarray, disp_xy: np.ndarray) -> None:
        """Assertion mode: a commanded curve or brake step that starts in P never ends beyond
        the common edge before adoption (Claim: A4)."""
        if self.row.patch != self.target.p_patch or self._guarantee_voided:
            return
        start = float(self.target.normal @ start_xy) - self.target.edge_offset_m
        end = start + float(self.target.normal @ disp_xy)
        if start <= EPS and end > EPS:
            raise ObligationViolation(
                "A4", "commanded handoff motion would cross the common edge before adoption",
                observed=end, limit=0.0, margin=-end,
                data={"start_xy_m": _vec(start_xy), "displacement_xy_m": _vec(disp_xy)},
            )

    def accept(self, report: StepReport) -> tuple[bool, str]:
        """Accept or reject the mover's report (current epoch, action, attempt, motion only) and
        store the actual feedback with it (Claim: H7)."""
        accepted, reason = self.record.offer_displacement(
            report.tags, recorded_epoch=self.epoch, step_index=report.step_index,
            t0_s=report.t0_s, t1_s=report.t1_s, displacement_xy_m=report.displacement_xy_m,
            feedback=report.feedback.as_record(),
        )
        if not accepted:
            self._event("reject", report.feedback,
                        f"displacement of step {report.step_index} rejected: {reason} "
                        f"(tags epoch {report.tags.run_epoch}, attempt {report.tags.attempt_no}, "
                        f"{report.tags.motion})")
        self._last_fb = report.feedback
        return accepted, reason


__all__ = [
    "Feedback",
    "HandoffController",
    "HandoffEvent",
    "HandoffParams",
    "HandoffTarget",
    "MotionCommand",
    "Snapshot",
    "StepReport",
    "Versions",
    "check_attempt_budget",
]
