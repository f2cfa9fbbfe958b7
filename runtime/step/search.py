"""The closest verified velocity of a set of agents (seed 000: the exact optimum, verified
against the whole continuous step).

The closest point to the preferred velocity of a convex set in the plane lies at the preferred
velocity itself, on one constraint boundary (a projection) or where two boundaries meet. Each
round takes the exact optimum of the incremental solve (:func:`navproof.solver.closest.
closest_point`) and verifies it (:mod:`navproof.step.verify`); where it fails, or the solve finds
nothing, the enumerated candidates follow nearest first. Where the nearest candidate's curve
dips out of an edge mid-step, a B5 cutting plane at that time joins the constraints and the
round repeats. Claim: O2, V1, V2, B5, B6, W1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof.boundary.margins import accel_margin_at_time_offset_mps
from navproof.core.jit import compiled_loop
from navproof.core.tolerances import EPS, PARALLEL_DET
from navproof.solver.candidates import best_candidates
from navproof.solver.closest import closest_in_disks, solve_threads
from navproof.solver.halfplanes import Disks, HalfPlanes
from navproof.step.constraints import Prepared, sanitise_halfplanes
from navproof.step.inputs import StepInput
from navproof.step.verify import KnownMargins, as_index, verify_candidates

CUT_ROUNDS = 8
"""Rounds of B5 cutting planes before a row goes to the fallback order."""
VERIFY_CANDIDATES = 4
"""Feasible candidates verified per row and round, nearest first."""
SOLVE_TOL_MPS = 0.5 * EPS
"""Slack (m/s) within which the solve counts a half-plane or disk as met: half the EPS by which
the edge half-planes are tightened, so an accepted velocity stays inside the untightened ones."""


@dataclass(frozen=True)
class ConstraintChoice:
    """Which of the step's constraints a search keeps: the dynamic-neighbour ORCA lines (the
    static-obstacle lines always stay), the speed disk V1 and the neighbour sweep W1. The edge
    half-planes, the reachable disk V2 and the whole-curve verification always apply."""

    neighbour_lines: bool
    speed_disk: bool
    sweep: bool


EVERY_CONSTRAINT = ConstraintChoice(neighbour_lines=True, speed_disk=True, sweep=True)
"""The nominal step (label safe)."""
CORRIDOR_ONLY = ConstraintChoice(neighbour_lines=False, speed_disk=True, sweep=False)
"""F1: dynamic-neighbour lines and sweep relaxed, the speed cap kept (label dynamic avoidance
failed)."""
SWEPT_CORRIDOR = ConstraintChoice(neighbour_lines=False, speed_disk=True, sweep=True)
"""F1, first try: dynamic-neighbour lines relaxed, speed disk and sweep kept (label dynamic
avoidance failed)."""
SEPARATING = ConstraintChoice(neighbour_lines=False, speed_disk=True, sweep=True)
"""O6: dynamic-neighbour lines replaced by separation half-planes (label separating an
overlap)."""


@dataclass(frozen=True)
class _RoundOutcome:
    """One verification round over A rows: ``accepted`` (A,) and its ``velocity`` (A, 2); the
    exact translating minimum (A, K, +inf: none) and its time (s) of each row's nearest
    candidate, where the B5 cutting planes go."""

    accepted: np.ndarray
    velocity: np.ndarray
    nearest_exact_m: np.ndarray
    nearest_t_s: np.ndarray


def _disks(inp: StepInput, agents: np.ndarray, *, speed_disk: bool) -> Disks:
    """The speed disk |v1| <= Vh (V1, optional) and the reachable disk |v1 - v0| <= a dt (V2)."""
    r = agents.size
    centre, radius, valid = np.empty((r, 2, 2)), np.empty((r, 2)), np.empty((r, 2), bool)
    _disk_rows(np.asarray(agents, np.int64), inp.velocity_mps, inp.vh_mps, inp.accel_mps2,
               inp.dt_per_agent_s, speed_disk, centre, radius, valid)
    return Disks(centre, radius, valid)


@compiled_loop
def _disk_rows(agents, v0, vh, accel, dt, speed_disk, centre, radius, valid):
    """Rows of :func:`_disks` in one pass: for agent ``agents[i]`` the speed disk about the
    origin of radius Vh (valid with ``speed_disk``) and the reachable disk about v0 of radius
    a dt."""
    for i in range(agents.size):
        a = agents[i]
        centre[i, 0, 0], centre[i, 0, 1] = 0.0, 0.0
        centre[i, 1, 0], centre[i, 1, 1] = v0[a, 0], v0[a, 1]
        radius[i, 0], radius[i, 1] = vh[a], accel[a] * dt[a]
        valid[i, 0], valid[i, 1] = speed_disk, True


def _cut_planes(normal: np.ndarray, cuts_mps: np.ndarray) -> HalfPlanes:
    """One B5 cutting plane per edge ``dot(n, v1) <= cut - EPS``; +inf means no cut yet."""
    offset, valid = sanitise_halfplanes(cuts_mps - EPS, np.isfinite(cuts_mps))
    return HalfPlanes(normal, offset, valid)


def _with_cuts(planes: HalfPlanes, normal: np.ndarray, cuts_mps: np.ndarray) -> HalfPlanes:
    """``planes`` followed by one slot per edge (its ``normal`` (R, K, 2)) carrying the B5 cuts
    ``cuts_mps`` (R, K); ``planes`` themselves while no cut is finite (a cut slot that is not
    valid changes neither the solve nor the candidates)."""
    if not np.isfinite(cuts_mps).any():
        return planes
    return HalfPlanes.join(planes, _cut_planes(normal, cuts_mps))


@compiled_loop
def _stand_in_rows(solved, nearest, velocity, agents, cand):
    """Per row: the optimum ``nearest`` (m/s) where ``solved``, else the start velocity
    ``velocity[agents]`` (m/s) of its agent, which stands in for the verification. Claim: V1."""
    for i in range(solved.size):
        if solved[i]:
            cand[i, 0], cand[i, 1] = nearest[i, 0], nearest[i, 1]
        else:
            at = agents[i]
            cand[i, 0], cand[i, 1] = velocity[at, 0], velocity[at, 1]


@compiled_loop
def _void_unsolved_rows(solved, ok, exact, t_min, accepted, exact_out, t_out):
    """Per row: the verdict ``ok`` and the exact minima ``exact`` (m) at ``t_min`` (s) per edge
    where ``solved``; else not accepted, +inf and 0 s (the stand-in's verdict is void).
    Claim: V1, B5."""
    for i in range(solved.size):
        keep = solved[i]
        accepted[i] = ok[i] and keep
        for j in range(exact.shape[1]):
            exact_out[i, j] = exact[i, j] if keep else np.inf
            t_out[i, j] = t_min[i, j] if keep else 0.0


def _verify_optimum(inp: StepInput, prep: Prepared, agents: np.ndarray, preferred: np.ndarray,
                    planes: HalfPlanes, disks: Disks, *, check_sweep: bool,
                    known: KnownMargins) -> tuple[np.ndarray, _RoundOutcome]:
    """The incremental solve's exact optimum of each row, verified. Returns (solved (A,), the
    outcome)."""
    a, k = agents.size, inp.edges.valid.shape[1]
    solve = closest_in_disks(preferred, planes, disks, tol_mps=SOLVE_TOL_MPS,
                             parallel_det=PARALLEL_DET, threads=solve_threads(a))
    nearest, solved = solve.velocity, solve.feasible
    if not solved.any():
        return solved, _RoundOutcome(np.zeros(a, bool), nearest, np.full((a, k), np.inf),
                                     np.zeros((a, k)))
    # every row is verified (whole arrays are views, not row copies); a row without an
    # optimum stands in with its start velocity and its verdict is void
    every = bool(solved.all())
    if every:
        cand = nearest
    else:
        cand = np.empty((a, 2))
        _stand_in_rows(solved, nearest, np.asarray(inp.velocity_mps, dtype=np.float64), agents,
                       cand)
    ok, checked = verify_candidates(inp, prep, agents, cand, check_sweep=check_sweep)
    if every:
        # nothing to void: the verification's own arrays are the outcome
        accepted, exact, t_min = ok, checked.exact_m, checked.t_min_s
    else:
        accepted = np.empty(a, bool)
        exact, t_min = np.empty(checked.exact_m.shape), np.empty(checked.t_min_s.shape)
        _void_unsolved_rows(solved, ok, checked.exact_m, checked.t_min_s, accepted, exact, t_min)
    known.store(agents, checked, accepted)
    return solved, _RoundOutcome(accepted, nearest, exact, t_min)


def _verify_enumerated(inp: StepInput, prep: Prepared, agents: np.ndarray,
                       preferred: np.ndarray, planes: HalfPlanes, disks: Disks, *,
                       optimum_tried: np.ndarray, check_sweep: bool,
                       known: KnownMargins) -> _RoundOutcome:
    """The enumeration's nearest feasible candidates of each row, verified in order until one
    passes; the nearest is skipped where ``optimum_tried`` (it is the optimum verified before)."""
    a, k = agents.size, inp.edges.valid.shape[1]
    cand, dist = best_candidates(preferred, planes.normal, planes.offset, planes.valid,
                                 disks.centre, disks.radius, disks.valid, VERIFY_CANDIDATES)
    accepted = np.zeros(a, bool)
    velocity = np.zeros((a, 2))
    exact = np.full((a, k), np.inf)
    t_min = np.zeros((a, k))
    for j in range(VERIFY_CANDIDATES):
        at, at_agents, at_cand = np.empty(a, np.int64), np.empty(a, agents.dtype), np.empty((a, 2))
        tries = _trying_rows(accepted, dist, cand, agents, optimum_tried, j, at, at_agents,
                             at_cand)
        if tries == 0:
            continue
        at, at_agents = at[:tries], at_agents[:tries]
        ok, checked = verify_candidates(inp, prep, at_agents, at_cand[:tries],
                                        check_sweep=check_sweep)
        _take_verified_rows(at, ok, cand, j, checked.exact_m, checked.t_min_s, j == 0,
                            accepted, velocity, exact, t_min)
        known.store(at_agents, checked, ok)
    return _RoundOutcome(accepted, velocity, exact, t_min)


@compiled_loop
def _trying_rows(accepted, dist, cand, agents, optimum_tried, j, at, at_agents, at_cand):
    """The rows that try their ``j``-th candidate: not accepted yet, a finite candidate
    (distance ``dist`` (m/s)), and not the optimum verified before. Writes their rows, agents
    and candidates (m/s) to the front of ``at``, ``at_agents`` and ``at_cand``; returns their
    count. Claim: V2."""
    tries = 0
    for i in range(accepted.size):
        if not accepted[i] and np.isfinite(dist[i, j]) and (j > 0 or not optimum_tried[i]):
            at[tries], at_agents[tries] = i, agents[i]
            at_cand[tries, 0], at_cand[tries, 1] = cand[i, j, 0], cand[i, j, 1]
            tries += 1
    return tries


@compiled_loop
def _take_verified_rows(at, ok, cand, j, checked_exact, checked_t_min, nearest, accepted,
                        velocity, exact, t_min):
    """For the rows ``at`` that tried their ``j``-th candidate: the candidate (m/s) and the
    verdict where it passed (``ok``), and where it is the ``nearest`` the exact minima (m) and
    times (s) of its verification. Claim: V2."""
    for m in range(at.size):
        i = at[m]
        if nearest:
            for e in range(checked_exact.shape[1]):
                exact[i, e] = checked_exact[m, e]
                t_min[i, e] = checked_t_min[m, e]
        if ok[m]:
            velocity[i, 0], velocity[i, 1] = cand[i, j, 0], cand[i, j, 1]
            accepted[i] = True


@compiled_loop
def _merge_retried_rows(retry, solved, more_accepted, more_velocity, more_exact, more_t_min,
                        accepted, velocity, exact, t_min):
    """Per retried row ``retry[m]``: the enumeration's verdict, its velocity (m/s) where it
    accepted one, and its nearest candidate's exact minima (m) and times (s) where the row had
    no optimum (the nearest candidate of a solved row is its optimum, verified before).
    Claim: V1, V2."""
    for m in range(retry.size):
        i = retry[m]
        accepted[i] = more_accepted[m]
        if more_accepted[m]:
            velocity[i, 0], velocity[i, 1] = more_velocity[m, 0], more_velocity[m, 1]
        if not solved[i]:
            for j in range(exact.shape[1]):
                exact[i, j] = more_exact[m, j]
                t_min[i, j] = more_t_min[m, j]


def _verify_round(inp: StepInput, prep: Prepared, agents: np.ndarray, preferred: np.ndarray,
                  planes: HalfPlanes, disks: Disks, *, check_sweep: bool,
                  known: KnownMargins) -> _RoundOutcome:
    """The optimum first, then the enumerated candidates of the rows it leaves open."""
    solved, outcome = _verify_optimum(inp, prep, agents, preferred, planes, disks,
                                      check_sweep=check_sweep, known=known)
    retry = np.flatnonzero(~outcome.accepted)
    if retry.size == 0:
        return outcome
    # the merge writes into the outcome's own arrays: nothing else holds its verdicts (the
    # known margins copied them) or velocities (the solve's), and it writes minima and times
    # only of rows without an optimum, whose arrays _verify_optimum made new. Where every row
    # was solved the minima are the verification's, which the known margins may hold as their
    # curve margins; the enumeration's stores write there only rows it accepts, whose minima
    # and times nothing reads (the B5 cuts go to rows not accepted)
    accepted, velocity = outcome.accepted, outcome.velocity
    exact, t_min = outcome.nearest_exact_m, outcome.nearest_t_s
    more = _verify_enumerated(inp, prep, agents[retry], preferred[retry], planes.take(retry),
                              disks.take(retry), optimum_tried=solved[retry],
                              check_sweep=check_sweep, known=known)
    _merge_retried_rows(retry, solved, more.accepted, more.velocity, more.nearest_exact_m,
                        more.nearest_t_s, accepted, velocity, exact, t_min)
    return _RoundOutcome(accepted, velocity, exact, t_min)


def _obstacle_lines_only(planes: HalfPlanes, first: int, lines: int, num_hard: np.ndarray
                         ) -> HalfPlanes:
    """``planes`` with only the first ``num_hard`` (R,) of the ORCA slots ``first:first +
    lines`` of each row kept: the static-obstacle lines (O5) that F1 never relaxes."""
    valid = planes.valid.copy()
    valid[:, first:first + lines] &= np.arange(lines)[None, :] < num_hard[:, None]
    return HalfPlanes(planes.normal, planes.offset, valid)


def _interior_dips(outcome: _RoundOutcome, dt_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(A, K) edges the nearest candidate's curve leaves strictly inside the step, for rows
    still open: where a B5 cutting plane goes; and (A,) the rows with such an edge."""
    a, k = outcome.nearest_t_s.shape
    dips, rows = np.empty((a, k), dtype=np.bool_), np.empty(a, dtype=np.bool_)
    _dip_rows(outcome.nearest_exact_m, outcome.nearest_t_s, dt_s, outcome.accepted, dips, rows)
    return dips, rows


@compiled_loop
def _dip_rows(exact, t_min, dt, accepted, dips, rows):
    """Rows of :func:`_interior_dips` in one pass: a negative exact minimum at a time strictly
    inside (0, dt) of a row not accepted (NaN is no dip)."""
    for i in range(dips.shape[0]):
        hit = False
        for j in range(dips.shape[1]):
            dip = (exact[i, j] < 0.0 and t_min[i, j] > 0.0 and t_min[i, j] < dt[i]
                   and not accepted[i])
            dips[i, j] = dip
            hit = hit or dip
        rows[i] = hit


def closest_verified(inp: StepInput, prep: Prepared, agents: np.ndarray, *,
                     preferred_mps: np.ndarray, keep: ConstraintChoice, known: KnownMargins,
                     extra: HalfPlanes | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Closest verified velocity to ``preferred_mps`` (R, 2) for ``agents`` (R,) under the
    constraints ``keep`` chooses and the ``extra`` half-planes (R, ...); the margins of accepted
    candidates go to ``known``. Returns (found (R,), v1 (R, 2)).
    Claim: O2, O5, O6, V1, V2, B5, B6, S7, W1."""
    r, k = agents.size, inp.edges.valid.shape[1]
    dt = inp.dt_per_agent_s[agents]
    # every agent in order: views instead of row copies
    at = as_index(agents, inp.count)
    # slot order: edge half-planes, ORCA lines, the extra half-planes (O6), then, from the
    # first cut on, one cut slot per edge whose offsets change from round to round. Without
    # extra half-planes the prepared slots serve as they are (views for every agent in order).
    fixed = prep.solve_planes.take(at)
    if extra is not None:
        fixed = HalfPlanes.join(fixed, extra)
    if not keep.neighbour_lines:
        num_hard = inp.orca_num_hard
        assert num_hard is not None  # filled in by check_valid_step_input
        fixed = _obstacle_lines_only(fixed, prep.edge_planes.offset.shape[1],
                                     prep.orca_planes.offset.shape[1], num_hard[agents])
    disks = _disks(inp, agents, speed_disk=keep.speed_disk)
    edge_normal = np.asarray(inp.edges.normal, dtype=np.float64)
    cuts = np.full((r, k), np.inf)
    found = np.zeros(r, bool)
    result = np.zeros((r, 2))
    still_open = np.arange(r)
    for round_no in range(CUT_ROUNDS + 1):
        if still_open.size == 0:
            break
        # the first round takes every row: views, no copies, and no cut yet
        sel = still_open if still_open.size < r else slice(None)
        planes = (fixed.take(sel) if round_no == 0 else
                  _with_cuts(fixed.take(sel), edge_normal[agents[sel]], cuts[sel]))
        outcome = _verify_round(inp, prep, agents[sel], preferred_mps[sel], planes,
                                disks.take(sel), check_sweep=keep.sweep, known=known)
        if isinstance(sel, slice):
            np.copyto(result, outcome.velocity, where=outcome.accepted[:, None])
            np.copyto(found, outcome.accepted)
        else:
            rows = still_open[outcome.accepted]
            result[rows] = outcome.velocity[outcome.accepted]
            found[rows] = True
        # a dip needs a row that is not accepted: none when every row is (the usual round)
        if outcome.accepted.all():
            break
        dips, dipping = _interior_dips(outcome, dt[sel])
        if not dipping.any():
            break
        ag = agents[sel]
        dt_e = dt[sel][:, None]
        q = accel_margin_at_time_offset_mps(prep.s[ag],
                                            np.where(dips, outcome.nearest_t_s, dt_e), dt_e,
                                            prep.n_dot_e[ag], prep.n_dot_u[ag],
                                            prep.n_dot_v0[ag])
        cuts[still_open] = np.where(dips, np.minimum(cuts[sel], q), cuts[sel])
        still_open = still_open[~outcome.accepted & dipping]
    return found, result
