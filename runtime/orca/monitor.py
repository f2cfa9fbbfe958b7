"""Assertion mode of the ORCA solve: certificates checked on every agent after each step.

* finiteness of every line and selected velocity;
* O1: no constraint and preferred speed within the limit -> selected equals preferred;
* O2: for agents labelled feasible, the selected velocity ``v`` is the closest point to the
  preferred ``p`` in (disk of radius ``R``) ∩ half-planes, certified by the KKT conditions of
  ``min |v - p|^2``: primal feasibility, and ``p - v`` lying in the cone spanned by the outward
  normals of the active constraints (line normals ``(d.y, -d.x)``, the disk normal ``v``);
  the signed margin is the distance from ``p - v`` to that cone;
* O4: an agent labelled infeasible really has an empty set at the line where the exact solve
  stopped (the disk chord of that line, cut by the earlier lines, is empty), and an agent
  labelled feasible violates no line;
* O3 (:func:`check_reciprocity`): every pair that built lines against each other, both labelled
  feasible, with shares adding up to 1 and one time horizon, keeps the combined radius over
  the horizon with the chosen velocities (exact minimum of the distance, not sampled); a pair
  that overlaps already is apart at the step's end (O6).

A failure raises :class:`~navproof.core.errors.ObligationViolation` carrying the claim ID, the
agent, the observed value, the limit and that agent's constraints.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from navproof._generated.formulas import orca_closest_approach_time, orca_relative_distance_sq
from navproof.core.errors import ObligationViolation
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.parallel import piece_bounds, run_pieces, thread_count
from navproof.core.tolerances import (
    MONITOR_ANGLE_TOL_RAD,
    MONITOR_FEASIBILITY_REL,
    MONITOR_KKT_REL,
    RVO_EPSILON,
)
from navproof.core.vec2 import hypot_below, nonzero_length, root_below
from navproof.orca.halfplanes import line_violation

if TYPE_CHECKING:
    from navproof.orca.crowd import StepDiagnostics

_TINY = float(np.finfo(np.float64).tiny)

_SURELY_ON_RAY = MONITOR_ANGLE_TOL_RAD * (1.0 - 1e-6)
"""``|cross| / dot`` below which a normal's angle to the residual is within
MONITOR_ANGLE_TOL_RAD whatever atan2's rounding (a few ulps, far below the 1e-6 kept)."""

MONITOR_PARALLEL_MIN_SLOTS = 32768
"""Monitor loops over at least this many constraint slots (or pairs) run in threads."""


def _agent_data(diag: StepDiagnostics, i: int) -> dict[str, Any]:
    rec = diag.record(i)
    return {
        "preferred": list(rec.preferred_velocity),
        "selected": list(rec.selected_velocity),
        "max_speed": rec.max_speed_mps,
        "num_hard": rec.obstacle_constraint_count,
        "lines": [(ln["point"], ln["direction"]) for ln in rec.lines],
    }


def _fail(claim: str, message: str, diag: StepDiagnostics, i: int, observed: float,
          limit: float) -> None:
    raise ObligationViolation(claim, message, observed=float(observed), limit=float(limit),
                              margin=float(limit - observed), agent=int(i),
                              data=_agent_data(diag, i))


def kkt_residual(preferred: np.ndarray, selected: np.ndarray, max_speed: np.ndarray,
                 line_point: np.ndarray, line_dir: np.ndarray, valid: np.ndarray,
                 *, active_tol: np.ndarray, violation: np.ndarray | None = None) -> np.ndarray:
    """Distance (m/s) of ``p - v`` from the cone of active constraint normals, per agent.

    Zero means ``v`` satisfies the stationarity condition of the closest-point problem for some
    non-negative multipliers. In 2-D the cone of a set of vectors is either a wedge between the
    two extreme vectors (when it fits in a half-plane) or the whole plane, so membership is an
    angle test: ``r`` is inside when some normal lies at angle 0, or the smallest positive and
    the largest negative angle differ by at most pi. Outside, the distance is that to the
    nearest boundary ray. ``violation`` (N, K) may pass the line violations of ``selected``
    when already computed. Claim: O2.
    """
    viol = (line_violation(selected, line_point, line_dir, valid) if violation is None
            else violation)
    n = selected.shape[0]
    out = np.empty(n)
    args = (*(np.ascontiguousarray(a, dtype=np.float64) for a in
              (preferred, selected, max_speed, line_dir, viol,
               np.broadcast_to(active_tol, selected.shape[:1]))),
            np.ascontiguousarray(valid, dtype=np.bool_))
    threads = thread_count(valid.size, MONITOR_PARALLEL_MIN_SLOTS)
    bounds = piece_bounds(n, threads)
    run_pieces(lambda p: _kkt_rows(*args, bounds[p], bounds[p + 1], out), len(bounds) - 1,
               threads=threads)
    return out


@inlined_loop
def _keep_min(current, value):
    """``np.minimum(current, value)`` of two floats (NaN wins)."""
    return value if value < current or value != value else current


@compiled_loop
def _kkt_rows(preferred, selected, max_speed, line_dir, viol, active_tol, valid, row_lo, row_hi,
              out):
    """:func:`kkt_residual` of rows ``row_lo:row_hi`` into ``out`` (:func:`_kkt_row`).
    Claim: O2."""
    cross, dot = np.empty(valid.shape[1] + 1), np.empty(valid.shape[1] + 1)
    for i in range(row_lo, row_hi):
        disk_active = (math.hypot(selected[i, 0], selected[i, 1])
                       >= max_speed[i] - active_tol[i])
        out[i] = _kkt_row(preferred, selected, max_speed, line_dir, viol[i], active_tol[i], valid,
                          i, disk_active, cross, dot)


@inlined_loop
def _kkt_row(preferred, selected, max_speed, line_dir, viol, active_tol, valid, i,
             disk_active, cross, dot):
    """:func:`kkt_residual` of row ``i`` (``viol`` its line violations, ``active_tol`` its
    tolerance, ``disk_active`` whether its selected speed is within ``active_tol`` of its
    max speed or above; ``cross`` and ``dot`` scratch of K + 1 entries): one pass over its
    active constraints (the lines within ``active_tol`` of binding, in slot order, then the
    disk) for the residual's cross and dot products with their unit normals, then the angles
    and the residual's length ``hypot(p - v)`` (m/s). Claim: O2.

    Without the angles: a residual on a normal's ray (below) is 0, and so is one with finite
    products that has a normal within 90 degrees on each side (dot > 0, cross > 0 and cross <
    0): atan2 puts those within [0, pi/2] and [-pi/2, 0] (pi/2 within an ulp), so either one
    is on the ray or they span at most pi, which the wedge test accepts, whatever the others.
    """
    k = valid.shape[1]
    rx = preferred[i, 0] - selected[i, 0]
    ry = preferred[i, 1] - selected[i, 1]
    count = 0
    left = False
    right = False
    finite = True
    for s in range(k + 1):
        if s < k:
            if not (valid[i, s] and viol[s] >= -active_tol):
                continue
            # outward normal of the line
            nx, ny = line_dir[i, s, 1], -line_dir[i, s, 0]
        elif disk_active:
            nx, ny = selected[i, 0], selected[i, 1]
        else:
            continue
        n_len = math.hypot(nx, ny)
        if not n_len >= _TINY:
            continue
        ux, uy = nx / n_len, ny / n_len
        c = rx * uy - ry * ux
        d = rx * ux + ry * uy
        if d > 0.0 and abs(c) <= _SURELY_ON_RAY * d:
            # |atan2(cross, dot)| <= |cross| / dot, within the tolerance by far more than
            # atan2's rounding: on the ray, and the residual is 0 whatever the other normals
            return 0.0
        cross[count], dot[count] = c, d
        count += 1
        left = left or (d > 0.0 and c > 0.0)
        right = right or (d > 0.0 and c < 0.0)
        finite = finite and c - c == 0.0 and d - d == 0.0
    if left and right and finite:
        return 0.0
    r_len = math.hypot(rx, ry)
    on_ray = False
    pos = np.inf
    neg = -np.inf
    nearest = r_len
    for q in range(count):
        angle = math.atan2(cross[q], dot[q])
        if abs(angle) <= MONITOR_ANGLE_TOL_RAD:
            on_ray = True
        if angle > 0.0:
            pos = _keep_min(pos, angle)
        if angle < 0.0:
            neg = -_keep_min(-neg, -angle)
        nearest = _keep_min(nearest, abs(cross[q]) if dot[q] > 0.0 else r_len)
    in_wedge = (math.isfinite(pos) and math.isfinite(neg)
                and pos - neg <= np.pi + MONITOR_ANGLE_TOL_RAD)
    # a zero-radius disk is the single point 0: its normal cone is the whole plane
    point_disk = disk_active and max_speed[i] <= active_tol
    return 0.0 if r_len == 0.0 or on_ray or in_wedge or point_disk else nearest


def infeasibility_margin(diag: StepDiagnostics, rows: np.ndarray) -> np.ndarray:
    """Length (m/s) of what is left of the failing line's disk chord after the earlier lines.

    Negative (or ``-inf``) confirms that no velocity satisfies the disk, that line and the lines
    before it, i.e. the empty-intersection label is honest. Near-parallel lines are handled
    with RVO2's tolerance. One compiled pass over ``rows`` (:func:`_infeasibility_rows`).
    Claim: O4.
    """
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    out = np.empty(rows.shape[0])
    _infeasibility_rows(rows, np.ascontiguousarray(diag.fail_line, dtype=np.int64),
                        *(np.ascontiguousarray(a, dtype=np.float64) for a in
                          (diag.line_point, diag.line_dir, diag.max_speed)),
                        np.ascontiguousarray(diag.valid, dtype=np.bool_), out)
    return out


@compiled_loop
def _infeasibility_rows(rows, fail_line, line_point, line_dir, max_speed, valid, out):
    """:func:`_infeasibility_row` of every row ``rows[q]`` into ``out[q]``. Claim: O4."""
    for q in range(rows.shape[0]):
        out[q] = _infeasibility_row(fail_line, line_point, line_dir, max_speed, valid, rows[q])


@inlined_loop
def _infeasibility_row(fail_line, line_point, line_dir, max_speed, valid, r):
    """:func:`infeasibility_margin` of row ``r``: the chord
    ``-p.d -+ sqrt((p.d)^2 + R^2 - |p|^2)`` of the failing line (point ``p``, direction ``d``;
    ``-inf`` without a chord), cut by every valid earlier line ``j`` at
    ``t = det(d_j, p - p_j) / det(d, d_j)`` (from the right where ``det(d, d_j) >= 0``, else
    from the left; a NaN cut wins, a NaN determinant cuts nothing), ``-inf`` when an earlier
    line parallel within RVO_EPSILON has the failing line outside it. Claim: O4."""
    k = valid.shape[1]
    i = fail_line[r]
    # a slot index as numpy reads it (-1: the last slot; no line comes before it)
    slot = i + k if i < 0 else i
    px, py = line_point[r, slot, 0], line_point[r, slot, 1]
    dx, dy = line_dir[r, slot, 0], line_dir[r, slot, 1]
    radius = max_speed[r]
    dot = px * dx + py * dy
    disc = dot * dot + radius * radius - (px * px + py * py)
    sq = math.sqrt(_keep_max(disc, 0.0))
    t_left, t_right = -dot - sq, -dot + sq
    right, left = np.inf, -np.inf
    outside_parallel = False
    for j in range(min(max(i, 0), k)):
        if not valid[r, j]:
            continue
        djx, djy = line_dir[r, j, 0], line_dir[r, j, 1]
        denominator = dx * djy - dy * djx
        numerator = djx * (py - line_point[r, j, 1]) - djy * (px - line_point[r, j, 0])
        if abs(denominator) <= RVO_EPSILON:
            # parallel: the failing line lies outside line j
            outside_parallel = outside_parallel or numerator < 0.0
        elif denominator >= 0.0:
            right = _keep_min(right, numerator / denominator)
        elif denominator < 0.0:
            left = _keep_max(left, numerator / denominator)
    t_right = _keep_min(t_right, right)
    t_left = _keep_max(t_left, left)
    margin = -np.inf if disc < 0.0 else t_right - t_left
    return -np.inf if outside_parallel else margin


_NON_FINITE, _OVER_SPEED, _FREE_MOVED, _FEASIBLE_VIOLATES, _KKT_FAILS = 1, 2, 4, 8, 16
_INFEASIBLE_OPEN = 32
"""The failures :func:`_solve_rows` marks per agent, in the order :func:`check_solve` reports
them."""


@compiled_loop
def _solve_rows(preferred, selected, max_speed, line_point, line_dir, valid, feasible,
                fail_line, row_lo, row_hi, fails, speed, gap, pref_speed, worst, kkt, chord):
    """One pass over rows ``row_lo:row_hi`` of what :func:`check_solve` judges, recomputed from
    the selected velocity: whether the velocity and lines are finite, the selected and
    preferred speeds, the distance selected-preferred, the largest line violation
    ``det(dir, point - v)`` (``-inf`` without lines) and, for feasible rows that left the
    preferred velocity, the KKT residual of :func:`kkt_residual` (0 elsewhere), for rows
    labelled infeasible what is left of the failing line's chord (:func:`_infeasibility_row`
    into ``chord``, 0 elsewhere); ``fails`` gets the bits of the failed rules, and their union
    over the rows is returned. Lengths are measured only where a rule reads them
    (:mod:`navproof.core.vec2` decides the comparisons elsewhere): the selected speed
    (into ``speed``) unless clearly below the max speed less the tolerance, the distance
    selected-preferred (into ``gap``) for rows without lines, the preferred speed (into
    ``pref_speed``) for those and rows with a positive KKT residual (or a negative radius).
    Claim: O1, O2, O4."""
    k = valid.shape[1]
    viol = np.empty(k)
    cross, dot = np.empty(k + 1), np.empty(k + 1)
    failed = 0
    for i in range(row_lo, row_hi):
        sx, sy = selected[i, 0], selected[i, 1]
        # x * 0 is NaN exactly where x is not finite, else a zero: the row is finite where the
        # sum of those products is (no branch per value)
        zeros = sx * 0.0 + sy * 0.0
        row_worst = -np.inf
        lines = 0
        for s in range(k):
            px, py = line_point[i, s, 0], line_point[i, s, 1]
            dx, dy = line_dir[i, s, 0], line_dir[i, s, 1]
            zeros += (px * 0.0 + py * 0.0) + (dx * 0.0 + dy * 0.0)
            viol[s] = -np.inf
            if valid[i, s]:
                viol[s] = (py - sy) * dx - (px - sx) * dy
                lines += 1
            row_worst = _keep_max(row_worst, viol[s])
        radius = max_speed[i]
        tol = MONITOR_FEASIBILITY_REL * (1.0 + radius)
        worst[i] = row_worst
        kkt[i] = 0.0
        bits = 0 if zeros == 0.0 else _NON_FINITE
        # a speed below radius - tol (> 0) is neither on the disk's boundary nor over it
        disk_active = False
        if not hypot_below(sx, sy, radius - tol):
            speed[i] = math.hypot(sx, sy)
            if speed[i] - radius > tol:
                bits |= _OVER_SPEED
            disk_active = speed[i] >= radius - tol
        if lines == 0:
            gap[i] = math.hypot(sx - preferred[i, 0], sy - preferred[i, 1])
            pref_speed[i] = math.hypot(preferred[i, 0], preferred[i, 1])
            if pref_speed[i] <= radius and gap[i] > tol:
                bits |= _FREE_MOVED
        if feasible[i] and row_worst > tol:
            bits |= _FEASIBLE_VIOLATES
        if feasible[i] and nonzero_length(sx - preferred[i, 0], sy - preferred[i, 1]):
            kkt[i] = _kkt_row(preferred, selected, max_speed, line_dir, viol, tol, valid, i,
                              disk_active, cross, dot)
            # with a radius of at least 0 the threshold is positive (or NaN), which a residual
            # of 0 (or NaN) passes: the preferred speed is read only where it can decide
            if kkt[i] > 0.0 or radius < 0.0:
                pref_speed[i] = math.hypot(preferred[i, 0], preferred[i, 1])
                if kkt[i] > MONITOR_KKT_REL * (1.0 + radius + pref_speed[i]):
                    bits |= _KKT_FAILS
        chord[i] = 0.0
        if not feasible[i]:
            chord[i] = _infeasibility_row(fail_line, line_point, line_dir, max_speed, valid, i)
            if chord[i] > tol:
                bits |= _INFEASIBLE_OPEN
        fails[i] = bits
        failed |= bits
    return failed


@inlined_loop
def _keep_max(current, value):
    """``np.maximum(current, value)`` of two floats (NaN wins)."""
    return value if value > current or value != value else current


def check_solve(diag: StepDiagnostics) -> None:
    """Raise ObligationViolation at the first agent whose solve breaks O1, O2 or O4.

    One compiled pass over every agent's lines recomputes what is judged (:func:`_solve_rows`);
    the KKT certificate only over agents whose selected velocity differs from the preferred one
    (elsewhere stationarity holds with zero multipliers). The rules are reported in this order:
    finiteness, the max-speed disk, O1, a feasible label that violates a line, the KKT
    certificate, an infeasible label.
    """
    pref, sel, radius = diag.preferred, diag.selected, diag.max_speed
    n = sel.shape[0]
    fails = np.empty(n, dtype=np.uint8)
    speed, gap, pref_speed, worst, res, chord = (np.empty(n) for _ in range(6))
    args = (*(np.ascontiguousarray(a, dtype=np.float64) for a in
              (pref, sel, radius, diag.line_point, diag.line_dir)),
            np.ascontiguousarray(diag.valid, dtype=np.bool_),
            np.ascontiguousarray(diag.feasible, dtype=np.bool_),
            np.ascontiguousarray(diag.fail_line, dtype=np.int64))
    threads = thread_count(diag.valid.size, MONITOR_PARALLEL_MIN_SLOTS)
    bounds = piece_bounds(n, threads)
    outs = (fails, speed, gap, pref_speed, worst, res, chord)
    if len(bounds) == 2:
        # one piece: called directly (a small crowd's whole cost is such overhead)
        failed = _solve_rows(*args, 0, n, *outs)
    else:
        piece_failed = [0] * (len(bounds) - 1)

        def piece(p: int) -> None:
            piece_failed[p] = _solve_rows(*args, bounds[p], bounds[p + 1], *outs)

        run_pieces(piece, len(bounds) - 1, threads=threads)
        failed = max(piece_failed)
    if failed:
        scale = 1.0 + radius

        def first(bit: int) -> int:
            rows = np.flatnonzero(fails & bit)
            return int(rows[0]) if rows.size else -1

        if (i := first(_NON_FINITE)) >= 0:
            _fail("O2", "non-finite line or velocity", diag, i, np.inf, 0.0)
        if (i := first(_OVER_SPEED)) >= 0:
            _fail("O2", "selected speed exceeds the max-speed disk", diag, i, speed[i],
                  radius[i])
        if (i := first(_FREE_MOVED)) >= 0:
            _fail("O1", "unconstrained agent did not keep its preferred velocity", diag, i,
                  gap[i], 0.0)
        if (i := first(_FEASIBLE_VIOLATES)) >= 0:
            _fail("O4", "labelled feasible but violates a constraint", diag, i, worst[i],
                  MONITOR_FEASIBILITY_REL * scale[i])
        if (i := first(_KKT_FAILS)) >= 0:
            _fail("O2", "KKT certificate fails: not the closest feasible velocity", diag, i,
                  res[i], MONITOR_KKT_REL * (1.0 + radius[i] + pref_speed[i]))
        if (i := first(_INFEASIBLE_OPEN)) >= 0:
            _fail("O4", "labelled infeasible but the failing line still has feasible points",
                  diag, i, chord[i], MONITOR_FEASIBILITY_REL * scale[i])


def pair_min_distance(rel_position: np.ndarray, rel_velocity: np.ndarray, horizon_s: np.ndarray
                      ) -> np.ndarray:
    """Exact minimum (m) of ``|p - x t|`` over ``t`` in ``[0, horizon_s]`` per pair, with the
    generated closest-approach time clamped to the interval. Claim: O3."""
    p = np.ascontiguousarray(rel_position, dtype=np.float64)
    x = np.ascontiguousarray(rel_velocity, dtype=np.float64)
    horizon = np.ascontiguousarray(np.broadcast_to(horizon_s, p.shape[:1]), dtype=np.float64)
    out = np.empty(p.shape[0])
    _pair_min_distances(p, x, horizon, out)
    return out


@inlined_loop
def _min_distance(px, py, xx, xy, horizon):
    """Exact minimum (m) of ``|p - x t|`` over ``t`` in ``[0, horizon]``. Claim: O3."""
    return math.sqrt(max(_min_distance_sq(px, py, xx, xy, horizon), 0.0))


@inlined_loop
def _min_distance_sq(px, py, xx, xy, horizon):
    """The square (m^2) :func:`_min_distance` takes the root of (not clamped at 0).
    Claim: O3."""
    p_sq = px * px + py * py
    p_dot_x = px * xx + py * xy
    x_sq = xx * xx + xy * xy
    t_star = 0.0
    if x_sq > 0.0:
        t_star = orca_closest_approach_time(p_dot_x=p_dot_x, x_sq=x_sq)
    t_star = min(max(t_star, 0.0), horizon)
    return orca_relative_distance_sq(p_sq=p_sq, p_dot_x=p_dot_x, x_sq=x_sq, time_s=t_star)


@compiled_loop
def _pair_min_distances(p, x, horizon, out):
    for i in range(p.shape[0]):
        out[i] = _min_distance(p[i, 0], p[i, 1], x[i, 0], x[i, 1], horizon[i])


def check_reciprocity(position: np.ndarray, radius: np.ndarray, time_horizon: np.ndarray,
                      time_step: float, selected: np.ndarray, max_speed: np.ndarray,
                      neighbor_idx: np.ndarray, feasible: np.ndarray, *,
                      cooperative: np.ndarray | None = None) -> None:
    """Raise ObligationViolation (O3, or O6 for an overlapping pair) when a reciprocal pair's
    chosen velocities bring it closer than the combined radius within its horizon.

    The pairs judged are those ``(a, b)``, ``a < b``, that hold each other as neighbours, both
    solved feasibly and share one time horizon (the pairs whose two lines the O3 proofs are
    about), in row-major slot order; the first that fails is reported. One compiled pass
    (:func:`_first_failing_pairs`) finds and judges them. Only pairs whose shares add up to 1
    are given (the caller filters): that split is proved reciprocal in every case. The
    allowance is the solve's feasibility tolerance carried over the horizon. With
    ``cooperative`` (N,) only pairs of two cooperative agents are judged, as if the rows of the
    others held no neighbour. Claim: O3, O6.
    """
    neighbor_idx = np.ascontiguousarray(neighbor_idx, dtype=np.int64)
    n = neighbor_idx.shape[0]
    coop = (np.ones(n, dtype=np.bool_) if cooperative is None
            else np.ascontiguousarray(cooperative, dtype=np.bool_))
    threads = thread_count(neighbor_idx.size, MONITOR_PARALLEL_MIN_SLOTS)
    bounds = piece_bounds(n, threads)
    # per piece: the first failing pair (a, b; -1 for none), its distance, combined radius and
    # whether it overlaps
    pairs = np.empty((len(bounds) - 1, 2), dtype=np.int64)
    found = np.empty((len(bounds) - 1, 3))
    args = (neighbor_idx, coop, np.ascontiguousarray(feasible, dtype=bool),
            np.ascontiguousarray(position, dtype=np.float64),
            np.ascontiguousarray(selected, dtype=np.float64), radius, time_horizon,
            float(time_step), max_speed)
    if len(bounds) == 2:
        # one piece: called directly (a small crowd's whole cost is such overhead)
        _first_failing_pairs(*args, 0, n, pairs[0], found[0])
    else:
        run_pieces(lambda p: _first_failing_pairs(*args, bounds[p], bounds[p + 1], pairs[p],
                                                  found[p]), len(bounds) - 1, threads=threads)
    failing = [p for p in range(len(bounds) - 1) if pairs[p, 0] >= 0]
    if not failing:
        return
    ia, ib = (int(v) for v in pairs[failing[0]])
    distance, comb_r, overlapping = found[failing[0]]
    claim = "O6" if overlapping else "O3"
    what = ("the overlapping pair is not apart at the step's end" if overlapping
            else "the pair comes closer than the combined radius within the horizon")
    rel_p = position[ib] - position[ia]
    rel_x = selected[ia] - selected[ib]
    horizon = time_step if overlapping else time_horizon[ia]
    raise ObligationViolation(
        claim, f"{what} (agents {ia} and {ib})",
        observed=float(distance), limit=float(comb_r), margin=float(distance - comb_r),
        agent=ia, data={"other": ib, "relative_position": rel_p.tolist(),
                        "relative_velocity": rel_x.tolist(), "horizon_s": float(horizon)})


@compiled_loop
def _first_failing_pairs(neighbor_idx, cooperative, feasible, position, selected, radius,
                         time_horizon, time_step, max_speed, row_lo, row_hi, pair, found):
    """The first pair (a, b) of agents ``a`` in ``row_lo:row_hi`` that :func:`check_reciprocity`
    judges and that fails, into ``pair`` (-1, -1 if none) with its distance, combined radius
    and overlap (0/1) in ``found``. Per pair: the distance at the step's end for an
    overlapping pair (O6), else the exact closest approach within the horizon (O3), against
    the combined radius less the allowance. Claim: O3, O6."""
    k = neighbor_idx.shape[1]
    pair[0], pair[1] = -1, -1
    for ia in range(row_lo, row_hi):
        if not (feasible[ia] and cooperative[ia]):
            continue
        for s in range(k):
            ib = neighbor_idx[ia, s]
            # padding (-1) is below every agent index; a non-cooperative b holds no
            # neighbour, so the pair is not mutual
            if ib <= ia or not (feasible[ib] and cooperative[ib]):
                continue
            if not time_horizon[ia] == time_horizon[ib]:
                continue
            px = position[ib, 0] - position[ia, 0]
            py = position[ib, 1] - position[ia, 1]
            xx = selected[ia, 0] - selected[ib, 0]
            xy = selected[ia, 1] - selected[ib, 1]
            r = radius[ia] + radius[ib]
            over = px * px + py * py <= r * r
            horizon = time_step if over else time_horizon[ia]
            tol = (2.0 * MONITOR_FEASIBILITY_REL * (1.0 + max(max_speed[ia], max_speed[ib]))
                   * horizon + MONITOR_FEASIBILITY_REL * r)
            limit = r - tol
            # distance < limit, decided without measuring the distance where it is clear
            # (navproof.core.vec2.root_below): it is measured for a failing pair only
            if over:
                # an overlapping pair is judged at the step's end only (O6): it starts inside
                ex, ey = px - xx * horizon, py - xy * horizon
                if not hypot_below(ex, ey, limit):
                    continue
                distance = math.hypot(ex, ey)
            else:
                dist_sq = _min_distance_sq(px, py, xx, xy, horizon)
                if not root_below(dist_sq, limit):
                    continue
                distance = math.sqrt(max(dist_sq, 0.0))
            # judged only when b holds a as a neighbour too (asked of a failing pair
            # alone: the first failing pair is the same)
            mutual = False
            for t in range(k):
                if neighbor_idx[ib, t] == ia:
                    mutual = True
                    break
            if not mutual:
                continue
            pair[0], pair[1] = ia, ib
            found[0], found[1], found[2] = distance, r, 1.0 if over else 0.0
            return
