"""Kill-and-resume of a campaign in a real subprocess: SIGKILL at random moments, then
``--resume`` until it ends; every run is recorded exactly once, with the same results as an
uninterrupted campaign, and the file stays sound."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import write_spec
from test_campaign_cli import rows

from navproof.cli import main


def campaign(spec: Path, db: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "navproof.cli", "campaign", str(spec),
                             "--results", str(db), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def recorded(db: Path) -> int:
    """Runs recorded in the results file so far (0 while it does not exist or is locked)."""
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05)
        try:
            return int(conn.execute("SELECT count(*) FROM runs").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize("workers", ["0", "2"])
def test_sigkill_at_random_moments_loses_and_repeats_no_run(tmp_path: Path,
                                                            workers: str) -> None:
    spec = write_spec(tmp_path, runs=24, steps=15, seed=5)
    reference = tmp_path / "reference.sqlite"
    assert main(["campaign", str(spec), "--results", str(reference), "--workers", "0"]) == 0
    db = tmp_path / "killed.sqlite"
    rng = random.Random(int(workers) + 11)
    kills = 0
    for attempt in range(8):
        args = ["--workers", workers] + (["--resume"] if db.exists() else [])
        proc = campaign(spec, db, *args)
        # kill once a random number of further runs is recorded (plus a random fraction of a
        # run), so the kill lands mid-campaign however fast this machine runs it
        target = recorded(db) + rng.randint(1, 6)
        while proc.poll() is None and recorded(db) < target:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 0.3))
        if proc.poll() is None:
            # the coordinator and its pool workers, as when the machine's job is killed
            os.killpg(proc.pid, signal.SIGKILL)
            kills += 1
        proc.communicate(timeout=60)
        if attempt >= 2 and proc.returncode == 0:
            break
    final = campaign(spec, db, "--workers", workers, *(["--resume"] if db.exists() else []))
    out, err = final.communicate(timeout=300)
    assert final.returncode == 0, err
    assert kills >= 1
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()
    assert rows(db) == rows(reference)
