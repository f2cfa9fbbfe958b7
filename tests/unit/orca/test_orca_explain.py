"""``navproof explain``: text picture, JSON and SVG output, exit codes. Claim: O4."""

from __future__ import annotations

import json

from navproof.cli import main


def test_builtin_scenario_prints_picture(capsys) -> None:
    assert main(["explain", "--builtin", "crossing", "--agent", "0"]) == 0
    out = capsys.readouterr().out
    assert "agent 0" in out and "selected velocity" in out and "V" in out
    assert "permits the LEFT" in out


def test_json_and_svg_outputs(tmp_path) -> None:
    js, svg = tmp_path / "a.json", tmp_path / "a.svg"
    assert main(["explain", "--builtin", "squeeze", "--json", str(js), "--svg", str(svg)]) == 0
    data = json.loads(js.read_text())
    assert data["feasible"] is False
    assert data["label"].startswith("degraded")
    assert data["zero_velocity_feasible"] is False
    assert len(data["lines"]) == data["constraint_count"] == 4
    assert data["conflicting_constraints"]
    assert svg.read_text().lstrip().startswith("<?xml") and "</svg>" in svg.read_text()


def test_scenario_file_with_obstacle(tmp_path, capsys) -> None:
    scenario = {
        "time_step": 0.1,
        "defaults": {"radius": 0.5, "max_speed": 1.5},
        "agents": [{"position": [0, 0], "pref_velocity": [1.5, 0]},
                   {"position": [3, 0], "pref_velocity": [-1, 0], "radius": 0.4}],
        "obstacles": [[[1, 1], [2, 1], [2, 2], [1, 2]]],
    }
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario))
    js = tmp_path / "out.json"
    assert main(["explain", str(path), "--steps", "2", "--json", str(js)]) == 0
    data = json.loads(js.read_text())
    assert abs(data["snapshot_time_s"] - 0.2) < 1e-12


def test_bad_inputs_exit_3(tmp_path, capsys) -> None:
    assert main(["explain", "--agent", "17"]) == 3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"agents": [{"position": [0, 0], "radius": -1}]}))
    assert main(["explain", str(bad)]) == 3
    assert "radius" in capsys.readouterr().err
    bad.write_text("{not json")
    assert main(["explain", str(bad)]) == 3
    assert main(["explain", str(tmp_path / "missing.json")]) == 3
    poly = tmp_path / "poly.json"
    poly.write_text(json.dumps({"agents": [], "obstacles": [[[0, 0]]]}))
    assert main(["explain", str(poly)]) == 3
