"""The handoff controller on the seed's P/Q world: interruption and retry, attempt and deadline
limits, adoption, crossing before the stop, faults and in-process recovery (H1–H10, A4, V1)."""

from __future__ import annotations

import dataclasses
import io
import math

import pytest

from navproof.core.tolerances import EPS
from navproof.demos.pq_handoff.data import default_pq_scenario
from navproof.demos.pq_handoff.run import PQWorld, drive, run_pq_handoff
from navproof.handoff.controller import (
    Feedback,
    HandoffController,
    HandoffParams,
    Snapshot,
    StepReport,
)
from navproof.handoff.phases import Phase, RouteStatus
from navproof.handoff.record import HandoffRecord, MotionTags
from navproof.specs.profile import load_profile

ACTION_ID = default_pq_scenario().action_id
pq_target = default_pq_scenario().target

DEFAULTS = load_profile().defaults()


class Stop(Exception):
    """Ends a drive early, as a process death would (nothing after it runs)."""


def run(tmp_path, **kwargs):
    out = io.StringIO()
    result = run_pq_handoff(db_path=tmp_path / "h.db", out=out, **kwargs)
    record = HandoffRecord.open(tmp_path / "h.db")
    return result, record, out.getvalue()


def rows(result, kind=None, time_s=None):
    return [r for r in result.timeline
            if (kind is None or r["kind"] == kind)
            and (time_s is None or abs(r["time_s"] - time_s) < 1e-9)]


def start(tmp_path, *, world_cls=PQWorld, target=None, params=None, assert_mode=None):
    params = params or HandoffParams.from_profile()
    record = HandoffRecord.open(tmp_path / "h.db")
    world = world_cls(path=tmp_path / "w.json", step_s=params.step_s)
    epoch = record.begin_run("start")
    ctrl = HandoffController.begin(record, target or pq_target(), params, epoch=epoch, tick=0,
                                   feedback=world.feedback(), snapshot=world.snapshot(),
                                   assert_mode=assert_mode)
    return record, world, ctrl, params


def stop_at(time_s, stage="accepted"):
    def on_stage(name, t):
        if name == stage and t >= time_s - 1e-9:
            raise Stop
    return on_stage


def test_seed_handoff_timeline(tmp_path):
    """H1, H6, A4: the seed timeline, from the interruption to Following on Q."""
    result, record, text = run(tmp_path)
    interrupt = rows(result, "interrupt")[0]
    assert interrupt["time_s"] == pytest.approx(0.2)
    assert interrupt["x_m"] == pytest.approx(-0.07)
    assert interrupt["speed_mps"] == pytest.approx(0.2)
    assert "X = -0.0500 (A4)" in interrupt["note"] and "X = -0.0300 (A5)" in interrupt["note"]
    stopped = rows(result, "step", 0.4)[0]
    assert stopped["x_m"] == pytest.approx(-0.05) and stopped["speed_mps"] == 0.0
    retry = [r for r in rows(result, "register-attempt") if "attempt 2" in r["note"]][0]
    assert retry["time_s"] == pytest.approx(0.5) and retry["x_m"] == pytest.approx(-0.05)
    assert "d = 0.0500 m; 0.2236 s up to 0.2236 m/s over 0.0250 m" in retry["note"]
    arrival = rows(result, "step", 1.0)[0]
    assert arrival["x_m"] == pytest.approx(0.0, abs=1e-12)
    assert arrival["speed_mps"] == pytest.approx(0.0, abs=1e-12)
    phases = [r["phase"] for r in result.timeline if r["kind"] != "step"]
    order = [phases.index(p) for p in ("Approaching", "Stopping", "AtBoundary", "Adopting")]
    assert order == sorted(order) and phases[-1] == "Following"
    at = phases.index("AtBoundary")
    assert phases[at - 1] == "Stopping"  # the scheduled deceleration is the Stopping phase
    decel = rows(result, "scheduled-deceleration")[0]
    assert decel["time_s"] == pytest.approx(0.8) and decel["phase"] == "Stopping"
    assert result.final_phase == "Following" and result.exit_code == 0
    assert result.route_status == RouteStatus.RUNNING.value
    assert "AtBoundary" in text and "Following" in text
    record.close()


def test_adoption_stores_q_with_k_2_and_budgets_for_the_next_solve(tmp_path):
    """H2, V1: adoption stores Q, k = 2, velocities and Following together."""
    result, record, _ = run(tmp_path)
    row = record.load(ACTION_ID)
    adoption = result.summary["adoption"]
    assert row.patch == "Q" and row.phase == "Following"
    assert adoption["slope_factor"] == pytest.approx(2.0)
    assert adoption["horizontal_speed_cap_mps"] == pytest.approx(
        DEFAULTS["surface_speed_cap_mps"] / 2)
    assert adoption["horizontal_accel_cap_mps2"] == pytest.approx(
        DEFAULTS["brake_budget_mps2"] / 2)
    assert adoption["relative_initial_velocity_xy_mps"] == [0.0, 0.0]
    assert adoption["budget_applies_from"] == "next solve"
    adopt = [d for d in record.decisions(ACTION_ID) if d.kind == "adopt"]
    assert len(adopt) == 1 and adopt[0].phase == "Following"
    record.close()


def test_deadline_and_attempt_count_are_never_reset_by_the_retry(tmp_path):
    """H5: the retry keeps the deadline and counts the attempt."""
    result, record, _ = run(tmp_path)
    decisions = record.decisions(ACTION_ID)
    assert {d.deadline_tick for d in decisions} == {30}
    used = [d.attempts_used for d in decisions]
    assert used == sorted(used) and used[-1] == 2
    states = {a.attempt_no: a.state for a in record.attempts(ACTION_ID)}
    assert states == {1: "interrupted", 2: "completed"}
    record.close()


def test_attempts_exhausted_brakes_releases_and_fails(tmp_path):
    """H5, H6: exhausted attempts: brake, release the mover, Failure."""
    params = HandoffParams.from_profile(max_access_attempts=1)
    result, record, _ = run(tmp_path, params=params)
    cancel = rows(result, "cancel")[0]
    assert "attempts exhausted (1/1)" in cancel["note"]
    assert result.final_phase == "Failure" and result.exit_code == 1
    assert result.route_status == RouteStatus.FAILURE.value
    row = record.load(ACTION_ID)
    assert row.current_motion == "none" and row.attempts_used == 1
    assert result.summary["final_x_m"] == pytest.approx(-0.05)
    record.close()


def test_deadline_expiry_while_waiting_builds_no_second_attempt(tmp_path):
    """H5, H6: the deadline expires while waiting: no attempt 2."""
    params = HandoffParams.from_profile(handoff_deadline_ticks=4)
    result, record, _ = run(tmp_path, params=params)
    cancel = rows(result, "cancel")[0]
    assert "deadline expired (tick 4 >= 4" in cancel["note"]
    assert [a.attempt_no for a in record.attempts(ACTION_ID)] == [1]
    assert result.final_phase == "Failure"
    assert result.summary["final_x_m"] == pytest.approx(-0.05)
    record.close()


def test_deadline_expiry_mid_curve_brakes_before_failure(tmp_path):
    """H6, A4: expiry mid-curve brakes first and fails only once stopped."""
    params = HandoffParams.from_profile(handoff_deadline_ticks=1)
    result, record, _ = run(tmp_path, params=params)
    cancel = rows(result, "cancel")[0]
    assert cancel["time_s"] == pytest.approx(0.1) and cancel["speed_mps"] == pytest.approx(0.1)
    failure = [r for r in result.timeline if r["phase"] == "Failure"][0]
    assert failure["time_s"] == pytest.approx(0.2) and failure["speed_mps"] == 0.0
    assert result.summary["final_x_m"] == pytest.approx(-0.08)
    assert all(r["x_m"] <= 1e-12 for r in result.timeline)
    record.close()


def test_stale_displacement_of_the_interrupted_attempt_is_rejected(tmp_path):
    """H7: a late displacement of attempt 1 is rejected and logged."""
    record, world, ctrl, params = start(tmp_path)
    with pytest.raises(Stop):
        drive(ctrl, world, params, limit_tick=40, on_stage=stop_at(0.6))
    assert ctrl.row.current_attempt == 2
    late = StepReport(tags=MotionTags(ctrl.epoch, ACTION_ID, 1, "curve"), step_index=6,
                      t0_s=0.6, t1_s=0.7, displacement_xy_m=(0.02, 0.0),
                      feedback=world.feedback())
    accepted, reason = ctrl.accept(late)
    assert not accepted and "stale attempt 1" in reason
    log = record.displacement_log(ACTION_ID)
    assert log[-1]["accepted"] == 0 and log[-1]["tag_attempt"] == 1
    drive(ctrl, world, params, limit_tick=40)
    assert ctrl.phase is Phase.FOLLOWING
    record.close()


def test_sideways_push_voids_the_guarantee_and_reaccesses_from_the_actual_stop(tmp_path):
    """H8, H6: a push voids the guarantee; re-access from the actual stop."""
    result, record, _ = run(tmp_path, push_at_s=0.1, push_velocity_xy_mps=(0.05, 0.3))
    void = rows(result, "guarantee-void")[0]
    assert "velocity not explained by the commands" in void["note"]
    detail = [d for d in record.decisions(ACTION_ID) if d.kind == "guarantee-void"][0].detail
    assert detail["contact"] == "P" and detail["actual_velocity_xy_mps"] == [0.05, 0.3]
    attempts = record.attempts(ACTION_ID)
    assert attempts[0].state == "interrupted"
    assert attempts[1].start_y_m > 0.04  # from where the push left the body, not the old line
    assert attempts[1].start_y_m == pytest.approx(attempts[1].end_y_m)
    assert result.final_phase == "Following"
    record.close()


def test_push_across_the_edge_is_not_snapped_back_and_fails(tmp_path):
    """H8, A5: crossing before the stop: no snap back, no clamp, Failure."""
    result, record, _ = run(tmp_path, push_at_s=0.1, push_velocity_xy_mps=(1.0, 0.0))
    void = rows(result, "guarantee-void")[0]
    assert "NO STOP GUARANTEE" in void["note"]
    steps = [r["x_m"] for r in rows(result, "step")]
    assert all(b >= a - 1e-12 for a, b in zip(steps, steps[1:], strict=False))  # no snap back
    assert result.summary["final_x_m"] == pytest.approx(-0.085 + 0.5)  # braked, not clamped
    assert "AtBoundary" not in {r["phase"] for r in result.timeline}
    cancel = rows(result, "cancel")[0]
    assert "stopped beyond the common edge in Q" in cancel["note"]
    assert result.final_phase == "Failure"
    record.close()


class NoQContact(PQWorld):
    def snapshot(self) -> Snapshot:
        return dataclasses.replace(super().snapshot(), q_contact_ok=False)


def test_adoption_without_q_contact_leaves_the_handoff_incomplete(tmp_path):
    """H3, H9: no contact with Q: the handoff stays incomplete at the boundary."""
    params = HandoffParams.from_profile(handoff_deadline_ticks=14)
    record, world, ctrl, params = start(tmp_path, world_cls=NoQContact, params=params)
    drive(ctrl, world, params, limit_tick=40)
    incomplete = [d for d in record.decisions(ACTION_ID) if d.kind == "adoption-incomplete"]
    assert incomplete and incomplete[0].detail == {"failed_checks": ["q_contact"]}
    assert incomplete[0].phase == "AtBoundary"
    assert not any(d.phase == "Following" for d in record.decisions(ACTION_ID))
    assert ctrl.phase is Phase.FAILURE and record.load(ACTION_ID).patch == "P"
    assert world.position_xy_m[0] == pytest.approx(0.0, abs=1e-12)
    record.close()


def test_start_velocity_outside_q_budget_leaves_the_handoff_incomplete(tmp_path):
    """H3, V1: a start velocity beyond V/k on Q leaves the handoff incomplete."""
    # Q is a conveyor moving at 3 m/s: a body at rest in the world is 3 m/s relative to it, more
    # than Q's horizontal cap V/k = 2 m/s.
    target = dataclasses.replace(pq_target(), q_support_velocity_xy_mps=(3.0, 0.0))
    params = HandoffParams.from_profile(handoff_deadline_ticks=12)
    record, world, ctrl, params = start(tmp_path, target=target, params=params)
    drive(ctrl, world, params, limit_tick=40)
    incomplete = [d for d in record.decisions(ACTION_ID) if d.kind == "adoption-incomplete"]
    assert incomplete[0].detail == {"failed_checks": ["start_velocity_in_q_budget"]}
    assert ctrl.phase is Phase.FAILURE
    record.close()


class QVersionChanged(PQWorld):
    def snapshot(self) -> Snapshot:
        snap = super().snapshot()
        return dataclasses.replace(snap, versions=dataclasses.replace(snap.versions, q=2))


def test_adoption_revalidates_the_neighbour_patch_version(tmp_path):
    """H2: adoption re-validates the neighbour patch version."""
    params = HandoffParams.from_profile(handoff_deadline_ticks=12)
    record, world, ctrl, params = start(tmp_path, world_cls=QVersionChanged, params=params)
    drive(ctrl, world, params, limit_tick=40)
    incomplete = [d for d in record.decisions(ACTION_ID) if d.kind == "adoption-incomplete"]
    assert incomplete[0].detail == {"failed_checks": ["neighbour_patch"]}
    record.close()


def test_boundary_foot_belongs_to_the_patch_the_record_holds(tmp_path):
    """H9: a foot on the common edge belongs to the patch the record holds."""
    record, world, ctrl, params = start(tmp_path, world_cls=NoQContact,
                                        params=HandoffParams.from_profile(
                                            handoff_deadline_ticks=14))
    with pytest.raises(Stop):
        drive(ctrl, world, params, limit_tick=40, on_stage=stop_at(1.0, "tick"))
    on_edge = world.feedback()
    assert ctrl.phase is Phase.AT_BOUNDARY and ctrl.owner_patch(on_edge) == "P"
    pushed = dataclasses.replace(on_edge, position_xy_m=(0.01, 0.0))
    assert ctrl.owner_patch(pushed) == "Q"
    record.close()
    (tmp_path / "adopted").mkdir()
    result, record, _ = run(tmp_path / "adopted")
    ctrl2 = HandoffController(record, pq_target(), HandoffParams.from_profile(), epoch=1)
    assert ctrl2.owner_patch(on_edge) == "Q"
    record.close()


def test_invalid_feedback_cancels_with_a_fault_until_the_stop_is_confirmed(tmp_path):
    """H6: a stop that cannot be confirmed stays Cancelling with a fault."""
    record, world, ctrl, params = start(tmp_path)
    with pytest.raises(Stop):
        drive(ctrl, world, params, limit_tick=40, on_stage=stop_at(0.1))
    blind = dataclasses.replace(world.feedback(), position_xy_m=(math.nan, 0.0))
    ctrl.tick(1, blind, world.snapshot())
    row = ctrl.row
    assert row.phase == "Cancelling" and "stop not confirmable" in row.fault
    cmd = ctrl.command(1, 0.1, 0.2)
    assert cmd.tags.motion == "brake" and cmd.end_velocity_xy_mps[0] == pytest.approx(0.0)
    world.apply(cmd)
    ctrl.tick(2, blind, world.snapshot())
    assert ctrl.phase is Phase.CANCELLING
    ctrl.tick(2, world.feedback(), world.snapshot())
    assert ctrl.phase is Phase.FAILURE and ctrl.row.fault is None
    assert ctrl.route_status() is RouteStatus.FAILURE
    record.close()


def test_motion_not_following_the_brake_is_a_fault_in_cancelling(tmp_path):
    """H6: motion the brake does not explain is a fault while Cancelling."""
    record, world, ctrl, params = start(tmp_path, params=HandoffParams.from_profile(
        handoff_deadline_ticks=1))
    with pytest.raises(Stop):
        drive(ctrl, world, params, limit_tick=40, on_stage=stop_at(0.2, "applied"))
    sliding = dataclasses.replace(world.feedback(), velocity_xy_mps=(0.0, 0.3))
    ctrl.tick(2, sliding, world.snapshot())
    assert ctrl.phase is Phase.CANCELLING and "actual speed 0.3000" in ctrl.row.fault
    record.close()


def test_recovery_brakes_from_the_actual_state_and_never_reuses_an_attempt(tmp_path):
    """H7: recovery voids saved curves, brakes from the actual state, reads the last decision."""
    record, world, ctrl, params = start(tmp_path)
    with pytest.raises(Stop):
        drive(ctrl, world, params, limit_tick=40, on_stage=stop_at(0.1, "applied"))
    crash_x, crash_v = world.position_xy_m[0], world.velocity_xy_mps[0]
    assert crash_v == pytest.approx(0.1)

    epoch2 = record.begin_run("recover")
    fb = world.feedback()
    rec2 = HandoffController.recover(record, pq_target(), params, epoch=epoch2, tick=1,
                                     feedback=fb, snapshot=world.snapshot())
    first = record.last_decision(ACTION_ID)
    assert first.kind == "recover" and first.detail["voided_attempts"] == [1]
    assert first.detail["actual_position_xy_m"] == [crash_x, 0.0]
    assert first.detail["brake_from_actual_velocity"] is True
    assert first.detail["last_decision"]["kind"] == "dispatch"
    # a second recovery before anything else happened reads the first one
    epoch3 = record.begin_run("recover")
    rec3 = HandoffController.recover(record, pq_target(), params, epoch=epoch3, tick=1,
                                     feedback=fb, snapshot=world.snapshot())
    second = record.last_decision(ACTION_ID)
    assert second.detail["last_decision"] == {"id": first.id, "kind": "recover",
                                              "run_epoch": epoch2}
    assert second.detail["voided_attempts"] == []
    # the mover's report of the step executed just before the crash arrives late, twice
    late = world.report_from(world.last_report)
    assert late.tags.run_epoch == ctrl.epoch
    assert rec2.accept(late) == (False, f"stale epoch {ctrl.epoch} (current {epoch3})")
    assert not rec3.accept(late)[0]
    drive(rec3, world, params, limit_tick=40)
    assert rec3.phase is Phase.FOLLOWING
    numbers = [a.attempt_no for a in record.attempts(ACTION_ID)]
    assert numbers == sorted(set(numbers)) == [1, 2]
    history = world.history
    assert all(abs(b["x0_m"] - a["x1_m"]) < 1e-15 for a, b in zip(history, history[1:],
                                                                    strict=False))
    assert {d.deadline_tick for d in record.decisions(ACTION_ID)} == {30}
    record.close()


def test_recovery_at_the_boundary_keeps_at_boundary_only_when_actual(tmp_path):
    """H7, H8, H1: AtBoundary survives recovery only when actual."""
    params = HandoffParams.from_profile()
    record, world, ctrl, params = start(tmp_path, world_cls=NoQContact, params=params)
    with pytest.raises(Stop):
        drive(ctrl, world, params, limit_tick=40, on_stage=stop_at(1.1, "tick"))
    assert ctrl.phase is Phase.AT_BOUNDARY
    fine = PQWorld.load(world.path)
    epoch = record.begin_run("recover")
    rec = HandoffController.recover(record, pq_target(), params, epoch=epoch, tick=11,
                                    feedback=fine.feedback(), snapshot=fine.snapshot())
    assert rec.phase is Phase.AT_BOUNDARY
    drive(rec, fine, params, limit_tick=40)
    assert rec.phase is Phase.FOLLOWING
    record.close()


def test_assertion_mode_holds_on_the_seed_run(tmp_path):
    """A4, H1: assertion mode raises nothing on the seed run."""
    record, world, ctrl, params = start(tmp_path, assert_mode=True)
    drive(ctrl, world, params, limit_tick=40)
    assert ctrl.phase is Phase.FOLLOWING
    record.close()


def test_begin_rejects_a_taken_action_and_bad_feedback(tmp_path):
    record, world, ctrl, params = start(tmp_path)
    from navproof.core.errors import InvalidInput
    from navproof.handoff.record import RecordError

    with pytest.raises(RecordError):
        HandoffController.begin(record, pq_target(), params, epoch=1, tick=0,
                                feedback=world.feedback(), snapshot=world.snapshot())
    bad = Feedback(0.0, (math.inf, 0.0), (0.0, 0.0), "P", "ground")
    with pytest.raises(InvalidInput):
        HandoffController.begin(record, dataclasses.replace(pq_target(), action_id="b"),
                                params, epoch=1, tick=0, feedback=bad,
                                snapshot=world.snapshot())
    record.close()


def test_params_come_from_the_profile_and_are_range_checked():
    params = HandoffParams.from_profile()
    assert params.max_access_attempts == DEFAULTS["max_access_attempts"]
    assert params.handoff_deadline_ticks == DEFAULTS["handoff_deadline_ticks"]
    from navproof.core.errors import InvalidInput

    with pytest.raises(InvalidInput):
        HandoffParams.from_profile(max_access_attempts=4)


class LateObstacle(PQWorld):
    """A second obstacle-version change at 0.8 s, inside attempt 2's scheduled deceleration."""

    def obstacle_state(self) -> tuple[int, bool]:
        version, blocked = super().obstacle_state()
        return (version + 1, blocked) if self.time_s >= 0.8 - 1e-9 else (version, blocked)


def test_stop_event_in_the_scheduled_deceleration_keeps_it(tmp_path):
    """H4: a stop event in the scheduled deceleration keeps it."""
    record, world, ctrl, params = start(tmp_path, world_cls=LateObstacle)
    drive(ctrl, world, params, limit_tick=40)
    interrupts = [d for d in record.decisions(ACTION_ID) if d.kind == "interrupt"]
    assert len(interrupts) == 2
    late = interrupts[1].detail
    assert late["kept_scheduled_deceleration"] is True
    assert late["stop_point_xy_m"][0] == pytest.approx(0.0, abs=1e-12)
    # the kept deceleration follows the original curve to rest on the edge: no reaction hold,
    # no second brake profile
    steps = [h for h in world.history if h["step_index"] >= 8]
    assert [h["motion"] for h in steps] == ["brake", "brake"]
    assert steps[0]["dx_m"] == pytest.approx(0.0097213595, abs=1e-9)
    assert world.position_xy_m[0] == pytest.approx(0.0, abs=1e-12)
    assert ctrl.phase is Phase.FOLLOWING
    record.close()


def test_q_budget_is_recorded_for_the_next_solve_only(tmp_path):
    """V1: P's caps stay in force until the next solve, then Q's."""
    result, record, _ = run(tmp_path)
    adoption = result.summary["adoption"]
    until = adoption["caps_until_next_solve"]
    assert until["slope_factor"] == 1.0
    assert until["horizontal_speed_cap_mps"] == DEFAULTS["surface_speed_cap_mps"]
    assert adoption["horizontal_speed_cap_mps"] == pytest.approx(until["horizontal_speed_cap_mps"]
                                                                 / 2)
    record.close()


def test_simulate_command_writes_the_json_timeline(tmp_path, capsys):
    """H1: the simulate command prints and writes the phase timeline."""
    from navproof.cli import simulate as simulate_command

    out_json = tmp_path / "pq.json"
    code = simulate_command.main(["pq-handoff", "--db", str(tmp_path / "h.db"),
                                  "--json", str(out_json)])
    assert code == 0
    import json

    data = json.loads(out_json.read_text())
    assert data["scenario"] == "pq-handoff" and data["final_phase"] == "Following"
    assert any(r["kind"] == "adopt" for r in data["timeline"])
    assert "AtBoundary" in capsys.readouterr().out
    assert simulate_command.main(["no-such-scenario"]) == 3
    assert simulate_command.main(["pq-handoff", "--resume"]) == 3
    assert simulate_command.main(["pq-handoff", "--crash-at", "nan"]) == 3


def test_attempt_budget_assertion_mirrors_h5():
    """H5: assertion mode rejects a fourth curve or a curve at the deadline."""
    from navproof.core.errors import ObligationViolation
    from navproof.handoff.controller import check_attempt_budget

    check_attempt_budget(attempt_no=3, max_attempts=3, tick=29, deadline_tick=30,
                         assert_mode=True)
    with pytest.raises(ObligationViolation) as info:
        check_attempt_budget(attempt_no=4, max_attempts=3, tick=5, deadline_tick=30,
                             assert_mode=True)
    assert info.value.claim_id == "H5" and info.value.margin == -1.0
    with pytest.raises(ObligationViolation):
        check_attempt_budget(attempt_no=2, max_attempts=3, tick=30, deadline_tick=30,
                             assert_mode=True)
    check_attempt_budget(attempt_no=4, max_attempts=3, tick=30, deadline_tick=30,
                         assert_mode=False)


class TargetGone(PQWorld):
    """The handoff target becomes invalid at 0.3 s, while the body brakes after the interruption."""

    def snapshot(self) -> Snapshot:
        return dataclasses.replace(super().snapshot(), target_valid=self.time_s < 0.3 - 1e-9)


def test_invalid_target_cancels_after_the_stop(tmp_path):
    """H6: target invalid: stop first, then cancel, release and fail; no new attempt."""
    record, world, ctrl, params = start(tmp_path, world_cls=TargetGone)
    drive(ctrl, world, params, limit_tick=40)
    cancel = [d for d in record.decisions(ACTION_ID) if d.kind == "cancel"][0]
    assert cancel.detail["reason"] == "target no longer valid"
    assert cancel.time_s == pytest.approx(0.4)
    assert [a.attempt_no for a in record.attempts(ACTION_ID)] == [1]
    assert ctrl.phase is Phase.FAILURE
    assert world.position_xy_m[0] == pytest.approx(-0.05)
    record.close()


class OntoPlatform(PQWorld):
    """From 0.1 s the foot reports a different support (it stepped onto a platform)."""

    def feedback(self) -> Feedback:
        fb = super().feedback()
        return dataclasses.replace(fb, support_id="platform") if self.time_s >= 0.1 - 1e-9 \
            else fb


def test_support_change_before_the_stop_voids_the_guarantee_and_cancels(tmp_path):
    """H8, H6: a support change voids the guarantee; after the stop the handoff is cancelled."""
    record, world, ctrl, params = start(tmp_path, world_cls=OntoPlatform)
    drive(ctrl, world, params, limit_tick=40)
    kinds = [d.kind for d in record.decisions(ACTION_ID)]
    void = [d for d in record.decisions(ACTION_ID) if d.kind == "guarantee-void"][0]
    assert void.detail["causes"] == ["support changed"]
    assert void.detail["support"] == "platform"
    assert kinds.count("guarantee-void") == 1
    cancel = [d for d in record.decisions(ACTION_ID) if d.kind == "cancel"][0]
    assert cancel.detail["reason"] == "support changed from ground to platform"
    assert ctrl.phase is Phase.FAILURE
    assert world.position_xy_m[0] == pytest.approx(-0.085 + 0.005)  # braked from 0.1 m/s
    record.close()


def brake_before_access(tmp_path, *, x0_m, speed_mps, brake_budget_mps2):
    """A body moving along +X at ``speed_mps`` from ``x0_m`` (the edge is X = 0) handed to the
    controller in assertion mode; the mover executes every command until the handoff ends.
    Returns the record, the action and the largest X the body reached while P owned it."""
    params = HandoffParams.from_profile()
    record = HandoffRecord.open(tmp_path / "h.db")
    target = pq_target()
    epoch = record.begin_run("brake-before-access")

    def feedback(t_s, x_m, v_mps):
        contact = target.p_patch if x_m < 0.0 else target.q_patch
        return Feedback(t_s, (x_m, 0.0), (v_mps, 0.0), contact, target.support_id)

    def snapshot(x_m):
        return Snapshot(obstacle_version=1, versions=target.versions, target_valid=True,
                        support_valid=True, q_contact_ok=x_m >= 0.0,
                        sweep_clear=lambda start, end: True)

    x_m, v_mps, t_s, dt_s = x0_m, speed_mps, 0.0, params.step_s
    ctrl = HandoffController.begin(record, target, params, epoch=epoch, tick=0,
                                   feedback=feedback(t_s, x_m, v_mps), snapshot=snapshot(x_m),
                                   assert_mode=True, brake_budget_mps2=brake_budget_mps2)
    furthest_in_p_m = x_m
    for k in range(400):
        ctrl.tick(k, feedback(t_s, x_m, v_mps), snapshot(x_m))
        cmd = ctrl.command(k, t_s, t_s + dt_s) if not ctrl.done else None
        if cmd is None:
            break
        x_m += cmd.displacement_xy_m[0]
        v_mps = cmd.end_velocity_xy_mps[0]
        t_s += dt_s
        if ctrl.row.patch == target.p_patch:
            furthest_in_p_m = max(furthest_in_p_m, x_m)
        ctrl.accept(StepReport(cmd.tags, k, t_s - dt_s, t_s, cmd.displacement_xy_m,
                               feedback(t_s, x_m, v_mps)))
    return record, ctrl, furthest_in_p_m


def test_the_brake_before_the_access_curve_keeps_p_budget_and_stops_before_the_edge(tmp_path):
    # 1.2 m/s at 0.143 m from the edge: the body's ordinary steps on P counted on its 20 m/s^2
    # (0.036 m to stop); the access magnitude of 1 m/s^2 would need 0.72 m and cross (A4)
    record, ctrl, furthest_m = brake_before_access(tmp_path, x0_m=-0.143, speed_mps=1.2,
                                                   brake_budget_mps2=20.0)
    brake = next(d for d in record.decisions(ACTION_ID) if d.kind == "approach-brake")
    assert brake.detail["brake_accel_mps2"] == 20.0
    assert brake.detail["stop_guaranteed"] is True
    assert brake.detail["stop_margin_m"] == pytest.approx(0.143 - 1.2 ** 2 / 40.0)
    assert furthest_m <= EPS  # the access curve ends on the edge
    assert ctrl.phase == Phase.FOLLOWING and ctrl.row.patch == pq_target().q_patch


def test_a_brake_before_the_access_curve_that_cannot_stop_says_so(tmp_path):
    # at the access magnitude (the body's budget on P is smaller) no brake stops before the
    # edge: the decision reports no stop guarantee with the shortfall (A5), the crossing voids
    # the guarantee (H8) and the handoff fails; A4 claims no stop for such a brake
    record, ctrl, furthest_m = brake_before_access(tmp_path, x0_m=-0.143, speed_mps=1.2,
                                                   brake_budget_mps2=0.5)
    brake = next(d for d in record.decisions(ACTION_ID) if d.kind == "approach-brake")
    assert brake.detail["brake_accel_mps2"] == params_access_accel()
    assert brake.detail["stop_guaranteed"] is False
    assert brake.detail["stop_margin_m"] == pytest.approx(0.143 - 1.2 ** 2 / 2.0)
    assert "NO STOP GUARANTEE" in next(e.message for e in ctrl.events
                                       if e.kind == "approach-brake")
    assert furthest_m > 0.0
    assert "guarantee-void" in [e.kind for e in ctrl.events]
    assert ctrl.phase == Phase.FAILURE


def params_access_accel():
    return HandoffParams.from_profile().access_accel_mps2
