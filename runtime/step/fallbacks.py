"""The fallback order of the safe step for agents without a verified velocity (seed 000).

F1: the dynamic-neighbour lines relaxed, the braking velocity closest to vStop in the corridor
half-planes and the reachable disk ("dynamic avoidance failed"). F2: the strongest reachable
braking towards vStop, truncated at the first sweep contact ("no stop guarantee"). F3: without
a reference there is no stop target; the strongest reachable braking towards relative rest,
truncated the same way ("solve failed"). Claim: F1, F2, F3, V2, W1.
"""

from __future__ import annotations

import numpy as np

from navproof.step.constraints import Prepared
from navproof.step.inputs import StepInput
from navproof.step.search import CORRIDOR_ONLY, closest_verified
from navproof.step.sweep import first_contact_time_s
from navproof.step.verify import KnownMargins


def f1_relaxed_neighbours(inp: StepInput, prep: Prepared, agents: np.ndarray, *,
                          known: KnownMargins) -> tuple[np.ndarray, np.ndarray]:
    """F1: the closest verified velocity to vStop with only the static-obstacle lines kept, no
    speed disk and no sweep. Returns (found (R,), v1 (R, 2)). Claim: F1."""
    return closest_verified(inp, prep, agents, preferred_mps=prep.ref.v_stop_mps[agents],
                            keep=CORRIDOR_ONLY, known=known)


def _strongest_braking(inp: StepInput, prep: Prepared, agents: np.ndarray, *,
                       target_mps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reachable velocity (V2) nearest ``target_mps`` (R, 2) straight from v0, and how long
    it may be executed before the first sweep contact (s, (R,)). Claim: V2, W1."""
    dt = inp.dt_per_agent_s[agents]
    v0 = inp.velocity_mps[agents]
    toward = target_mps - v0
    length = np.linalg.norm(toward, axis=1)
    reach = inp.accel_mps2[agents] * dt
    scale = np.where(length > reach, reach / np.where(length > 0.0, length, 1.0), 1.0)
    v_brake = v0 + toward * scale[:, None]
    nb = inp.neighbors
    if nb is not None and nb.valid.shape[1]:
        sub = nb.take(agents)
        t_stop = first_contact_time_s(inp.position_m[agents], prep.u[agents], v0, v_brake, dt,
                                      sub.position_m, sub.velocity_mps, sub.valid,
                                      inp.radius_m[agents, None] + sub.radius_m)
    else:
        t_stop = dt.copy()
    return v_brake, t_stop


def f2_strongest_braking(inp: StepInput, prep: Prepared, agents: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """F2: strongest reachable braking towards vStop, truncated by the sweep. Returns (v1 (R, 2),
    commit time (s, (R,))). Claim: F2."""
    return _strongest_braking(inp, prep, agents, target_mps=prep.ref.v_stop_mps[agents])


def f3_brake_to_relative_rest(inp: StepInput, prep: Prepared, agents: np.ndarray
                              ) -> tuple[np.ndarray, np.ndarray]:
    """F3 (no reference, so no stop target): strongest reachable braking towards rest relative
    to the support, truncated by the sweep. Returns (v1 (R, 2), commit time (s, (R,))).
    Claim: F3."""
    return _strongest_braking(inp, prep, agents, target_mps=np.zeros((agents.size, 2)))
