"""The ORCA monitor's compiled passes equal the numpy expressions they replaced, on random
inputs with zeros of both signs, NaN, inf, parallel and near-parallel lines (a NaN is compared
as NaN, a zero as zero: neither changes a verdict), and the KKT residual equals its angle rule
with every angle measured. Claim: O2, O4."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

from navproof.core.tolerances import MONITOR_ANGLE_TOL_RAD, RVO_EPSILON
from navproof.orca.monitor import infeasibility_margin, kkt_residual


def _numpy_infeasibility_margin(diag, rows: np.ndarray) -> np.ndarray:
    """The O4 chord as numpy computed it before the compiled pass."""
    i = diag.fail_line[rows]
    p = diag.line_point[rows, i]
    d = diag.line_dir[rows, i]
    radius = diag.max_speed[rows]
    dot = np.einsum("ij,ij->i", p, d)
    disc = dot * dot + radius * radius - np.einsum("ij,ij->i", p, p)
    sq = np.sqrt(np.maximum(disc, 0.0))
    t_left, t_right = -dot - sq, -dot + sq
    k = diag.valid.shape[1]
    before = diag.valid[rows] & (np.arange(k)[None, :] < i[:, None])
    pj, dj = diag.line_point[rows], diag.line_dir[rows]
    denominator = d[:, None, 0] * dj[..., 1] - d[:, None, 1] * dj[..., 0]
    numerator = (dj[..., 0] * (p[:, None, 1] - pj[..., 1])
                 - dj[..., 1] * (p[:, None, 0] - pj[..., 0]))
    parallel = np.abs(denominator) <= RVO_EPSILON
    outside_parallel = np.any(before & parallel & (numerator < 0.0), axis=1)
    cross = before & ~parallel
    t = numerator / np.where(cross, denominator, 1.0)
    t_right = np.minimum(t_right, np.min(np.where(cross & (denominator >= 0), t, np.inf),
                                         axis=1))
    t_left = np.maximum(t_left, np.max(np.where(cross & (denominator < 0), t, -np.inf),
                                       axis=1))
    margin = np.where(disc < 0.0, -np.inf, t_right - t_left)
    return np.where(outside_parallel, -np.inf, margin)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_infeasibility_margin_equals_the_numpy_expression():
    rng = np.random.default_rng(23)
    n, k = 3000, 8
    point = rng.normal(0.0, 1.5, (n, k, 2))
    angle = rng.uniform(0.0, 2.0 * np.pi, (n, k))
    direction = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    # parallel and near-parallel to the failing line, and edge values
    direction[::7, 1] = direction[::7, 0] * (1.0 + rng.choice([0.0, 1e-7, 1e-3], n)[::7, None])
    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-300])
    pick = rng.random(point.shape) < 0.01
    point[pick] = rng.choice(specials, int(pick.sum()))
    pick = rng.random(direction.shape) < 0.01
    direction[pick] = rng.choice(specials, int(pick.sum()))
    diag = types.SimpleNamespace(
        line_point=point, line_dir=direction, valid=rng.random((n, k)) < 0.8,
        max_speed=rng.uniform(0.0, 2.0, n), fail_line=rng.integers(-1, k, n))
    rows = np.flatnonzero(rng.random(n) < 0.7)
    got = infeasibility_margin(diag, rows)
    want = _numpy_infeasibility_margin(diag, rows)
    assert np.array_equal(got, want, equal_nan=True)


def _reference_kkt(preferred, selected, max_speed, line_dir, viol, tol, valid):
    """The O2 residual of every row by the angle rule, every active normal's angle by atan2
    (lengths by numpy's hypot, the C library's, as the compiled loops')."""
    out = np.empty(selected.shape[0])
    for i in range(selected.shape[0]):
        rx, ry = preferred[i] - selected[i]
        r_len = float(np.hypot(rx, ry))
        disk = np.hypot(*selected[i]) >= max_speed[i] - tol[i]
        normals = [(line_dir[i, s, 1], -line_dir[i, s, 0]) for s in range(valid.shape[1])
                   if valid[i, s] and viol[i, s] >= -tol[i]]
        if disk:
            normals.append(tuple(selected[i]))
        on_ray, pos, neg, nearest = False, np.inf, -np.inf, r_len
        for nx, ny in normals:
            n_len = float(np.hypot(nx, ny))
            if not n_len >= np.finfo(np.float64).tiny:
                continue
            ux, uy = nx / n_len, ny / n_len
            cross, dot = rx * uy - ry * ux, rx * ux + ry * uy
            angle = math.atan2(cross, dot)
            on_ray = on_ray or abs(angle) <= MONITOR_ANGLE_TOL_RAD
            if angle > 0.0:
                pos = min(pos, angle)
            if angle < 0.0:
                neg = max(neg, angle)
            nearest = min(nearest, abs(cross) if dot > 0.0 else r_len)
        wedge = np.isfinite(pos) and np.isfinite(neg) and pos - neg <= np.pi + \
            MONITOR_ANGLE_TOL_RAD
        point_disk = disk and max_speed[i] <= tol[i]
        out[i] = 0.0 if r_len == 0.0 or on_ray or wedge or point_disk else nearest
    return out


def test_kkt_residual_equals_the_angle_rule_with_every_angle_measured():
    rng = np.random.default_rng(29)
    n, k = 4000, 4
    angle = rng.uniform(0.0, 2.0 * np.pi, (n, k))
    direction = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    selected = rng.normal(0.0, 1.0, (n, 2))
    # residuals along the first normal, off it by about the angle tolerance, or anywhere
    normal = np.stack([direction[:, 0, 1], -direction[:, 0, 0]], axis=-1)
    tilt = rng.choice([0.0, 0.5e-9, 0.999999e-9, 1.0e-9, 1.000001e-9, 2e-9, 0.3, 2.0], n)
    turn = np.stack([np.cos(tilt), np.sin(tilt)], axis=-1)
    along = np.stack([normal[:, 0] * turn[:, 0] - normal[:, 1] * turn[:, 1],
                      normal[:, 0] * turn[:, 1] + normal[:, 1] * turn[:, 0]], axis=-1)
    length = rng.choice([0.0, 1e-12, 1e-3, 1.0, 50.0], (n, 1))
    preferred = selected + along * length
    preferred[::9] = rng.normal(0.0, 2.0, (n // 9 + 1, 2))[: preferred[::9].shape[0]]
    valid = rng.random((n, k)) < 0.8
    valid[:, 0] = True
    viol = np.where(rng.random((n, k)) < 0.6, 0.0, -1.0)
    max_speed = np.where(rng.random(n) < 0.2, np.hypot(*selected.T), 5.0)
    tol = np.full(n, 1e-6)
    point = np.zeros((n, k, 2))
    got = kkt_residual(preferred, selected, max_speed, point, direction, valid,
                       active_tol=tol, violation=viol)
    want = _reference_kkt(preferred, selected, max_speed, direction, viol, tol, valid)
    assert got.tobytes() == want.tobytes()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_kkt_residual_with_normals_on_both_sides_equals_the_angle_rule():
    # normals within 90 degrees of the residual on each side (the wedge decided without
    # angles), near 90 degrees, beyond it, and non-finite entries: the angle rule's residual
    rng = np.random.default_rng(31)
    n, k = 6000, 3
    selected = rng.normal(0.0, 1.0, (n, 2))
    residual_angle = rng.uniform(0.0, 2.0 * np.pi, n)
    length = rng.choice([1e-12, 1e-3, 1.0, 50.0], n)
    preferred = selected + length[:, None] * np.stack([np.cos(residual_angle),
                                                       np.sin(residual_angle)], axis=-1)
    # each normal at an offset from the residual; the normal (d.y, -d.x) of direction d
    offset = rng.choice([0.3, -0.3, np.pi / 2 - 1e-12, -(np.pi / 2 - 1e-12), np.pi / 2,
                         -np.pi / 2, np.pi / 2 + 1e-12, 2.0, -2.0, 1e-3, -1e-3], (n, k))
    normal_angle = residual_angle[:, None] + offset
    direction = np.stack([-np.sin(normal_angle), np.cos(normal_angle)], axis=-1)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-310])
    pick = rng.random(direction.shape) < 0.01
    direction[pick] = rng.choice(specials, int(pick.sum()))
    # (an infinite residual is left out: the ray shortcut takes it where atan2 does not)
    pick = rng.random(preferred.shape) < 0.005
    preferred[pick] = rng.choice(specials[[0, 3, 4, 5]], int(pick.sum()))
    valid = rng.random((n, k)) < 0.9
    viol = np.zeros((n, k))
    max_speed = np.where(rng.random(n) < 0.3, np.hypot(*selected.T), 5.0)
    tol = np.full(n, 1e-6)
    got = kkt_residual(preferred, selected, max_speed, np.zeros((n, k, 2)), direction, valid,
                       active_tol=tol, violation=viol)
    want = _reference_kkt(preferred, selected, max_speed, direction, viol, tol, valid)
    assert np.array_equal(got, want, equal_nan=True)
    assert got.tobytes() == np.where(np.isnan(want), got, want).tobytes()
    assert (want == 0.0).sum() > n // 4 and (want > 0.0).sum() > n // 10


def _first_failure(diag):
    """The (claim, agent, observed, limit) check_solve reports, by whole-array rules with
    every length measured by numpy's hypot, or None."""
    from navproof.core.tolerances import MONITOR_FEASIBILITY_REL, MONITOR_KKT_REL
    from navproof.orca.halfplanes import line_violation

    pref, sel, radius = diag.preferred, diag.selected, diag.max_speed
    tol = MONITOR_FEASIBILITY_REL * (1.0 + radius)
    finite = (np.isfinite(sel).all(axis=1) & np.isfinite(diag.line_point).all(axis=(1, 2))
              & np.isfinite(diag.line_dir).all(axis=(1, 2)))
    speed = np.hypot(sel[:, 0], sel[:, 1])
    gap = np.hypot(sel[:, 0] - pref[:, 0], sel[:, 1] - pref[:, 1])
    pref_speed = np.hypot(pref[:, 0], pref[:, 1])
    viol = line_violation(sel, diag.line_point, diag.line_dir, diag.valid)
    worst = viol.max(axis=1)
    lines = diag.valid.sum(axis=1)
    kkt = np.where(diag.feasible & (gap > 0.0),
                   kkt_residual(pref, sel, radius, diag.line_point, diag.line_dir, diag.valid,
                                active_tol=tol, violation=viol), 0.0)
    rows = np.flatnonzero(~diag.feasible)
    chord = np.zeros(len(sel))
    chord[rows] = infeasibility_margin(diag, rows)
    rules = [("O2", ~finite, np.full(len(sel), np.inf), np.zeros(len(sel))),
             ("O2", speed - radius > tol, speed, radius),
             ("O1", (lines == 0) & (pref_speed <= radius) & (gap > tol), gap, np.zeros(len(sel))),
             ("O4", diag.feasible & (worst > tol), worst, tol),
             ("O2", kkt > MONITOR_KKT_REL * (1.0 + radius + pref_speed), kkt,
              MONITOR_KKT_REL * (1.0 + radius + pref_speed)),
             ("O4", ~diag.feasible & (chord > tol), chord, tol)]
    for claim, failed, observed, limit in rules:
        if failed.any():
            i = int(np.flatnonzero(failed)[0])
            return claim, i, float(observed[i]), float(limit[i])
    return None


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_check_solve_reports_what_the_whole_array_rules_find(monkeypatch):
    # every rule's failure, at the speed limit's edge, with lines and without, for the
    # compiled pass that measures lengths only where a rule reads them: the same claim, agent,
    # observed value and limit
    from navproof.core.errors import ObligationViolation
    from navproof.orca import monitor

    monkeypatch.setattr(monitor, "_agent_data", lambda diag, i: {})
    rng = np.random.default_rng(37)
    seen = set()
    for trial in range(400):
        n, k = 30, 3
        radius = rng.choice([2.0, 1.0, 0.0, 1e-300], n, p=[0.7, 0.2, 0.05, 0.05])
        angle = rng.uniform(0.0, 2.0 * np.pi, n)
        # trials that may break a rule, and trials that keep to every rule but O1 and KKT
        strict = trial % 3 == 0
        scale = rng.choice([0.5, 1.0, 1.0 - 1e-7, 1.0 + 1e-7, 0.0]
                           + ([1.0 + 1e-5] if strict else []), n)
        selected = np.stack([np.cos(angle), np.sin(angle)], axis=1) * (radius * scale)[:, None]
        offset = rng.choice([0.0, 1e-7, 0.3] if strict or trial % 3 == 2 else [0.0], (n, 1))
        preferred = selected + offset * rng.normal(size=(n, 2))
        line_angle = rng.uniform(0.0, 2.0 * np.pi, (n, k))
        direction = np.stack([np.cos(line_angle), np.sin(line_angle)], axis=-1)
        # lines through the selected velocity (active), beyond it or violated by it
        normal = np.stack([direction[..., 1], -direction[..., 0]], axis=-1)
        point = selected[:, None, :] + normal * rng.choice(
            [0.0, 0.5, -1e-3] if strict or trial % 3 == 1 else [0.0, 0.5], (n, k, 1))
        valid = rng.random((n, k)) < (0.0 if trial % 5 == 0 else 0.8)
        feasible = rng.random(n) < (0.9 if strict else 1.0)
        fail_line = np.where(feasible, -1, rng.integers(0, k, n))
        if trial % 7 == 0:
            point[int(rng.integers(0, n)), 0, 0] = np.nan
        diag = types.SimpleNamespace(preferred=preferred, selected=selected, max_speed=radius,
                                     line_point=point, line_dir=direction, valid=valid,
                                     feasible=feasible, fail_line=fail_line)
        expected = _first_failure(diag)
        try:
            monitor.check_solve(diag)
            got = None
        except ObligationViolation as exc:
            got = (exc.claim_id, exc.agent, exc.observed, exc.limit)
        assert got == expected
        seen.add(None if expected is None else expected[0])
    assert seen == {None, "O1", "O2", "O4"}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_root_below_decides_as_the_square_root():
    # the squared comparison gives the square root's verdict at the limit's edge (a few ulps
    # and 1e-9 relative either side), for negative, zero, subnormal, huge and non-finite
    # squares and zero, tiny, huge, negative and non-finite limits
    from numba import njit

    from navproof.core.vec2 import root_below

    below = root_below.compiled()

    @njit
    def verdicts(sq, limit, out):
        for i in range(sq.shape[0]):
            out[i] = below(sq[i], limit[i])

    rng = np.random.default_rng(13)
    n = 200_000
    limit = rng.choice([1.0, 0.3, 2.0 ** -450, 2.0 ** 450, 1e-300, 1e300, 0.0, -1.0, np.nan,
                        np.inf], n, p=[0.4, 0.2, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05])
    root = limit * rng.choice([1.0, np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0),
                               1.0 + 1e-9, 1.0 - 1e-9, 1.0 + 5e-10, 0.5, 2.0], n)
    sq = root * root
    for step in (np.inf, 0.0):
        pick = rng.random(n) < 0.2
        sq[pick] = np.nextafter(sq[pick], step)
    pick = rng.random(n) < 0.05
    sq[pick] = rng.choice([0.0, -0.0, -1.0, 5e-324, np.nan, np.inf, -np.inf, 1e308],
                          int(pick.sum()))
    out = np.empty(n, dtype=np.bool_)
    verdicts(sq, limit, out)
    expected = np.array([math.sqrt(max(s, 0.0)) < lim
                         for s, lim in zip(sq.tolist(), limit.tolist(), strict=True)])
    assert np.array_equal(out, expected)
    assert 0 < expected.sum() < n
