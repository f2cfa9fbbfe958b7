"""A World run recorded for pictures, and ``navproof simulate FILE.toml --plot/--frames/--gif``:
the recording holds every agent at every step as the World ran it, with the World's regions; the
pictures are valid image files; every bad picture option is bad input (exit 3) before the run."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from navproof.cli import main as cli_main
from navproof.scenario import load_scenario, run_scenario
from navproof.viz.recording import RunRecorder

STEPS = 6
MAGIC = {".png": b"\x89PNG\r\n\x1a\n", ".pdf": b"%PDF-", ".svg": b"<?xml", ".gif": b"GIF8"}
SCENARIO = """
[scenario]
name = "tiny"
steps = 6

[agent_defaults]
radius_m = 0.3
max_speed_mps = 1.0

[corridor]
vertices = [[-8.0, -4.0], [8.0, -4.0], [8.0, 4.0], [-8.0, 4.0]]

[[obstacles]]
vertices = [[-0.5, 2.5], [0.5, 2.5], [0.5, 3.5], [-0.5, 3.5]]

[[patches]]
name = "P"
vertices = [[-8.0, -4.0], [0.0, -4.0], [0.0, 4.0], [-8.0, 4.0]]

[[patches]]
name = "Q"
vertices = [[0.0, -4.0], [8.0, -4.0], [8.0, 4.0], [0.0, 4.0]]
gradient = [0.5, 0.0]

[[supports]]
name = "belt"
kind = "conveyor"
vertices = [[-6.0, -1.0], [-2.0, -1.0], [-2.0, 1.0], [-6.0, 1.0]]
velocity_mps = [0.3, 0.0]

[[supports]]
name = "turntable"
kind = "platform"
vertices = [[2.0, -2.0], [6.0, -2.0], [6.0, 2.0], [2.0, 2.0]]
pivot = [4.0, 0.0]
omega_radps = 0.1

[[agents]]
position = [-6.0, 0.0]
goal = [-3.0, 0.0]

[[agents]]
position = [3.0, 0.0]
goal = [5.0, 1.0]

[[agents]]
position = [-4.0, -3.0]
goal = [-4.0, 3.0]
"""


@pytest.fixture(scope="module")
def scenario_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("scenario") / "tiny.toml"
    path.write_text(SCENARIO, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def recorded(scenario_file):
    scenario = load_scenario(scenario_file)
    with scenario.world as world:
        recorder = RunRecorder(world)
        start_m = world.position_m.copy()
        summary = run_scenario(scenario, steps=STEPS, stop_when_arrived=False,
                               on_step=recorder.add)
        reasons = {int(k): v for k, v in summary["not_arrived"].items()}
        return recorder.run(labels=reasons), world, start_m, summary


def _valid_image(path, suffix: str) -> bool:
    data = path.read_bytes()
    return data.startswith(MAGIC[suffix]) and len(data) > 5_000


def test_the_recording_holds_every_agent_at_every_step(recorded) -> None:
    run, world, start_m, summary = recorded
    assert summary["steps"] == STEPS
    assert run.position_m.shape == (STEPS + 1, world.count, 2) and run.agents == 3
    np.testing.assert_allclose(run.time_s, np.arange(STEPS + 1) * world.dt_s, atol=1e-12)
    np.testing.assert_array_equal(run.position_m[0], start_m)
    np.testing.assert_array_equal(run.position_m[-1], world.position_m)
    np.testing.assert_array_equal(run.radius_m, world.radius_m)
    np.testing.assert_array_equal(run.goals_m, [[-3.0, 0.0], [5.0, 1.0], [-4.0, 3.0]])
    # every agent moved: the recording is not the initial state repeated
    assert np.all(np.hypot(*(run.position_m[-1] - run.position_m[0]).T) > 0.05)
    # nobody arrives in 0.6 s: each agent carries the summary's reason
    assert summary["arrived"] == 0
    assert run.labels == tuple(summary["not_arrived"][str(i)] for i in range(3))


def test_recording_does_not_change_the_run(scenario_file, recorded) -> None:
    run = recorded[0]
    scenario = load_scenario(scenario_file)
    with scenario.world as world:
        run_scenario(scenario, steps=STEPS, stop_when_arrived=False)
        np.testing.assert_array_equal(world.position_m, run.position_m[-1])


def test_the_recording_has_the_regions_as_the_world_knows_them(recorded) -> None:
    run, world, _, _ = recorded
    kinds = [r.kind for r in run.regions]
    assert kinds.count("corridor") == 1 and kinds.count("patch") == 2 \
        and kinds.count("support") == 2
    labels = [r.label for r in run.regions]
    assert any(label.startswith("Q (k = 1.12") for label in labels)  # k = sqrt(1 + 0.5^2)
    assert any("conveyor, 0.3 m/s" in label for label in labels)
    assert len(run.obstacles) == 1
    platform = next(r for r in run.regions if "platform" in r.label)
    belt = next(r for r in run.regions if "conveyor" in r.label)
    assert belt.polygon_at_m is None
    assert platform.polygon_at_m.shape == (STEPS + 1, 4, 2)
    # the platform turned by omega t about its pivot between the first and the last record
    first = platform.polygon_at_m[0, 0] - [4.0, 0.0]
    last = platform.polygon_at_m[-1, 0] - [4.0, 0.0]
    turned = np.arctan2(first[0] * last[1] - first[1] * last[0], first @ last)
    assert turned == pytest.approx(0.1 * STEPS * world.dt_s, abs=1e-9)


@pytest.mark.parametrize("suffix", [".png", ".pdf"])
def test_recorded_world_draws_as_a_valid_picture(tmp_path, recorded, suffix) -> None:
    from navproof.viz.trajectories import draw_trajectories

    path = draw_trajectories(recorded[0], tmp_path / f"run{suffix}", times_s=(0.0, 0.3))
    assert _valid_image(path, suffix)


def test_simulate_draws_plot_frames_and_gif_and_notes_them(tmp_path, scenario_file,
                                                           capsys) -> None:
    from PIL import Image

    every = 4
    plot, frames, gif, out = (tmp_path / "run.svg", tmp_path / "frames" / "deep",
                              tmp_path / "run.gif", tmp_path / "summary.json")
    code = cli_main(["simulate", str(scenario_file), "--steps", str(STEPS), "--plot", str(plot),
                     "--times", "0,0.3", "--frames", str(frames), "--every", str(every),
                     "--gif", str(gif), "--json", str(out)])
    assert code == 0
    assert _valid_image(plot, ".svg") and _valid_image(gif, ".gif")
    written = sorted(frames.glob("*.png"))
    # the initial state plus every step, every 4th of them
    expected = len(range(0, STEPS + 1, every))
    assert len(written) == expected == 2
    assert all(_valid_image(p, ".png") for p in written)
    with Image.open(gif) as image:
        assert image.n_frames == expected
    pictures = json.loads(out.read_text())["pictures"]
    assert pictures == {"plot": str(plot), "gif": str(gif),
                        "frames": {"directory": str(frames), "count": expected, "every": every}}
    assert "run.svg" in capsys.readouterr().out


def test_simulate_without_pictures_notes_none(tmp_path, scenario_file) -> None:
    out = tmp_path / "summary.json"
    assert cli_main(["simulate", str(scenario_file), "--steps", "1", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["pictures"] == {}


@pytest.mark.parametrize(("words", "named"), [
    (["--plot", "{tmp}/run.bmp"], "--plot = '{tmp}/run.bmp': must end in one of .png"),
    (["--gif", "{tmp}/run.png"], "--gif = '{tmp}/run.png': must end in .gif"),
    (["--plot", "{tmp}/missing/run.png"], "--plot = '{tmp}/missing/run.png': its folder"),
    (["--gif", "{tmp}/folder.gif"], "--gif = '{tmp}/folder.gif': is a directory"),
    (["--frames", "{tmp}/a_file"], "--frames = '{tmp}/a_file': exists and is not a folder"),
    (["--frames", "{tmp}/f", "--every", "0"], "--every = '0': must be a whole number >= 1"),
    (["--frames", "{tmp}/f", "--every", "two"], "--every = 'two': must be a whole number"),
    (["--plot", "{tmp}/p.png", "--times", "1,x"], "--times = '1,x': must be comma-separated"),
    (["--plot", "{tmp}/p.png", "--times", "-1"], "--times = '-1': every time must be finite"),
    (["--plot", "{tmp}/p.png", "--times", "nan"], "--times = 'nan': every time must be finite"),
    (["--times", "1"], "--times = '1': applies to --plot only"),
    (["--every", "2", "--plot", "{tmp}/p.png"], "--every = '2': applies to --frames and --gif"),
])
def test_bad_picture_options_are_bad_input_before_the_run(tmp_path, scenario_file, capsys,
                                                          words, named) -> None:
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "folder.gif").mkdir()
    argv = ["simulate", str(scenario_file)] + [w.format(tmp=tmp_path) for w in words]
    assert cli_main(argv) == 3
    err = capsys.readouterr().err
    assert "bad input" in err and named.format(tmp=tmp_path) in err
    assert "steps" not in err  # no progress bar: nothing ran
    assert not (tmp_path / "f").exists()


def test_missing_matplotlib_names_the_extra(tmp_path, scenario_file, capsys,
                                            monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    code = cli_main(["simulate", str(scenario_file), "--gif", str(tmp_path / "run.gif")])
    assert code == 3
    err = capsys.readouterr().err
    assert f"--gif = '{tmp_path / 'run.gif'}'" in err and "pip install navproof[plot]" in err
    assert not (tmp_path / "run.gif").exists()


@pytest.mark.parametrize("option", [["--plot", "p.png"], ["--frames", "f"], ["--gif", "g.gif"],
                                    ["--times", "1"], ["--every", "2"]])
def test_picture_options_are_for_world_scenarios_only(tmp_path, capsys, option) -> None:
    code = cli_main(["simulate", "pq-handoff", "--db", str(tmp_path / "pq.db"), *option])
    assert code == 3
    err = capsys.readouterr().err
    assert f"{option[0]} = '{option[1]}'" in err
    assert "World scenario files (*.toml) only" in err
    assert not (tmp_path / "pq.db").exists()


def test_a_violated_run_is_drawn_up_to_the_violation(tmp_path, scenario_file, capsys,
                                                     monkeypatch) -> None:
    from navproof.core.errors import ObligationViolation
    from navproof.world.world import World

    real_step = World.step
    calls = []

    def step_then_violate(world):
        calls.append(1)
        if len(calls) == 3:
            raise ObligationViolation("B5", "a body labelled safe crossed a wall", agent=0,
                                      observed=-0.01, limit=0.0, margin=-0.01)
        return real_step(world)

    monkeypatch.setattr(World, "step", step_then_violate)
    frames = tmp_path / "frames"
    code = cli_main(["simulate", str(scenario_file), "--steps", str(STEPS), "--assert",
                     "--plot", str(tmp_path / "run.png"), "--frames", str(frames)])
    assert code == 1  # the verdict stays the violation
    captured = capsys.readouterr()
    assert "obligation violated: [B5]" in captured.err
    assert _valid_image(tmp_path / "run.png", ".png")
    # the initial state and the two steps completed before the violation
    assert sorted(p.name for p in frames.glob("*.png")) == [
        "frame_00000.png", "frame_00001.png", "frame_00002.png"]
    assert "3 frames in" in captured.out


def test_a_moving_region_needs_one_polygon_per_recorded_time() -> None:
    from navproof.core.errors import InvalidInput
    from navproof.viz.trajectories import RecordedRun, Region

    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    with pytest.raises(InvalidInput, match=r"regions.polygon_at_m .* must have shape \(3, V, 2\)"):
        RecordedRun(np.arange(3.0), np.zeros((3, 1, 2)), np.ones(1),
                    regions=(Region("support", "turntable", square,
                                    polygon_at_m=np.stack([square] * 2)),))
