"""The one adapter between campaigns and the independent truth check of a World step.

:func:`navproof.world.independent_check.check_world_step` (when the installed runtime has it)
is the truth check: it re-measures the executed step without the generated formulas. Before
that module exists this adapter reads the World's own clearances of the step (signed wall and
agent-agent clearances over the executed motion, :class:`navproof.world.WorldStep`), which a
weakened solve cannot bend (they come from the layout and the executed positions) but which
are not independent of the World's geometry code. :data:`INDEPENDENT` says which one ran.

A *lying label* is an agent-step labelled SAFE that the check sees violated beyond the
numerical tolerance; fallback labels (F1-F3, overlap recovery) are counted, never lying.
Claim: B5, W1 (what is checked), T4 (on the executed state).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from navproof.core.errors import EPS
from navproof.step import SAFE

try:  # the independent check of every committed step
    from navproof.world.independent_check import check_world_step as _check_world_step
except ImportError:  # pragma: no cover - depends on the installed runtime
    _check_world_step = None

INDEPENDENT = _check_world_step is not None
"""True when the independent check module is present (else the World's own clearances)."""
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


def _array(obj: Any, name: str, n: int, fill: float | bool) -> np.ndarray:
    value = getattr(obj, name, None)
    if value is None:
        return np.full(n, fill)
    return np.asarray(value)


def check(world: Any, step: Any) -> Truth:
    """The truth of the step just taken (``step`` is what ``world.step()`` returned)."""
    n = int(np.asarray(step.label).shape[0])
    label = np.asarray(step.label)
    if _check_world_step is not None:
        t = _check_world_step(world, step)
        wall = _array(t, "wall_clearance_m", n, np.inf).astype(float)
        obstacle = _array(t, "obstacle_clearance_m", n, np.inf).astype(float)
        agent = _array(t, "agent_clearance_m", n, np.inf).astype(float)
        speed = _array(t, "speed_excess_mps", n, 0.0).astype(float)
        patch = _array(t, "patch_crossing", n, False).astype(bool)
        violated = _array(t, "violated", n, False).astype(bool)
        lying = getattr(t, "lying", None)
        lying = (violated & (label == SAFE)) if lying is None else np.asarray(lying, bool)
        claim = getattr(t, "claim", None)
        return Truth(wall, obstacle, agent, speed, patch, violated, lying,
                     None if claim is None else np.asarray(claim))
    wall = np.asarray(step.wall_clearance_m, float)
    agent = np.asarray(step.agent_clearance_m, float)
    violated = (wall < -EPS) | (agent < -EPS)
    return Truth(wall, np.full(n, np.inf), agent, np.zeros(n), np.zeros(n, bool), violated,
                 violated & (label == SAFE))
