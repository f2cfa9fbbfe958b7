"""Run pictures: trajectories, frames and GIFs are valid image files of the recorded run."""

from __future__ import annotations

import numpy as np
import pytest

from navproof.core.errors import InvalidInput
from navproof.orca.crowd import Crowd
from navproof.viz.trajectories import (
    RecordedRun,
    Region,
    draw_frames,
    draw_trajectories,
    write_gif,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def run() -> RecordedRun:
    crowd = Crowd(0.25)
    crowd.add_agents(np.array([[-6.0, 0.0], [6.0, 0.2], [0.0, -6.0]]), radius=0.5,
                     max_speed=1.5, time_horizon=3.0)
    goals = np.array([[6.0, 0.0], [-6.0, 0.0], [0.0, 6.0]])
    times, positions = [0.0], [crowd.position.copy()]
    for _ in range(24):
        to_goal = goals - crowd.position
        dist = np.linalg.norm(to_goal, axis=1, keepdims=True)
        crowd.set_pref_velocities(to_goal / np.maximum(dist, 1e-9) * np.minimum(dist, 1.5))
        crowd.step()
        times.append(crowd.global_time)
        positions.append(crowd.position.copy())
    return RecordedRun(np.array(times), np.array(positions), crowd.radius.copy(),
                       obstacles=(np.array([[2.0, 2.0], [3.0, 2.0], [3.0, 3.0], [2.0, 3.0]]),),
                       regions=(Region("corridor", "hall", np.array([[-8.0, -8.0], [8.0, -8.0],
                                                                      [8.0, 8.0], [-8.0, 8.0]])),
                                Region("support", "conveyor", np.array([[-8.0, -1.0],
                                                                        [-4.0, -1.0],
                                                                        [-4.0, 1.0],
                                                                        [-8.0, 1.0]]))),
                       goals_m=goals)


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_trajectory_picture_is_a_valid_file(tmp_path, run, suffix) -> None:
    path = draw_trajectories(run, tmp_path / f"t{suffix}", times_s=(0.0, 3.0, 6.0))
    data = path.read_bytes()
    head = {".png": PNG_MAGIC, ".pdf": b"%PDF-", ".svg": b"<?xml"}[suffix]
    assert data.startswith(head) and len(data) > 5_000


def test_one_frame_per_recorded_time(tmp_path, run) -> None:
    frames = draw_frames(run, tmp_path / "frames", every=5)
    assert [p.name for p in frames] == [f"frame_{k:05d}.png" for k in range(0, 25, 5)]
    assert all(p.read_bytes().startswith(PNG_MAGIC) for p in frames)


def test_gif_holds_every_chosen_frame(tmp_path, run) -> None:
    from PIL import Image

    path = write_gif(run, tmp_path / "run.gif", every=6)
    with Image.open(path) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == len(range(0, 25, 6))


def test_bad_runs_and_paths_are_rejected(tmp_path, run) -> None:
    with pytest.raises(InvalidInput, match="position_m"):
        RecordedRun(np.zeros(3), np.zeros((2, 1, 2)), np.ones(1))
    with pytest.raises(InvalidInput, match="regions.kind"):
        RecordedRun(np.zeros(1), np.zeros((1, 1, 2)), np.ones(1),
                    regions=(Region("lake", "x", np.zeros((3, 2))),))
    with pytest.raises(InvalidInput, match=r"\.png"):
        draw_trajectories(run, tmp_path / "t.bmp")
    with pytest.raises(InvalidInput, match=r"\.gif"):
        write_gif(run, tmp_path / "t.png")
    with pytest.raises(InvalidInput, match="every"):
        draw_frames(run, tmp_path / "f", every=0)
