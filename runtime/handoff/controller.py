"""The slope handoff controller: access attempts, interruption, retries, deadline, adoption and
crash recovery, driven by actual feedback and made durable by the action record.

The controller owns the mover from the first ``Approaching`` until ``Following`` on the new
patch or ``Failure``. Each physics step it hands the mover one command (a displacement and end
velocity computed from the generated access-curve and brake formulas) tagged with the run
epoch, action ID, attempt number and motion; the displacement the mover reports back is
accepted only when those tags are current. Decisions are committed to the record before they
take effect; the body is only ever moved by commands, never set to a position.

The controller's values are in :mod:`navproof.handoff.values`. Its state has one owner, the
:class:`~navproof.handoff.context.HandoffContext` (record, target, parameters, epoch, timeline,
motion); the controller composes it with its attempt steps (:mod:`navproof.handoff.attempts`)
and its checks of the actual state (:mod:`navproof.handoff.validity`), each of which receives
the context. This module holds the construction, the tick loop and the mover's side (command and
accept).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict

import numpy as np

from navproof.core.errors import InvalidInput, ObligationViolation
from navproof.core.tolerances import EPS
from navproof.handoff.access import CurveMotion, stop_guarantee
from navproof.handoff.attempts import AttemptSteps
from navproof.handoff.context import HandoffContext
from navproof.handoff.phases import (
    MOVER_OWNED,
    TERMINAL,
    Phase,
    RouteStatus,
    check_at_boundary,
    check_transition,
    parse_phase,
    route_completion,
)
from navproof.handoff.record import ActionRow, ActionSpec, HandoffRecord, MotionTags
from navproof.handoff.validity import ValidityChecks
from navproof.handoff.values import (
    Feedback,
    HandoffEvent,
    HandoffParams,
    HandoffTarget,
    MotionCommand,
    Snapshot,
    StepReport,
    Versions,
    check_attempt_budget,
    vec_list,
    xy_pair,
)


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
        self.ctx = HandoffContext(record, target, params, epoch=epoch, assert_mode=assert_mode,
                                  listener=listener, on_dispatch=on_dispatch)
        self.state = self.ctx.state
        self.attempts = AttemptSteps(self.ctx)
        self.validity = ValidityChecks(self.ctx, self.attempts)

    # --- construction -----------------------------------------------------------------------

    @classmethod
    def begin(
        cls, record: HandoffRecord, target: HandoffTarget, params: HandoffParams, *,
        epoch: int, tick: int, feedback: Feedback, snapshot: Snapshot,
        assert_mode: bool | None = None, listener: Callable[[HandoffEvent], None] | None = None,
        on_dispatch: Callable[[int], None] | None = None,
        brake_budget_mps2: float | None = None,
    ) -> HandoffController:
        """Register a new handoff: ``Following -> Approaching`` with the deadline counted from
        this tick and the attempt budget of the profile; the first access attempt is registered
        and dispatched when the body is at rest, otherwise it brakes first (Claim: H1, H5).

        The brake before the access curve keeps P's budget (seed 000: Approaching and Stopping
        use P's boundaries and budget): it decelerates at ``brake_budget_mps2`` [m/s^2], the
        braking the body's ordinary steps on P counted on to stop before the common edge, when
        that is stronger than the access magnitude. When even that brake cannot stop before
        the edge, the decision says so (no stop guarantee, A5) and A4 does not claim the brake
        (Claim: A4, A5)."""
        if not feedback.valid:
            raise InvalidInput("feedback", feedback, "must be finite to begin a handoff")
        ctrl = cls(record, target, params, epoch=epoch, assert_mode=assert_mode,
                   listener=listener, on_dispatch=on_dispatch)
        ctrl.state.tick = tick
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
            detail={"position_xy_m": vec_list(feedback.position), "params": asdict(params)},
        )
        ctrl.state.last_fb = feedback
        ctrl.state.expected_velocity = feedback.velocity
        ctrl.ctx.event("approach", feedback,
                       f"Following -> Approaching: handoff {target.action_id} to {target.q_patch}, "
                       f"deadline tick {spec.deadline_tick}, at most {spec.max_attempts} curves")
        if feedback.speed_mps <= params.stop_speed_threshold_mps:
            ctrl.attempts.register_and_dispatch(feedback, snapshot, from_phase=Phase.APPROACHING)
        else:
            accel_mps2 = ctrl.ctx.brake_accel_mps2(feedback)
            if brake_budget_mps2 is not None and brake_budget_mps2 > accel_mps2:
                accel_mps2 = float(brake_budget_mps2)
            ctrl.ctx.start_brake(feedback, accel_mps2=accel_mps2)
            guarantee = stop_guarantee(
                remaining_m=max(-ctrl.ctx.signed_edge_distance_m(feedback), 0.0),
                speed_mps=feedback.speed_mps, accel_mps2=accel_mps2)
            ctrl.state.stop_guaranteed = guarantee.guaranteed
            ctrl.ctx.decide(
                "approach-brake", feedback, updates={"current_motion": "brake"},
                detail={"brake_accel_mps2": accel_mps2, "stop_guaranteed": guarantee.guaranteed,
                        "stop_margin_m": guarantee.margin_m},
                message="braking to rest before the access curve" + (
                    "" if guarantee.guaranteed else
                    f"; NO STOP GUARANTEE before the edge: short by "
                    f"{-guarantee.margin_m:.4f} m at {accel_mps2:g} m/s^2 (A5)"))
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
        ctrl.state.tick = tick
        ctrl.state.last_fb = feedback
        ctrl.state.expected_velocity = feedback.velocity if feedback.valid else np.zeros(2)
        phase = parse_phase(row.phase)
        if phase in TERMINAL:
            ctrl.ctx.event("recover", feedback, f"action already ended in {phase.value}")
            return ctrl
        last = record.last_decision(target.action_id)
        voided = [a.attempt_no for a in record.attempts(target.action_id)
                  if a.state in ("registered", "dispatched")]
        if not feedback.valid:
            ctrl.ctx.decide(
                "recover", feedback,
                new_phase=Phase.CANCELLING if phase != Phase.CANCELLING else None,
                updates={"current_epoch": epoch, "current_motion": "none",
                         "fault": "stop not confirmable: no valid feedback after restart"},
                attempt_states={n: "void" for n in voided},
                detail={"previous_phase": phase.value, "voided_attempts": voided},
                message="recovery without valid feedback: Cancelling, fault reported",
            )
            return ctrl
        verdict = ctrl.ctx.verdict(feedback)
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
            "actual_position_xy_m": vec_list(feedback.position),
            "actual_velocity_xy_mps": vec_list(feedback.velocity),
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
        ctrl.ctx.decide(
            "recover", feedback, new_phase=new_phase if new_phase != phase else None,
            updates={"current_epoch": epoch, "current_motion": "brake" if moving else "none"},
            attempt_states={n: "void" for n in voided}, detail=detail, message=message,
        )
        if moving:
            ctrl.ctx.start_brake(feedback)
        ctrl.state.guarantee_voided = ctrl.ctx.signed_edge_distance_m(feedback) > EPS
        return ctrl

    # --- state --------------------------------------------------------------------------------

    @property
    def record(self) -> HandoffRecord:
        """The action record every decision is committed to."""
        return self.ctx.record

    @property
    def target(self) -> HandoffTarget:
        return self.ctx.target

    @property
    def params(self) -> HandoffParams:
        return self.ctx.params

    @property
    def epoch(self) -> int:
        """The run epoch the controller tags its commands with (Claim: H7)."""
        return self.ctx.epoch

    @property
    def assert_mode(self) -> bool:
        return self.ctx.assert_mode

    @property
    def events(self) -> list[HandoffEvent]:
        """The controller's timeline, oldest first."""
        return self.ctx.events

    @property
    def row(self) -> ActionRow:
        """The action's current row in the record."""
        return self.ctx.row

    @property
    def phase(self) -> Phase:
        return self.ctx.phase

    @property
    def done(self) -> bool:
        return self.phase in TERMINAL

    def route_status(self) -> RouteStatus:
        """Route status of the handoff: never an arrival, only Running or Failure (Claim: H10)."""
        fb = self.state.last_fb
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

    # --- per-tick logic -----------------------------------------------------------------------

    def tick(self, tick: int, feedback: Feedback, snapshot: Snapshot) -> None:
        """Process one logical tick with the actual feedback and environment (Claim: H1–H9)."""
        self.state.tick = tick
        row = self.row
        phase = parse_phase(row.phase)
        if phase in TERMINAL:
            return
        fb = feedback
        if phase == Phase.CANCELLING:
            self.attempts.finish_cancel(fb)
            return
        if not fb.valid:
            self.attempts.cancel(fb, "invalid feedback",
                                 fault="stop not confirmable: no valid feedback")
            return
        self.state.last_fb = fb
        if tick >= row.deadline_tick:
            self.attempts.cancel(fb, f"deadline expired (tick {tick} >= {row.deadline_tick}, "
                                     "counted from the first Approaching at tick "
                                     f"{row.first_approach_tick})")
            return
        if self.validity.guarantee_void(fb, phase):
            return
        phase = self.phase
        if self.state.kind == "curve" and snapshot.obstacle_version != row.obstacle_version:
            self.attempts.interrupt(fb, snapshot, f"obstacle version {row.obstacle_version} -> "
                                                  f"{snapshot.obstacle_version}")
            return
        if (phase == Phase.APPROACHING and isinstance(self.state.motion, CurveMotion)
                and self.state.motion.curve.in_scheduled_deceleration(
                    self.state.motion.local_time_s(fb.time_s))
                and not self.state.motion.finished(fb.time_s)):
            self.ctx.decide("scheduled-deceleration", fb, new_phase=Phase.STOPPING,
                            message=f"attempt {row.current_attempt} in its scheduled deceleration: "
                                    "Stopping (the curve keeps the mover, H4)")
        if self.state.motion is not None and self.state.motion.finished(fb.time_s):
            kind = self.state.kind
            self.ctx.release()
            if kind == "curve":
                self.ctx.decide("curve-complete", fb, attempt_states={row.current_attempt:
                                                                      "completed"},
                                updates={"current_motion": "none"},
                                message=f"attempt {row.current_attempt} curve complete")
            else:
                self.ctx.decide("brake-complete", fb, updates={"current_motion": "none"},
                                message="brake complete")
        if self.state.motion is not None:
            return
        phase = self.phase
        stopped = fb.speed_mps <= self.params.stop_speed_threshold_mps + EPS
        if phase in (Phase.APPROACHING, Phase.STOPPING) and stopped:
            verdict = self.ctx.verdict(fb)
            if verdict.at_boundary:
                check_at_boundary(verdict, assert_mode=self.assert_mode)
                self.ctx.decide("at-boundary", fb, new_phase=Phase.AT_BOUNDARY,
                                detail={"edge_margin_m": verdict.edge_margin_m,
                                        "speed_margin_mps": verdict.speed_margin_mps},
                                message="actual foot on the common edge and stopped: AtBoundary")
            else:
                self.validity.revalidate(fb, snapshot)
                return
        if self.phase == Phase.AT_BOUNDARY:
            self.validity.adopt(fb, snapshot)

    def owner_patch(self, fb: Feedback) -> str:
        """Patch that owns the foot: the side it is on, or, on the common edge (it belongs to
        both), the patch the handoff record holds (Claim: H9)."""
        signed = self.ctx.signed_edge_distance_m(fb)
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
        if self.state.motion is None:
            disp, vel = np.zeros(2), np.zeros(2)
        else:
            disp, vel = self.state.motion.step(t0_s, t1_s)
        self.state.expected_velocity = vel
        self.state.now_s = t1_s
        if self.assert_mode and self.state.last_fb is not None and self.state.last_fb.valid:
            self._check_commanded_stays_in_p(self.state.last_fb.position, disp)
        tags = MotionTags(self.epoch, row.action_id, row.current_attempt, self.state.kind)
        return MotionCommand(tags, step_index, t0_s, t1_s, xy_pair(disp), xy_pair(vel))

    def _check_commanded_stays_in_p(self, start_xy: np.ndarray, disp_xy: np.ndarray) -> None:
        """Assertion mode: a commanded curve or brake step that starts in P never ends beyond
        the common edge before adoption, unless it is a brake reported without a stop
        guarantee when it started (Claim: A4, A5)."""
        if self.row.patch != self.target.p_patch or self.state.guarantee_voided \
                or not self.state.stop_guaranteed:
            return
        start = float(self.target.normal @ start_xy) - self.target.edge_offset_m
        end = start + float(self.target.normal @ disp_xy)
        if start <= EPS and end > EPS:
            raise ObligationViolation(
                "A4", "commanded handoff motion would cross the common edge before adoption",
                observed=end, limit=0.0, margin=-end,
                data={"start_xy_m": vec_list(start_xy), "displacement_xy_m": vec_list(disp_xy)},
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
            tags = report.tags
            self.ctx.event("reject", report.feedback,
                           f"displacement of step {report.step_index} rejected: {reason} "
                           f"(tags epoch {tags.run_epoch}, attempt {tags.attempt_no}, "
                           f"{tags.motion})")
        self.state.last_fb = report.feedback
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
