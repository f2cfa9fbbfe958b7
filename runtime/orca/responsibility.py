"""Who takes how much of each pair's avoidance, and the deterministic symmetric-deadlock rule.

Pair shares (Claim O7): agent A's line against neighbour B passes through ``vA + share u``.

* B non-cooperative: A takes the whole change (share 1). A non-cooperative agent builds no
  agent lines at all: it follows its preferred velocity within the obstacle lines (O5 still
  binds it) and its neighbours assume it keeps its current velocity.
* Different priorities: the higher priority takes ``higher_share`` (at most 1/2; 0 makes it
  take nothing, its line then only forbids making the conflict worse), the lower the rest.
* Equal priorities: ``2 * equal_share * weight_A / (weight_A + weight_B)`` with the generated
  ``orca_pair_share``; with the default ``equal_share`` 1/2 the shares of a pair add up to 1,
  the split the O3/O7 proofs show reciprocal in every case of the construction (a sum above 1
  is refuted when the pair is not on a collision course, below 1 when it is).

Obstacles are always taken in full (O5) and never go through here.

Symmetric deadlock (Claim O8): an agent is *stalled* when its speed stays below
``STALL_SPEED_FRACTION`` of its maximum speed while its preferred speed is not zero, for
consecutive steps (:func:`stalled_now`, the one stall rule of the crowd and the World). With
the ``keep-right`` tie-break, an agent stalled for at least ``stall_steps`` steps has its
preferred velocity turned clockwise by ``side_bias_rad`` before the solve: both agents of an
exactly symmetric pair turn to their own right, which breaks the symmetry the same way every
time; and between two agents of equal priority of which one is stalled, the lower agent index
counts as the higher priority, so in a narrow door (where turning right only meets the wall)
one of them goes first. The World applies the same turn to its held bodies and lets the higher
index of a blocked pair yield (:func:`keep_right_and_yield`). Only the
preferred velocity and the split of a pair change: the lines keep shares that add up to 1 and
the solver is untouched, so O2 (closest to the turned preferred velocity) and O3/O7 (the
lines) hold as before.
"""

from __future__ import annotations

import math

import numpy as np

from navproof._generated.formulas import orca_pair_share
from navproof.core.jit import compiled_loop
from navproof.core.vec2 import hypot_below, nonzero_length

TIE_BREAKS = ("none", "keep-right")
"""Available symmetric-deadlock rules."""

STALL_SPEED_FRACTION = 0.05
"""An agent slower than this fraction of its maximum speed makes no progress (1)."""


def pair_shares(neighbor_idx: np.ndarray, rows: np.ndarray, *, weight: np.ndarray,
                priority: np.ndarray, cooperative: np.ndarray, equal_share: float,
                higher_share: float, stalled: np.ndarray | None = None) -> np.ndarray:
    """Share of each (agent row, neighbour slot) pair of ``neighbor_idx (M, k)`` (-1 padded).

    ``weight``, ``priority``, ``cooperative`` (and ``stalled``, the agents the tie-break acts
    on) are per agent over the whole crowd (N,). Between two agents of equal priority of which
    one is stalled, the lower index counts as the higher priority (Claim O8). Padded slots get
    0. Claim: O7.
    """
    valid = neighbor_idx >= 0
    other = np.where(valid, neighbor_idx, 0)
    own_w = weight[rows][:, None]
    other_w = weight[other]
    share = 2.0 * equal_share * orca_pair_share(weight_own=own_w, weight_other=other_w)
    own_p = priority[rows][:, None]
    other_p = priority[other]
    if stalled is not None:
        # lexicographic (priority, -index) between stalled equals: a strict, stable order
        tie = (own_p == other_p) & (stalled[rows][:, None] | stalled[other])
        lower_index = rows[:, None] < other
        own_p = np.where(tie & lower_index, own_p + 1.0, own_p)
        other_p = np.where(tie & ~lower_index, other_p + 1.0, other_p)
    share = np.where(own_p > other_p, higher_share,
                     np.where(own_p < other_p, 1.0 - higher_share, share))
    share = np.where(cooperative[other], share, 1.0)
    return np.where(valid, share, 0.0)


def turn_right(pref_velocity: np.ndarray, turn: np.ndarray, angle_rad: float) -> np.ndarray:
    """Preferred velocities with rows ``turn`` rotated clockwise by ``angle_rad`` (same speed).

    Claim: O8 (the keep-right tie-break)."""
    if not turn.any():
        return pref_velocity.copy()
    c, s = np.cos(-angle_rad), np.sin(-angle_rad)
    right = np.array([[c, s], [-s, c]])
    return np.where(turn[:, None], pref_velocity @ right, pref_velocity)


def keep_right_and_yield(
    desired_mps: np.ndarray, speed_cap_mps: np.ndarray, *, held: np.ndarray,
    yield_dir: np.ndarray, yield_left: np.ndarray, neighbor_idx: np.ndarray,
    position_m: np.ndarray, radius_m: np.ndarray, angle_rad: float, yield_steps: int,
    yield_reach_m: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The keep-right tie-break on desired velocities (m/s, (N, 2)) with yielding by index, as
    the World applies it. Claim: O8.

    Agents ``held`` (N,) have their desired velocity turned clockwise by ``angle_rad``
    (:func:`turn_right`). Of two held agents within ``yield_reach_m`` (m) of touching each other
    (``neighbor_idx`` (N, k), -1 padded), the one with the higher index yields: for
    ``yield_steps`` steps it backs off at half its ``speed_cap_mps`` along ``yield_dir``, away
    from the other and turned to its right, and the other passes (the same index order as the
    crowd's :func:`pair_shares`). Returns the new desired velocities and the new
    ``(yield_dir, yield_left)`` (unit directions (N, 2), steps left (N,)).
    """
    count = desired_mps.shape[0]
    if not _held_or_yielding(held, yield_left):
        return desired_mps, yield_dir, yield_left
    out = turn_right(desired_mps, held, angle_rad)
    nb = neighbor_idx
    if nb.shape[0] == count and nb.shape[1]:
        start = np.empty(count, dtype=np.bool_)
        unit = np.zeros((count, 2))
        if _yield_starts(np.ascontiguousarray(nb, dtype=np.int64),
                         np.asarray(position_m, dtype=np.float64),
                         np.asarray(radius_m, dtype=np.float64), held, yield_left,
                         float(yield_reach_m), start, unit):
            yield_dir = np.where(start[:, None], turn_right(unit, start, angle_rad), yield_dir)
            yield_left = np.where(start, yield_steps, yield_left)
    # half the cap in numpy's own type rules, then one pass picks each row's velocity
    half_cap = np.broadcast_to(0.5 * np.asarray(speed_cap_mps), (count,))
    new_out = np.empty(out.shape, dtype=np.result_type(yield_dir, half_cap, out))
    new_left = np.empty_like(yield_left)
    _yield_rows(out, yield_dir, half_cap, yield_left, new_out, new_left)
    return new_out, yield_dir, new_left


@compiled_loop
def _held_or_yielding(held, yield_left):
    """Whether any agent of :func:`keep_right_and_yield` is ``held`` or has yield steps left
    (above 0): otherwise nothing changes."""
    for i in range(held.shape[0]):
        if held[i]:
            return True
    for i in range(yield_left.shape[0]):
        if yield_left[i] > 0:
            return True
    return False


@compiled_loop
def _yield_starts(nb, position, radius, held, yield_left, reach_m, start, unit):
    """The agents of :func:`keep_right_and_yield` that start to yield, into ``start`` (N,):
    held, not yielding yet, with a held neighbour of lower index in ``nb (N, k)`` within
    ``reach_m`` (m) of touching (the distance by ``hypot``, as numpy measures it); their rows
    of ``unit`` get the unit vector (m/m) away from the first such neighbour (a zero vector
    stays zero), the other rows are left as they are. Returns whether any agent starts."""
    any_start = False
    for i in range(nb.shape[0]):
        start[i] = False
        if not held[i] or yield_left[i] != 0:
            continue
        for j in range(nb.shape[1]):
            other = nb[i, j]
            if other < 0 or other >= i or not held[other]:
                continue
            ax = position[i, 0] - position[other, 0]
            ay = position[i, 1] - position[other, 1]
            if math.hypot(ax, ay) <= radius[i] + radius[other] + reach_m:
                length = math.hypot(ax, ay)
                scale = length if length > 0.0 else 1.0
                unit[i, 0] = ax / scale
                unit[i, 1] = ay / scale
                start[i] = True
                any_start = True
                break
    return any_start


@compiled_loop
def _yield_rows(out, yield_dir, half_cap, yield_left, new_out, new_left):
    """The last step of :func:`keep_right_and_yield` per row: a yielding agent (steps left
    above 0) backs off along its ``yield_dir`` at ``half_cap`` (m/s, half its speed cap), the
    others keep ``out``; one step less is left, at least 0."""
    for i in range(out.shape[0]):
        if yield_left[i] > 0:
            new_out[i, 0] = yield_dir[i, 0] * half_cap[i]
            new_out[i, 1] = yield_dir[i, 1] * half_cap[i]
        else:
            new_out[i, 0] = out[i, 0]
            new_out[i, 1] = out[i, 1]
        left = yield_left[i] - 1
        new_left[i] = left if left > 0 else 0


@compiled_loop
def stall_rule(speed, pref_speed, max_speed):
    """The stall rule for one agent (m/s): it wants to move but moves at less than
    ``STALL_SPEED_FRACTION`` of its maximum speed. Claim: O8."""
    return pref_speed > 0.0 and speed < STALL_SPEED_FRACTION * max_speed


@compiled_loop
def _mark_stalled(speed, pref_speed, max_speed, out):
    """:func:`stall_rule` of every entry of the flat arrays into ``out``."""
    for i in range(out.size):
        out[i] = stall_rule(speed[i], pref_speed[i], max_speed[i])


@compiled_loop
def _count_stalls(previous, selected, preferred, max_speed, out):
    """Every row of :func:`stall_count` into ``out``: :func:`stall_rule` of the speeds, each
    comparison decided as with the ``hypot`` lengths (:func:`~navproof.core.vec2.nonzero_length`,
    :func:`~navproof.core.vec2.hypot_below`) without measuring them where the decision is
    clear."""
    for i in range(out.size):
        stalled = (nonzero_length(preferred[i, 0], preferred[i, 1])
                   and hypot_below(selected[i, 0], selected[i, 1],
                                    STALL_SPEED_FRACTION * max_speed[i]))
        out[i] = previous[i] + 1 if stalled else 0


def stalled_now(speed_mps: np.ndarray, pref_speed_mps: np.ndarray,
                max_speed_mps: np.ndarray) -> np.ndarray:
    """True where an agent makes no progress this step: it wants to move (preferred speed
    above 0, m/s) but moves at less than ``STALL_SPEED_FRACTION`` of its maximum speed (m/s);
    the arrays broadcast. The one stall rule of the crowd and the World (:func:`stall_rule`).
    Claim: O8."""
    speed, pref_speed, max_speed = np.broadcast_arrays(
        *(np.asarray(a, dtype=np.float64) for a in (speed_mps, pref_speed_mps, max_speed_mps)))
    out = np.empty(speed.shape, dtype=bool)
    _mark_stalled(speed.ravel(), pref_speed.ravel(), max_speed.ravel(), out.reshape(-1))
    return out


def stall_count(previous: np.ndarray, selected: np.ndarray, preferred: np.ndarray,
                max_speed_mps: np.ndarray) -> np.ndarray:
    """Consecutive stalled steps per agent after a step with these velocities (m/s, (N, 2));
    ``max_speed_mps`` (N,) per agent. Claim: O8."""
    previous = np.asarray(previous)
    out = np.empty(previous.shape[0], dtype=np.result_type(previous.dtype, np.int64))
    _count_stalls(previous, np.asarray(selected, dtype=np.float64),
                  np.asarray(preferred, dtype=np.float64),
                  np.asarray(max_speed_mps, dtype=np.float64), out)
    return out


@compiled_loop
def uniform_shares(cooperative: np.ndarray, weight: np.ndarray, priority: np.ndarray) -> bool:
    """Whether every agent is cooperative and all share one responsibility weight and one
    priority (N,): then every pair splits by the crowd-wide share, RVO2's rule. Claim: O7."""
    for i in range(cooperative.shape[0]):
        if not cooperative[i] or weight[i] != weight[0] or priority[i] != priority[0]:
            return False
    return True
