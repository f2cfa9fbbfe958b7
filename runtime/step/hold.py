"""The hold rule for agents with a zero braking budget (claim S6, seed 000: "a为零或速度无效时
不能使用除法式，静止状态只能在参考运动不越界时保持，已有速度交给控制器处理").

With a = 0 the reachable disk is the start velocity alone and every stop formula would divide
by a. Such an agent is taken out of the formulas (a stand-in budget lets the rest of the batch
be solved in one pass; its own results are replaced here): it keeps its velocity, and it is
labelled safe only when it is at rest relative to a reference that keeps every wall (the hold,
R3) with its curve and sweep inside; otherwise "no stop guarantee", the velocity left to the
controller. One agent's zero budget never takes the other agents of the batch down.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from navproof.boundary.stop_envelope import hold_is_safe
from navproof.core.tolerances import EPS
from navproof.core.vec2 import dot2
from navproof.step.constraints import Prepared
from navproof.step.inputs import StepInput
from navproof.step.result import Margins

STAND_IN_BUDGET_MPS2 = 1.0
"""Budget (m/s^2) standing in for a zero one while the batch is solved; the agent's own results
are replaced by the hold rule, so it never reaches a committed velocity or margin."""


def zero_budget_agents(inp: StepInput) -> np.ndarray:
    """(N,) True for the agents whose braking budget is zero. Claim: S6."""
    return inp.accel_mps2 == 0.0


def with_stand_in_budget(inp: StepInput, hold: np.ndarray) -> StepInput:
    """The input with STAND_IN_BUDGET_MPS2 for the agents of ``hold``. Claim: S6."""
    return replace(inp, accel_mps2=np.where(hold, STAND_IN_BUDGET_MPS2, inp.accel_mps2))


def hold_label_safe(inp: StepInput, prep: Prepared, margins: Margins,
                    hold: np.ndarray) -> np.ndarray:
    """(N,) True for the agents of ``hold`` that may keep the safe label: at rest relative to a
    reachable reference that keeps every wall (R3), curve and sweep inside, and, for the walls
    whose hold is certified in their local frame (next to rotating or accelerating motion, B6),
    that certified hold at rest on the support (a constant-velocity check at the start would
    miss a support turning or accelerating into the wall). Claim: S6, R3, B6."""
    c0 = prep.u + inp.velocity_mps - prep.ref.r_mps
    at_rest = np.hypot(c0[:, 0], c0[:, 1]) <= EPS
    e = inp.edges.edge_velocity_mps(inp.position_m)
    keeps = hold_is_safe(inp.edges.normal, prep.ref.r_mps, e, prep.wall)
    inside = np.all(margins.edge_curve_m >= -EPS, axis=1)
    apart = np.all(margins.sweep_m >= -EPS, axis=1)
    if prep.rot_stop is not None:
        keeps &= np.all(~prep.rot_stop | (margins.end_stop_m >= -EPS), axis=1)
    return (hold & at_rest & keeps & inside & apart & prep.ref.exists & prep.ref.reachable)


def zero_budget_margins(inp: StepInput, prep: Prepared, margins: Margins,
                        hold: np.ndarray) -> Margins:
    """``margins`` with the budget-dependent entries of the agents of ``hold`` at their a = 0
    limits: the reachable radius is 0; the stop envelopes (S3, S7) keep the margin when
    dot(n, c) = 0, are -inf when it is positive (no stop) and +inf when negative; the
    necessary bound (S2) is 0. Claim: S6."""
    c = prep.u + inp.velocity_mps - prep.ref.r_mps
    n_dot_c = dot2(inp.edges.normal, c[:, None, :])

    def limit(at_zero: np.ndarray) -> np.ndarray:
        return np.where(n_dot_c > 0.0, -np.inf, np.where(n_dot_c < 0.0, np.inf, at_zero))

    rows = hold[:, None] & prep.wall
    return replace(
        margins,
        envelope_m=np.where(rows, limit(prep.s), margins.envelope_m),
        end_stop_m=np.where(rows, limit(margins.end_stop_m), margins.end_stop_m),
        necessary_mps=np.where(rows, -n_dot_c, margins.necessary_mps),
        reach_mps=np.where(hold, 0.0, margins.reach_mps))
