"""The safe step (seed 000): ORCA lines, boundaries, stop envelopes, the reachable disk and the
sweep combined into one verified velocity per agent, with the labelled fallbacks F1-F3.

Modules: ``inputs`` (StepInput, Neighbors, validation), ``constraints`` (half-planes in v1),
``verify`` (whole-step verification, shared with ``monitor``), ``search`` (closest verified
velocity), ``fallbacks`` (F1-F3), ``solve`` (:func:`solve_safe_step`), ``result`` (labels,
flags, margins), ``sweep`` (W1), ``corridor`` and ``snapshot``.
"""

from navproof.step.inputs import (
    Neighbors,
    StepInput,
    check_valid_step_input,
    step_input_from_crowd,
)
from navproof.step.result import (
    DYNAMIC_AVOIDANCE_FAILED,
    FLAG_CARRY_EXCEEDS_CANCEL,
    FLAG_NAMES,
    FLAG_NO_BRAKING_BUDGET,
    FLAG_NO_REFERENCE,
    FLAG_OBSTACLE_STOP_UNCERTIFIED,
    FLAG_OUT_OF_RANGE,
    FLAG_OVER_CAP,
    FLAG_ROTATING_STOP_UNCERTIFIED,
    FLAG_TRUNCATED,
    IN_VIOLATION,
    LABEL_NAMES,
    NEIGHBOUR_FALLBACK,
    NO_STOP_GUARANTEE,
    OUT_OF_RANGE,
    OVERLAP_RECOVERY,
    SAFE,
    SOLVE_FAILED,
    Margins,
    SafeStepResult,
)
from navproof.step.solve import solve_safe_step

__all__ = [
    "DYNAMIC_AVOIDANCE_FAILED", "FLAG_CARRY_EXCEEDS_CANCEL", "FLAG_NAMES",
    "FLAG_NO_BRAKING_BUDGET", "FLAG_NO_REFERENCE", "FLAG_OBSTACLE_STOP_UNCERTIFIED",
    "FLAG_OUT_OF_RANGE", "FLAG_OVER_CAP", "NEIGHBOUR_FALLBACK", "OUT_OF_RANGE",
    "FLAG_ROTATING_STOP_UNCERTIFIED", "FLAG_TRUNCATED", "IN_VIOLATION", "LABEL_NAMES",
    "NO_STOP_GUARANTEE",
    "OVERLAP_RECOVERY",
    "SAFE", "SOLVE_FAILED", "Margins", "Neighbors", "SafeStepResult", "StepInput",
    "check_valid_step_input", "solve_safe_step", "step_input_from_crowd",
]
