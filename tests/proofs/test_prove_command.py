"""``navproof prove``: table, JSON record, progress, claim filtering and every exit code."""

import contextlib
import io
import json
import subprocess
import sys

import pytest
import z3

from navproof import cli
from navproof.core import exit_codes
from navproof.proofs import codegen, engine, report
from navproof.proofs import obligations as reg
from navproof.proofs.obligations import Obligation
from navproof.specs.profile import DEFAULT_PROFILE_PATH, load_profile


def _run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["prove", *argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    """One full default-profile run with two workers, shared by the tests of this module."""
    path = tmp_path_factory.mktemp("prove") / "prove.json"
    code, out, err = _run("-j", "2", "--json", str(path))
    return code, out, err, json.loads(path.read_text(encoding="utf-8"))


def test_default_profile_proves_every_claim_as_expected(full_run):
    code, out, _, data = full_run
    assert code == exit_codes.EXIT_OK
    for oid in reg.OBLIGATION_IDS:
        assert any(line.startswith(oid + " ") for line in out.splitlines()), oid
    assert "all as expected" in out.splitlines()[-1]


def test_table_shows_witnesses_and_replayed_counterexamples(full_run):
    _, out, _, _ = full_run
    rows = {line.split()[0]: line for line in out.splitlines()[2:-1]}
    assert "witness: dt=" in rows["S3"]
    assert "counterexample:" in rows["A5"] and "replay confirmed" in rows["A5"]
    assert "counterexample:" in rows["B5/endpoints"]
    assert "identities simplify to 0" in rows["A3"]


def test_progress_goes_to_stderr_one_line_per_obligation(full_run):
    _, _, err, _ = full_run
    progress = [line for line in err.splitlines() if line.startswith("[")]
    assert len(progress) == len(reg.OBLIGATION_IDS)
    assert all("expected" in line for line in progress)


UNRANGED = {
    "B6/second_derivative",
    "B6/second_derivative/tight",
    "B6/interpolation",
    "B6/interpolation/tight",
    "B6/pivot",
    "B6/pivot/tight",
    "B6/hold_drift",
    "B6/hold_drift/tight",
}


def test_json_record_schema(full_run):
    code, _, _, data = full_run
    assert data["schema"] == report.SCHEMA
    assert data["exit_code"] == code == 0
    assert data["profile"]["name"] == "default"
    assert data["profile"]["source"] == str(DEFAULT_PROFILE_PATH)
    assert data["generated_formulas"] == {
        "path": str(codegen.GENERATED_PATH),
        "fresh": True,
        "reason": None,
    }
    assert data["settings"]["jobs"] == 2
    assert data["totals"] == {
        "obligations": len(reg.OBLIGATION_IDS),
        "ok": len(reg.OBLIGATION_IDS),
        "not_ok": 0,
        "by_status": {
            "proved": len(reg.OBLIGATION_IDS) - len(reg.REFUTABLE_OBLIGATIONS),
            "refuted": len(reg.REFUTABLE_OBLIGATIONS),
        },
    }
    records = {r["id"]: r for r in data["obligations"]}
    assert list(records) == list(reg.OBLIGATION_IDS)
    keys = {
        "id",
        "claim",
        "title",
        "method",
        "expected",
        "status",
        "ok",
        "seconds",
        "witness",
        "witness_verified",
        "witness_preferred",
        "counterexample",
        "replay_confirmed",
        "replay_detail",
        "checks",
        "steps",
        "solver",
        "message",
    }
    for record in records.values():
        assert keys <= set(record)
    a5 = records["A5"]
    assert a5["status"] == "refuted" and a5["replay_confirmed"] is True
    assert set(a5["counterexample"]["d"]) == {"text", "float", "exact"}
    assert records["S3"]["witness_verified"] is True
    for record in records.values():
        assert set(record["fingerprint"]) in (
            {"hypotheses", "premise", "conclusion"},
            {"identities"},
        )
        if record["method"] == "z3":
            assert record["definedness"]["status"] == "proved"
            assert record["engines"] == {"z3": record["status"]}
            assert record["rlimit"] == data["settings"]["z3_rlimit"]
            assert record["resources_used"] > 0
            # every profile range an obligation covers is reached; the B6 obligations below
            # hold for every value of their variables (rates, norms, piece widths, horizons
            # have no profile range), so they have no endpoint to reach
            assert bool(record["endpoints"]) is (record["id"] not in UNRANGED), record["id"]
            for end in record["endpoints"]:
                assert end["reachable"] is True, (record["id"], end)
                if not end["variable"].startswith("|"):  # a norm is shown through its vector
                    assert end["witness"][end["variable"]]["text"] == end["value"], end
    s4_ends = {(e["variable"], e["end"]) for e in records["S4"]["endpoints"]}
    assert {("|u|", "min"), ("|u|", "max")} <= s4_ends
    assert records["S3"]["steps"][-1] == {
        **records["S3"]["steps"][-1],
        "name": "conclusion",
        "status": "proved",
    }


def test_wall_time_of_the_default_run_is_recorded_never_decisive(full_run):
    *_, data = full_run
    assert data["wall_seconds"] > 0
    assert data["settings"]["timeout_s"] is None
    assert data["settings"]["z3_rlimit"] == load_profile().budgets.z3_rlimit


def test_claims_filter_selects_obligations_of_those_claims(tmp_path):
    path = tmp_path / "out.json"
    code, out, _ = _run("--claims", "B5,S1", "--json", str(path))
    assert code == 0
    ids = [r["id"] for r in json.loads(path.read_text())["obligations"]]
    assert ids == ["B5/endpoints", "B5/extremum", "B5/stationary", "S1"]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--claims", "B1,Z9"], "'Z9'"),
        (["--claims", "O4"], "'O4'"),
        (["--claims", ","], "--claims"),
        (["-j", "0"], "-j"),
        (["--timeout", "-1"], "--timeout"),
        (["--timeout", "soon"], "--timeout"),
    ],
)
def test_bad_flags_exit_3_naming_the_flag_or_value(argv, needle):
    code, out, err = _run(*argv)
    assert code == exit_codes.EXIT_BAD_INPUT
    assert needle in err


def test_bad_profile_exits_3_naming_the_key(tmp_path):
    text = DEFAULT_PROFILE_PATH.read_text(encoding="utf-8")
    bad = text.replace("min = 0.005\nmax = 0.1", "min = 0\nmax = 0.1", 1)
    assert bad != text
    path = tmp_path / "bad.toml"
    path.write_text(bad, encoding="utf-8")
    code, _, err = _run("--profile", str(path), "--claims", "B1")
    assert code == exit_codes.EXIT_BAD_INPUT
    assert "parameters.step_s.min" in err and str(path) in err


def test_stale_generated_module_fails_prove(tmp_path):
    text = codegen.GENERATED_PATH.read_text(encoding="utf-8")
    edited = text.replace("return 2*a*s/(2*a*dt + cmax)", "return 2*a*s/(a*dt + cmax)", 1)
    assert edited != text
    path = tmp_path / "formulas.py"
    path.write_text(edited, encoding="utf-8")
    out_json = tmp_path / "out.json"
    code, out, err = _run(
        "--generated-module", str(path), "--claims", "S1", "--json", str(out_json)
    )
    assert code == exit_codes.EXIT_FAILED
    assert "STALE" in err and "STALE" in out
    data = json.loads(out_json.read_text())
    assert data["generated_formulas"]["fresh"] is False
    assert data["exit_code"] == 1
    # The committed module itself is untouched and fresh.
    assert codegen.stale_reason() is None


def test_an_exhausted_resource_limit_exits_2():
    code, out, _ = _run("--claims", "S5", "--rlimit", "1")
    assert code == exit_codes.EXIT_UNKNOWN
    assert "unknown" in out


def test_a_vacuous_obligation_exits_1(monkeypatch):
    x = z3.Real("x_vacuous")

    def contradictory(_profile):
        return Obligation(
            id="B1",
            claim="B1",
            title="contradictory",
            expected="proved",
            hypotheses=[x > 1, x < 0],
            conclusion=x > 0,
            shown={"x": x},
        )

    monkeypatch.setitem(reg.BUILDERS, "B1", contradictory)
    # in this process, where the replaced builder is (worker processes build their own)
    code, out, _ = _run("--claims", "B1", "-j", "1")
    assert code == exit_codes.EXIT_FAILED
    assert "vacuous" in out


def test_an_undecided_obligation_exits_2(monkeypatch):
    monkeypatch.setattr(engine, "STRATEGIES", (("skip", lambda: z3.Tactic("skip").solver()),))
    code, out, _ = _run("--claims", "B2", "-j", "1")
    assert code == exit_codes.EXIT_UNKNOWN


def test_console_entry_point_runs_in_a_fresh_process():
    proc = subprocess.run(
        [sys.executable, "-m", "navproof.cli", "prove", "--claims", "A5", "-j", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "A5" in proc.stdout and "replay confirmed" in proc.stdout
