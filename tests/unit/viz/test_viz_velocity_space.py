"""Velocity-space pictures: valid image files, one drawn artist per constraint, readable data.

Claim: O4 (the record of a solve), V2 (the reachable disk of the safe step).
"""

from __future__ import annotations

import builtins
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from navproof.cli import main
from navproof.cli.explain import BUILTIN, explain_scene, load_boundary, load_scenario
from navproof.viz.backend import INSTALL_HINT, PlotUnavailable
from navproof.viz.scene import feasible_polygon, scene_from_record
from navproof.viz.velocity_space import draw_velocity_space

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _scene(name: str, agent: int = 0):
    data = BUILTIN[name]
    crowd = load_scenario(data)
    return crowd, explain_scene(crowd, load_boundary(data, crowd), agent)


def _svg_constraint_ids(path) -> list[str]:
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    return [el.get("id") for el in root.iter() if (el.get("id") or "").startswith("constraint-")]


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_each_format_is_a_valid_file(tmp_path, suffix) -> None:
    _, (_, scene) = _scene("wall")
    drawn = draw_velocity_space(scene, tmp_path / f"wall{suffix}")
    data = drawn.path.read_bytes()
    if suffix == ".png":
        assert data.startswith(PNG_MAGIC) and len(data) > 20_000
    elif suffix == ".pdf":
        assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    else:
        assert _svg_constraint_ids(drawn.path)


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_every_constraint_of_the_diagnostics_is_drawn_once(tmp_path, name) -> None:
    crowd, (record, scene) = _scene(name)
    diag = crowd.compute_new_velocities()
    drawn = draw_velocity_space(scene, tmp_path / f"{name}.svg")
    ids = _svg_constraint_ids(drawn.path)
    orca = [i for i in ids if i.startswith("constraint-orca")]
    assert len(orca) == int(diag.constraint_count[0]) == record.constraint_count
    assert len(ids) == scene.constraint_count == drawn.halfplanes + drawn.disks
    assert drawn.neighbours == int(np.sum(crowd.agent_neighbor_idx[0] >= 0))


def test_safe_step_scene_draws_boundary_half_planes_and_both_disks(tmp_path) -> None:
    crowd, (record, scene) = _scene("corridor")
    edges = load_boundary(BUILTIN["corridor"], crowd).edges
    ids = _svg_constraint_ids(draw_velocity_space(scene, tmp_path / "c.svg").path)
    walls = int(edges.valid[0].sum())
    # per wall: step end (B4), stop envelope (S3), stop from the step end (S1)
    for family in ("step-end", "stop-envelope", "stop-from-end"):
        assert sum(i.startswith(f"constraint-{family}-") for i in ids) == walls
    assert sum(i.startswith("constraint-orca") for i in ids) == record.constraint_count
    assert {"constraint-speed", "constraint-reach"} <= set(ids)
    assert scene.frame == "velocity relative to the support"


def test_the_verdict_names_the_constraints_that_held_the_agent_back() -> None:
    _, (_, scene) = _scene("wall")
    assert scene.verdict().startswith("held back by [0] obstacle, [1] agent 1")
    _, (_, squeeze) = _scene("squeeze")
    assert squeeze.verdict().startswith("infeasible: largest violation")
    assert "zero velocity NOT feasible" in squeeze.verdict()


def test_the_corridor_verdict_names_the_end_wall() -> None:
    _, (_, corridor) = _scene("corridor")
    assert corridor.verdict().startswith("held back by edge 2 stop from end")


@pytest.mark.parametrize("name", ["wall", "corridor"])
def test_feasible_region_satisfies_every_constraint(name: str) -> None:
    _, (_, scene) = _scene(name)
    poly = feasible_polygon(scene)
    assert poly.shape[0] >= 3
    for h in scene.halfplanes:
        assert np.all(poly @ np.asarray(h.normal) <= h.offset_mps + 1e-9)
    for d in scene.disks:
        assert np.all(np.hypot(*(poly - d.centre).T) <= d.radius_mps + 1e-9)


def test_feasible_region_is_empty_when_infeasible() -> None:
    _, (_, squeeze) = _scene("squeeze")
    assert feasible_polygon(squeeze).shape == (0, 2)


def test_the_record_carries_current_velocity_neighbours_and_horizon() -> None:
    crowd = load_scenario(BUILTIN["crossing"])
    record = crowd.compute_new_velocities().record(0).as_dict()
    assert record["current_velocity"] == [1.0, 0.0]
    assert record["time_horizon_s"] == 10.0 and record["time_step_s"] == 0.25
    assert record["neighbor_dist_m"] == 15.0 and record["snapshot_time_s"] == 0.0
    by_agent = {nb["agent"]: nb for nb in record["neighbors"]}
    assert by_agent[1]["relative_position_m"] == [8.0, 0.5]
    assert by_agent[1]["relative_velocity_mps"] == [-2.0, 0.0]
    assert by_agent[2]["relative_velocity_mps"] == [-1.0, 1.0]
    sources = {line["source"] for line in record["lines"]}
    assert sources == {"agent 1", "agent 2"}


def test_explain_writes_the_picture_and_the_json_scene(tmp_path, capsys) -> None:
    png, js = tmp_path / "out.png", tmp_path / "out.json"
    assert main(["explain", "--builtin", "corridor", "--agent", "0", "--step", "1",
                 "-o", str(png), "--json", str(js)]) == 0
    assert png.read_bytes().startswith(PNG_MAGIC)
    data = json.loads(js.read_text())
    assert abs(data["snapshot_time_s"] - 0.1) < 1e-12
    space = data["velocity_space"]
    assert space["current_velocity"] is not None and space["verdict"]
    assert len(space["halfplanes"]) + len(space["disks"]) >= data["constraint_count"] + 2
    out = capsys.readouterr().out
    assert "verdict:" in out and "picture:" in out


def test_an_unknown_picture_suffix_is_bad_input(tmp_path, capsys) -> None:
    assert main(["explain", "-o", str(tmp_path / "x.jpg")]) == 3
    assert ".png" in capsys.readouterr().err
    assert not (tmp_path / "x.jpg").exists()


def test_without_matplotlib_the_error_names_the_plot_extra(tmp_path, monkeypatch, capsys
                                                           ) -> None:
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    _, (_, scene) = _scene("wall")
    with pytest.raises(PlotUnavailable, match=r"pip install navproof\[plot\]"):
        draw_velocity_space(scene, tmp_path / "x.png")
    assert main(["explain", "--builtin", "wall", "-o", str(tmp_path / "y.png")]) == 3
    assert INSTALL_HINT in capsys.readouterr().err


def test_scenes_and_explain_do_not_load_matplotlib() -> None:
    code = ("import sys, navproof, navproof.viz.scene, navproof.cli.explain;"
            "assert 'matplotlib' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_scene_from_a_plain_record_matches_the_lines() -> None:
    crowd = load_scenario(BUILTIN["squeeze"])
    record = crowd.compute_new_velocities().record(0).as_dict()
    scene = scene_from_record(record)
    assert [h.index for h in scene.halfplanes] == [ln["index"] for ln in record["lines"]]
    for h, line in zip(scene.halfplanes, record["lines"], strict=True):
        assert h.margin_mps == pytest.approx(-line["violation"])
        assert h.conflicting == line["conflicting"]
    assert scene.max_violation_mps == pytest.approx(record["max_violation_mps"])
    assert scene.zero_velocity_feasible == record["zero_velocity_feasible"]
