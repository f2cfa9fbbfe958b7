"""The durable action record: schema, bad files, attempt identity and displacement acceptance
(H5, H7)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from navproof.handoff.record import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    ActionSpec,
    HandoffRecord,
    MotionTags,
    RecordError,
)

ACTION = "a-1"
FEEDBACK = {"time_s": 0.1, "x_m": -0.085, "y_m": 0.0, "vx_mps": 0.1, "vy_mps": 0.0,
            "contact": "P", "support": "ground"}
ATTEMPT_1 = {"attempt_no": 1, "start_x_m": -0.09, "start_y_m": 0.0, "end_x_m": 0.0,
             "end_y_m": 0.0, "length_m": 0.09, "accel_s": 0.3, "cruise_s": 0.0, "brake_s": 0.3,
             "total_s": 0.6}


def spec(action_id: str = ACTION) -> ActionSpec:
    return ActionSpec(action_id=action_id, p_patch="P", p_version=1, q_patch="Q", q_version=1,
                      edge_id="P|Q", edge_version=1, support_id="ground", support_version=1,
                      nav_version=1, edge_normal_xy=(1.0, 0.0), edge_offset_m=0.0,
                      first_approach_tick=0, deadline_tick=30, max_attempts=3)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def record(tmp_path):
    rec = HandoffRecord.open(tmp_path / "h.db")
    yield rec
    rec.close()


def dispatched(record: HandoffRecord) -> int:
    """An action with attempt 1 registered and dispatched; returns the epoch."""
    epoch = record.begin_run("start")
    record.create_action(spec(), epoch=epoch, phase="Approaching", patch="P",
                         obstacle_version=1, time_s=0.0)
    record.decide(ACTION, epoch=epoch, tick=0, time_s=0.0, kind="register-attempt",
                  updates={"attempts_used": 1, "current_attempt": 1}, new_attempt=ATTEMPT_1)
    record.mark_dispatched(ACTION, 1, epoch=epoch, tick=0, time_s=0.0)
    return epoch


def offer(record, tags, step_index=0):
    return record.offer_displacement(tags, recorded_epoch=record.latest_epoch(),
                                     step_index=step_index, t0_s=0.0, t1_s=0.1,
                                     displacement_xy_m=(0.005, 0.0), feedback=FEEDBACK)


def test_new_record_is_wal_full_and_marked(tmp_path):
    path = tmp_path / "h.db"
    with HandoffRecord.open(path) as rec:
        conn = rec._conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    raw.close()


def test_corrupt_file_is_rejected_and_left_alone(tmp_path):
    path = tmp_path / "corrupt.db"
    path.write_bytes(b"this is not a database" * 100)
    before = digest(path)
    with pytest.raises(RecordError) as info:
        HandoffRecord.open(path)
    assert "not a SQLite database" in str(info.value)
    assert digest(path) == before


def test_foreign_database_is_rejected_and_left_alone(tmp_path):
    path = tmp_path / "foreign.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER, name TEXT)")
    conn.execute("INSERT INTO customers VALUES (1, 'x')")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(RecordError) as info:
        HandoffRecord.open(path)
    assert "foreign" in str(info.value)
    assert digest(path) == before


def test_newer_schema_is_rejected_and_left_alone(tmp_path):
    path = tmp_path / "newer.db"
    HandoffRecord.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    before = digest(path)
    with pytest.raises(RecordError) as info:
        HandoffRecord.open(path)
    assert "newer" in str(info.value)
    assert digest(path) == before


def test_empty_file_becomes_a_record(tmp_path):
    path = tmp_path / "empty.db"
    path.touch()
    with HandoffRecord.open(path) as rec:
        assert rec.action_ids() == []


def test_unknown_action_id_is_a_clear_error(record):
    with pytest.raises(RecordError) as info:
        record.load("no-such-action")
    assert info.value.field == "action_id"
    with pytest.raises(RecordError):
        record.last_decision("no-such-action")


def test_action_ids_are_unique(record):
    epoch = record.begin_run("start")
    record.create_action(spec(), epoch=epoch, phase="Approaching", patch="P",
                         obstacle_version=1, time_s=0.0)
    with pytest.raises(RecordError):
        record.create_action(spec(), epoch=epoch, phase="Approaching", patch="P",
                             obstacle_version=1, time_s=0.0)


def test_current_displacement_is_accepted_once(record):
    epoch = dispatched(record)
    tags = MotionTags(epoch, ACTION, 1, "curve")
    assert offer(record, tags) == (True, "accepted")
    accepted, reason = offer(record, tags)
    assert not accepted and "already accepted" in reason
    assert record.last_feedback(ACTION)["x_m"] == pytest.approx(-0.085)
    assert record.attempts(ACTION)[0].executed_s == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("tags", "why"),
    [
        (MotionTags(0, ACTION, 1, "curve"), "stale epoch"),
        (MotionTags(1, ACTION, 2, "curve"), "stale attempt"),
        (MotionTags(1, ACTION, 1, "brake"), "stale motion"),
    ],
)
def test_stale_displacements_are_rejected_and_logged(record, tags, why):
    dispatched(record)
    accepted, reason = offer(record, tags)
    assert not accepted and why in reason
    log = record.displacement_log(ACTION)
    assert len(log) == 1 and log[0]["accepted"] == 0 and why in log[0]["reason"]
    assert record.last_feedback(ACTION) is None


def test_late_curve_displacement_after_interruption_is_rejected(record):
    epoch = dispatched(record)
    record.decide(ACTION, epoch=epoch, tick=2, time_s=0.2, kind="interrupt",
                  updates={"phase": "Stopping", "current_motion": "brake"},
                  attempt_states={1: "interrupted"})
    accepted, reason = offer(record, MotionTags(epoch, ACTION, 1, "curve"), step_index=2)
    assert not accepted and "stale motion" in reason
    assert offer(record, MotionTags(epoch, ACTION, 1, "brake"), step_index=2)[0]


def test_a_new_epoch_supersedes_the_old_run(record):
    old = dispatched(record)
    new = record.begin_run("recover")
    record.decide(ACTION, epoch=new, tick=3, time_s=0.3, kind="recover",
                  updates={"current_epoch": new, "current_motion": "brake"},
                  attempt_states={1: "void"})
    accepted, reason = offer(record, MotionTags(old, ACTION, 1, "brake"), step_index=3)
    assert not accepted and "stale epoch" in reason
    with pytest.raises(RecordError):
        record.decide(ACTION, epoch=old, tick=3, time_s=0.3, kind="late decision")


def test_attempt_identity_is_registered_once_and_dispatched_once(record):
    epoch = dispatched(record)
    with pytest.raises(RecordError):
        record.decide(ACTION, epoch=epoch, tick=1, time_s=0.1, kind="register-attempt",
                      new_attempt=ATTEMPT_1)
    with pytest.raises(RecordError):
        record.mark_dispatched(ACTION, 1, epoch=epoch, tick=1, time_s=0.1)
    assert [a.attempt_no for a in record.attempts(ACTION)] == [1]


def test_attempts_used_never_decreases(record):
    epoch = dispatched(record)
    with pytest.raises(RecordError):
        record.decide(ACTION, epoch=epoch, tick=1, time_s=0.1, kind="reset",
                      updates={"attempts_used": 0})
    assert record.load(ACTION).attempts_used == 1


def test_a_failed_decision_changes_nothing(record):
    epoch = dispatched(record)
    before = record.decisions(ACTION)
    with pytest.raises(RecordError):
        record.decide(ACTION, epoch=epoch, tick=1, time_s=0.1, kind="register-attempt",
                      updates={"attempts_used": 2, "current_attempt": 2, "phase": "Stopping"},
                      new_attempt=ATTEMPT_1)
    assert record.decisions(ACTION) == before
    assert record.load(ACTION).phase == "Approaching"


def test_decisions_are_durable_and_read_back_in_order(tmp_path):
    path = tmp_path / "h.db"
    with HandoffRecord.open(path) as rec:
        epoch = dispatched(rec)
        rec.decide(ACTION, epoch=epoch, tick=2, time_s=0.2, kind="interrupt",
                   updates={"phase": "Stopping", "current_motion": "brake"},
                   attempt_states={1: "interrupted"}, detail={"reason": "obstacle"})
    with HandoffRecord.open(path) as rec:
        last = rec.last_decision(ACTION)
        assert last.kind == "interrupt" and last.detail == {"reason": "obstacle"}
        assert last.phase == "Stopping" and last.deadline_tick == 30
        kinds = [d.kind for d in rec.decisions(ACTION)]
        assert kinds == ["create", "register-attempt", "dispatch", "interrupt"]
        assert rec.attempts(ACTION)[0].state == "interrupted"


def test_only_the_newest_run_can_take_an_action_over(record):
    old = dispatched(record)
    newer = record.begin_run("recover")
    newest = record.begin_run("recover")
    with pytest.raises(RecordError):
        record.decide(ACTION, epoch=newer, tick=1, time_s=0.1, kind="recover",
                      updates={"current_epoch": newer})
    with pytest.raises(RecordError):
        record.decide(ACTION, epoch=newest, tick=1, time_s=0.1, kind="recover",
                      updates={"current_epoch": old})
    row = record.decide(ACTION, epoch=newest, tick=1, time_s=0.1, kind="recover",
                        updates={"current_epoch": newest})
    assert row.current_epoch == newest


def test_an_attempt_never_runs_again_once_ended(record):
    epoch = dispatched(record)
    record.decide(ACTION, epoch=epoch, tick=2, time_s=0.2, kind="interrupt",
                  attempt_states={1: "interrupted"})
    for state in ("dispatched", "registered", "completed"):
        with pytest.raises(RecordError):
            record.decide(ACTION, epoch=epoch, tick=3, time_s=0.3, kind="revive",
                          attempt_states={1: state})
    with pytest.raises(RecordError):
        record.decide(ACTION, epoch=epoch, tick=3, time_s=0.3, kind="unknown attempt",
                      attempt_states={7: "void"})
    assert record.attempts(ACTION)[0].state == "interrupted"
