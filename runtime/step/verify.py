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

from navproof._generated.formulas import (
    accel_extremum_time,
    accel_margin,
    brake_envelope_margin,
    necessary_normal_bound,
    normal_stop_displacement,
)
from navproof.boundary.edges import EDGE_OBSTACLE, EdgeSet, take_edges
from navproof.boundary.margins import curve_min_margin_m
from navproof.boundary.motion import Support, take_support
from navproof.boundary.rigid import rotating_stop_margin_bound_m
from navproof.boundary.slope import reach_margin_mps, speed_margin_mps
from navproof.boundary.stop_envelope import (
    brake_envelope_margin_m,
)
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.numpy_scalars import numpy_minimum
from navproof.core.parallel import run_row_pieces
from navproof.core.tolerances import EPS
from navproof.core.validation import floats_of_shape
from navproof.step.constraints import Prepared
from navproof.step.inputs import PARALLEL_MIN_ROWS, Neighbors, StepInput
from navproof.step.result import Margins
from navproof.step.sweep import gathered_pair_margins_m, pair_margins_m

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


class KnownMargins:
    """Accumulator (filled while the step is solved): the margins of each agent's committed
    velocity as far as its verification computed them, curve bound and step-end margin (N, K),
    W1 sweep margin (N, J); ``has_curve`` and ``has_sweep`` (N,) mark the rows filled (the rest
    is computed by :func:`committed_margins`).

    A margin's storage, zeros of its shape, is made when it is first read or written row by
    row: the first store of every agent in order takes the arrays it is given instead, and then
    the zeros were never read (at 20000 agents zeroing them cost about 0.1-0.2 ms per step)."""

    def __init__(self, n: int, k: int, j: int) -> None:
        self.has_curve = np.zeros(n, bool)
        self.has_sweep = np.zeros(n, bool)
        self._shapes = {"curve_m": (n, k), "end_m": (n, k), "sweep_m": (n, j)}
        self._storage: dict[str, np.ndarray] = {}

    @staticmethod
    def empty(n: int, k: int, j: int) -> KnownMargins:
        """Nothing known yet for ``n`` agents of ``k`` edges and ``j`` neighbour slots."""
        return KnownMargins(n, k, j)

    def _margins(self, name: str) -> np.ndarray:
        """The storage of margin ``name`` (zeros of its shape until one is kept)."""
        if name not in self._storage:
            self._storage[name] = np.zeros(self._shapes[name])
        return self._storage[name]

    @property
    def curve_m(self) -> np.ndarray:
        """Certified whole-step curve bound (m, (N, K)) of the rows marked in ``has_curve``."""
        return self._margins("curve_m")

    @curve_m.setter
    def curve_m(self, value: np.ndarray) -> None:
        self._storage["curve_m"] = value

    @property
    def end_m(self) -> np.ndarray:
        """Step-end margin (m, (N, K)) of the rows marked in ``has_curve``."""
        return self._margins("end_m")

    @end_m.setter
    def end_m(self, value: np.ndarray) -> None:
        self._storage["end_m"] = value

    @property
    def sweep_m(self) -> np.ndarray:
        """W1 sweep margin (m, (N, J)) of the rows marked in ``has_sweep``."""
        return self._margins("sweep_m")

    @sweep_m.setter
    def sweep_m(self, value: np.ndarray) -> None:
        self._storage["sweep_m"] = value

    def store(self, agents: np.ndarray, checked: Checked, picked: np.ndarray) -> None:
        """Keep the margins of rows ``picked`` (R,) of ``checked`` for the agents of those rows
        (``agents`` (R,), one per row of ``checked``): one compiled pass. The first store, of
        every agent in order, takes the arrays of ``checked`` themselves instead of copying
        their rows (the rows not picked are never read: :func:`committed_margins` computes
        them); later stores write into them, so a caller reads the arrays of ``checked`` only
        until its next store."""
        sweep = checked.sweep_m
        if self._takes_whole(agents, checked):
            self.curve_m, self.end_m = checked.curve_m, checked.end_m
            np.copyto(self.has_curve, picked)
            if sweep is not None:
                self.sweep_m = sweep
                np.copyto(self.has_sweep, picked)
            return
        _store_rows(np.asarray(agents, np.int64), np.asarray(picked, bool), checked.curve_m,
                    checked.end_m, _NO_ROWS if sweep is None else sweep, sweep is not None,
                    self.curve_m, self.end_m, self.sweep_m, self.has_curve, self.has_sweep)


    def _takes_whole(self, agents: np.ndarray, checked: Checked) -> bool:
        """Whether ``checked`` holds every agent in order, of the accumulator's shapes and
        types, and nothing has been stored yet: its arrays can become the accumulator's."""
        n = self.has_curve.size
        sweep = checked.sweep_m
        shapes = self._shapes
        # the agents' test first: a store of some agents only decides it from their count
        return (isinstance(as_index(np.asarray(agents), n), slice)
                and not self.has_curve.any() and not self.has_sweep.any()
                and _fits(checked.curve_m, shapes["curve_m"])
                and _fits(checked.end_m, shapes["end_m"])
                and (sweep is None or _fits(sweep, shapes["sweep_m"])))


def _fits(a: np.ndarray, shape: tuple[int, int]) -> bool:
    """Of shape ``shape``, float64 and C-contiguous: the layout of a margin's storage (every
    storage kept has it, zeros or arrays that fitted)."""
    return a.shape == shape and a.dtype == np.float64 and a.flags.c_contiguous


_NO_ROWS = np.zeros((0, 0))
"""Stand-in for margins not checked (a compiled pass takes an array of the same type)."""


@compiled_loop
def _store_rows(agents, picked, curve_src, end_src, sweep_src, with_sweep, curve, end, sweep,
                has_curve, has_sweep):
    """For each picked row ``i`` of the sources, its curve and step-end margins (and its sweep
    margins ``with_sweep``) into the row ``agents[i]`` of ``curve``, ``end`` (and ``sweep``),
    marking that row filled in ``has_curve`` (and ``has_sweep``). Element by element: a
    slice assignment per row costs more than the row's few values."""
    k, slots = curve.shape[1], sweep.shape[1]
    for i in range(picked.size):
        if not picked[i]:
            continue
        a = agents[i]
        for j in range(k):
            curve[a, j] = curve_src[i, j]
            end[a, j] = end_src[i, j]
        has_curve[a] = True
        if with_sweep:
            for j in range(slots):
                sweep[a, j] = sweep_src[i, j]
            has_sweep[a] = True


def as_index(rows: np.ndarray, n: int) -> np.ndarray | slice:
    """``rows`` (integer indices) as an index into per-agent arrays: a slice (views instead of
    copies) when it is every one of the ``n`` agents in order."""
    if rows.size == n and _every_row_in_order(rows):
        return slice(None)
    return rows


@compiled_loop
def _every_row_in_order(rows):
    """``rows[i] == i`` for every i (one pass, stopping at the first that is not)."""
    for i in range(rows.size):
        if rows[i] != i:
            return False
    return True


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
    start_m, comb_m = nb.start_distance_and_reach_m(x0_m, radius_m)
    return pair_sweep_margins_m(x0_m, u_mps, v0_mps, v1_mps, dt_s, nb, start_m, comb_m)


def pair_sweep_margins_m(x0_m: np.ndarray, u_mps: np.ndarray, v0_mps: np.ndarray,
                         v1_mps: np.ndarray, dt_s: np.ndarray, nb: Neighbors,
                         start_m: np.ndarray, comb_m: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`sweep_margins_m` with the pairs' start distances and combined radii
    (:meth:`Neighbors.start_distance_and_reach_m`) given. Claim: W1."""
    margin, t_min, _ = pair_margins_m(x0_m, u_mps, v0_mps, v1_mps, dt_s, nb.position_m,
                                      nb.velocity_mps, nb.valid, start_m, comb_m,
                                      SWEEP_EXACT_BAND_M, times=True)
    assert t_min is not None
    return margin, t_min


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


@inlined_loop
def end_and_brake_margins(s, dt, n_dot_e, n_dot_u, n_dot_v0, nx, ny, vx, vy, cx, cy, kfac):
    """Of an end velocity ``v`` (m/s) and one edge of unit normal ``n``: the step-end margin
    (m, B4: ``accel_margin`` at t = dt with dot(n, v)) and the S7 braking-envelope margin
    ``brake_envelope_margin`` of that margin and dot(n, c1), c1 = u + v - r given as ``c``.
    Claim: B4, S7."""
    m_end = accel_margin(s=s, t=dt, dt=dt, n_dot_e=n_dot_e, n_dot_u=n_dot_u, n_dot_v0=n_dot_v0,
                         n_dot_v1=nx * vx + ny * vy)
    return m_end, brake_envelope_margin(s_end=m_end, n_dot_c=nx * cx + ny * cy, kfac=kfac)


@compiled_loop
def _edge_step_margins(rows, v1, s, n_dot_e, n_dot_u, n_dot_v0, normal, valid, wall, dt, u, r,
                       kfac, has_ref, eps, curve, t_min, end, curve_ok, stop_ok, lo, hi):
    """One pass over the edges of each candidate ``v1[i]`` of agent ``rows[i]``: the exact
    whole-step minimum of the translating curve (B5: the least of the margins at 0, dt and the
    interior extremum t*, the first of equals, as
    :func:`navproof.boundary.margins.translating_curve_margins_m`; +inf for invalid edges) and
    its time, the step-end margin (B4), and per row whether every curve margin and, where a
    reference exists, every wall's S7 braking-envelope margin ``brake_envelope_margin`` of
    c1 = u + v1 - r is at least -EPS.
    Claim: B4, B5, S7."""
    k = curve.shape[1]
    for i in range(lo, hi):
        a = rows[i]
        dti, ki = dt[a], kfac[a]
        vx, vy = v1[i, 0], v1[i, 1]
        cx, cy = u[a, 0] + vx - r[a, 0], u[a, 1] + vy - r[a, 1]
        inside, braked = True, True
        for j in range(k):
            nx, ny = normal[a, j, 0], normal[a, j, 1]
            sij, nde, ndu, ndv0 = s[a, j], n_dot_e[a, j], n_dot_u[a, j], n_dot_v0[a, j]
            ndv1 = nx * vx + ny * vy
            m_end, brake = end_and_brake_margins(sij, dti, nde, ndu, ndv0, nx, ny, vx, vy, cx,
                                                 cy, ki)
            t_in, m_star = 0.0, np.inf
            if ndv0 != ndv1:
                t_star = accel_extremum_time(dt=dti, n_dot_e=nde, n_dot_u=ndu, n_dot_v0=ndv0,
                                             n_dot_v1=ndv1)
                if t_star > 0.0 and t_star < dti:
                    t_in = t_star
                    m_star = accel_margin(s=sij, t=t_star, dt=dti, n_dot_e=nde, n_dot_u=ndu,
                                          n_dot_v0=ndv0, n_dot_v1=ndv1)
            start_least = sij <= m_end and sij <= m_star
            if start_least:
                t_min[i, j] = 0.0
            elif m_end <= m_star:
                t_min[i, j] = dti
            else:
                t_min[i, j] = t_in
            least = numpy_minimum(numpy_minimum(sij, m_end), m_star)
            curve[i, j] = least if valid[a, j] else np.inf
            inside = inside and (not valid[a, j] or least >= -eps)
            end[i, j] = m_end
            braked = braked and (not wall[a, j] or brake >= -eps)
        curve_ok[i] = inside
        stop_ok[i] = braked or not has_ref[a]


@dataclass(frozen=True)
class EdgeMargins:
    """:func:`_edge_step_margins` of R candidates: curve margin (the certified bound where
    frames move), exact translating minimum and its time and step-end margin (R, K), and the
    per-row verdicts (R,)."""

    curve_m: np.ndarray
    exact_m: np.ndarray
    t_min_s: np.ndarray
    end_m: np.ndarray
    curve_ok: np.ndarray
    stop_ok: np.ndarray


def edge_margins(inp: StepInput, prep: Prepared, rows: np.ndarray | slice,
                 v1: np.ndarray) -> EdgeMargins:
    """The margins over every edge of candidates ``v1`` (R, 2) of agents ``rows``, from the
    normal components prepared once per step: the exact translating minimum, replaced by the
    certified bound of B6 on the pairs whose frames move non-uniformly
    (:func:`navproof.boundary.margins.curve_min_margin_m`). Claim: B4, B5, B6, S7."""
    idx = np.arange(inp.count) if isinstance(rows, slice) else np.asarray(rows, np.int64)
    r, k = idx.size, inp.edges.valid.shape[1]
    curve, t_min, end = (np.empty((r, k)) for _ in range(3))
    curve_ok, stop_ok = np.empty(r, bool), np.empty(r, bool)
    edges = inp.edges
    args = (idx, np.ascontiguousarray(v1, dtype=np.float64), prep.s, prep.n_dot_e,
            prep.n_dot_u, prep.n_dot_v0, np.asarray(edges.normal, np.float64),
            np.asarray(edges.valid, bool), prep.wall, inp.dt_per_agent_s, prep.u,
            prep.ref.r_mps, prep.kfac_s, prep.ref.exists, EPS, curve, t_min, end, curve_ok,
            stop_ok)
    run_row_pieces(lambda lo, hi: _edge_step_margins(*args, lo, hi), r,
                   min_rows=PARALLEL_MIN_ROWS)
    if prep.moving is not None and prep.moving[rows].any():
        # B6: the exact minimum stands for the pairs that translate uniformly only
        bound = curve_min_margin_m(take_edges(edges, rows), take_support(inp.support, rows),
                                   inp.position_m[rows], inp.velocity_mps[rows], v1,
                                   inp.dt_per_agent_s[rows], exact_m=curve)
        return EdgeMargins(bound, curve, t_min, end, np.all(bound >= -EPS, axis=1), stop_ok)
    return EdgeMargins(curve, curve, t_min, end, curve_ok, stop_ok)


def _sweep_margins(inp: StepInput, prep: Prepared, neighbors: Neighbors,
                   rows: np.ndarray | slice, v1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """W1 margins (m, (R, J)) of candidates ``v1`` (R, 2) of agents ``rows``, from the pair
    distances prepared once per step (as :func:`pair_sweep_margins_m`), and per row whether
    every margin is >= -EPS (:func:`navproof.step.sweep.sweep_passes`). Claim: W1."""
    assert prep.sweep_start_m is not None and prep.sweep_comb_m is not None
    if not isinstance(rows, slice):
        # a few rows: one compiled gather instead of a numpy gather per array
        return gathered_pair_margins_m(
            np.asarray(rows, np.int64), inp.position_m, prep.u, inp.velocity_mps,
            np.ascontiguousarray(v1, dtype=np.float64),
            floats_of_shape(inp.support.motion.acceleration_mps2, (inp.count, 2)),
            inp.dt_per_agent_s, neighbors.position_m, neighbors.velocity_mps, neighbors.valid,
            prep.sweep_start_m, prep.sweep_comb_m, SWEEP_EXACT_BAND_M)
    dt = inp.dt_per_agent_s[rows]
    nb = neighbors.take(rows)
    margin, _, passes = pair_margins_m(
        inp.position_m[rows], prep.u[rows], inp.velocity_mps[rows],
        sweep_end_velocity_mps(inp.support, rows, v1, dt), dt, nb.position_m, nb.velocity_mps,
        nb.valid, prep.sweep_start_m[rows], prep.sweep_comb_m[rows], SWEEP_EXACT_BAND_M)
    return margin, passes


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
    em = edge_margins(inp, prep, at, v1)
    ok = em.curve_ok & em.stop_ok
    rot = _rotating_stop_margins(inp, prep, at, v1)
    if rot is not None:
        # B6: the stop of a rotating pair is certified along its local-frame curve, never by
        # the constant-velocity formulas alone
        ok &= ~prep.ref.exists[at] | np.all(rot >= -EPS, axis=1)
    sweep = None
    nb = inp.neighbors
    if check_sweep and nb is not None and nb.valid.shape[1]:
        sweep, passes = _sweep_margins(inp, prep, nb, at, v1)
        ok &= passes
    return ok, Checked(em.curve_m, em.exact_m, em.t_min_s, em.end_m, sweep)


@compiled_loop
def _committed_edge_margins(s, end, normal, wall, dt, a, cmax, kfac, u, r, v1, env, stop, nec,
                            lo, hi):
    """Per agent and wall, of its committed velocity ``v1`` with c1 = u + v1 - r: the S3
    envelope margin s - ``normal_stop_displacement`` (speed Cmax), the S7 braking-envelope
    margin ``brake_envelope_margin`` of the step-end margin ``end`` and the S2 margin
    ``necessary_normal_bound`` - dot(n, c1); +inf for the other edges. Claim: S2, S3, S7."""
    k = s.shape[1]
    for i in range(lo, hi):
        cx, cy = u[i, 0] + v1[i, 0] - r[i, 0], u[i, 1] + v1[i, 1] - r[i, 1]
        dti, ai, ci, ki = dt[i], a[i], cmax[i], kfac[i]
        for j in range(k):
            if not wall[i, j]:
                env[i, j], stop[i, j], nec[i, j] = np.inf, np.inf, np.inf
                continue
            n_dot_c = normal[i, j, 0] * cx + normal[i, j, 1] * cy
            env[i, j] = s[i, j] - normal_stop_displacement(n_dot_c=n_dot_c, speed=ci, dt=dti,
                                                           a=ai)
            stop[i, j] = brake_envelope_margin(s_end=end[i, j], n_dot_c=n_dot_c, kfac=ki)
            nec[i, j] = necessary_normal_bound(s=s[i, j], dt=dti, a=ai) - n_dot_c


@compiled_loop
def _halfplane_margins(normal, offset, valid, v, out, lo, hi):
    """Signed margins ``offset - dot(normal, v)`` (m/s) of each row's half-planes at its
    velocity ``v``; +inf for empty slots. Claim: O2."""
    k = offset.shape[1]
    for i in range(lo, hi):
        vx, vy = v[i, 0], v[i, 1]
        for j in range(k):
            out[i, j] = (offset[i, j] - (normal[i, j, 0] * vx + normal[i, j, 1] * vy)
                         if valid[i, j] else np.inf)


def committed_margins(inp: StepInput, prep: Prepared, v1: np.ndarray,
                      known: KnownMargins) -> Margins:
    """Signed margins of the committed velocities (every agent), reusing those its verification
    computed. Claim: B5, B6, S2, S3, S7, V1, V2, W1, O2."""
    dt = inp.dt_per_agent_s
    curve, end, sweep = known.curve_m, known.end_m, known.sweep_m
    rest = np.flatnonzero(~known.has_curve)
    if rest.size:
        em = edge_margins(inp, prep, rest, v1[rest])
        curve[rest], end[rest] = em.curve_m, em.end_m
    rest = np.flatnonzero(~known.has_sweep)
    if rest.size and inp.neighbors is not None and sweep.shape[1]:
        sweep[rest] = _sweep_margins(inp, prep, inp.neighbors, rest, v1[rest])[0]
    v1 = np.ascontiguousarray(v1, dtype=np.float64)
    env, stop, nec = (np.empty(prep.s.shape) for _ in range(3))
    args = (prep.s, end, np.asarray(inp.edges.normal, np.float64), prep.wall, dt,
            inp.accel_mps2, prep.cmax, prep.kfac_s, prep.u, prep.ref.r_mps, v1, env, stop, nec)
    run_row_pieces(lambda lo, hi: _committed_edge_margins(*args, lo, hi), inp.count,
                   min_rows=PARALLEL_MIN_ROWS)
    rot = _rotating_stop_margins(inp, prep, slice(None), v1)
    if rot is not None:
        stop = np.minimum(stop, rot)
    orca = prep.orca_planes
    orca_m = np.empty(orca.offset.shape)
    run_row_pieces(lambda lo, hi: _halfplane_margins(orca.normal, orca.offset, orca.valid, v1,
                                                     orca_m, lo, hi),
                   inp.count, min_rows=PARALLEL_MIN_ROWS)
    return Margins(curve, env, stop, nec, sweep,
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
