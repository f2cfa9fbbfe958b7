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

import threading

import numpy as np

from navproof.boundary.margins import curve_min_margin_m
from navproof.boundary.slope import reach_margin_mps
from navproof.core.errors import ObligationViolation
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.parallel import run_row_pieces
from navproof.core.tolerances import EPS
from navproof.core.validation import floats_of_shape
from navproof.step.constraints import edge_frame
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

B5_FOUND, S3_FOUND, S7_FOUND = 1, 2, 4
"""The bits :func:`_judged_rows` returns: an owed agent's curve (B5), envelope (S3) or braking
(S7) margin falls below the limit."""


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


class _FrameBuffers:
    """Storage of the step frame the monitor recomputes (the carry u (N, 2) and the normal
    components and initial margins (N, K) of :func:`navproof.step.constraints.edge_frame`),
    written over from one step to the next on the same thread: allocated afresh, megabytes at
    20k agents would be handed back to the system after each step and faulted in again. Every
    value is written before it is read, and nothing the monitor raises refers to them."""

    def __init__(self) -> None:
        self._u = np.empty(0)
        self._edges = np.empty(0)

    def frame(self, rows: int, k: int) -> tuple[np.ndarray, ...]:
        """(u, n_dot_e, n_dot_u, n_dot_v0, s, n_dot_e_minus_u): C-contiguous views of shapes
        (rows, 2) and (rows, k), their values left from earlier use."""
        size = rows * k
        if self._u.size < 2 * rows or self._edges.size < 5 * size:
            self._u = np.empty(2 * rows)
            self._edges = np.empty(5 * size)
        return (self._u[:2 * rows].reshape(rows, 2),
                *(self._edges[c * size:(c + 1) * size].reshape(rows, k) for c in range(5)))


_PER_THREAD = threading.local()


def _thread_frame(rows: int, k: int) -> tuple[np.ndarray, ...]:
    """The calling thread's :meth:`_FrameBuffers.frame` (other threads have their own)."""
    buffers = getattr(_PER_THREAD, "frame", None)
    if buffers is None:
        buffers = _PER_THREAD.frame = _FrameBuffers()
    return buffers.frame(rows, k)


@compiled_loop
def _judged_rows(s, n_dot_e, n_dot_u, n_dot_v0, normal, valid, wall, dt, a, u, r, cmax, kfac,
                 v1, owed, judge_curve, limit, eps, kept, lo, hi):
    """Rows ``lo:hi``: each agent's edge margins from the step's frame, block by block, by the
    passes of the solve (:func:`navproof.step.verify._edge_step_margins`, then
    :func:`navproof.step.verify._committed_edge_margins`), judged in the block: the union of
    B5_FOUND (an agent owing OWES_CORRIDOR whose least exact curve margin (m) is below
    ``limit``, when ``judge_curve``), S3_FOUND and S7_FOUND (an agent owing OWES_ENVELOPE whose
    least envelope or braking margin (m) is). Where ``kept`` (3, N, K) has rows, the exact
    curve, envelope and braking margins of each agent are written there. Claim: B5, S3, S7."""
    k = s.shape[1]
    rows = np.arange(MONITOR_BLOCK_ROWS)
    no_ref = np.zeros(MONITOR_BLOCK_ROWS, np.bool_)
    curve = np.empty((MONITOR_BLOCK_ROWS, k))
    t_min = np.empty((MONITOR_BLOCK_ROWS, k))
    end = np.empty((MONITOR_BLOCK_ROWS, k))
    env = np.empty((MONITOR_BLOCK_ROWS, k))
    stop = np.empty((MONITOR_BLOCK_ROWS, k))
    nec = np.empty((MONITOR_BLOCK_ROWS, k))
    curve_ok = np.empty(MONITOR_BLOCK_ROWS, np.bool_)
    stop_ok = np.empty(MONITOR_BLOCK_ROWS, np.bool_)
    keep = kept.shape[1] > 0
    found = 0
    for b in range(lo, hi, MONITOR_BLOCK_ROWS):
        e = b + MONITOR_BLOCK_ROWS if b + MONITOR_BLOCK_ROWS < hi else hi
        m = e - b
        _edge_step_margins(rows, v1[b:e], s[b:e], n_dot_e[b:e], n_dot_u[b:e], n_dot_v0[b:e],
                           normal[b:e], valid[b:e], wall[b:e], dt[b:e], u[b:e], r[b:e],
                           kfac[b:e], no_ref, eps, curve, t_min, end, curve_ok, stop_ok, 0, m)
        _committed_edge_margins(s[b:e], end, normal[b:e], wall[b:e], dt[b:e], a[b:e],
                                cmax[b:e], kfac[b:e], u[b:e], r[b:e], v1[b:e], env, stop, nec,
                                0, m)
        for i in range(m):
            bits = owed[b + i]
            if judge_curve and bits & OWES_CORRIDOR and _least_below(curve, i, limit):
                found |= B5_FOUND
            if bits & OWES_ENVELOPE:
                if _least_below(env, i, limit):
                    found |= S3_FOUND
                if _least_below(stop, i, limit):
                    found |= S7_FOUND
            if keep:
                for j in range(k):
                    kept[0, b + i, j] = curve[i, j]
                    kept[1, b + i, j] = env[i, j]
                    kept[2, b + i, j] = stop[i, j]
    return found


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
    edges, support = inp.edges, inp.support
    rows, k = edges.normal.shape[:2]
    wall = edges.wall
    normal = floats_of_shape(edges.normal, (rows, k, 2))
    # the solve's frame, its (N, K) values written over the previous step's
    frame = edge_frame(inp, budget, into=_thread_frame(rows, k))
    s, n_dot_e, n_dot_u, n_dot_v0 = frame.s, frame.n_dot_e, frame.n_dot_u, frame.n_dot_v0
    u = frame.u
    ref, rot, cmax, kfac = frame.ref, frame.rot_stop, frame.cmax, frame.kfac_s
    owed = np.empty(inp.count, np.uint8)
    first_r2 = _owed_claims(np.ascontiguousarray(label),
                            np.ascontiguousarray(inp.accel_mps2, np.float64),
                            np.ascontiguousarray(ref.exists, np.bool_),
                            np.ascontiguousarray(ref.reachable, np.bool_),
                            np.ascontiguousarray(result.flags), FLAG_CARRY_EXCEEDS_CANCEL, owed)
    # rotating_stop_pairs names no pair exactly when no frame moves
    moves = rot is not None
    judged = (s, n_dot_e, n_dot_u, n_dot_v0, normal, np.asarray(edges.valid, bool), wall,
              dt_rows, budget, u, ref.r_mps, cmax, kfac,
              np.ascontiguousarray(v1, dtype=np.float64), owed, not moves, -EPS, EPS)
    kept = np.empty((3, rows if moves else 0, k))
    found = _judged(judged, kept, rows)
    if found or moves:
        if not moves:
            # a violation: every margin again, for the first agent and its payload
            kept = np.empty((3, rows, k))
            _judged(judged, kept, rows)
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
    reach = reach_margin_mps(v1, v0, inp.accel_mps2 * dt)
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


def _judged(args: tuple, kept: np.ndarray, rows: int) -> int:
    """:func:`_judged_rows` of every agent (threads for many), the union of its bits."""
    if rows < PARALLEL_MIN_ROWS:
        return int(_judged_rows(*args, kept, 0, rows))
    pieces: list[int] = []
    run_row_pieces(lambda lo, hi: pieces.append(_judged_rows(*args, kept, lo, hi)), rows,
                   min_rows=PARALLEL_MIN_ROWS)
    found = 0
    for bits in pieces:
        found |= bits
    return found
