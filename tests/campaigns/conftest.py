"""Shared files of the campaign tests: a small base scenario and campaign specs."""

from __future__ import annotations

from pathlib import Path

import pytest

WALKER = """
[scenario]
name = "corridor-walker"
steps = 60

[agent_defaults]
radius_m = 0.4
max_speed_mps = 1.2
max_accel_mps2 = 1.0

[corridor]   # centre space; the lower wall is far, the upper one at y = 2 m
vertices = [[-12.0, -12.0], [12.0, -12.0], [12.0, 2.0], [-12.0, 2.0]]

[[agents]]
position = [0.0, 0.0]
goal = [3.0, 0.0]
"""

CONVEYOR = """
[scenario]
name = "belt"
steps = 30

[agent_defaults]
radius_m = 0.4
max_speed_mps = 1.2
max_accel_mps2 = 1.0

[corridor]
vertices = [[-2.0, -2.0], [12.0, -2.0], [12.0, 2.0], [-2.0, 2.0]]

[[supports]]
name = "belt"
kind = "conveyor"
vertices = [[1.0, -1.5], [8.0, -1.5], [8.0, 1.5], [1.0, 1.5]]
velocity_mps = [0.2, 0.0]

[[agents]]
position = [0.0, -1.0]
goal = [9.0, -1.0]

[[agents]]
position = [9.0, 1.0]
goal = [0.0, 1.0]
"""


def write_spec(folder: Path, *, runs: int = 6, steps: int = 20, seed: int = 1,
               search: str = "random", vary: str | None = None, extra: str = "",
               base: str = CONVEYOR) -> Path:
    (folder / "base.toml").write_text(base, encoding="utf-8")
    vary = vary if vary is not None else """
[[vary]]
key = "supports[0].velocity_mps[0]"
uniform = [-0.3, 0.3]

[[vary]]
key = "agents[*].max_speed_mps"
normal = { mean = 1.2, std = 0.3 }

[[vary]]
key = "scenario.time_step_s"
choice = [0.05, 0.1]
"""
    spec = folder / "spec.toml"
    spec.write_text(f"""
[campaign]
name = "test-campaign"
base = "base.toml"
runs = {runs}
steps = {steps}
seed = {seed}
search = "{search}"
{extra}
{vary}
""", encoding="utf-8")
    return spec


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    return write_spec(tmp_path)
