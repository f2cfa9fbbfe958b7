"""Whole-step verification of candidate velocities, shared by the solve and its monitor.

A candidate v1 is verified against the whole continuous curve (B5 exact for translating
motion, the certified local-frame bound of B6 otherwise), the discrete braking envelope from
the step end (S7, which covers S1's brake from the step end), the certified stop and hold next
to rotating or accelerating motion (B6) and the neighbour sweep (W1).
Claim: B4, B5, B6, S1, S3, S7, W1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof.boundary.edges import EDGE_OBSTACLE, EdgeSet, take_edges
from navproof.boundary.margins import (
    accel_end_margin_m,
    curve_min_margin_m,
    translating_curve_margins_m,
)
from navproof.boundary.motion import Support, take_support
from navproof.boundary.rigid import rotating_stop_margin_bound_m
from navproof.boundary.slope import reach_margin_mps, speed_margin_mps
from navproof.boundary.stop_envelope import (
    brake_envelope_margin_m,
    envelope_margin_m,
    necessary_bound_mps,
)
from navproof.core.tolerances import EPS
from navproof.core.vec2 import dot2
from navproof.step.constraints import Prepared
from navproof.step.inputs import Neighbors, StepInput
from navproof.step.result import Margins
from navproof.step.sweep import sweep_margin_m, sweep_min_distance_m, sweep_passes

SWEEP_EXACT_BAND_M = 1.0
"""Pairs whose certified lower distance bound is within this band (m) of the combined radius
get the exact minimum; farther pairs keep the certified bound (W1 is decided either way)."""


@dataclass(frozen=True)
class Checked:
    """Margins of candidates ``v1`` (R rows): certified whole-step curve bound (R, K), exact
    translating minimum and its time (R, K), step-end margin (R, K), and W1 sweep margin (R, J)
    (None when not checked)."""

    curve_m: np.ndarray
    exact_m: np.ndarray
    t_min_s: np.ndarray
    end_m: np.ndarray
    sweep_m: np.ndarray | None


@dataclass
class KnownMargins:
    """Accumulator (filled while the step is solved): the margins of each agent's committed
    velocity as far as its verification computed them, curve bound and step-end margin (N, K),
    W1 sweep margin (N, J); ``has_curve`` and ``has_sweep`` (N,) mark the rows filled (the rest
    is computed by :func:`committed_margins`)."""

    curve_m: np.ndarray
    end_m: np.ndarray
    sweep_m: np.ndarray
    has_curve: np.ndarray
    has_sweep: np.ndarray

    @staticmethod
    def empty(n: int, k: int, j: int) -> KnownMargins:
        return KnownMargins(np.zeros((n, k)), np.zeros((n, k)), np.zeros((n, j)),
                            np.zeros(n, bool), np.zeros(n, bool))

    def store(self, agents: np.ndarray, checked: Checked, picked: np.ndarray) -> None:
        """Keep the margins of rows ``picked`` of ``checked`` for ``agents``."""
        self.curve_m[agents] = checked.curve_m[picked]
        self.end_m[agents] = checked.end_m[picked]
        self.has_curve[agents] = True
        if checked.sweep_m is not None:
            self.sweep_m[agents] = checked.sweep_m[picked]
            self.has_sweep[agents] = True


def as_index(rows: np.ndarray, n: int) -> np.ndarray | slice:
    """``rows`` as an index into per-agent arrays: a slice (views instead of copies) when it is
    every one of the ``n`` agents in order."""
    if rows.size == n and (n == 0 or (rows[0] == 0 and np.all(np.diff(rows) == 1))):
        return slice(None)
    return rows


def sweep_end_velocity_mps(support: Support, rows: np.ndarray | slice, v1_mps: np.ndarray,
                           dt_s: np.ndarray) -> np.ndarray:
    """End velocities (m/s, (R, 2)) that make the sweep's curve ``x0 + (u + v0) t + (v - v0)
    t^2 / (2 dt)`` (constant carry u) the world curve of end velocities ``v1_mps`` of agents
    ``rows`` on supports whose pivots accelerate at alpha: ``v1 + alpha dt`` (the support's
    t^2 / 2 term joins the ramp's). Zero acceleration leaves v1 as it is. Claim: W1, B6."""
    accel = support.motion.acceleration_mps2[rows]
    return v1_mps + accel * np.asarray(dt_s, dtype=np.float64).reshape(-1, 1)


def sweep_margins_m(x0_m: np.ndarray, u_mps: np.ndarray, v0_mps: np.ndarray, v1_mps: np.ndarray,
                    dt_s: np.ndarray, radius_m: np.ndarray, nb: Neighbors
                    ) -> tuple[np.ndarray, np.ndarray]:
    """W1 margins (m, (R, J)) of end velocities ``v1`` (R, 2) against neighbours ``nb`` (exact
    within SWEEP_EXACT_BAND_M of contact, certified bound beyond; +inf for empty slots) and the
    time of each minimum (s). Claim: W1."""
    comb = radius_m[:, None] + nb.radius_m
    dmin, t_min = sweep_min_distance_m(x0_m, u_mps, v0_mps, v1_mps, dt_s, nb.position_m,
                                       nb.velocity_mps, nb.valid,
                                       exact_within_m=comb + SWEEP_EXACT_BAND_M)
    start = np.linalg.norm(x0_m[:, None, :] - nb.position_m, axis=-1)
    return np.where(nb.valid, sweep_margin_m(dmin, start, comb), np.inf), t_min


def rotating_stop_margins_m(edges: EdgeSet, support: Support, x0_m: np.ndarray,
                            v0_mps: np.ndarray, dt_s: np.ndarray, accel_mps2: np.ndarray, *,
                            agents: np.ndarray, v1_mps: np.ndarray, pairs: np.ndarray
                            ) -> np.ndarray:
    """Certified margin (m, (R, K)) of the whole stop after the step, then the hold at rest on
    the support, of end velocities ``v1_mps`` (R, 2) of ``agents`` (R,) (indices into the
    per-agent ``edges`` ... ``accel_mps2``) for the walls ``pairs`` (R, K) of
    :func:`navproof.boundary.rigid.rotating_stop_pairs` (+inf for the other edges); only rows
    with such a wall are evaluated. Claim: B6, S1, S3, R3."""
    out = np.full(pairs.shape, np.inf)
    sub = np.flatnonzero(pairs.any(axis=1))
    if sub.size == 0:
        return out
    at = agents[sub]
    stop, hold = rotating_stop_margin_bound_m(
        take_edges(edges, at), take_support(support, at), x0_m[at], v0_mps[at], v1_mps[sub],
        dt_s[at], accel_mps2[at])
    out[sub] = np.where(pairs[sub], np.minimum(stop, hold), np.inf)
    return out


def _curve_margins(inp: StepInput, prep: Prepared, rows: np.ndarray | slice, v1: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Curve bound, exact translating minimum, its time and the step-end margin of candidates
    ``v1`` (R, 2) of agents ``rows``, from the normal components prepared once per step.
    Claim: B4, B5, B6."""
    dt = inp.dt_per_agent_s[rows]
    dt_e = dt[:, None]
    edges = take_edges(inp.edges, rows)
    s, nde, ndu, ndv0 = prep.s[rows], prep.n_dot_e[rows], prep.n_dot_u[rows], prep.n_dot_v0[rows]
    ndv1 = dot2(edges.normal, v1[:, None, :])
    exact, t_min = translating_curve_margins_m(s, dt_e, nde, ndu, ndv0, ndv1)
    curve = curve_min_margin_m(edges, take_support(inp.support, rows), inp.position_m[rows],
                               inp.velocity_mps[rows], v1, dt, exact_m=exact)
    end = accel_end_margin_m(s, dt_e, nde, ndu, ndv0, ndv1)
    return curve, np.where(edges.valid, exact, np.inf), t_min, end


def _sweep_margins(inp: StepInput, prep: Prepared, neighbors: Neighbors,
                   rows: np.ndarray | slice, v1: np.ndarray) -> np.ndarray:
    """W1 margins (m, (R, J)) of candidates ``v1`` (R, 2) of agents ``rows``. Claim: W1."""
    dt = inp.dt_per_agent_s[rows]
    return sweep_margins_m(inp.position_m[rows], prep.u[rows], inp.velocity_mps[rows],
                           sweep_end_velocity_mps(inp.support, rows, v1, dt), dt,
                           inp.radius_m[rows], neighbors.take(rows))[0]


def _rotating_stop_margins(inp: StepInput, prep: Prepared, rows: np.ndarray | slice,
                           v1: np.ndarray) -> np.ndarray | None:
    """:func:`rotating_stop_margins_m` of candidates ``v1`` (R, 2) of agents ``rows``; None
    when nothing rotates. Claim: B6, S1, S3, R3."""
    if prep.rot_stop is None:
        return None
    return rotating_stop_margins_m(inp.edges, inp.support, inp.position_m, inp.velocity_mps,
                                   inp.dt_per_agent_s, inp.accel_mps2,
                                   agents=np.arange(inp.count)[rows], v1_mps=v1,
                                   pairs=prep.rot_stop[rows])


def verify_candidates(inp: StepInput, prep: Prepared, rows: np.ndarray, v1: np.ndarray, *,
                      check_sweep: bool) -> tuple[np.ndarray, Checked]:
    """Whole-curve verification of candidates ``v1`` (R, 2) of agents ``rows`` (R,).

    Returns (passes (R,), the margins checked). Claim: B5, B6, S7 (braking from the step end),
    W1.
    """
    at = as_index(rows, inp.count)
    curve, exact, t_min, end = _curve_margins(inp, prep, at, v1)
    ok = np.all(curve >= -EPS, axis=1)
    c1 = prep.u[at] + v1 - prep.ref.r_mps[at]
    stop = brake_envelope_margin_m(end, inp.edges.normal[at], c1, prep.kfac_s[at])
    ok &= ~prep.ref.exists[at] | np.all(~inp.edges.wall[at] | (stop >= -EPS), axis=1)
    rot = _rotating_stop_margins(inp, prep, at, v1)
    if rot is not None:
        # B6: the stop of a rotating pair is certified along its local-frame curve, never by
        # the constant-velocity formulas alone
        ok &= ~prep.ref.exists[at] | np.all(rot >= -EPS, axis=1)
    sweep = None
    nb = inp.neighbors
    if check_sweep and nb is not None and nb.valid.shape[1]:
        sweep = _sweep_margins(inp, prep, nb, at, v1)
        ok &= sweep_passes(sweep)
    return ok, Checked(curve, exact, t_min, end, sweep)


def committed_margins(inp: StepInput, prep: Prepared, v1: np.ndarray,
                      known: KnownMargins) -> Margins:
    """Signed margins of the committed velocities (every agent), reusing those its verification
    computed. Claim: B5, B6, S2, S3, S7, V1, V2, W1, O2."""
    dt = inp.dt_s
    n = inp.edges.normal
    curve, end, sweep = known.curve_m, known.end_m, known.sweep_m
    rest = np.flatnonzero(~known.has_curve)
    if rest.size:
        curve[rest], _, _, end[rest] = _curve_margins(inp, prep, rest, v1[rest])
    rest = np.flatnonzero(~known.has_sweep)
    if rest.size and inp.neighbors is not None and sweep.shape[1]:
        sweep[rest] = _sweep_margins(inp, prep, inp.neighbors, rest, v1[rest])
    c1 = prep.u + v1 - prep.ref.r_mps
    env = envelope_margin_m(n, prep.s, c1, dt, inp.accel_mps2, prep.cmax)
    stop = brake_envelope_margin_m(end, n, c1, prep.kfac_s)
    rot = _rotating_stop_margins(inp, prep, slice(None), v1)
    if rot is not None:
        stop = np.minimum(stop, rot)
    nec = necessary_bound_mps(prep.s, dt, inp.accel_mps2) - dot2(n, c1[:, None, :])
    orca = prep.orca_planes
    orca_m = np.where(orca.valid, orca.offset - dot2(orca.normal, v1[:, None, :]), np.inf)
    no_stop = ~inp.edges.wall
    return Margins(curve, np.where(no_stop, np.inf, env), np.where(no_stop, np.inf, stop),
                   np.where(no_stop, np.inf, nec), sweep,
                   reach_margin_mps(v1, inp.velocity_mps, inp.accel_mps2 * dt),
                   speed_margin_mps(v1, inp.vh_mps), orca_m)


def obstacle_stop_uncertified(inp: StepInput, prep: Prepared, v1: np.ndarray,
                              known: KnownMargins) -> np.ndarray:
    """(N,) True for agents whose committed velocity ``v1`` leaves no braking stop clear of an
    obstacle side (EDGE_OBSTACLE) near the body: the S7 braking envelope from the step end, the
    same test as for walls, which the search itself does not impose on obstacle sides (their
    look-ahead is ORCA's, O5). Reads the step-end margins of :func:`committed_margins`.
    Claim: S7, B5, O5."""
    kind = inp.edges.kind
    if kind is None:
        return np.zeros(inp.count, bool)
    obstacle = inp.edges.valid & (kind == EDGE_OBSTACLE)
    if not obstacle.any():
        return np.zeros(inp.count, bool)
    c1 = prep.u + v1 - prep.ref.r_mps
    stop = brake_envelope_margin_m(known.end_m, inp.edges.normal, c1, prep.kfac_s)
    return np.any(obstacle & (stop < -EPS), axis=1)
