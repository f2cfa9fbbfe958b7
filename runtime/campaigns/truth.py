"""The one adapter between campaigns and the independent truth check of a World step.

:func:`navproof.world.independent_check.check_world_step` is the truth check: it re-measures
the executed step without the generated formulas or the safe step's own verification.

A *lying label* is an agent-step labelled SAFE that the check sees violated beyond the
numerical tolerance; fallback labels (F1-F3, overlap recovery) are counted, never lying.
Claim: B5, W1 (what is checked), T4 (on the executed state).
"""

from __future__ import annotations

from typing import Any

from navproof.world.independent_check import StepTruth, check_world_step


def check(world: Any, step: Any) -> StepTruth:
    """The truth of the step just taken (``step`` is what ``world.step()`` returned): the
    independent check's per-agent clearances, speed excess, violated rule (``claim``) with its
    signed ``margin``, and ``lying`` (labelled SAFE and violated)."""
    return check_world_step(world, step)
