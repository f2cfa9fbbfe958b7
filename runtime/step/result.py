"""What the safe step reports per agent: labels, flags, signed margins and the committed
velocity (seed 000). Claim: F1, F2, F3 (labels), R2 (carry flag), B6 (rotating-stop flag)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof.boundary.reference import CARRY_EXCEEDS_CANCEL, NO_REFERENCE, Reference

# labels: one small int per agent
SAFE = 0
DYNAMIC_AVOIDANCE_FAILED = 1
NO_STOP_GUARANTEE = 2
SOLVE_FAILED = 3
OVERLAP_RECOVERY = 4
IN_VIOLATION = 5
OUT_OF_RANGE = 6
NEIGHBOUR_FALLBACK = 7
LABEL_NAMES = ("safe", "dynamic avoidance failed", "no stop guarantee", "solve failed",
               "separating an overlap", "in violation at the start of the step",
               "outside the proven ranges", "reached by a neighbour's fallback")
"""IN_VIOLATION (set by the World, B5/C2/O5): the body starts the step inside an obstacle or
outside one of its walls (the corridor region, its patch, its platform), so no claim of the
proofs covers the step; it is never labelled safe until a step starts clear. (A body starting
inside another body's radius is labelled "separating an overlap" or by its fallback, O6.)

OUT_OF_RANGE (set by the World, B1, S3, S4, V1): a value of the step (step length, braking
budget, horizontal cap, support speed including a platform's far side, edge speed, each the
largest over the step) lies outside the profile's range, where the proofs hold; such a step
carries FLAG_OUT_OF_RANGE and, where it would otherwise be safe, this label.

NEIGHBOUR_FALLBACK (set by the World, W1, F1): the step was verified against its neighbours'
predicted motion, but a neighbour's committed step (a fallback F1-F3 that relaxed or left its
avoidance) came closer than the combined radius; the executed curves of the pair, measured once
every step is committed, overlap, so the step is not labelled safe."""

# flags: bit set per agent
FLAG_CARRY_EXCEEDS_CANCEL = 1
FLAG_NO_REFERENCE = 2
FLAG_TRUNCATED = 4
FLAG_ROTATING_STOP_UNCERTIFIED = 8
FLAG_NO_BRAKING_BUDGET = 16
FLAG_OBSTACLE_STOP_UNCERTIFIED = 32
FLAG_OUT_OF_RANGE = 64
FLAG_OVER_CAP = 128
FLAG_NAMES = {
    FLAG_CARRY_EXCEEDS_CANCEL: CARRY_EXCEEDS_CANCEL,
    FLAG_NO_REFERENCE: NO_REFERENCE,
    FLAG_TRUNCATED: "step truncated by the sweep",
    FLAG_ROTATING_STOP_UNCERTIFIED: "stop or hold on a rotating or accelerating support / next "
                                    "to a rotating or accelerating edge not certified",
    FLAG_NO_BRAKING_BUDGET: "zero braking budget: hold rule",
    FLAG_OBSTACLE_STOP_UNCERTIFIED: "no braking stop clear of a nearby obstacle",
    FLAG_OUT_OF_RANGE: "a value of the step outside the profile's proven range",
    FLAG_OVER_CAP: "no reachable velocity within the speed cap",
}
"""FLAG_ROTATING_STOP_UNCERTIFIED: the committed velocity's stop after the step (reaction, brake
to rest on the support, then the hold at rest on the support) could not be certified in some
wall's local frame (B6); resting on a rotating or accelerating support is not resting relative
to a fixed or differently moving wall, so such an agent is never labelled safe (S3 and R3
assume constant velocities).

FLAG_NO_BRAKING_BUDGET (S6): the agent's budget is zero, so no velocity but its own is reachable
and no division by the budget is made; it keeps its velocity, labelled safe only when it is at
rest relative to a reference that keeps every wall (the hold), otherwise "no stop guarantee"
(the velocity is the controller's to handle).

FLAG_OBSTACLE_STOP_UNCERTIFIED (S7, O5): the committed step keeps clear of every obstacle over
the whole step (B5, certified like a wall), but from its end no braking at the budget stops the
body clear of some nearby obstacle piece; the avoidance ahead is then left to ORCA's obstacle
lines, so the step is labelled "no stop guarantee", never safe.

FLAG_OVER_CAP (V1, V2, F1-F3): the committed velocity relative to the support is above the
horizontal cap Vh: the body started the step faster than Vh + a dt (an external push, a start
velocity, a cap lowered by a steeper patch), so no velocity within the cap is reachable; the
step brakes as hard as the budget allows and is never labelled safe. Every fallback otherwise
stays within the cap and the reachable disk."""


@dataclass(frozen=True)
class Margins:
    """Signed margins of a velocity per agent and constraint (positive: inside).

    ``edge_curve_m`` (N, K) whole-step curve margin (B2/B5/B6); ``envelope_m`` (N, K) the S3
    envelope s - dot(n, c)(dt + Cmax/(2a)); ``end_stop_m`` (N, K) the S7 braking envelope
    margin, the margin at the step end minus K dot(n, c1) (which covers S1's brake from the step
    end), for walls next to rotating or accelerating motion (B6) the least of that and the
    certified margin of the whole local-frame stop and hold; ``necessary_mps`` (N, K) S2 bound
    minus dot(n, c); ``sweep_m`` (N, J) W1 (exact within SWEEP_EXACT_BAND_M of contact, certified
    bound beyond); ``reach_mps`` V2; ``speed_mps`` (N,) V1; ``orca_mps`` (N, L) ORCA lines
    (m/s).
    """

    edge_curve_m: np.ndarray
    envelope_m: np.ndarray
    end_stop_m: np.ndarray
    necessary_mps: np.ndarray
    sweep_m: np.ndarray
    reach_mps: np.ndarray
    speed_mps: np.ndarray
    orca_mps: np.ndarray


@dataclass(frozen=True)
class SafeStepResult:
    """Outcome per agent: committed end velocity ``velocity_mps`` (N, 2) relative to the
    support, ``label`` (N,) int8 indexing LABEL_NAMES, ``flags`` (N,) bit set of FLAG_NAMES,
    ``commit_time_s`` (N,) how much of the step may be executed (dt unless F2 truncates it),
    the reference (R1/R2) and the signed margins of the committed velocity."""

    velocity_mps: np.ndarray
    label: np.ndarray
    flags: np.ndarray
    commit_time_s: np.ndarray
    reference: Reference
    cmax_mps: np.ndarray
    margins: Margins

    def label_names(self) -> list[str]:
        return [LABEL_NAMES[int(i)] for i in self.label]

    def flag_names(self) -> list[tuple[str, ...]]:
        """Per agent, the names of its set flags in FLAG_NAMES order (R2's carry label among
        them when the support carry exceeds the cancel capacity)."""
        return [tuple(name for bit, name in FLAG_NAMES.items() if int(f) & bit)
                for f in self.flags]
