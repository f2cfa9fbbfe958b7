"""The P/Q demo's data file (navproof/demos/pq_handoff/pq_handoff.toml, package data): loaded, checked,
and run from another file with the same schema."""

import subprocess
import sys
from pathlib import Path

import pytest

from navproof.core.errors import InvalidInput
from navproof.demos.pq_handoff.data import DEFAULT_FILE, load_pq_scenario

EXAMPLE = DEFAULT_FILE.read_text(encoding="utf-8")


def test_the_example_file_holds_the_seed_scenario():
    s = load_pq_scenario()
    assert (s.plane, s.slope, s.edge_id, s.support_id) == ("P", "Q", "P|Q", "ground")
    assert s.slope_factor == pytest.approx(2.0)
    assert s.start_x_m == -0.09
    assert s.obstacle_changes == ((0.2, True), (0.5, False))
    assert (s.params.access_accel_mps2, s.params.access_speed_cap_mps) == (1.0, 1.0)
    assert (s.params.max_access_attempts, s.params.handoff_deadline_ticks) == (3, 30)
    assert s.headline() == ("plane P (X <= 0), slope Q (X >= 0, height sqrt(3) X, k = 2); foot at "
                            "X = -0.09, a = 1 m/s^2, vCap = 1 m/s")


@pytest.mark.parametrize(("old", "new", "key", "rule"), [
    ('kind = "pq-handoff"', 'kind = "crowd"', "scenario.kind", "must be 'pq-handoff'"),
    ("start_x_m = -0.09", "start_x_m = 0.02", "body.start_x_m", "must be < 0"),
    ("start_x_m = -0.09", 'start_x_m = "far"', "body.start_x_m", "must be a number"),
    ("slope_gradient_x = 1.7320508075688772", "slope_gradient_x = 5.0",
     "patches.slope_gradient_x", "slope_factor"),
    ("slope_gradient_x = 1.7320508075688772", "slope_gradient_x = -1.0",
     "patches.slope_gradient_x", "must be >= 0"),
    ('slope = "Q"', 'slope = "P"', "patches.slope", "must differ"),
    ("time_s = 0.5", "time_s = 0.1", "obstacle_changes[1].time_s", "must be later"),
    ("blocks_access = true", "blocks_access = 1", "obstacle_changes[0].blocks_access",
     "true or false"),
    ("max_access_attempts = 3", "max_access_attempts = 2.5", "handoff.max_access_attempts",
     "whole number"),
    ("access_speed_cap_mps = 1.0", "access_speed_cap_mps = 500.0",
     "handoff.access_speed_cap_mps", ""),
    ("access_speed_cap_mps = 1.0", "access_speed_mps = 1.0", "handoff.access_speed_mps",
     "unknown key"),
    ("[body]", "[bodies]", "bodies", "unknown table"),
])
def test_bad_files_name_the_key_the_value_and_the_rule(tmp_path, old, new, key, rule):
    assert old in EXAMPLE
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(InvalidInput) as info:
        load_pq_scenario(bad)
    assert info.value.field == f"{bad}: {key}"
    assert rule in info.value.rule and info.value.rule


def test_a_missing_table_and_a_missing_file_are_named(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.replace("[body]\nstart_x_m = -0.09\n", ""), encoding="utf-8")
    with pytest.raises(InvalidInput, match="body"):
        load_pq_scenario(bad)
    with pytest.raises(InvalidInput, match="cannot be read"):
        load_pq_scenario(tmp_path / "none.toml")


def _simulate(*args):
    return subprocess.run([sys.executable, "-m", "navproof.cli", "simulate", "pq-handoff", *args],
                          capture_output=True, text=True, timeout=120)


def test_another_file_with_the_same_schema_runs(tmp_path):
    """A farther start and no obstacle: one attempt from X = -0.2 reaches the edge."""
    other = tmp_path / "far.toml"
    text = EXAMPLE.replace("start_x_m = -0.09", "start_x_m = -0.2")
    other.write_text(text[:text.index("[[obstacle_changes]]")]
                     + text[text.index("[handoff]"):], encoding="utf-8")
    result = _simulate("--scenario-file", str(other))
    assert result.returncode == 0, result.stderr
    assert "foot at X = -0.2," in result.stdout
    assert "final phase Following on Q" in result.stdout
    assert "attempts 1/3" in result.stdout
    assert "obstacle version" not in result.stdout


def test_a_bad_file_exits_3_before_running(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.replace("start_x_m = -0.09", "start_x_m = 0.5"), encoding="utf-8")
    result = _simulate("--scenario-file", str(bad), "--db", str(tmp_path / "h.db"))
    assert result.returncode == 3
    assert "body.start_x_m" in result.stderr and "must be < 0" in result.stderr
    assert result.stdout == "" and not Path(tmp_path / "h.db").exists()


def test_the_data_file_ships_with_the_package():
    # an installed wheel runs `navproof simulate pq-handoff` from this file: it lies in the
    # navproof.demos.pq_handoff package and pyproject.toml declares it package data
    import fnmatch
    import tomllib

    import navproof.demos.pq_handoff

    assert DEFAULT_FILE.parent == Path(navproof.demos.pq_handoff.__file__).resolve().parent
    pyproject = tomllib.loads((Path(__file__).resolve().parents[3] / "pyproject.toml")
                              .read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["navproof.demos.pq_handoff"]
    assert any(fnmatch.fnmatch(DEFAULT_FILE.name, p) for p in patterns)
