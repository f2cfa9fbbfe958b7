"""The access attempts of the handoff controller: register an attempt durably and dispatch it,
interrupt it with an immediate brake, cancel the handoff and finish the cancel (Claim: H5, H6,
H7, A4, A5).

A part of :class:`navproof.handoff.controller.HandoffController`: it receives the handoff's
:class:`~navproof.handoff.context.HandoffContext` (record, target, params, motion, tick) and acts
through it.
"""

from __future__ import annotations

from typing import Any

from navproof.core.tolerances import EPS
from navproof.handoff.access import (
    AccessCurve,
    CurveMotion,
    brake_from_velocity,
    check_stop_within,
    plan_interrupt,
)
from navproof.handoff.context import HandoffContext
from navproof.handoff.phases import Phase
from navproof.handoff.values import Feedback, Snapshot, check_attempt_budget, vec_list


class AttemptSteps:
    """Attempt registration, dispatch, interruption and cancel of one handoff."""

    def __init__(self, ctx: HandoffContext) -> None:
        self.ctx = ctx
        self.state = ctx.state

    def register_and_dispatch(self, fb: Feedback, snap: Snapshot, *, from_phase: Phase) -> None:
        """Register a new attempt from the ACTUAL stop point to the nearest edge point, commit
        it (identity, endpoints, pieces) and only then dispatch it (Claim: H5, H6, H7)."""
        row = self.ctx.row
        attempt_no = row.attempts_used + 1
        check_attempt_budget(attempt_no=attempt_no, max_attempts=row.max_attempts,
                             tick=self.state.tick, deadline_tick=row.deadline_tick,
                             assert_mode=self.ctx.assert_mode)
        start = fb.position
        distance_m = -self.ctx.signed_edge_distance_m(fb)
        end = start + distance_m * self.ctx.target.normal
        curve = AccessCurve.plan(
            distance_m, vcap_mps=self.ctx.params.access_speed_cap_mps,
            accel_mps2=self.ctx.params.access_accel_mps2,
        )
        pieces = curve.pieces_s()
        self.ctx.decide(
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
        if self.ctx.on_dispatch is not None:
            self.ctx.on_dispatch(attempt_no)
        self.ctx.record.mark_dispatched(self.ctx.target.action_id, attempt_no, epoch=self.ctx.epoch,
                                        tick=self.state.tick, time_s=fb.time_s)
        self.state.motion = CurveMotion(curve, origin_xy_m=start, tangent_xy=self.ctx.target.normal,
                                        start_time_s=fb.time_s)
        self.state.kind = "curve"
        self.ctx.event("dispatch", fb, f"attempt {attempt_no} dispatched; the curve owns the mover")

    def interrupt(self, fb: Feedback, snap: Snapshot, reason: str) -> None:
        """Invalidate the running attempt, keep the mover, brake at once (Claim: A4, A5, H4, H6)."""
        motion = self.state.motion
        assert isinstance(motion, CurveMotion)
        t_local = motion.local_time_s(fb.time_s)
        travelled_m = float(self.ctx.target.normal @ (fb.position - motion.origin_xy_m))
        plan = plan_interrupt(motion.curve, t_local, speed_mps=fb.speed_mps,
                              travelled_m=travelled_m, reaction_s=self.ctx.params.reaction_s)
        check_stop_within(stop_point_m=plan.stop_point_m, length_m=motion.curve.length_m,
                          assert_mode=self.ctx.assert_mode and plan.guarantee.guaranteed)
        if plan.keeps_scheduled_deceleration:
            self.state.kind = "brake"
        else:
            self.ctx.start_brake(fb)
        stop_xy = motion.origin_xy_m + plan.stop_point_m * motion.tangent_xy
        with_reaction = motion.origin_xy_m[0] + motion.curve.stop_point_m(
            t_local, reaction_s=self.ctx.params.step_s) * motion.tangent_xy[0]
        attempt_no = self.ctx.row.current_attempt
        how = ("the scheduled deceleration is kept (H4)" if plan.keeps_scheduled_deceleration
               else "immediate brake along the tangent")
        guarantee = ("" if plan.guarantee.guaranteed else
                     f"; NO STOP GUARANTEE: short by {-plan.guarantee.margin_m:.4f} m (A5)")
        self.ctx.decide(
            "interrupt", fb, new_phase=Phase.STOPPING if self.ctx.phase != Phase.STOPPING else None,
            updates={"current_motion": "brake", "obstacle_version": snap.obstacle_version},
            attempt_states={attempt_no: "interrupted"},
            detail={"reason": reason, "curve_time_s": t_local, "travelled_m": travelled_m,
                    "stop_point_xy_m": vec_list(stop_xy),
                    "kept_scheduled_deceleration": plan.keeps_scheduled_deceleration,
                    "stop_guaranteed": plan.guarantee.guaranteed,
                    "stop_margin_m": plan.guarantee.margin_m},
            message=(
                f"{reason}: attempt {attempt_no} invalidated; {how}, stop point "
                f"X = {stop_xy[0]:.4f} (A4); with a {self.ctx.params.step_s:g} s reaction step it "
                f"would be X = {with_reaction:.4f} (A5){guarantee}"
            ),
        )

    def cancel(self, fb: Feedback, reason: str, *, fault: str | None = None) -> None:
        """Abandon the handoff: brake from the actual velocity, then release the mover and end in
        ``Failure`` once the stop is confirmed (Claim: H5, H6)."""
        row = self.ctx.row
        states = {}
        if row.current_attempt:
            state = next((a.state for a in self.ctx.record.attempts(row.action_id)
                          if a.attempt_no == row.current_attempt), None)
            if state in ("registered", "dispatched"):
                states[row.current_attempt] = "interrupted"
        moving = fb.valid and fb.speed_mps > self.ctx.params.stop_speed_threshold_mps
        if fb.valid and (moving or self.state.motion is not None):
            self.ctx.start_brake(fb)
        elif not fb.valid and self.state.motion is not None:
            # no trustworthy state: brake what the last command left the body with
            self.state.motion = brake_from_velocity(
                self.state.expected_velocity, accel_mps2=self.ctx.params.access_accel_mps2,
                start_time_s=self.state.now_s,
            )
            self.state.kind = "brake"
        updates: dict[str, Any] = {"current_motion": self.state.kind}
        if fault:
            updates["fault"] = fault
        self.ctx.decide("cancel", fb, new_phase=Phase.CANCELLING, updates=updates,
                        attempt_states=states, detail={"reason": reason, "fault": fault},
                        message=f"Cancelling: {reason}" + (f"; FAULT: {fault}" if fault else ""))
        self.finish_cancel(fb)

    def finish_cancel(self, fb: Feedback) -> None:
        """In ``Cancelling``: once the actual stop is confirmed, release the mover and fail;
        a stop that cannot be confirmed keeps ``Cancelling`` and reports a fault (Claim: H6)."""
        if not fb.valid:
            if self.ctx.row.fault is None:
                self.ctx.decide("fault", fb, updates={"fault": "stop not confirmable: no valid "
                                                               "feedback"},
                                message="FAULT: stop not confirmable (no valid feedback); "
                                        "staying in Cancelling")
            return
        stopped = fb.speed_mps <= self.ctx.params.stop_speed_threshold_mps + EPS
        brake_done = self.state.motion is None or self.state.motion.finished(fb.time_s)
        if stopped and brake_done:
            self.ctx.release()
            self.ctx.decide("release", fb, new_phase=Phase.FAILURE,
                            updates={"current_motion": "none", "fault": None},
                            message="stopped; mover released; handoff Failure")
        elif brake_done and not stopped:
            fault = f"stop not confirmable: actual speed {fb.speed_mps:.4f} m/s after the brake"
            if self.ctx.row.fault != fault:
                self.ctx.decide("fault", fb, updates={"fault": fault},
                                message=f"FAULT: {fault}; staying in Cancelling")
