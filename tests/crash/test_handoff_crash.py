"""Kill-and-resume of the pq-handoff scenario in a real subprocess (H5, H7).

Each case SIGKILLs the scenario at a random point (simulated time and stage, between the durable
registration of an attempt and its dispatch, or from outside at a random wall-clock moment),
resumes it from the record, and checks on the record and the persisted world: no attempt
registered, dispatched or accepted twice; deadline and attempt count never reset; no stale
displacement accepted; no teleport; the handoff ends in Following on Q or in Failure.
"""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

KILL_BEFORE_DISPATCH = Path(__file__).with_name("kill_before_dispatch.py")
ENDING_KINDS = {"interrupt", "recover", "cancel", "guarantee-void", "curve-complete"}
STAGES = ("tick", "applied", "accepted")


def simulate(db: Path, *args: str, via_cli: bool = False) -> subprocess.CompletedProcess[str]:
    module = ["navproof.cli", "simulate"] if via_cli else ["navproof.cli.simulate"]
    return subprocess.run(
        [sys.executable, "-m", *module, "pq-handoff", "--db", str(db), *args],
        capture_output=True, text=True, timeout=60,
    )


def simulate_killed_before_dispatch(db: Path, nth: int,
                                    *args: str) -> subprocess.CompletedProcess[str]:
    """The scenario in a subprocess whose controller SIGKILLs it between the durable
    registration of its ``nth`` attempt and that attempt's dispatch (injected callback)."""
    return subprocess.run(
        [sys.executable, str(KILL_BEFORE_DISPATCH), "--db", str(db), "--nth", str(nth), *args],
        capture_output=True, text=True, timeout=60,
    )


def resume_to_end(db: Path) -> subprocess.CompletedProcess[str]:
    done = simulate(db, "--resume")
    assert done.returncode in (0, 1), done.stderr + done.stdout
    return done


def check_integrity(db: Path) -> None:
    """The record file itself is sound: SQLite's integrity check reports ok."""
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()


def stored_world(db: Path) -> dict:
    """The simulated world the run keeps in its record file (one run is one file)."""
    conn = sqlite3.connect(db)
    (state,) = conn.execute("SELECT state FROM world WHERE id = 1").fetchone()
    conn.close()
    assert not Path(str(db) + ".world.json").exists()
    return json.loads(state)


def check_invariants(db: Path) -> dict:
    """Assert the H5/H7 invariants on the record and the world; return a summary."""
    check_integrity(db)
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    action = conn.execute("SELECT * FROM actions").fetchone()
    decisions = conn.execute("SELECT * FROM decisions ORDER BY id").fetchall()
    attempts = conn.execute("SELECT * FROM attempts ORDER BY attempt_no").fetchall()
    displacements = conn.execute("SELECT * FROM displacements ORDER BY id").fetchall()
    conn.close()

    # deadline and attempt count never reset
    assert action["first_approach_tick"] == 0
    assert {d["deadline_tick"] for d in decisions} == {30}
    used = [d["attempts_used"] for d in decisions]
    assert used == sorted(used)
    assert action["attempts_used"] <= action["max_attempts"] == 3
    assert [a["attempt_no"] for a in attempts] == list(range(1, len(attempts) + 1))
    assert len(attempts) == action["attempts_used"]

    # no attempt registered or dispatched twice; dispatched only by the epoch that registered it
    for kind in ("register-attempt", "dispatch"):
        numbers = [json.loads(d["detail"])["attempt_no"] for d in decisions if d["kind"] == kind]
        assert len(numbers) == len(set(numbers)), (kind, numbers)
    for a in attempts:
        assert a["dispatched_epoch"] in (None, a["registered_epoch"])
        if a["dispatched_epoch"] is None:
            assert a["state"] == "void"

    # every recovery read the decision committed just before it, and voided what was open
    for prev, cur in zip(decisions, decisions[1:], strict=False):
        if cur["kind"] == "recover":
            detail = json.loads(cur["detail"])
            assert detail["last_decision"]["id"] == prev["id"]
            assert detail["deadline_tick"] == 30
            assert cur["run_epoch"] > prev["run_epoch"]

    # no displacement accepted twice, none accepted with stale tags
    accepted = [d for d in displacements if d["accepted"]]
    steps = [d["step_index"] for d in accepted]
    assert len(steps) == len(set(steps))
    dispatch_ids = {json.loads(d["detail"])["attempt_no"]: d["id"] for d in decisions
                    if d["kind"] == "dispatch"}
    by_no = {a["attempt_no"]: a for a in attempts}
    for d in accepted:
        assert d["tag_epoch"] == d["recorded_epoch"]
        if d["tag_motion"] == "curve":
            attempt = by_no[d["tag_attempt"]]
            assert d["tag_epoch"] == attempt["dispatched_epoch"]
            assert d["t0_s"] >= attempt["dispatch_time_s"] - 1e-9
            ends = [x["time_s"] for x in decisions
                    if x["id"] > dispatch_ids[d["tag_attempt"]] and x["kind"] in ENDING_KINDS]
            assert ends and d["t1_s"] <= ends[0] + 1e-9
    epochs = {d["run_epoch"] for d in decisions}
    rejected = [d for d in displacements if not d["accepted"]]
    for d in rejected:
        assert d["reason"].startswith(("stale epoch", "stale attempt", "stale motion")), d
        if d["tag_epoch"] != d["recorded_epoch"]:
            assert d["reason"].startswith("stale epoch")

    # no teleport: every step of the world starts where the previous one ended, moves exactly
    # by its commanded displacement, and the steps are consecutive across restarts
    world = stored_world(db)
    history = world["history"]
    assert [h["step_index"] for h in history] == list(range(len(history)))
    for prev, cur in zip(history, history[1:], strict=False):
        assert cur["x0_m"] == prev["x1_m"] and cur["y0_m"] == prev["y1_m"]
    for h in history:
        assert h["x1_m"] == pytest.approx(h["x0_m"] + h["dx_m"], abs=1e-15)
        assert h["x1_m"] <= 1e-12  # never crosses into Q before adoption
    assert history[0]["x0_m"] == -0.09

    # the record's accepted feedback is the world's actual state after that step
    conn = sqlite3.connect(db)
    feedback = conn.execute("SELECT time_s, x_m, vx_mps FROM feedback ORDER BY id").fetchall()
    conn.close()
    actual = {round(h["t1_s"], 9): (h["x1_m"], h["vx1_mps"]) for h in history}
    assert len(feedback) == len(accepted)
    for time_s, x_m, vx_mps in feedback:
        assert (x_m, vx_mps) == actual[round(time_s, 9)]

    # the handoff ends in Following on Q or in Failure
    assert (action["phase"], action["patch"]) in {("Following", "Q"), ("Failure", "P")}
    if action["phase"] == "Following":
        assert abs(world["position_xy_m"][0]) < 1e-12
    return {"phase": action["phase"], "epochs": epochs, "attempts": len(attempts),
            "rejected": len(rejected)}


def _kill_points(count: int, seed: int) -> list[tuple[float, str]]:
    """One random time in each of ``count`` equal slices of the run (0 to 0.99 s), each with a
    random stage, so that every phase of the scenario is hit."""
    rng = random.Random(seed)
    width = 0.99 / count
    return [(round(rng.uniform(k * width, (k + 1) * width), 3), rng.choice(STAGES))
            for k in range(count)]


@pytest.mark.parametrize(("crash_at", "stage"), _kill_points(16, seed=20261130))
def test_kill_at_random_simulated_time_then_resume(tmp_path, crash_at, stage):
    db = tmp_path / "h.db"
    killed = simulate(db, "--crash-at", str(crash_at), "--crash-stage", stage)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    before = sqlite3.connect(db).execute(
        "SELECT deadline_tick, attempts_used, phase FROM actions").fetchone()
    done = resume_to_end(db)
    summary = check_invariants(db)
    after = sqlite3.connect(db).execute(
        "SELECT deadline_tick, attempts_used FROM actions").fetchone()
    assert after[0] == before[0] and after[1] >= before[1]
    if before[2] in ("Following", "Failure"):  # killed after the handoff had ended
        assert f"action already ended in {before[2]}" in done.stdout
    else:
        assert "recovered from" in done.stdout
        assert len(summary["epochs"]) == 2


@pytest.mark.parametrize("nth", [1, 2])
def test_kill_between_attempt_registration_and_dispatch(tmp_path, nth):
    db = tmp_path / "h.db"
    killed = simulate_killed_before_dispatch(db, nth)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    assert f"kill before dispatching attempt {nth}" in killed.stdout
    conn = sqlite3.connect(db)
    state, dispatched = conn.execute(
        "SELECT state, dispatched_epoch FROM attempts WHERE attempt_no = ?", (nth,)).fetchone()
    used = conn.execute(
        "SELECT COUNT(*) FROM displacements WHERE tag_attempt = ? AND tag_motion = 'curve'",
        (nth,)).fetchone()[0]
    conn.close()
    assert (state, dispatched, used) == ("registered", None, 0)  # durable before dispatch
    check_integrity(db)
    done = resume_to_end(db)
    assert f"saved curves void [{nth}]" in done.stdout
    summary = check_invariants(db)
    conn = sqlite3.connect(db)
    void_state = conn.execute("SELECT state FROM attempts WHERE attempt_no = ?",
                              (nth,)).fetchone()[0]
    conn.close()
    assert void_state == "void"
    assert summary["attempts"] == nth + 1 + (1 if nth == 1 else 0)


def test_repeated_kills_never_reset_the_budget(tmp_path):
    db = tmp_path / "h.db"
    assert simulate(db, "--crash-at", "0.15").returncode == -signal.SIGKILL
    assert simulate_killed_before_dispatch(db, 1, "--resume").returncode == -signal.SIGKILL
    assert simulate(db, "--resume", "--crash-at", "0.7",
                    "--crash-stage", "tick").returncode == -signal.SIGKILL
    resume_to_end(db)
    summary = check_invariants(db)
    assert len(summary["epochs"]) == 4


def test_resume_after_the_end_changes_nothing(tmp_path):
    db = tmp_path / "h.db"
    first = simulate(db, via_cli=True)
    assert first.returncode == 0 and "final phase Following on Q" in first.stdout
    again = simulate(db, "--resume", via_cli=True)
    assert again.returncode == 0 and "action already ended in Following" in again.stdout
    check_invariants(db)


@pytest.mark.parametrize("seed", [1, 2])
def test_external_sigkill_at_a_random_moment(tmp_path, seed):
    db = tmp_path / "h.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "navproof.cli.simulate", "pq-handoff", "--db", str(db),
         "--pace", "0.02"],
        stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if "step 0" in line:
            break
    time.sleep(random.Random(seed).uniform(0.0, 0.2))
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    if proc.returncode == -signal.SIGKILL:
        resume_to_end(db)
    check_invariants(db)


def test_bad_record_files_exit_3_and_are_left_alone(tmp_path):
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"\x00garbage" * 64)
    before = corrupt.read_bytes()
    result = simulate(corrupt)
    assert result.returncode == 3 and "not a SQLite database" in result.stderr
    assert corrupt.read_bytes() == before
    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    before = foreign.read_bytes()
    result = simulate(foreign, "--resume")
    assert result.returncode == 3 and result.stdout == ""
    assert foreign.read_bytes() == before
    used = tmp_path / "used.db"
    assert simulate(used).returncode == 0
    again = simulate(used)
    assert again.returncode == 3 and "use --resume" in again.stderr
    missing = simulate(tmp_path / "never.db", "--resume")
    assert missing.returncode == 3 and "nothing to resume" in missing.stderr
