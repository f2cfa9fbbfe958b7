"""``navproof audit``: parameter diff, obligation changes and regression exit codes."""

import contextlib
import io
import json
from fractions import Fraction

import pytest

from navproof import cli
from navproof.cli.audit import SCHEMA
from navproof.core import exit_codes
from navproof.specs.profile import DEFAULT_PROFILE_PATH

_SUPPORT = '[parameters.support_speed_mps]\nunit = "m/s"\ndefault = 0.0\nmin = 0.0\nmax = 0.3'


def _run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["audit", *argv])
    return code, out.getvalue(), err.getvalue()


def _profile(tmp_path, name, old, new):
    text = DEFAULT_PROFILE_PATH.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / f"{name}.toml"
    path.write_text(
        text.replace(old, new, 1).replace('name = "default"', f'name = "{name}"'), encoding="utf-8"
    )
    return path


@pytest.fixture(scope="module")
def broken_audit(tmp_path_factory):
    """Raising the support speed past V_min / k_max breaks R2; audited once, two workers."""
    tmp = tmp_path_factory.mktemp("audit")
    candidate = _profile(tmp, "fast-platforms", _SUPPORT, _SUPPORT.replace("0.3", "0.5"))
    out_json = tmp / "audit.json"
    code, out, err = _run("--candidate", str(candidate), "-j", "2", "--json", str(out_json))
    return code, out, err, json.loads(out_json.read_text(encoding="utf-8"))


def test_a_candidate_that_breaks_a_proved_claim_exits_1(broken_audit):
    code, out, _, _ = broken_audit
    assert code == exit_codes.EXIT_FAILED
    assert "REGRESSION R2: proved -> refuted" in out
    assert "BREAKS" in out


def test_the_parameter_change_is_listed_old_to_new(broken_audit):
    _, out, _, data = broken_audit
    assert "support_speed_mps [m/s]: range [0, 3/10] -> [0, 1/2]" in out
    assert data["parameter_changes"] == [
        {
            "name": "support_speed_mps",
            "unit": "m/s",
            "old": {"min": "0", "max": "3/10", "default": "0"},
            "new": {"min": "0", "max": "1/2", "default": "0"},
        }
    ]


def test_the_candidate_counterexample_is_reported_and_replayed(broken_audit):
    *_, data = broken_audit
    assert data["schema"] == SCHEMA
    (change,) = data["changes"]
    assert change["id"] == "R2" and change["regression"] is True
    assert (change["base_status"], change["candidate_status"]) == ("proved", "refuted")
    # |u| > Vh, exactly: the stop target of an all-fixed intersection is out of reach.
    u_sq = sum(Fraction(change["counterexample"][k]) ** 2 for k in ("u_x", "u_y"))
    vh = Fraction(change["counterexample"]["Vh"])
    assert u_sq > vh**2
    assert data["candidate"]["profile"]["name"] == "fast-platforms"
    assert data["base"]["profile"]["name"] == "default"
    assert data["base"]["exit_code"] == 0 and data["exit_code"] == 1


def test_an_unchanged_candidate_exits_0(tmp_path):
    same = tmp_path / "same.toml"
    same.write_text(DEFAULT_PROFILE_PATH.read_text(encoding="utf-8"), encoding="utf-8")
    code, out, _ = _run("--candidate", str(same), "--claims", "R2,B1")
    assert code == exit_codes.EXIT_OK
    assert "parameter changes (0)" in out and "obligation changes (0)" in out


def test_a_harmless_change_is_listed_without_regression(tmp_path):
    step = "min = 0.005\nmax = 0.1"
    candidate = _profile(tmp_path, "slower-steps", step, "min = 0.01\nmax = 0.1")
    code, out, _ = _run("--candidate", str(candidate), "--claims", "B2,R2")
    assert code == exit_codes.EXIT_OK
    assert "step_s [s]: range [1/200, 1/10] -> [1/100, 1/10]" in out


def test_a_bad_candidate_exits_3_naming_the_key(tmp_path):
    candidate = _profile(tmp_path, "bad", _SUPPORT, _SUPPORT.replace("min = 0.0", "min = -1.0"))
    code, _, err = _run("--candidate", str(candidate))
    assert code == exit_codes.EXIT_BAD_INPUT
    assert "parameters.support_speed_mps.min" in err


def test_a_missing_candidate_flag_exits_3():
    code, _, _ = _run()
    assert code == exit_codes.EXIT_BAD_INPUT
