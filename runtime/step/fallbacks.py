"""The fallback order of the safe step for agents without a verified velocity (seed 000).

F1: the dynamic-neighbour lines relaxed, the braking velocity closest to vStop in the corridor
half-planes and the reachable disk ("dynamic avoidance failed"). F2: the strongest braking in
the reachable disk, truncated at the first sweep contact ("no stop guarantee"): of the full-
budget brakes towards vStop and straight back from each wall, the one that leaves the largest
least braking-envelope margin (S7) at the step end. F3: without a reference there is no stop
target; the strongest reachable braking towards relative rest, truncated the same way ("solve
failed"). Claim: F1, F2, F3, S7, V2, W1.
"""

from __future__ import annotations

import numpy as np

from navproof.core.jit import compiled_loop
from navproof.core.vec2 import norm2
from navproof.step.constraints import Prepared
from navproof.step.inputs import StepInput
from navproof.step.search import CORRIDOR_ONLY, SWEPT_CORRIDOR, closest_verified
from navproof.step.sweep import first_contact_time_s
from navproof.step.verify import KnownMargins, edge_margins, sweep_end_velocity_mps


def f1_relaxed_neighbours(inp: StepInput, prep: Prepared, agents: np.ndarray, *,
                          known: KnownMargins) -> tuple[np.ndarray, np.ndarray]:
    """F1: the closest verified velocity to vStop with only the static-obstacle lines kept:
    first with the speed disk and the sweep (W1) kept, so the relaxed ORCA lines never walk the
    body into another one where a contact-free braking velocity exists; for the rest with the
    speed disk but no sweep. Returns (found (R,), v1 (R, 2)). Claim: F1, W1."""
    found, v1 = closest_verified(inp, prep, agents, preferred_mps=prep.ref.v_stop_mps[agents],
                                 keep=SWEPT_CORRIDOR, known=known)
    rest = np.flatnonzero(~found)
    if rest.size:
        more, v_more = closest_verified(inp, prep, agents[rest],
                                        preferred_mps=prep.ref.v_stop_mps[agents[rest]],
                                        keep=CORRIDOR_ONLY, known=known)
        found[rest], v1[rest] = more, v_more
    return found, v1


def _toward(v0: np.ndarray, target_mps: np.ndarray, reach_mps: np.ndarray) -> np.ndarray:
    """The reachable velocity (V2, radius ``reach_mps``) nearest ``target_mps``, from v0."""
    toward = target_mps - v0
    length = norm2(toward)
    scale = np.where(length > reach_mps, reach_mps / np.where(length > 0.0, length, 1.0), 1.0)
    return v0 + toward * scale[..., None]


def within_caps(v0: np.ndarray, target_mps: np.ndarray, reach_mps: np.ndarray,
                vh_mps: np.ndarray) -> np.ndarray:
    """The velocity (m/s, (R, 2)) nearest ``target_mps`` in the speed disk ``|v| <= Vh`` (V1)
    and the reachable disk ``|v - v0| <= a dt`` (V2): exact, from the projections on each
    circle and the circles' crossing points. Where the two disks do not meet (``|v0| > Vh +
    a dt``) it is the strongest reachable braking towards the speed disk, which stays above
    the cap (:data:`navproof.step.result.FLAG_OVER_CAP` says so). Claim: V1, V2, F2, F3."""
    v0 = np.ascontiguousarray(v0, dtype=np.float64)
    out = np.empty(v0.shape)
    _within_caps(v0, np.ascontiguousarray(target_mps, dtype=np.float64),
                 np.ascontiguousarray(reach_mps, dtype=np.float64),
                 np.ascontiguousarray(vh_mps, dtype=np.float64), out)
    return out


@compiled_loop
def _length(x, y):
    """numpy's 2-norm of (x, y): sqrt(x^2 + y^2)."""
    return np.sqrt(x * x + y * y)


@compiled_loop
def _unit_scale(length):
    """The divisor of a unit vector: its length, or 1 for the zero vector."""
    return length if length > 0.0 else 1.0


@compiled_loop
def _within_caps(v0, target, reach, vh, out):
    """Rows of :func:`within_caps`: of the target, its projections on both circles and the
    circles' two crossing points, the nearest inside both disks (within 1e-12, relative and
    absolute), the first of equals; none inside: the strongest braking towards the cap."""
    tol = 1e-12
    cand = np.empty((5, 2))
    for i in range(out.shape[0]):
        vx, vy, px, py = v0[i, 0], v0[i, 1], target[i, 0], target[i, 1]
        rho, big = reach[i], vh[i]
        big_cap, rho_cap = big * (1 + tol) + tol, rho * (1 + tol) + tol
        p_len = _unit_scale(_length(px, py))
        qx, qy = px - vx, py - vy
        q_len = _unit_scale(_length(qx, qy))
        d = _length(vx, vy)
        safe_d = d if d > 0.0 else 1.0
        along = (big * big - rho * rho + d * d) / (2.0 * safe_d)
        half_sq = big * big - along * along
        # numpy's maximum(half_sq, 0): NaN stays, a tie (-0.0) gives 0.0
        half = np.sqrt(half_sq if half_sq > 0.0 or half_sq != half_sq else 0.0)
        v_len = _unit_scale(d)
        ex, ey = vx / v_len, vy / v_len
        bx, by = ex * along, ey * along
        cand[0, 0], cand[0, 1] = px, py
        cand[1, 0], cand[1, 1] = big * (px / p_len), big * (py / p_len)
        cand[2, 0], cand[2, 1] = vx + rho * (qx / q_len), vy + rho * (qy / q_len)
        cand[3, 0], cand[3, 1] = bx + -ey * half, by + ex * half
        cand[4, 0], cand[4, 1] = bx - -ey * half, by - ex * half
        best_x, best_y, best_gap = 0.0, 0.0, np.inf
        for c in range(5):
            cx, cy = cand[c, 0], cand[c, 1]
            inside = _length(cx, cy) <= big_cap and _length(cx - vx, cy - vy) <= rho_cap
            gap = _length(cx - px, cy - py) if inside else np.inf
            if gap < best_gap:
                best_x, best_y, best_gap = cx, cy, gap
        if not np.isfinite(best_gap):
            # no velocity within the cap is reachable: brake as hard as possible towards it
            best_x, best_y = vx - rho * ex, vy - rho * ey
        out[i, 0], out[i, 1] = best_x, best_y


def _least_brake_margin_m(inp: StepInput, prep: Prepared, agents: np.ndarray,
                          v1: np.ndarray, solid: np.ndarray) -> np.ndarray:
    """Least over the walls and obstacle sides ``solid`` (R, K) of min(step-end margin, S7
    braking-envelope margin) (m, (R,)) of end velocities ``v1`` (R, 2): how far inside the
    body ends once braked. Claim: S7."""
    margins = edge_margins(inp, prep, agents, v1, certified_curve=False)
    least = np.where(solid, np.minimum(margins.end_m, margins.stop_m), np.inf)
    return least.min(axis=1, initial=np.inf)


def _hardest_brake(inp: StepInput, prep: Prepared, agents: np.ndarray,
                   v_stop: np.ndarray) -> np.ndarray:
    """F2's choice (m/s, (R, 2)): the brake towards ``v_stop`` or straight back from one of the
    walls or obstacle sides at the full reachable radius, each kept within the speed cap and
    the reachable disk (:func:`within_caps`), whichever leaves the largest least margin.
    Claim: F2, V1, V2."""
    v0 = inp.velocity_mps[agents]
    reach = inp.accel_mps2[agents] * inp.dt_per_agent_s[agents]
    vh = inp.vh_mps[agents]
    walls = inp.edges.solid[agents]
    best = within_caps(v0, v_stop, reach, vh)
    score = _least_brake_margin_m(inp, prep, agents, best, walls)
    normal = inp.edges.normal[agents]
    for i in range(walls.shape[1]):
        cand = within_caps(v0, v0 - normal[:, i] * reach[:, None], reach, vh)
        cand_score = _least_brake_margin_m(inp, prep, agents, cand, walls)
        better = walls[:, i] & (cand_score > score)
        best = np.where(better[:, None], cand, best)
        score = np.where(better, cand_score, score)
    return best


def truncated_by_sweep(inp: StepInput, prep: Prepared, agents: np.ndarray, v_brake: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """``v_brake`` (R, 2) and how long it may be executed before the first sweep contact
    (s, (R,)). Claim: W1."""
    dt = inp.dt_per_agent_s[agents]
    v0 = inp.velocity_mps[agents]
    nb = inp.neighbors
    if nb is not None and nb.valid.shape[1]:
        sub = nb.take(agents)
        v_sweep = sweep_end_velocity_mps(inp.support, agents, v_brake, dt)
        t_stop = first_contact_time_s(inp.position_m[agents], prep.u[agents], v0, v_sweep, dt,
                                      sub.position_m, sub.velocity_mps, sub.valid,
                                      inp.radius_m[agents, None] + sub.radius_m)
    else:
        t_stop = dt.copy()
    return v_brake, t_stop


def f2_strongest_braking(inp: StepInput, prep: Prepared, agents: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """F2: the strongest braking in the reachable disk (:func:`_hardest_brake`), truncated by the
    sweep. Returns (v1 (R, 2), commit time (s, (R,))). Claim: F2."""
    v_brake = _hardest_brake(inp, prep, agents, prep.ref.v_stop_mps[agents])
    return truncated_by_sweep(inp, prep, agents, v_brake)


def f3_brake_to_relative_rest(inp: StepInput, prep: Prepared, agents: np.ndarray
                              ) -> tuple[np.ndarray, np.ndarray]:
    """F3 (no reference, so no stop target): strongest reachable braking towards rest relative
    to the support, truncated by the sweep. Returns (v1 (R, 2), commit time (s, (R,))).
    Claim: F3."""
    v0 = inp.velocity_mps[agents]
    reach = inp.accel_mps2[agents] * inp.dt_per_agent_s[agents]
    return truncated_by_sweep(inp, prep, agents, _toward(v0, np.zeros_like(v0), reach))

