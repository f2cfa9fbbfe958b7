"""Golden audit reports: a benign change, one that breaks the handoff deadline (H5) and one that
breaks the support carry (R2); the JUnit and Markdown files of ``prove`` and ``audit``.

Regenerate after an intended change with ``NAVPROOF_UPDATE_GOLDEN=1 pytest tests/golden`` and
review the diff like code. Solver models (counterexample values) vary between z3 releases and
are masked; the margins, verdicts and parameter changes are compared exactly.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from navproof.specs.profile import DEFAULT_PROFILE_PATH

DATA = Path(__file__).with_name("data")

CHANGES = {
    # benign: a shorter neighbour distance by default; every claim keeps its room
    "benign": ('[parameters.neighbor_dist_m]\nunit = "m"\ndefault = 15.0',
               '[parameters.neighbor_dist_m]\nunit = "m"\ndefault = 12.0'),
    # 30 ticks of 0.05 s leave 1.5 s for three 0.6 s access curves and a 0.3 s brake (H5)
    "deadline": ('[parameters.tick_s]\nunit = "s"\ndefault = 0.1',
                 '[parameters.tick_s]\nunit = "s"\ndefault = 0.05'),
    # platforms up to 0.4 m/s outrun the 1/3 m/s cap on the steepest slope (R2)
    "carry": ('default = 0.0\nmin = 0.0\nmax = 0.3\nrationale = "Speed |u|',
              'default = 0.0\nmin = 0.0\nmax = 0.4\nrationale = "Speed |u|'),
}
EXPECTED_EXIT = {"benign": 0, "deadline": 1, "carry": 1}
MARGIN_IDS = ("R2", "H5", "A4", "A5", "O-horizon")


def _navproof(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "navproof.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=600)


def _candidate(tmp: Path, name: str) -> Path:
    old, new = CHANGES[name]
    text = DEFAULT_PROFILE_PATH.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path = tmp / f"{name}.toml"
    path.write_text(text.replace(old, new).replace('name = "default"', f'name = "{name}"'),
                    encoding="utf-8")
    return path


def _mask_models(markdown: str) -> str:
    return "\n".join(re.sub(r"counterexample: .* \|$", "counterexample: (solver model) |", line)
                     for line in markdown.splitlines()) + "\n"


def _check_golden(name: str, text: str) -> None:
    path = DATA / name
    if os.environ.get("NAVPROOF_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}; run with NAVPROOF_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


@pytest.fixture(scope="module", params=sorted(CHANGES))
def audited(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"audit-{request.param}")
    candidate = _candidate(tmp, request.param)
    result = _navproof("audit", "--candidate", str(candidate), "--claims", "R2",
                       "--markdown", "report.md", "--junit", "report.xml", cwd=tmp)
    return request.param, result, tmp


def test_audit_markdown_is_unchanged(audited):
    name, result, tmp = audited
    assert result.returncode == EXPECTED_EXIT[name], result.stdout + result.stderr
    _check_golden(f"audit_{name}.md", _mask_models((tmp / "report.md").read_text("utf-8")))


def test_audit_junit_has_a_case_per_obligation_and_margin(audited):
    name, result, tmp = audited
    root = ET.parse(tmp / "report.xml").getroot()
    cases = list(root.iter("testcase"))
    names = [c.get("name") for c in cases]
    assert names[:3] == ["generated formulas are fresh", "R2", "R2/report"]
    assert [n.split(":")[0] for n in names[3:]] == [f"margin {m}" for m in MARGIN_IDS]
    failed = {c.get("name").split(":")[0] for c in cases if c.find("failure") is not None}
    assert failed == {"benign": set(), "deadline": {"margin H5"},
                      "carry": {"R2", "margin R2"}}[name]
    assert root.get("tests") == str(len(cases)) and root.get("failures") == str(len(failed))


def test_the_breaking_margin_is_named_in_the_text_output(audited):
    name, result, _ = audited
    lines = {line.split()[0]: line for line in result.stdout.splitlines()
             if line.startswith("  ") and line.split()[0] in MARGIN_IDS}
    broken = {"benign": None, "deadline": "H5", "carry": "R2"}[name]
    for margin, line in lines.items():
        assert ("REGRESSION" in line) == (margin == broken), line


@pytest.mark.parametrize(
    ("old", "new", "key", "rule"),
    [
        ('[parameters.tick_s]\nunit = "s"\ndefault = 0.1\n', '[parameters.tick_s]\nunit = "s"\n',
         "parameters.tick_s.default", "is required"),
        ('[parameters.step_s]\nunit = "s"', '[parameters.step_s]\nunit = "ms"',
         "parameters.step_s.unit", "must be 's'"),
        ("default = 10\nmin = 0\nmax = 64", "default = 10\nmin = 64\nmax = 0",
         "parameters.max_neighbors.min", "must be <= max"),
        ('[parameters.agent_radius_m]\nunit = "m"\ndefault = 1.5',
         '[parameters.agent_radius_m]\nunit = "m"\ndefault = nan',
         "parameters.agent_radius_m.default", "must be finite"),
    ],
    ids=["missing-key", "wrong-unit", "range-upside-down", "nan"],
)
def test_a_bad_candidate_profile_is_a_clear_error(tmp_path, old, new, key, rule):
    text = DEFAULT_PROFILE_PATH.read_text(encoding="utf-8")
    assert text.count(old) == 1
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace(old, new), encoding="utf-8")
    result = _navproof("audit", "--candidate", str(bad), "--junit", "r.xml", cwd=tmp_path)
    assert result.returncode == 3, result.stdout + result.stderr
    assert str(bad) in result.stderr and key in result.stderr and rule in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "r.xml").exists()


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def test_against_a_git_revision_compares_the_file_with_its_committed_version(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    profile = repo / "profile.toml"
    profile.write_text(DEFAULT_PROFILE_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    _git("add", "profile.toml", cwd=repo)
    _git("commit", "-qm", "profile", cwd=repo)
    old, new = CHANGES["deadline"]
    profile.write_text(profile.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    result = _navproof("audit", "--against", "HEAD", "profile.toml", "--claims", "R2",
                       "--markdown", "r.md", cwd=repo)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "tick_s [s]: range [1/200, 1] -> [1/200, 1], default 1/10 -> 1/20" in result.stdout
    assert "profile.toml@HEAD" in result.stdout
    assert "| `tick_s` | s | [1/200, 1] | [1/200, 1] | 1/10 | 1/20 |" in (
        repo / "r.md").read_text("utf-8")
    unknown = _navproof("audit", "--against", "no-such-rev", "profile.toml", cwd=repo)
    assert unknown.returncode == 3 and "--against 'no-such-rev'" in unknown.stderr


def test_prove_writes_junit_and_markdown(tmp_path):
    result = _navproof("prove", "--claims", "R2,A5,S1", "--junit", "p.xml", "--markdown", "p.md",
                       cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    root = ET.parse(tmp_path / "p.xml").getroot()
    cases = [c.get("name") for c in root.iter("testcase")]
    # the freshness of the generated formulas, then the obligations in registry order
    assert cases[0] == "generated formulas are fresh"
    assert sorted(cases[1:]) == ["A5", "R2", "R2/report", "S1"]
    assert root.get("failures") == "0" and root.get("errors") == "0"
    a5 = next(c for c in root.iter("testcase") if c.get("name") == "A5")
    assert "counterexample:" in a5.find("system-out").text
    md = (tmp_path / "p.md").read_text("utf-8")
    assert "**all as expected** — 4 obligations" in md
    assert md.count("| ✅ |") == 4
