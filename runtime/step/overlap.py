"""Already-overlapping neighbours (claim O6, seed 002): a shorter-horizon separation rule.

A pair that overlaps at the start of the step cannot reach the combined radius within one step
at the reachable acceleration, so ORCA's one-step separation line leaves no velocity and the
sweep (W1) has no contact-free candidate. For such an agent the step keeps the edges, the disks,
the static-obstacle lines and the sweep (whose overlap rule lets no pair get any closer during
the step), replaces the neighbour lines by one separation half-plane per overlapping neighbour:
the end velocity moves away from it, relative to its predicted velocity, at
``min(share * overlap / OVERLAP_HORIZON_S, share * a dt)``, and labels the result "separating
an overlap" (never safe). Bodies move along their reachable curves: no teleport.
"""

from __future__ import annotations

import numpy as np

from navproof.core.jit import compiled_loop
from navproof.core.vec2 import norm2
from navproof.solver.halfplanes import HalfPlanes
from navproof.step.constraints import Prepared
from navproof.step.inputs import StepInput

OVERLAP_HORIZON_S = 0.5
"""Horizon (s) over which an overlap is to be removed: shorter than ORCA's neighbour horizon,
longer than one step (within one step the reachable disk cannot remove it)."""
SEPARATION_SHARE = 0.5
"""Each agent's share of the separation (reciprocal, as ORCA's responsibility 1/2)."""


def overlapping_agents(inp: StepInput, prep: Prepared) -> np.ndarray:
    """(N,) True for agents with a neighbour they overlap at the start of the step, from the
    prepared start distances and combined radii. Claim: O6."""
    nb = inp.neighbors
    if nb is None or nb.valid.shape[1] == 0:
        return np.zeros(inp.count, bool)
    assert prep.sweep_start_m is not None and prep.sweep_comb_m is not None
    out = np.empty(inp.count, bool)
    _overlapping(np.asarray(nb.valid, bool), prep.sweep_start_m, prep.sweep_comb_m, out)
    return out


@compiled_loop
def _overlapping(valid, start, comb, out):
    """Per row: some valid slot whose start distance is below its combined radius (one pass;
    numpy reduces the short neighbour axis slowly). Claim: O6."""
    for i in range(out.size):
        hit = False
        for j in range(valid.shape[1]):
            if valid[i, j] and start[i, j] < comb[i, j]:
                hit = True
                break
        out[i] = hit


def separation_planes(inp: StepInput, prep: Prepared, agents: np.ndarray) -> HalfPlanes:
    """One half-plane per overlapping neighbour slot of ``agents`` (R, J), in the solve variable
    v1: ``dot(d, u + v1 - w) >= sigma`` with d the unit direction away from the neighbour, i.e.
    ``dot(-d, v1) <= dot(d, u - w) - sigma``. Coincident centres give no direction and no
    half-plane. Claim: O6."""
    nb = inp.neighbors
    assert nb is not None
    sub = nb.take(agents)
    away = inp.position_m[agents, None, :] - sub.position_m
    gap = norm2(away)
    comb = inp.radius_m[agents, None] + sub.radius_m
    valid = sub.valid & (gap < comb) & (gap > 0.0)
    d = away / np.where(gap > 0.0, gap, 1.0)[..., None]
    reach = (inp.accel_mps2[agents] * inp.dt_per_agent_s[agents])[:, None]
    sigma = SEPARATION_SHARE * np.minimum((comb - gap) / OVERLAP_HORIZON_S, reach)
    carry = prep.u[agents, None, :] - sub.velocity_mps
    offset = np.einsum("rjk,rjk->rj", d, carry) - sigma
    return HalfPlanes(-d, np.where(valid, offset, 0.0), valid)
