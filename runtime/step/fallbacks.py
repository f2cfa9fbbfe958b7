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

from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.numpy_scalars import numpy_minimum
from navproof.core.vec2 import norm2
from navproof.step.constraints import Prepared
from navproof.step.inputs import StepInput
from navproof.step.search import CORRIDOR_ONLY, SWEPT_CORRIDOR, closest_verified
from navproof.step.sweep import first_contact_time_s
from navproof.step.verify import KnownMargins, end_and_brake_margins, sweep_end_velocity_mps


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
    """Rows of :func:`within_caps` (:func:`_within_caps_row`)."""
    for i in range(out.shape[0]):
        out[i, 0], out[i, 1] = _within_caps_row(v0[i, 0], v0[i, 1], target[i, 0], target[i, 1],
                                                reach[i], vh[i])


@inlined_loop
def _within_caps_row(vx, vy, px, py, rho, big):
    """One row of :func:`within_caps` (m/s): of the target ``p``, its projections on both
    circles and the circles' two crossing points, the nearest inside both disks (within 1e-12,
    relative and absolute), the first of equals; none inside: the strongest braking towards
    the cap."""
    tol = 1e-12
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
    best = (0.0, 0.0, np.inf)
    best = _nearer(px, py, vx, vy, px, py, big_cap, rho_cap, best)
    best = _nearer(big * (px / p_len), big * (py / p_len), vx, vy, px, py, big_cap, rho_cap,
                   best)
    best = _nearer(vx + rho * (qx / q_len), vy + rho * (qy / q_len), vx, vy, px, py, big_cap,
                   rho_cap, best)
    best = _nearer(bx + -ey * half, by + ex * half, vx, vy, px, py, big_cap, rho_cap, best)
    best = _nearer(bx - -ey * half, by - ex * half, vx, vy, px, py, big_cap, rho_cap, best)
    if not np.isfinite(best[2]):
        # no velocity within the cap is reachable: brake as hard as possible towards it
        return vx - rho * ex, vy - rho * ey
    return best[0], best[1]


@inlined_loop
def _nearer(cx, cy, vx, vy, px, py, big_cap, rho_cap, best):
    """``(cx, cy, gap)`` where the candidate ``c`` lies inside both disks (|c| <= big_cap,
    |c - v| <= rho_cap) and its gap |c - p| is below ``best``'s, else ``best``."""
    inside = _length(cx, cy) <= big_cap and _length(cx - vx, cy - vy) <= rho_cap
    gap = _length(cx - px, cy - py) if inside else np.inf
    if gap < best[2]:
        return (cx, cy, gap)
    return best


def _hardest_brake(inp: StepInput, prep: Prepared, agents: np.ndarray,
                   v_stop: np.ndarray) -> np.ndarray:
    """F2's choice (m/s, (R, 2)): the brake towards ``v_stop`` or straight back from one of the
    walls or obstacle sides at the full reachable radius, each kept within the speed cap and
    the reachable disk (:func:`within_caps`), whichever leaves the largest least margin
    (:func:`_least_brake_margin`); one compiled pass over the rows. Claim: F2, V1, V2, S7."""
    agents = np.asarray(agents, dtype=np.int64)
    out = np.empty((agents.size, 2))
    _hardest_brake_rows(agents, np.ascontiguousarray(v_stop, dtype=np.float64),
                        np.asarray(inp.velocity_mps, np.float64),
                        np.asarray(inp.accel_mps2, np.float64), inp.dt_per_agent_s,
                        np.asarray(inp.vh_mps, np.float64), np.asarray(inp.edges.solid, bool),
                        np.asarray(inp.edges.normal, np.float64), prep.s, prep.n_dot_e,
                        prep.n_dot_u, prep.n_dot_v0, prep.u, prep.ref.r_mps, prep.kfac_s, out)
    return out


@compiled_loop
def _hardest_brake_rows(agents, v_stop, v0, accel, dt, vh, solid, normal, s, n_dot_e, n_dot_u,
                        n_dot_v0, u, r, kfac, out):
    """Rows of :func:`_hardest_brake`: the brake towards ``v_stop[i]``, then each edge's
    straight-back brake ``v0 - n a dt`` in edge order, one replacing the choice where its edge
    is solid and its least margin is larger (NaN never is). Claim: F2, V1, V2, S7."""
    for i in range(agents.size):
        a = agents[i]
        vx, vy = v0[a, 0], v0[a, 1]
        reach, cap = accel[a] * dt[a], vh[a]
        bx, by = _within_caps_row(vx, vy, v_stop[i, 0], v_stop[i, 1], reach, cap)
        score = _least_brake_margin(a, bx, by, solid, normal, s, n_dot_e, n_dot_u, n_dot_v0,
                                    dt, u, r, kfac)
        for w in range(solid.shape[1]):
            nx, ny = normal[a, w, 0], normal[a, w, 1]
            cx, cy = _within_caps_row(vx, vy, vx - nx * reach, vy - ny * reach, reach, cap)
            cand = _least_brake_margin(a, cx, cy, solid, normal, s, n_dot_e, n_dot_u, n_dot_v0,
                                       dt, u, r, kfac)
            if solid[a, w] and cand > score:
                bx, by, score = cx, cy, cand
        out[i, 0], out[i, 1] = bx, by


@inlined_loop
def _least_brake_margin(a, vx, vy, solid, normal, s, n_dot_e, n_dot_u, n_dot_v0, dt, u, r,
                        kfac):
    """Least over agent ``a``'s walls and obstacle sides ``solid`` of min(step-end margin, S7
    braking-envelope margin) (m) of the end velocity ``v``, as the verification's
    :func:`navproof.step.verify.end_and_brake_margins` gives them: how far inside the body ends
    once braked; NaN where any is NaN, +inf without such an edge. Claim: S7."""
    cx, cy = u[a, 0] + vx - r[a, 0], u[a, 1] + vy - r[a, 1]
    least = np.inf
    for j in range(solid.shape[1]):
        if not solid[a, j]:
            continue
        m_end, brake = end_and_brake_margins(s[a, j], dt[a], n_dot_e[a, j], n_dot_u[a, j],
                                             n_dot_v0[a, j], normal[a, j, 0], normal[a, j, 1],
                                             vx, vy, cx, cy, kfac[a])
        m = numpy_minimum(m_end, brake)
        if m != m:
            return m
        if m < least:
            least = m
    return least


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

