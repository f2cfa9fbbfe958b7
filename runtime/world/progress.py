"""Each agent's progress along its route and its status after a step: the current waypoint
(passed waypoints dropped), arrivals at the goal, and bodies held back or stalled (O8), in
one compiled pass per agent row each (the World keeps the arrays).
"""

from __future__ import annotations

import math

import numpy as np

from navproof.core.jit import compiled_loop
from navproof.orca.responsibility import stall_rule


def route_targets(route_m: np.ndarray, route_count: np.ndarray, route_index: np.ndarray,
                  position_m: np.ndarray, radius_m: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each agent's current waypoint (m, (N, 2)), whether it is the goal (N,) and the new
    route index (N,): a waypoint that is not the goal is passed once the body's centre is
    within its radius of it (distance by ``hypot``); the next one is then current."""
    n = route_index.shape[0]
    target = np.empty((n, 2))
    last = np.empty(n, np.bool_)
    index = np.empty(n, np.int64)
    _target_rows(route_m, route_count, route_index, position_m, radius_m, target, last, index)
    return target, last, index


@compiled_loop
def _target_rows(route, count, route_index, position, radius, target, last, index):
    """Every row of :func:`route_targets`."""
    for i in range(index.shape[0]):
        k = route_index[i]
        if k < count[i] - 1:
            dist = math.hypot(route[i, k, 0] - position[i, 0], route[i, k, 1] - position[i, 1])
            if dist <= radius[i]:
                k += 1
        index[i] = k
        last[i] = k >= count[i] - 1
        target[i, 0] = route[i, k, 0]
        target[i, 1] = route[i, k, 1]


def update_status(route_m: np.ndarray, route_count: np.ndarray, route_index: np.ndarray,
                  position_m: np.ndarray, velocity_mps: np.ndarray, wanted_mps: np.ndarray,
                  carry_mps: np.ndarray, *, stop_range_m: np.ndarray, arrival_speed_mps: float,
                  max_speed_mps: np.ndarray, time_s: float, arrived_at_s: np.ndarray,
                  held_steps: np.ndarray, stall_steps: np.ndarray, stalled: np.ndarray,
                  stall_limit: int, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Arrivals and stalls after a step, per agent. A body is at its goal when it is on its
    goal leg, within its stop range (m, plus ``tol``) of the goal and its world speed is within
    ``arrival_speed_mps`` (plus ``tol``): ``arrived_at_s`` gets ``time_s`` when it arrives and
    NaN when it leaves (in place). Away from its goal, a body moving at less than half the
    speed it asks for (``|wanted + carry|``, m/s) is held one more step, and a body stalled by
    :func:`navproof.orca.responsibility.stall_rule` one more stalled step; ``stalled`` (in
    place) marks every body stalled for ``stall_limit`` steps. Returns the new held and stall
    step counts (N,). Claim: O8."""
    n = route_index.shape[0]
    held = np.empty(n, np.int64)
    stall = np.empty(n, np.int64)
    _status_rows(route_m, route_count, route_index, position_m, velocity_mps, wanted_mps,
                 carry_mps, stop_range_m, arrival_speed_mps + tol, max_speed_mps, time_s,
                 tol, arrived_at_s, held_steps, stall_steps, stalled, stall_limit, held, stall)
    return held, stall


@compiled_loop
def _status_rows(route, count, route_index, position, velocity, wanted, carry, stop_range,
                 arrival_limit, max_speed, time_s, tol, arrived_at, held_steps, stall_steps,
                 stalled, stall_limit, held, stall):
    """Every row of :func:`update_status` (lengths by ``hypot``)."""
    for i in range(held.shape[0]):
        g = count[i] - 1
        dist = math.hypot(route[i, g, 0] - position[i, 0], route[i, g, 1] - position[i, 1])
        speed = math.hypot(velocity[i, 0], velocity[i, 1])
        at_goal = route_index[i] >= g and dist <= stop_range[i] + tol \
            and speed <= arrival_limit
        if not at_goal:
            arrived_at[i] = np.nan
        elif arrived_at[i] != arrived_at[i]:
            arrived_at[i] = time_s
        pref_speed = math.hypot(wanted[i, 0] + carry[i, 0], wanted[i, 1] + carry[i, 1])
        held[i] = held_steps[i] + 1 if not at_goal and speed < 0.5 * pref_speed else 0
        stuck = not at_goal and stall_rule(speed, pref_speed, max_speed[i])
        stall[i] = stall_steps[i] + 1 if stuck else 0
        if stall[i] >= stall_limit:
            stalled[i] = True
