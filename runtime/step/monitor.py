"""Assertion mode of the boundary half of the step: re-check every committed step.

The committed velocities are re-evaluated from the step input with the same generated formulas
the proofs discharge (independently of the margins the solver reported): whole-step coverage of
every edge (B2/B5, B6 next to rotating or accelerating motion), the shared stop envelope (S3),
the discrete braking envelope (S7), the certified stop and hold in the local frame of every wall
next to rotating or accelerating motion (B6), the reachable disk (V2) and the neighbour sweep
(W1). A violation raises :class:`ObligationViolation` with the claim ID, the agent, the signed
margin (negative: how far outside) and the offending data.

Which obligations bind depends on the label: ``safe`` steps owe all four; ``dynamic avoidance
failed`` (F1) steps owe coverage, the envelope and V2 (neighbours were relaxed); ``no stop
guarantee`` (F2) and ``solve failed`` (F3) steps owe V2 only, and they are never labelled safe.
"""

from __future__ import annotations

import numpy as np

from navproof.boundary.margins import curve_min_margin_m
from navproof.boundary.slope import reach_margin_mps
from navproof.core.errors import ObligationViolation
from navproof.core.jit import compiled_loop
from navproof.core.tolerances import EPS
from navproof.step.constraints import edge_frame
from navproof.step.inputs import StepInput
from navproof.step.result import (
    DYNAMIC_AVOIDANCE_FAILED,
    FLAG_CARRY_EXCEEDS_CANCEL,
    LABEL_NAMES,
    OVERLAP_RECOVERY,
    SAFE,
    SafeStepResult,
)
from navproof.step.verify import (
    recomputed_edge_margins,
    rotating_stop_margins_m,
    sweep_end_velocity_mps,
    sweep_margins_m,
)

OWES_CORRIDOR, OWES_ENVELOPE, OWES_ROTATING, OWES_REACH, OWES_SWEEP = 1, 2, 4, 8, 16
"""The bits of :func:`_owed_claims`: coverage (B5), the envelopes (S3, S7), the rotating stop
(B6), the reachable disk (V2), the neighbour sweep (W1)."""


@compiled_loop
def _owed_claims(label, accel, exists, reachable, flags, carry_flag, owed):
    """Which claims each agent owes, as OWES_* bits into ``owed`` (N,) (uint8), from its label,
    braking budget ``accel`` (> 0: braking), whether its stop target exists and is reachable,
    and its flags; returns the first agent labelled safe whose stop target is unreachable or
    whose carry exceeds what it can cancel (``carry_flag`` set), the first R2 violation (-1:
    none). Claim: B5, S3, S7, B6, V2, W1, R2."""
    first_r2 = -1
    for i in range(owed.shape[0]):
        code = label[i]
        safe = code == SAFE
        corridor = safe or code == OVERLAP_RECOVERY or code == DYNAMIC_AVOIDANCE_FAILED
        bits = OWES_REACH
        if corridor:
            bits |= OWES_CORRIDOR
            if exists[i]:
                bits |= OWES_ROTATING
                if accel[i] > 0.0:
                    bits |= OWES_ENVELOPE
        if safe or code == OVERLAP_RECOVERY:
            bits |= OWES_SWEEP
        owed[i] = bits
        if first_r2 < 0 and safe and ((flags[i] & carry_flag) != 0 or not reachable[i]):
            first_r2 = i
    return first_r2


@compiled_loop
def _first_below(margin, owed, bit, limit):
    """The first row ``i`` whose ``owed[i]`` has ``bit`` and whose smallest entry of ``margin``
    (N, K) is below ``limit``, with that entry (NaN wins the row, as numpy's minimum; +inf for
    K = 0), or (-1, 0) when there is none: one pass, stopping at the first."""
    for i in range(margin.shape[0]):
        if not owed[i] & bit:
            continue
        smallest = np.inf
        for j in range(margin.shape[1]):
            value = margin[i, j]
            if value < smallest or value != value:
                smallest = value
            if smallest != smallest:
                break
        if smallest < limit:
            return i, smallest
    return -1, 0.0


def _raise_first(claim: str, message: str, margin: np.ndarray, owed: np.ndarray, bit: int,
                 data: dict[str, np.ndarray], label: np.ndarray) -> None:
    """Raise for the first entry owing ``bit`` (:func:`_owed_claims`) whose margin (N,) or row
    minimum (N, K) is < -EPS."""
    rows = margin[:, None] if margin.ndim == 1 else margin
    agent, m = _first_below(np.ascontiguousarray(rows, dtype=np.float64), owed, bit, -EPS)
    _raise_at(claim, message, agent, m, data, label)


def _raise_at(claim: str, message: str, agent: int, m: float, data: dict[str, np.ndarray],
              label: np.ndarray) -> None:
    """Raise the claim's violation at ``agent`` of margin ``m`` (nothing for agent -1)."""
    if agent < 0:
        return
    payload = {key: np.asarray(val)[agent].tolist() for key, val in data.items()}
    payload["label"] = LABEL_NAMES[int(label[agent])]
    raise ObligationViolation(claim, message, observed=float(m), limit=0.0, margin=float(m),
                              agent=int(agent), data=payload)


def check_committed_step(inp: StepInput, result: SafeStepResult) -> None:
    """Re-check the committed step of every agent; raise ObligationViolation on the first
    violated obligation. Claim: B2, B5, B6, S3, S7, R3, V2, W1, F2 (never labelled safe).

    The normal components, the reference and every edge margin are recomputed from the step
    input (compiled passes shared with the solve, over the generated formulas), never read
    from the solver's result; the claims are judged in the order B5, S3, S7, B6, V2, W1, R2,
    each at its first agent."""
    dt = inp.dt_s
    dt_rows = inp.dt_per_agent_s
    x0, v0, v1 = inp.position_m, inp.velocity_mps, result.velocity_mps
    label = result.label
    # S6: a zero budget enters no stop formula (its hold keeps v0, checked by V2 below)
    budget = np.where(inp.accel_mps2 > 0.0, inp.accel_mps2, 1.0)
    data = {"position_m": x0, "v0_mps": v0, "v1_mps": v1}
    frame = edge_frame(inp, budget)
    u, ref, moving, rot = frame.u, frame.ref, frame.moving, frame.rot_stop
    owed = np.empty(inp.count, np.uint8)
    first_r2 = _owed_claims(np.ascontiguousarray(label),
                            np.ascontiguousarray(inp.accel_mps2, np.float64),
                            np.ascontiguousarray(ref.exists, np.bool_),
                            np.ascontiguousarray(ref.reachable, np.bool_),
                            np.ascontiguousarray(result.flags), FLAG_CARRY_EXCEEDS_CANCEL, owed)
    exact, _, env, brake = recomputed_edge_margins(inp.edges, dt_rows, budget, frame,
                                                   np.asarray(v1, np.float64))
    # B6: the exact translating minimum stands for the pairs that translate uniformly only
    curve = curve_min_margin_m(inp.edges, inp.support, x0, v0, v1, dt, exact_m=exact) \
        if moving.any() else exact
    _raise_first("B5", "committed curve leaves an edge during the step", curve, owed,
                 OWES_CORRIDOR, {**data, "curve_margin_m": curve}, label)
    _raise_first("S3", "committed velocity outside the shared stop envelope", env, owed,
                 OWES_ENVELOPE, {**data, "envelope_margin_m": env}, label)
    _raise_first("S7", "committed step leaves no braking candidate for the next step", brake,
                 owed, OWES_ENVELOPE, {**data, "brake_envelope_margin_m": brake}, label)
    if rot is not None and rot.any():
        rot_m = rotating_stop_margins_m(inp.edges, inp.support, x0, v0, inp.dt_per_agent_s,
                                        budget, agents=np.arange(inp.count), v1_mps=v1,
                                        pairs=rot)
        _raise_first("B6", "stop or hold next to rotating or accelerating motion not certified",
                     rot_m, owed, OWES_ROTATING, {**data, "rotating_stop_margin_m": rot_m},
                     label)
    reach = reach_margin_mps(v1, v0, inp.accel_mps2 * dt)
    _raise_first("V2", "committed velocity outside the acceleration-reachable disk", reach,
                 owed, OWES_REACH, {**data, "reach_margin_mps": reach}, label)
    nb = inp.neighbors
    if nb is not None and nb.valid.shape[1]:
        v_sweep = sweep_end_velocity_mps(inp.support, slice(None), v1, dt_rows)
        sweep, t_min = sweep_margins_m(x0, u, v0, v_sweep, dt_rows, inp.radius_m, nb)
        _raise_first("W1", "committed curve comes within the combined radius", sweep, owed,
                     OWES_SWEEP, {**data, "sweep_margin_m": sweep, "time_s": t_min}, label)
    # R2: its margin is -1 where a safe agent's carry exceeds what it can cancel or its stop
    # target is unreachable
    _raise_at("R2", "unreachable stop target labelled safe", first_r2, -1.0, data, label)
