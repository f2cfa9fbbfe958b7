"""``navproof campaign``: a small clean campaign end to end, its reports, and the refusals
(another spec, corrupt or read-only results, unreachable scheduler) before anything is
written."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest
from conftest import write_spec

from navproof.cli import main


def rows(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT run_index, seed, params, labels, lying, min_wall_m, "
                            "min_agent_m, min_safe_margin_m FROM runs ORDER BY run_index"
                            ).fetchall()
    finally:
        conn.close()


def test_a_clean_campaign_writes_results_json_junit_and_picture(tmp_path: Path,
                                                                 spec_file: Path) -> None:
    db = tmp_path / "r.sqlite"
    out = tmp_path / "r.json"
    code = main(["campaign", str(spec_file), "--results", str(db), "--workers", "0",
                 "--json", str(out), "--junit", str(tmp_path / "r.xml"),
                 "--plot", str(tmp_path / "r.png")])
    assert code == 0
    summary = json.loads(out.read_text())
    assert summary["runs"] == 6 and summary["lying_labels"] == 0
    assert summary["labels"]["safe"] > 0 and summary["truth_check"] == "independent"
    assert summary["min_margins_m"]["safe_margin_m"] >= 0.0
    assert [r[0] for r in rows(db)] == list(range(6))
    assert 'failures="0"' in (tmp_path / "r.xml").read_text()
    assert (tmp_path / "r.png").stat().st_size > 0
    # resuming a finished campaign runs nothing and changes nothing
    before = rows(db)
    assert main(["campaign", str(spec_file), "--results", str(db), "--workers", "0",
                 "--resume"]) == 0
    assert rows(db) == before


def test_existing_results_are_refused_without_resume_and_for_another_spec(
        tmp_path: Path, spec_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "r.sqlite"
    assert main(["campaign", str(spec_file), "--results", str(db), "--workers", "0",
                 "--runs", "2"]) == 0
    before = rows(db)
    assert main(["campaign", str(spec_file), "--results", str(db), "--workers", "0",
                 "--runs", "2"]) == 3
    assert "--resume" in capsys.readouterr().err
    (tmp_path / "other").mkdir()
    other = write_spec(tmp_path / "other", seed=99)
    assert main(["campaign", str(other), "--results", str(db), "--workers", "0", "--runs", "2",
                 "--resume"]) == 3
    assert "another campaign spec" in capsys.readouterr().err
    assert rows(db) == before


def test_corrupt_and_read_only_results_are_exit_3_before_writing(
        tmp_path: Path, spec_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"SQLite format 3\x00" + b"\xff" * 2000)
    data = corrupt.read_bytes()
    assert main(["campaign", str(spec_file), "--results", str(corrupt), "--workers", "0",
                 "--resume"]) == 3
    assert corrupt.read_bytes() == data
    db = tmp_path / "r.sqlite"
    assert main(["campaign", str(spec_file), "--results", str(db), "--workers", "0",
                 "--runs", "2"]) == 0
    os.chmod(db, stat.S_IRUSR)
    try:
        if os.access(db, os.W_OK):
            pytest.skip("running as a user who can write read-only files")
        data = db.read_bytes()
        assert main(["campaign", str(spec_file), "--results", str(db), "--workers", "0",
                     "--runs", "2", "--resume"]) == 3
        assert "read-only" in capsys.readouterr().err
        assert db.read_bytes() == data
    finally:
        os.chmod(db, stat.S_IRUSR | stat.S_IWUSR)


def test_read_only_folder_is_exit_3(tmp_path: Path, spec_file: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as a user who can write read-only folders")
        assert main(["campaign", str(spec_file), "--results", str(folder / "r.sqlite"),
                     "--workers", "0"]) == 3
        assert list(folder.iterdir()) == []
    finally:
        os.chmod(folder, stat.S_IRWXU)


def test_unreachable_scheduler_is_exit_3_and_nothing_written(
        tmp_path: Path, spec_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "r.sqlite"
    code = main(["campaign", str(spec_file), "--results", str(db),
                 "--scheduler", "tcp://127.0.0.1:9"])
    assert code == 3
    assert "cannot reach the scheduler" in capsys.readouterr().err
    assert not db.exists()


def test_bad_spec_is_exit_3_naming_the_key(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    spec = write_spec(tmp_path, vary='[[vary]]\nkey = "agents[0].max_speed_mps"\n'
                                     'uniform = [0.5, 50.0]')
    db = tmp_path / "r.sqlite"
    assert main(["campaign", str(spec), "--results", str(db), "--workers", "0"]) == 3
    err = capsys.readouterr().err
    assert "vary[0].uniform[1]" in err and "50.0" in err and "profile range" in err
    assert not db.exists()
