"""The claim catalogue and parameter profiles load, validate and reject bad files clearly."""

import re
from fractions import Fraction
from pathlib import Path

import pytest

from navproof.specs import PARAMETER_RULES, SpecError, load_claims, load_profile

CATALOGUE = Path(__file__).resolve().parents[3].parent / "shared" / "spec" / "CLAIMS.md"


def test_every_catalogue_id_is_specified():
    claims = load_claims()
    assert len(claims) == 56
    if CATALOGUE.exists():
        ids = set(re.findall(r"^- \*\*([A-Z][0-9]+)\*\*", CATALOGUE.read_text(), re.M))
        assert ids == set(claims)


def test_refutable_claims_are_b5_a5_t3_and_o7():
    refutable = {cid for cid, c in load_claims().items() if c.refutable}
    assert refutable == {"B5", "A5", "T3", "O7"}


def test_default_profile_is_exact_and_complete():
    profile = load_profile()
    assert set(profile.parameters) == set(PARAMETER_RULES)
    assert profile["step_s"].default == Fraction(1, 10)  # exact, not the binary float
    assert profile["max_access_attempts"].default == 3
    assert profile["handoff_deadline_ticks"].default == 30
    assert profile.defaults()["brake_budget_mps2"] == 1.0


def _write_profile(tmp_path, replace_from, replace_to):
    text = load_profile().source
    body = Path(text).read_text().replace(replace_from, replace_to, 1)
    path = tmp_path / "bad.toml"
    path.write_text(body)
    return path


@pytest.mark.parametrize(
    ("old", "new", "key", "rule"),
    [
        # a zero braking budget is outside the domain (S6: never divide by a = 0)
        ("min = 0.5\nmax = 20.0", "min = 0.0\nmax = 20.0", "brake_budget_mps2.min", "> 0"),
        ("default = 0.1\nmin = 0.005", "default = 0.5\nmin = 0.005", "step_s.default", "[0.005, 0.1]"),
        ('unit = "s"\ndefault = 0.1\nmin = 0.005', 'unit = "ms"\ndefault = 0.1\nmin = 0.005', "step_s.unit", "'s'"),
        ("default = 3\nmin = 1\nmax = 3", "default = 3\nmin = 1\nmax = 4", "max_access_attempts.max", "[1, 3]"),
        ("default = 10\nmin = 0\nmax = 64", "default = 10.5\nmin = 0\nmax = 64", "max_neighbors.default", "whole"),
        ("min = 1.0\nmax = 3.0", "min = 0.5\nmax = 3.0", "slope_factor.min", ">= 1"),
        ("min = 0.1\nmax = 20.0\nrationale = \"ORCA time horizon tau", "min = nan\nmax = 20.0\nrationale = \"ORCA time horizon tau", "orca_time_horizon_s.min", "finite"),
    ],
)
def test_bad_profile_names_file_key_value_and_rule(tmp_path, old, new, key, rule):
    path = _write_profile(tmp_path, old, new)
    assert path.read_text() != Path(load_profile().source).read_text(), "fixture did not apply"
    with pytest.raises(SpecError) as info:
        load_profile(path)
    message = str(info.value)
    assert str(path) in message
    assert key in message
    assert rule in message


def test_unknown_and_missing_parameters_are_rejected(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text('[profile]\nname = "x"\n[parameters.warp_factor]\nunit="1"\ndefault=1\nmin=0\nmax=2\nrationale="?"\n')
    with pytest.raises(SpecError, match="warp_factor"):
        load_profile(path)
    path.write_text('[profile]\nname = "x"\n[parameters]\n')
    with pytest.raises(SpecError, match="required parameters are missing"):
        load_profile(path)


def test_unreadable_and_invalid_toml(tmp_path):
    with pytest.raises(SpecError, match="cannot read"):
        load_profile(tmp_path / "absent.toml")
    path = tmp_path / "broken.toml"
    path.write_text("[profile\n")
    with pytest.raises(SpecError, match="not valid TOML"):
        load_profile(path)


def test_profile_check_value_names_range():
    profile = load_profile()
    profile.check_value("step_s", 0.05)
    with pytest.raises(ValueError, match=r"step_s = 0.5 is outside the profile range \[0.005, 0.1\] s"):
        profile.check_value("step_s", 0.5)
