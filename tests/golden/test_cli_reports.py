"""Golden outputs of the CLI reports: the P/Q handoff timeline and the prove verdict table.

Regenerate a golden file after an intended change with ``NAVPROOF_UPDATE_GOLDEN=1 pytest
tests/golden`` and review the diff like code.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).with_name("data")


def _navproof(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "navproof.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "NAVPROOF_ASSERT": "1"},
        timeout=300,
    )


def _check_golden(name: str, text: str) -> None:
    path = DATA / name
    if os.environ.get("NAVPROOF_UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}; run with NAVPROOF_UPDATE_GOLDEN=1"
    assert text == path.read_text()


def test_pq_handoff_timeline_is_unchanged(tmp_path):
    result = _navproof("simulate", "pq-handoff", "--db", str(tmp_path / "pq.db"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # The record's path is the only machine-specific line.
    text = (
        "\n".join(line for line in result.stdout.splitlines() if not line.startswith("record "))
        + "\n"
    )
    _check_golden("simulate_pq_handoff.txt", text)


@pytest.fixture(scope="module")
def prove_table(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("prove")
    result = _navproof("prove", "-j", "2", cwd=cwd)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_prove_verdicts_are_unchanged(prove_table):
    # Times and solver models vary between machines and z3 releases; the verdicts must not.
    rows = []
    for line in prove_table.splitlines():
        match = re.match(r"^([A-Z][0-9]+(?:/\w+)*)\s+(\w+)\s+(\w+)\s", line)
        if match:
            rows.append(" ".join(match.groups()))
    _check_golden("prove_verdicts.txt", "\n".join(rows) + "\n")
