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
from navproof.boundary.reference import _reference_rows
from navproof.boundary.rigid import _moving_frame_pairs, moving_frame_pairs, rotating_stop_pairs
from navproof.boundary.slope import reach_margin_mps
from navproof.boundary.stop_envelope import _cap_and_factor_rows
from navproof.core.errors import ObligationViolation
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.parallel import run_row_pieces
from navproof.core.tolerances import EPS, RVO_EPSILON
from navproof.core.validation import check_valid_budget, floats_of_shape
from navproof.core.vec2 import squared_side
from navproof.step.constraints import _edge_components
from navproof.step.inputs import PARALLEL_MIN_ROWS, StepInput
from navproof.step.result import (
    DYNAMIC_AVOIDANCE_FAILED,
    FLAG_CARRY_EXCEEDS_CANCEL,
    LABEL_NAMES,
    OVERLAP_RECOVERY,
    SAFE,
    SafeStepResult,
)
from navproof.step.verify import (
    _committed_edge_margins,
    _edge_step_margins,
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


MONITOR_BLOCK_ROWS = 1024
"""Agents whose per-edge values the monitor's pass holds at once: tens of kB per value, kept in
the second-level cache instead of (N, K) arrays written to memory and read back, in few enough
blocks that the calls per block cost little."""

B5_FOUND, S3_FOUND, S7_FOUND, FRAME_MOVES, REACH_OPEN, BUDGET_REFUSED = 1, 2, 4, 8, 16, 32
"""The bits :func:`_checked_rows` returns: an owed agent's curve (B5), envelope (S3) or braking
(S7) margin falls below the limit; an edge's local frame moves non-uniformly relative to its
agent's support (:func:`navproof.boundary.rigid.moving_frame_pairs`), where the pass is asked
to stop there; an owed agent's V2 margin is not surely at least the limit
(:func:`_reach_held`); a braking budget is not finite (the pass ends there)."""

REACH_HELD_MAX_MPS = 1.0e3
"""Largest reachable-disk radius (m/s) :func:`_reach_held` decides: its rounding, 2^-53 of the
radius, stays far below half the slack EPS there."""


@inlined_loop
def _reach_held(dx, dy, radius, eps):
    """Whether the V2 margin ``radius - sqrt(dx dx + dy dy)`` (m/s) that
    :func:`navproof.boundary.slope.reach_margin_mps` computes of the same ``v1 - v0`` and
    radius ``a dt`` is surely at least ``-eps``, without its root; False where undecided (it is
    then measured). For 0 <= radius <= REACH_HELD_MAX_MPS, :func:`navproof.core.vec2.squared_side`
    below the limit m = radius + eps/2 (rounded) certifies the rounded root L < m. Where
    L <= radius the rounded difference is >= 0; else 0 < L - radius < m - radius
    <= eps/2 + 2^-53 (radius + eps/2) < 0.51 eps, so the difference rounds to above -eps. NaN
    and infinities are never decided. Claim: V2."""
    if not (radius >= 0.0 and radius <= REACH_HELD_MAX_MPS):
        return False
    return squared_side(dx * dx + dy * dy, radius + 0.5 * eps) < 0


@inlined_loop
def _least(margin, i):
    """The smallest entry of row ``i`` of ``margin`` (N, K), NaN winning as in numpy's minimum
    (+inf for K = 0)."""
    smallest = np.inf
    for j in range(margin.shape[1]):
        value = margin[i, j]
        if value < smallest or value != value:
            smallest = value
        if smallest != smallest:
            break
    return smallest


@inlined_loop
def _least_below(margin, i, limit):
    """Whether :func:`_least` of row ``i`` of ``margin`` is below ``limit``: a row whose every
    entry is at least ``limit`` (no NaN among them) has its least there too; the others are
    measured."""
    for j in range(margin.shape[1]):
        if not margin[i, j] >= limit:
            return _least(margin, i) < limit
    return False


@compiled_loop
def _first_below(margin, owed, bit, limit):
    """The first row ``i`` whose ``owed[i]`` has ``bit`` and whose smallest entry of ``margin``
    (N, K) is below ``limit``, with that entry (:func:`_least`), or (-1, 0) when there is none:
    one pass, stopping at the first."""
    for i in range(margin.shape[0]):
        if not owed[i] & bit:
            continue
        smallest = _least(margin, i)
        if smallest < limit:
            return i, smallest
    return -1, 0.0


@compiled_loop
def _checked_rows(x0, v0, sup_pivot, sup_vel, sup_omega, normal, offset, e_pivot, e_vel,
                  e_omega, e_accel, sup_accel, valid, wall, ref_walls, edge_id, vh, dt, accel,
                  a, radius, label, flags, carry_flag, v1, stop_if_moving, judge_curve,
                  limit, eps, tol, parallel_det, u, owed, kept, lo, hi):
    """Rows ``lo:hi``, block by block, by the compiled passes of the solve in the order of
    :func:`navproof.step.constraints.edge_frame` and of its verification: the step frame
    (:func:`navproof.step.constraints._edge_components`; the carry u (N, 2) into ``u``), the
    moving pairs (:func:`navproof.boundary.rigid._moving_frame_pairs`), the reference of the
    walls ``ref_walls`` (:func:`navproof.boundary.reference._reference_rows`, reachable where
    its R2 margin is at least -``eps``), the envelope cap and braking factor of the budgets
    ``a`` (:func:`navproof.boundary.stop_envelope._cap_and_factor_rows`; ``a`` is written
    first, from the budgets ``accel``: S6), the owed claims (:func:`_owed_claims` into
    ``owed``), then each agent's edge margins (:func:`navproof.step.verify._edge_step_margins`,
    :func:`navproof.step.verify._committed_edge_margins`), judged in the block.

    Returns the union of B5_FOUND (an agent owing OWES_CORRIDOR whose least exact curve margin
    (m) is below ``limit``, when ``judge_curve``; where ``limit`` is ``-eps``, a row the edge
    pass found inside is not searched), S3_FOUND and S7_FOUND (an agent owing
    OWES_ENVELOPE whose least envelope or braking margin (m) is), REACH_OPEN (an agent owing
    OWES_REACH whose V2 margin of the disk of radius ``radius`` around v0 is not surely at
    least -``eps``, :func:`_reach_held`), FRAME_MOVES (a block with a moving pair, where
    ``stop_if_moving``: the pass ends before that block) and BUDGET_REFUSED (a budget in ``a``
    is not finite: the pass ends once ``a`` is written), with the first R2 violation of
    :func:`_owed_claims` (-1: none). Where ``kept`` (3, N, K) has rows, the exact curve,
    envelope and braking margins of each agent are written there.
    Claim: B1, B3, B5, B6, R1, R2, S3, S7, V2."""
    k = offset.shape[1]
    block = MONITOR_BLOCK_ROWS
    rows = np.arange(block)
    no_ref = np.zeros(block, np.bool_)
    s, n_dot_e, n_dot_u = np.empty((block, k)), np.empty((block, k)), np.empty((block, k))
    n_dot_v0, n_dot_e_minus_u = np.empty((block, k)), np.empty((block, k))
    moving = np.empty((block, k), np.bool_)
    r, v_stop = np.empty((block, 2)), np.empty((block, 2))
    exists, reachable = np.empty(block, np.bool_), np.empty(block, np.bool_)
    stop_margin, cmax, kfac = np.empty(block), np.empty(block), np.empty(block)
    curve, t_min, end = np.empty((block, k)), np.empty((block, k)), np.empty((block, k))
    env, stop, nec = np.empty((block, k)), np.empty((block, k)), np.empty((block, k))
    curve_ok, stop_ok = np.empty(block, np.bool_), np.empty(block, np.bool_)
    keep = kept.shape[1] > 0
    inside_is_held = limit == -eps
    refused = False
    for i in range(lo, hi):
        # S6: a zero budget enters no stop formula (its hold keeps v0, checked by V2)
        a[i] = accel[i] if accel[i] > 0.0 else 1.0
        if not np.isfinite(a[i]):
            refused = True
    if refused:
        return BUDGET_REFUSED, -1
    found = 0
    first_r2 = -1
    for b in range(lo, hi, block):
        e = b + block if b + block < hi else hi
        m = e - b
        if stop_if_moving:
            _moving_frame_pairs(e_omega[b:e], sup_omega[b:e], e_accel[b:e], sup_accel[b:e],
                                moving[:m])
            for i in range(m):
                for j in range(k):
                    if moving[i, j]:
                        return found | FRAME_MOVES, first_r2
        _edge_components(x0[b:e], v0[b:e], sup_pivot[b:e], sup_vel[b:e], sup_omega[b:e],
                         normal[b:e], offset[b:e], e_pivot[b:e], e_vel[b:e], e_omega[b:e],
                         u[b:e], n_dot_e, n_dot_u, n_dot_v0, s, n_dot_e_minus_u, 0, m)
        _reference_rows(normal[b:e], n_dot_e_minus_u, ref_walls[b:e], edge_id[b:e], u[b:e],
                        vh[b:e], eps, tol, parallel_det, 0, m, r, v_stop, exists, stop_margin)
        for i in range(m):
            reachable[i] = exists[i] and stop_margin[i] >= -eps
        _cap_and_factor_rows(vh[b:e], u[b:e], r, dt[b:e], a[b:e], cmax[:m], kfac[:m])
        first = _owed_claims(label[b:e], accel[b:e], exists, reachable, flags[b:e],
                             carry_flag, owed[b:e])
        if first_r2 < 0 and first >= 0:
            first_r2 = b + first
        _edge_step_margins(rows, v1[b:e], s, n_dot_e, n_dot_u, n_dot_v0, normal[b:e],
                           valid[b:e], wall[b:e], dt[b:e], u[b:e], r, kfac, no_ref, eps, curve,
                           t_min, end, curve_ok, stop_ok, 0, m)
        _committed_edge_margins(s, end, normal[b:e], wall[b:e], dt[b:e], a[b:e], cmax, kfac,
                                u[b:e], r, v1[b:e], env, stop, nec, 0, m)
        for i in range(m):
            bits = owed[b + i]
            # a row the pass found inside (every valid edge's curve margin >= -eps, no NaN;
            # the others +inf) has no curve margin below the limit -eps
            if (judge_curve and bits & OWES_CORRIDOR and not (inside_is_held and curve_ok[i])
                    and _least_below(curve, i, limit)):
                found |= B5_FOUND
            if bits & OWES_ENVELOPE:
                if _least_below(env, i, limit):
                    found |= S3_FOUND
                if _least_below(stop, i, limit):
                    found |= S7_FOUND
            if bits & OWES_REACH and not _reach_held(v1[b + i, 0] - v0[b + i, 0],
                                                      v1[b + i, 1] - v0[b + i, 1],
                                                      radius[b + i], eps):
                found |= REACH_OPEN
            if keep:
                for j in range(k):
                    kept[0, b + i, j] = curve[i, j]
                    kept[1, b + i, j] = env[i, j]
                    kept[2, b + i, j] = stop[i, j]
    return found, first_r2


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
    data = {"position_m": x0, "v0_mps": v0, "v1_mps": v1}
    edges, support = inp.edges, inp.support
    rows, k = edges.normal.shape[:2]
    radius = floats_of_shape(inp.accel_mps2 * dt, (rows,))
    budget = np.empty(rows)
    found, first_r2, u, owed = checked_frame(inp, result, budget, radius, None,
                                             stop_if_moving=True, judge_curve=True,
                                             kept=np.empty((3, 0, k)))
    if found & BUDGET_REFUSED:
        # names the first budget the stop formulas cannot take
        check_valid_budget("a_mps2", budget)
    rot = None
    if found & (B5_FOUND | S3_FOUND | S7_FOUND | FRAME_MOVES):
        # a moving frame (B6's curve bound and local-frame stops) or a violation: every
        # margin again, the reference without the walls certified in their local frame
        rot = rotating_stop_pairs(edges, support, moving=moving_frame_pairs(edges, support))
        kept = np.empty((3, rows, k))
        # rotating_stop_pairs names no pair exactly when no frame moves
        moves = rot is not None
        # the same owed claims, R2 and carry, now of every agent (the first pass may have
        # ended at a moving frame)
        found, first_r2, u, owed = checked_frame(inp, result, budget, radius, rot,
                                                 stop_if_moving=False, judge_curve=not moves,
                                                 kept=kept)
        exact, env, brake = kept
        # B6: the exact translating minimum stands for the pairs that translate uniformly only
        curve = curve_min_margin_m(edges, support, x0, v0, v1, dt, exact_m=exact) \
            if moves else exact
        _raise_first("B5", "committed curve leaves an edge during the step", curve, owed,
                     OWES_CORRIDOR, {**data, "curve_margin_m": curve}, label)
        _raise_first("S3", "committed velocity outside the shared stop envelope", env, owed,
                     OWES_ENVELOPE, {**data, "envelope_margin_m": env}, label)
        _raise_first("S7", "committed step leaves no braking candidate for the next step",
                     brake, owed, OWES_ENVELOPE, {**data, "brake_envelope_margin_m": brake},
                     label)
    if rot is not None and rot.any():
        rot_m = rotating_stop_margins_m(edges, support, x0, v0, inp.dt_per_agent_s, budget,
                                        agents=np.arange(inp.count), v1_mps=v1, pairs=rot)
        _raise_first("B6", "stop or hold next to rotating or accelerating motion not certified",
                     rot_m, owed, OWES_ROTATING, {**data, "rotating_stop_margin_m": rot_m},
                     label)
    if found & REACH_OPEN:
        # V2 is measured where the pass could not certify it
        reach = reach_margin_mps(v1, v0, radius)
        _raise_first("V2", "committed velocity outside the acceleration-reachable disk", reach,
                     owed, OWES_REACH, {**data, "reach_margin_mps": reach}, label)
    nb = inp.neighbors
    if nb is not None and nb.valid.shape[1]:
        v_sweep = sweep_end_velocity_mps(support, slice(None), v1, dt_rows)
        sweep, t_min = sweep_margins_m(x0, u, v0, v_sweep, dt_rows, inp.radius_m, nb)
        _raise_first("W1", "committed curve comes within the combined radius", sweep, owed,
                     OWES_SWEEP, {**data, "sweep_margin_m": sweep, "time_s": t_min}, label)
    # R2: its margin is -1 where a safe agent's carry exceeds what it can cancel or its stop
    # target is unreachable
    _raise_at("R2", "unreachable stop target labelled safe", first_r2, -1.0, data, label)


def checked_frame(inp: StepInput, result: SafeStepResult, budget_mps2: np.ndarray,
                  radius_mps: np.ndarray, certified: np.ndarray | None, *,
                  stop_if_moving: bool, judge_curve: bool, kept: np.ndarray
                  ) -> tuple[int, int, np.ndarray, np.ndarray]:
    """:func:`_checked_rows` of every agent of the committed step (threads for many), the
    braking budgets written into ``budget_mps2`` (m/s^2, (N,)), with the reachable-disk radii
    ``radius_mps`` (m/s, (N,)) and the reference of the walls not in ``certified`` (N, K) (as
    :func:`navproof.boundary.reference.reference_from_offsets`): the union of its bits, the
    first R2 violation (-1: none), the carry u (m/s, (N, 2)) and the owed claims (N,) (uint8).
    Claim: B1, B3, B5, B6, R1, R2, S3, S7, V2."""
    edges, support = inp.edges, inp.support
    wall = np.asarray(edges.wall, bool)
    rows, k = edges.normal.shape[:2]
    sup, mot = support.motion, edges.motion
    f = floats_of_shape
    u, owed = np.empty((rows, 2)), np.empty(rows, np.uint8)
    # RVO2's tolerances for the reference, as the crowd: a wall counts as violated beyond 0
    args = (inp.position_m, f(inp.velocity_mps, (rows, 2)), f(sup.pivot_m, (rows, 2)),
            f(sup.velocity_mps, (rows, 2)), f(sup.omega_radps, (rows,)),
            f(edges.normal, (rows, k, 2)), f(edges.offset_m, (rows, k)),
            f(mot.pivot_m, (rows, k, 2)), f(mot.velocity_mps, (rows, k, 2)),
            f(mot.omega_radps, (rows, k)), f(mot.acceleration_mps2, (rows, k, 2)),
            f(sup.acceleration_mps2, (rows, 2)), np.asarray(edges.valid, bool),
            wall, wall if certified is None else wall & ~certified,
            np.asarray(edges.edge_id, dtype=np.int64),
            f(inp.vh_mps, (rows,)), inp.dt_per_agent_s,
            np.ascontiguousarray(inp.accel_mps2, np.float64), budget_mps2, radius_mps,
            np.ascontiguousarray(result.label), np.ascontiguousarray(result.flags),
            FLAG_CARRY_EXCEEDS_CANCEL, np.ascontiguousarray(result.velocity_mps, np.float64),
            stop_if_moving, judge_curve, -EPS, EPS, 0.0, RVO_EPSILON, u, owed, kept)
    if rows < PARALLEL_MIN_ROWS:
        found, first_r2 = _checked_rows(*args, 0, rows)
        return int(found), int(first_r2), u, owed
    pieces: list[tuple[int, int]] = []
    run_row_pieces(lambda lo, hi: pieces.append(_checked_rows(*args, lo, hi)), rows,
                   min_rows=PARALLEL_MIN_ROWS)
    found, first_r2 = 0, -1
    for bits, first in pieces:
        found |= bits
        if first >= 0 and (first_r2 < 0 or first < first_r2):
            first_r2 = first
    return int(found), int(first_r2), u, owed
