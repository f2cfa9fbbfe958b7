"""``simulate pq-handoff --db FILE``: one run is one file, one run at a time, a finished run is
only reported, and every unusable record or stored world is refused with exit code 3, a message
naming the file and the cause, no traceback and nothing changed (Claim: H7)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from navproof.core.errors import InvalidInput
from navproof.demos.pq_handoff.run import PQWorld
from navproof.demos.pq_handoff.world_table import load_world, save_world
from navproof.handoff.record import HandoffRecord, RecordError

TABLES = ("runs", "actions", "attempts", "displacements", "feedback", "decisions", "world")


def simulate(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "navproof.cli", "simulate", "pq-handoff", "--db", str(db), *args],
        capture_output=True, text=True, timeout=120,
    )


def contents(db: Path) -> dict[str, list[tuple]]:
    """Every row of every table, read without changing the file."""
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return {t: conn.execute(f"SELECT * FROM {t}").fetchall() for t in TABLES}
    finally:
        conn.close()


def killed_midway(db: Path) -> None:
    assert simulate(db, "--crash-at", "0.3").returncode == -signal.SIGKILL


def edit_world(db: Path, change) -> None:
    conn = sqlite3.connect(db)
    (state,) = conn.execute("SELECT state FROM world").fetchone()
    world = json.loads(state)
    change(world)
    conn.execute("UPDATE world SET state = ?", (json.dumps(world),))
    conn.commit()
    conn.close()


def test_one_run_is_one_file(tmp_path):
    db = tmp_path / "h.db"
    killed_midway(db)
    assert simulate(db, "--resume").returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.db"]
    assert contents(db)["world"][0][1] == 10  # the world's step index is kept in the record


def test_world_write_refuses_non_finite_numbers_and_keeps_the_stored_world(tmp_path):
    with HandoffRecord.open(tmp_path / "h.db") as record:
        world = PQWorld(path=record.path, step_s=0.05, record=record)
        world.persist()
        before = load_world(record)
        world.velocity_xy_mps = [float("nan"), 0.0]
        with pytest.raises(InvalidInput) as info:
            world.persist()
        assert "velocity_xy_mps[0]" in str(info.value) and "finite" in str(info.value)
        assert load_world(record) == before
        with pytest.raises(InvalidInput):
            save_world(record, 1, {"x": float("inf")})
        assert load_world(record) == before


@pytest.mark.parametrize("bad", ["nan", "inf"])
def test_non_finite_stored_world_is_refused_then_resume_works_once_fixed(tmp_path, bad):
    db = tmp_path / "h.db"
    killed_midway(db)
    edit_world(db, lambda w: w["velocity_xy_mps"].__setitem__(0, float(bad)))
    before = contents(db)
    for _ in range(2):
        refused = simulate(db, "--resume")
        assert refused.returncode == 3, refused.stderr
        assert "velocity_xy_mps[0]" in refused.stderr and bad in refused.stderr
        assert "must be finite" in refused.stderr and "Traceback" not in refused.stderr
        assert contents(db) == before
    edit_world(db, lambda w: w["velocity_xy_mps"].__setitem__(0, 0.0))
    assert simulate(db, "--resume").returncode in (0, 1)  # never stuck


def test_a_second_run_on_the_same_file_is_refused_while_the_first_runs(tmp_path):
    db = tmp_path / "h.db"
    assert simulate(db, "--crash-at", "0.1").returncode == -signal.SIGKILL
    first = subprocess.Popen(
        [sys.executable, "-m", "navproof.cli", "simulate", "pq-handoff", "--db", str(db),
         "--resume", "--pace", "0.2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert first.stdout is not None
    for line in first.stdout:
        if "step" in line:  # the first run holds the file and moves the world
            break
    runs_before = len(contents(db)["runs"])
    second = simulate(db, "--resume")
    assert second.returncode == 3, second.stderr
    assert "in use by another run" in second.stderr and f"pid {first.pid}" in second.stderr
    assert "Traceback" not in second.stderr and second.stdout == ""
    assert len(contents(db)["runs"]) == runs_before  # the refused run did not start an epoch
    rest, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert "final phase Following on Q" in rest
    epochs = {row[0] for row in contents(db)["runs"]}
    assert epochs == {1, 2}  # the start and the one resume that ran
    assert {row[2] for row in contents(db)["decisions"]} <= epochs


def test_resuming_a_finished_run_reports_it_and_writes_nothing(tmp_path):
    db = tmp_path / "h.db"
    assert simulate(db).returncode == 0
    before = contents(db)
    for _ in range(2):
        again = simulate(db, "--resume")
        assert again.returncode == 0, again.stderr
        assert "already ended in Following; nothing to resume, nothing written" in again.stdout
        assert "final phase Following on Q" in again.stdout
        assert contents(db) == before


def test_a_record_of_the_older_schema_with_its_world_json_resumes(tmp_path):
    db = tmp_path / "h.db"
    killed_midway(db)
    conn = sqlite3.connect(db)
    (state,) = conn.execute("SELECT state FROM world").fetchone()
    conn.execute("DROP TABLE world")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    legacy = Path(str(db) + ".world.json")
    legacy.write_text(state)
    done = simulate(db, "--resume")
    assert done.returncode == 0, done.stderr
    assert "final phase Following on Q" in done.stdout
    world = json.loads(contents(db)["world"][0][2])
    # the resumed world continued the legacy one: steps 0..9 without a gap
    assert [h["step_index"] for h in world["history"]] == list(range(10))


def test_corrupt_pages_are_refused_naming_the_file(tmp_path):
    db = tmp_path / "h.db"
    killed_midway(db)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(db.read_bytes())
    assert len(data) // page_size > 4
    data[3 * page_size:4 * page_size] = b"\xab" * page_size  # one table page, not the header
    db.write_bytes(bytes(data))
    before = db.read_bytes()
    refused = simulate(db, "--resume")
    assert refused.returncode == 3, refused.stderr
    assert str(db) in refused.stderr and "is corrupt" in refused.stderr
    assert "Traceback" not in refused.stderr and refused.stdout == ""
    assert db.read_bytes() == before


@contextmanager
def read_only(path: Path):
    """Make ``path`` read-only for this process (chmod; for root, whom chmod does not stop, the
    immutable attribute), or skip when neither takes effect here."""
    mode = path.stat().st_mode
    os.chmod(path, mode & ~0o222)
    immutable = False
    if os.geteuid() == 0 and shutil.which("chattr"):
        immutable = subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0
    try:
        if os.access(path, os.W_OK):
            pytest.skip("cannot make a path read-only for this user here")
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        os.chmod(path, mode)


def test_read_only_record_is_refused_naming_the_file(tmp_path):
    db = tmp_path / "h.db"
    killed_midway(db)
    before = contents(db)
    with read_only(db):
        refused = simulate(db, "--resume")
    assert refused.returncode == 3, refused.stderr
    assert str(db) in refused.stderr and "read-only" in refused.stderr
    assert "Traceback" not in refused.stderr and refused.stdout == ""
    assert contents(db) == before


@pytest.mark.parametrize("existing", [False, True])
def test_read_only_folder_is_refused_naming_the_folder(tmp_path, existing):
    folder = tmp_path / "runs"
    folder.mkdir()
    db = folder / "h.db"
    if existing:
        killed_midway(db)
        for extra in folder.glob("h.db-*"):
            extra.unlink()
    names = sorted(p.name for p in folder.iterdir())
    with read_only(folder):
        refused = simulate(db, "--resume") if existing else simulate(db)
    assert refused.returncode == 3, refused.stderr
    assert str(folder) in refused.stderr and "folder" in refused.stderr
    assert "read-only" in refused.stderr and "not a SQLite database" not in refused.stderr
    assert "Traceback" not in refused.stderr
    assert sorted(p.name for p in folder.iterdir()) == names


def test_a_record_held_by_another_process_cannot_be_opened_exclusively(tmp_path):
    path = tmp_path / "h.db"
    holder = HandoffRecord.open(path, exclusive=True)
    try:
        with pytest.raises(RecordError) as info:
            HandoffRecord.open(path, exclusive=True)
        assert "in use by another run" in str(info.value)
    finally:
        holder.close()
    HandoffRecord.open(path, exclusive=True).close()  # released on close
