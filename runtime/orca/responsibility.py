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
``STALL_SPEED_FRACTION`` of its preferred speed (and the preferred speed is at least
``STALL_MIN_PREF_MPS``) for consecutive steps. With the ``keep-right`` tie-break, an agent
stalled for at least ``stall_steps`` steps has its preferred velocity turned clockwise by
``side_bias_rad`` before the solve: both agents of an exactly symmetric pair turn to their own
right, which breaks the symmetry the same way every time; and between two agents of equal
priority of which one is stalled, the lower agent index counts as the higher priority, so in a
narrow door (where turning right only meets the wall) one of them goes first. Only the
preferred velocity and the split of a pair change: the lines keep shares that add up to 1 and
the solver is untouched, so O2 (closest to the turned preferred velocity) and O3/O7 (the
lines) hold as before.
"""

from __future__ import annotations

import numpy as np

from navproof._generated.formulas import orca_pair_share

TIE_BREAKS = ("none", "keep-right")
"""Available symmetric-deadlock rules."""

STALL_SPEED_FRACTION = 0.1
"""An agent slower than this fraction of its preferred speed makes no progress (1)."""
STALL_MIN_PREF_MPS = 1e-3
"""Below this preferred speed an agent wants to stand: standing is not a stall (m/s)."""


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
    out = pref_velocity.copy()
    if turn.any():
        c, s = np.cos(angle_rad), np.sin(angle_rad)
        x, y = pref_velocity[turn, 0], pref_velocity[turn, 1]
        out[turn, 0] = c * x + s * y
        out[turn, 1] = -s * x + c * y
    return out


def stall_count(previous: np.ndarray, selected: np.ndarray, preferred: np.ndarray) -> np.ndarray:
    """Consecutive stalled steps per agent after a step with these velocities. Claim: O8."""
    speed = np.hypot(selected[:, 0], selected[:, 1])
    pref_speed = np.hypot(preferred[:, 0], preferred[:, 1])
    stalled = (pref_speed >= STALL_MIN_PREF_MPS) & (speed < STALL_SPEED_FRACTION * pref_speed)
    return np.where(stalled, previous + 1, 0)
