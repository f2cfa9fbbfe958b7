"""The one adapter between campaigns and the independent truth check of a World step.

:func:`navproof.world.independent_check.check_world_step` is the truth check: it re-measures
the executed step without the generated formulas or the safe step's own verification.

A *lying label* is an agent-step labelled SAFE that the check sees violated beyond the
numerical tolerance; fallback labels (F1-F3, overlap recovery) are counted, never lying.
Claim: B5, W1 (what is checked), T4 (on the executed state).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from navproof.core.errors import EPS
from navproof.world.independent_check import check_world_step as _check_world_step

INDEPENDENT = True
"""The truth is the independent check of every committed step (never the World's own
clearances)."""
KINDS = ("wall", "obstacle", "agent", "speed", "patch")


@dataclass(frozen=True)
class Truth:
    """Per-agent truth of one step: clearances (m, +inf where nothing was near), the speed
    excess (m/s), patch crossings, ``violated`` and ``lying`` (labelled SAFE and violated)."""

    wall_clearance_m: np.ndarray
    obstacle_clearance_m: np.ndarray
    agent_clearance_m: np.ndarray
    speed_excess_mps: np.ndarray
    patch_crossing: np.ndarray
    violated: np.ndarray
    lying: np.ndarray
    claim: np.ndarray | None = None

    def kind(self, agent: int) -> str:
        """The claim of the first failed rule of ``agent`` (C4, C1, B5, W1, V1, O2, T4) as the
        independent check names it, else the violated measure (wall, obstacle, agent, ...)."""
        i = agent
        if self.claim is not None and str(self.claim[i]):
            return str(self.claim[i])
        if self.wall_clearance_m[i] < -EPS:
            return "wall"
        if self.obstacle_clearance_m[i] < -EPS:
            return "obstacle"
        if self.agent_clearance_m[i] < -EPS:
            return "agent"
        if self.speed_excess_mps[i] > EPS:
            return "speed"
        return "patch" if bool(self.patch_crossing[i]) else "other"

    def margin_m(self, agent: int) -> float:
        """The smallest clearance of ``agent`` over the step (m)."""
        return float(min(self.wall_clearance_m[agent], self.obstacle_clearance_m[agent],
                         self.agent_clearance_m[agent]))


def check(world: Any, step: Any) -> Truth:
    """The truth of the step just taken (``step`` is what ``world.step()`` returned), from the
    independent check."""
    t = _check_world_step(world, step)
    return Truth(np.asarray(t.wall_clearance_m, float), np.asarray(t.obstacle_clearance_m, float),
                 np.asarray(t.agent_clearance_m, float), np.asarray(t.speed_excess_mps, float),
                 np.asarray(t.patch_crossing, bool), np.asarray(t.violated, bool),
                 np.asarray(t.lying, bool), np.asarray(t.claim))
