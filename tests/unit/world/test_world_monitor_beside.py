"""Assertion mode's re-check of the safe step run beside the rest of a World step
(:data:`navproof.world.world.BESIDE_MIN_AGENTS` agents and more): same steps, same verdicts,
and its violation first."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from navproof import ObligationViolation
from navproof.scenario import load_scenario
from navproof.world import Layout, World
from navproof.world import world as world_module

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
CORRIDOR = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])


def _careless_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    """The solve answers "safe" with a velocity straight through the wall at x = 1."""
    real = world_module.solved_step

    def careless(inp, *, profile=None):  # type: ignore[no-untyped-def]
        given, result = real(inp)
        return given, dataclasses.replace(
            result, velocity_mps=np.full_like(result.velocity_mps, 30.0))

    monkeypatch.setattr(world_module, "BESIDE_MIN_AGENTS", 1)
    monkeypatch.setattr(world_module, "solved_step", careless)


def test_the_recheck_beside_names_its_claim_and_the_world_does_not_move(monkeypatch):
    _careless_solve(monkeypatch)
    world = World(Layout(corridor_m=CORRIDOR), assertions=True)
    world.add_agents([[0.9, 0.0]], [[[0.0, 0.0]]], radius_m=0.4)
    start = world.position_m.copy()
    with pytest.raises(ObligationViolation, match="committed curve") as info:
        world.step()
    assert info.value.claim_id == "B5"
    assert info.value.margin < 0
    assert world.time_s == 0.0 and world.step_index == 0
    assert np.array_equal(world.position_m, start)
    world.close()


def test_the_recheck_violation_comes_before_a_later_failure_of_the_step(monkeypatch):
    _careless_solve(monkeypatch)

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("clearance")

    monkeypatch.setattr(world_module, "agent_clearance_m", broken)
    world = World(Layout(corridor_m=CORRIDOR), assertions=True)
    world.add_agents([[0.9, 0.0]], [[[0.0, 0.0]]], radius_m=0.4)
    with pytest.raises(ObligationViolation, match="committed curve") as info:
        world.step()
    assert isinstance(info.value.__context__, RuntimeError)
    world.close()


def _run(path: Path, steps: int) -> list[tuple[np.ndarray, ...]]:
    world = load_scenario(path, assertions=True).world
    out = []
    for _ in range(steps):
        step = world.step()
        truth = step.truth
        out.append((step.label.copy(), step.flags.copy(), world.position_m.copy(),
                    world.velocity_mps.copy(), step.agent_clearance_m.copy(),
                    step.wall_clearance_m.copy(), truth.margin.copy(), truth.claim.copy()))
    world.close()
    return out


@pytest.mark.parametrize("name", ["pq_crowd.toml", "corridor_conveyor.toml"])
def test_steps_with_the_recheck_beside_are_those_with_it_first(monkeypatch, name):
    first = _run(EXAMPLES / name, 40)
    monkeypatch.setattr(world_module, "BESIDE_MIN_AGENTS", 1)
    beside = _run(EXAMPLES / name, 40)
    for a, b in zip(first, beside, strict=True):
        for x, y in zip(a, b, strict=True):
            assert x.dtype == y.dtype and x.shape == y.shape
            assert x.tobytes() == y.tobytes()
