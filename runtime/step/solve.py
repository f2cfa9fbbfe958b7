"""The combined per-step safe velocity of every agent, vectorised across agents (seed 000).

The solve variable is ``v1`` (m/s), the agent's velocity relative to its support at the END of
the step; the body accelerates linearly from the actual end velocity ``v0`` of the previous
step. Constraints, all in ``v1`` (:mod:`navproof.step.constraints`):

- ORCA half-planes (built by :mod:`navproof.orca.lines` on world velocities) shifted by the
  support carry: ``dot(n, u + v1) <= c``;
- per edge: the continuous-acceleration step-end half-plane (B4), the shared stop envelope (S3),
  the stop-from-step-end half-plane, and cutting planes at interior extrema found by B5;
- the horizontal speed disk ``|v1| <= Vh`` (V1) and the reachable disk ``|v1 - v0| <= a dt`` (V2).

Rotating or accelerating supports and edges enter the half-planes through their velocities at
the body's start position (a linearisation that only proposes candidates); their candidates are
accepted only by the certified local-frame bound of B6 over the whole step and, for every wall
that does not share the support's rigid motion, by the certified bound of the whole stop after
the step (reaction, brake to rest on the support, hold at rest on the support:
:func:`navproof.boundary.rigid.rotating_stop_margin_bound_m`) instead of trusting the
constant-velocity stop formulas of S1/S3. A scene where nothing rotates and every support
accelerates like its edges skips that work entirely.

The closest verified velocity (:mod:`navproof.step.search`) is committed with label ``SAFE``;
otherwise the fallback order of :mod:`navproof.step.fallbacks` applies (F1, F2, F3).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from navproof.core.errors import assertions_enabled
from navproof.core.jit import compiled_loop
from navproof.core.ranges import check_step_in_profile
from navproof.core.tolerances import EPS
from navproof.core.vec2 import hypot_above
from navproof.step.constraints import Prepared, prepare_constraints
from navproof.step.fallbacks import (
    f1_relaxed_neighbours,
    f2_strongest_braking,
    f3_brake_to_relative_rest,
    truncated_by_sweep,
)
from navproof.step.hold import (
    hold_label_safe,
    with_stand_in_budget,
    zero_budget_agents,
    zero_budget_margins,
)
from navproof.step.inputs import StepInput, check_valid_step_input
from navproof.step.monitor import check_committed_step
from navproof.step.overlap import overlapping_agents, separation_planes
from navproof.step.result import (
    DYNAMIC_AVOIDANCE_FAILED,
    FLAG_CARRY_EXCEEDS_CANCEL,
    FLAG_NO_BRAKING_BUDGET,
    FLAG_NO_REFERENCE,
    FLAG_OBSTACLE_STOP_UNCERTIFIED,
    FLAG_OVER_CAP,
    FLAG_ROTATING_STOP_UNCERTIFIED,
    FLAG_TRUNCATED,
    NO_STOP_GUARANTEE,
    OVERLAP_RECOVERY,
    SAFE,
    SOLVE_FAILED,
    SafeStepResult,
)
from navproof.step.search import EVERY_CONSTRAINT, SEPARATING, closest_verified
from navproof.step.verify import KnownMargins, committed_margins, obstacle_stop_uncertified
from navproof.step.workspace import thread_slot_buffers


@compiled_loop
def _name_reference(exists, reachable, flags, label):
    """Flags FLAG_NO_REFERENCE on every agent without a reference velocity and
    FLAG_CARRY_EXCEEDS_CANCEL on every agent whose stop target is out of reach, and turns a SAFE
    label of either into NO_STOP_GUARANTEE. Claim: R1, R2."""
    for i in range(label.size):
        if not exists[i]:
            flags[i] |= FLAG_NO_REFERENCE
        elif not reachable[i]:
            flags[i] |= FLAG_CARRY_EXCEEDS_CANCEL
        else:
            continue
        if label[i] == SAFE:
            label[i] = NO_STOP_GUARANTEE


@compiled_loop
def _take_found(found, overlap, v1, velocity, label):
    """Takes the closest verified velocity ``v1`` (m/s) of every agent it was ``found`` for,
    labelled SAFE, or OVERLAP_RECOVERY where the agent starts overlapping a neighbour (O6: such
    a step is never safe, even where ORCA's own separation line is met); returns how many agents
    are left without one. Claim: O6."""
    left = 0
    for i in range(found.size):
        if found[i]:
            velocity[i, 0] = v1[i, 0]
            velocity[i, 1] = v1[i, 1]
            label[i] = OVERLAP_RECOVERY if overlap[i] else SAFE
        else:
            left += 1
    return left


@compiled_loop
def _name_over_cap(velocity, vh, eps, flags, label):
    """Flags FLAG_OVER_CAP on every agent whose committed speed |v1| (numpy's hypot) exceeds
    its cap Vh (1 + 1e-12) + EPS, and turns a SAFE label there into NO_STOP_GUARANTEE.
    Claim: V1."""
    for i in range(label.size):
        if hypot_above(velocity[i, 0], velocity[i, 1], vh[i] * (1.0 + 1e-12) + eps):
            flags[i] |= FLAG_OVER_CAP
            if label[i] == SAFE:
                label[i] = NO_STOP_GUARANTEE


def solve_safe_step(inp: StepInput, *, assertions: bool | None = None,
                    profile: Any = None) -> SafeStepResult:
    """Safe end velocities (m/s, relative to the support) of N agents for one step, with labels,
    flags, commit times, reference and signed margins.

    Order: exact closest verified velocity to the preferred one (label SAFE) -> for agents
    overlapping a neighbour, the O6 separation (label "separating an overlap") -> F1 (ORCA lines
    relaxed, braking velocity closest to vStop in the corridor half-planes and the reachable
    disk; "dynamic avoidance failed") -> F2 (strongest reachable braking towards vStop, truncated
    at the first sweep contact; "no stop guarantee") -> F3 when no reference velocity exists,
    so there is no stop target ("solve failed"; still the strongest reachable braking towards
    relative rest, truncated the same way).
    An unreachable stop target (R2) or a missing reference never yields SAFE. In assertion mode
    the committed step is re-checked by :mod:`navproof.step.monitor`. With a ``profile``
    (a :class:`navproof.specs.Profile`), a step outside the ranges its proofs cover is refused
    (:func:`navproof.core.ranges.check_step_in_profile`).
    An agent with a zero braking budget follows the hold rule of :mod:`navproof.step.hold`
    (S6) without affecting the others.
    Claim: B1-B6, S3, S6, S7, R1, R2, V1, V2, W1, F1, F2, F3.
    """
    given, result = solved_step(inp, profile=profile)
    if assertions_enabled(assertions):
        check_committed_step(given, result)
    return result


def solved_step(inp: StepInput, *, profile: Any = None) -> tuple[StepInput, SafeStepResult]:
    """:func:`solve_safe_step` without its assertion-mode re-check: the validated input (what
    :func:`navproof.step.monitor.check_committed_step` reads) and the result, for a caller
    that runs the re-check itself, beside its own work. Claim: as :func:`solve_safe_step`."""
    given = check_valid_step_input(inp)
    if profile is not None:
        check_step_in_profile(given, profile)
    hold = zero_budget_agents(given)
    held = bool(hold.any())
    inp = with_stand_in_budget(given, hold) if held else given
    n = inp.count
    dt = inp.dt_per_agent_s
    # the solve slots are read only during this call: the thread's storage is written over
    prep = prepare_constraints(inp, slots=thread_slot_buffers())
    velocity = inp.velocity_mps.copy()
    label = np.full(n, SOLVE_FAILED, dtype=np.int8)
    flags = np.zeros(n, dtype=np.uint8)
    commit = dt.copy()
    nb_count = 0 if inp.neighbors is None else inp.neighbors.valid.shape[1]
    known = KnownMargins.empty(n, inp.edges.valid.shape[1], nb_count)
    found, v1 = closest_verified(inp, prep, np.arange(n), preferred_mps=inp.preferred_mps,
                                 keep=EVERY_CONSTRAINT, known=known)
    overlap = overlapping_agents(inp, prep)
    # every agent found (the usual step): no fallback, nothing to gather
    if _take_found(found, overlap, v1, velocity, label):
        _fall_back(inp, prep, found, overlap, known, dt, velocity, label, commit, flags)
    _name_reference(prep.ref.exists, prep.ref.reachable, flags, label)
    if held:
        # S6: no reachable velocity but the agent's own; its margins are those of v0
        agents = np.flatnonzero(hold)
        velocity[agents], commit[agents] = truncated_by_sweep(inp, prep, agents,
                                                              inp.velocity_mps[agents])
        known.has_curve[agents] = False
        known.has_sweep[agents] = False
        flags[agents] &= ~np.uint8(FLAG_TRUNCATED)
        flags[agents[commit[agents] < dt[agents]]] |= FLAG_TRUNCATED
        flags[agents] |= FLAG_NO_BRAKING_BUDGET
    margins = committed_margins(inp, prep, velocity, known)
    if held:
        margins = zero_budget_margins(inp, prep, margins, hold)
        label[hold] = np.where(hold_label_safe(inp, prep, margins, hold)[hold], SAFE,
                               NO_STOP_GUARANTEE)
    if prep.rot_stop is not None:
        uncertified = np.any(prep.rot_stop & (margins.end_stop_m < -EPS), axis=1)
        flags[uncertified] |= FLAG_ROTATING_STOP_UNCERTIFIED
    # V1: a committed velocity above the cap is named (only a start above Vh + a dt gives one)
    _name_over_cap(velocity, inp.vh_mps, EPS, flags, label)
    blocked = obstacle_stop_uncertified(inp, prep, velocity, known)
    if blocked.any():
        flags[blocked] |= FLAG_OBSTACLE_STOP_UNCERTIFIED
        label[(label == SAFE) & blocked] = NO_STOP_GUARANTEE
    return given, SafeStepResult(velocity, label, flags, commit, prep.ref, prep.cmax, margins)


def _fall_back(inp: StepInput, prep: Prepared, found: np.ndarray, overlap: np.ndarray,
               known: KnownMargins, dt: np.ndarray, velocity: np.ndarray, label: np.ndarray,
               commit: np.ndarray, flags: np.ndarray) -> None:
    """The agents not ``found`` by the search, in order: O6 separation for those overlapping a
    neighbour, then F1, F2 and F3 (see :func:`solve_safe_step`), into ``velocity`` (m/s),
    ``label``, ``commit`` (s) and ``flags``. Claim: O6, F1, F2, F3."""
    n = found.size
    rest = np.flatnonzero(~found)
    apart = rest[overlap[rest]]
    if apart.size:
        # O6: separation half-planes instead of the neighbour lines, sweep kept
        sep, v1 = closest_verified(inp, prep, apart, preferred_mps=inp.preferred_mps[apart],
                                   keep=SEPARATING, known=known,
                                   extra=separation_planes(inp, prep, apart))
        velocity[apart[sep]] = v1[sep]
        label[apart[sep]] = OVERLAP_RECOVERY
        # rest is sorted and unique: dropping the separated agents keeps it so, as setdiff1d
        left = np.ones(n, bool)
        left[apart[sep]] = False
        rest = rest[left[rest]]
    if rest.size:
        f1, v1 = f1_relaxed_neighbours(inp, prep, rest, known=known)
        velocity[rest[f1]] = v1[f1]
        label[rest[f1]] = DYNAMIC_AVOIDANCE_FAILED
        rest = rest[~f1]
    for agents, fallback, fallback_label in (
            (rest[prep.ref.exists[rest]], f2_strongest_braking, NO_STOP_GUARANTEE),
            (rest[~prep.ref.exists[rest]], f3_brake_to_relative_rest, SOLVE_FAILED)):
        if agents.size == 0:
            continue
        v_brake, t_stop = fallback(inp, prep, agents)
        velocity[agents] = v_brake
        label[agents] = fallback_label
        commit[agents] = t_stop
        flags[agents[t_stop < dt[agents]]] |= FLAG_TRUNCATED
