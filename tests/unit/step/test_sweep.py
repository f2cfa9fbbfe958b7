"""Exact minimum distance over the step against neighbour predictions (claim W1)."""

import numpy as np
import pytest

from navproof.step import sweep

DT = 0.1


def single(x0, u, v0, v1, other, other_v):
    return sweep.sweep_min_distance_m(np.array([x0], float), np.array([u], float),
                                      np.array([v0], float), np.array([v1], float), DT,
                                      np.array([[other]], float), np.array([[other_v]], float),
                                      np.ones((1, 1), bool))


def test_head_on_minimum_is_at_the_step_end():
    d, t = single([0, 0], [0, 0], [1, 0], [1, 0], [1, 0], [0, 0])
    assert d[0, 0] == pytest.approx(0.9) and t[0, 0] == pytest.approx(DT)


def test_passing_neighbour_has_an_interior_minimum():
    # neighbour crosses the body's path at mid-step, 0.3 m to the side
    d, t = single([0, 0], [0, 0], [0, 0], [0, 0], [-0.5, 0.3], [10, 0])
    assert d[0, 0] == pytest.approx(0.3) and t[0, 0] == pytest.approx(0.05)


def test_accelerating_curve_against_dense_evaluation():
    rng = np.random.default_rng(5)
    n, j = 500, 4
    x0, u = rng.normal(size=(n, 2)), rng.normal(size=(n, 2))
    v0, v1 = rng.normal(size=(n, 2)) * 3, rng.normal(size=(n, 2)) * 3
    op, ov = rng.normal(size=(n, j, 2)) * 0.5, rng.normal(size=(n, j, 2))
    d, _ = sweep.sweep_min_distance_m(x0, u, v0, v1, DT, op, ov, np.ones((n, j), bool))
    ts = np.linspace(0, DT, 5001)[None, :, None, None]
    x = x0[:, None, None] + (u + v0)[:, None, None] * ts + ((v1 - v0) / (2 * DT))[:, None, None] \
        * ts ** 2
    dense = np.linalg.norm(x - (op[:, None] + ov[:, None] * ts), axis=-1).min(axis=1)
    assert np.all(d <= dense + 1e-12)
    assert np.all(dense - d < 1e-6)


def test_margin_rule_and_first_contact():
    start, dmin, comb = np.array([[2.0, 0.5]]), np.array([[1.2, 0.4]]), np.array([[1.0, 1.0]])
    margin = sweep.sweep_margin_m(dmin, start, comb)
    assert margin[0].tolist() == pytest.approx([0.2, -0.1])
    assert not sweep.sweep_passes(margin)[0]
    # head-on at 2 m/s towards a static neighbour 1.1 m away, combined radius 1 m: contact at 0.05 s
    t = sweep.first_contact_time_s(np.zeros((1, 2)), np.zeros((1, 2)), np.array([[2.0, 0.0]]),
                                   np.array([[2.0, 0.0]]), DT, np.array([[[1.1, 0.0]]]),
                                   np.zeros((1, 1, 2)), np.ones((1, 1), bool), np.ones((1, 1)))
    assert t[0] == pytest.approx(0.05, abs=1e-9)


def test_invalid_pairs_never_bind():
    d, _ = sweep.sweep_min_distance_m(np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)),
                                      np.zeros((1, 2)), DT, np.zeros((1, 1, 2)),
                                      np.zeros((1, 1, 2)), np.zeros((1, 1), bool))
    assert d[0, 0] == np.inf


def _random_pairs(seed, n=700, j=6):
    rng = np.random.default_rng(seed)
    x0, u = rng.normal(size=(n, 2)), rng.normal(size=(n, 2)) * 0.3
    v0, v1 = rng.normal(size=(n, 2)), rng.normal(size=(n, 2))
    op = x0[:, None, :] + rng.normal(size=(n, j, 2)) * 0.4
    ov = rng.normal(size=(n, j, 2))
    valid = rng.random((n, j)) < 0.9
    return x0, u, v0, v1, op, ov, valid


def test_side_by_side_bisection_equals_one_pair_at_a_time():
    # the blocked sweep bisects many brackets side by side; each pair's distance and time must
    # be, to the bit, what the pair gives when swept alone, and an interior time must be one of
    # the stationary points that the one-pair bisection finds
    x0, u, v0, v1, op, ov, valid = _random_pairs(11, n=400)
    d, t = sweep.sweep_min_distance_m(x0, u, v0, v1, DT, op, ov, valid)
    half, full, _ = sweep._step_displacements(v0, v1, DT)
    args = sweep._pairs(x0, u, op, ov)
    roots, lo, hi, sign = (np.empty(3) for _ in range(4))
    pair_curve = sweep._pair_curve.compiled()
    critical = sweep._critical_times.compiled()
    interior = 0
    for i in range(valid.shape[0]):
        for k in range(valid.shape[1]):
            if not valid[i, k]:
                assert d[i, k] == np.inf
                continue
            alone = sweep.sweep_min_distance_m(x0[i:i + 1], u[i:i + 1], v0[i:i + 1],
                                               v1[i:i + 1], DT, op[i:i + 1, k:k + 1],
                                               ov[i:i + 1, k:k + 1], np.ones((1, 1), bool))
            assert d[i, k] == alone[0][0, 0] and t[i, k] == alone[1][0, 0]
            if 0.0 < t[i, k] < DT:
                critical(*pair_curve(*args, half, full, DT, i, k), roots, lo, hi, sign)
                assert t[i, k] in roots * DT
                interior += 1
    assert interior > 100


def test_threads_and_pieces_do_not_change_a_bit(monkeypatch):
    x0, u, v0, v1, op, ov, valid = _random_pairs(12, n=3000, j=8)
    within = np.full(valid.shape, 0.8)
    runs = []
    for threads in (1, 2, 3):
        monkeypatch.setattr(sweep, "thread_count", lambda work, least, t=threads: t)
        runs.append(sweep.sweep_min_distance_m(x0, u, v0, v1, DT, op, ov, valid,
                                               exact_within_m=within))
    for d, t in runs[1:]:
        assert d.tobytes() == runs[0][0].tobytes() and t.tobytes() == runs[0][1].tobytes()


def test_sweep_passes_equals_numpys_all_over_the_neighbour_slots():
    rng = np.random.default_rng(11)
    margin = rng.normal(0.0, 1e-9, (400, 6))
    margin[::7, 2], margin[::9, 4] = np.nan, -np.inf
    margin[::5, 1] = -sweep.EPS
    assert np.array_equal(sweep.sweep_passes(margin), np.all(margin >= -sweep.EPS, axis=-1))
    assert sweep.sweep_passes(np.zeros((3, 0))).tolist() == [True, True, True]
    assert np.array_equal(sweep.sweep_passes(margin[:, 0]), np.all(margin[:, 0] >= -sweep.EPS))
    assert sweep.sweep_passes(margin[:0]).shape == (0,)


@pytest.mark.parametrize("per_agent", [False, True])
def test_step_displacements_equal_the_generated_formula_in_numpy(per_agent):
    from navproof._generated import formulas

    rng = np.random.default_rng(12)
    n = 500
    v0, v1 = rng.normal(0.0, 2.0, (n, 2)), rng.normal(0.0, 2.0, (n, 2))
    v0[::7, 0], v1[::9, 1] = 0.0, -0.0
    v0[::11, 1], v1[::13, 0] = 1e300, np.nan
    v1[::17, 1] = 1e-310
    dt = rng.uniform(1e-4, 0.5, n) if per_agent else 0.1
    half, full, dt_rows = sweep._step_displacements(v0, v1, dt)
    dt_c = np.asarray(dt)[:, None] if per_agent else dt
    with np.errstate(all="ignore"):
        expect_half = formulas.accel_step_displacement(t=0.5 * dt_c, dt=dt_c, v0=v0, v1=v1)
        expect_full = formulas.accel_step_displacement(t=dt_c, dt=dt_c, v0=v0, v1=v1)
    assert half.tobytes() == np.ascontiguousarray(expect_half).tobytes()
    assert full.tobytes() == np.ascontiguousarray(expect_full).tobytes()
    assert dt_rows.tobytes() == np.broadcast_to(np.asarray(dt, float), (n,)).tobytes()


def test_sweep_margin_written_over_its_distances_equals_a_fresh_one():
    rng = np.random.default_rng(13)
    dmin = rng.uniform(0.0, 3.0, (200, 5))
    start, comb = rng.uniform(0.0, 3.0, (200, 5)), rng.uniform(0.5, 2.0, (200, 5))
    valid = rng.random((200, 5)) < 0.7
    fresh = sweep.sweep_margin_m(dmin, start, comb, valid)
    again = dmin.copy()
    assert sweep.sweep_margin_m(again, start, comb, valid, out=again) is again
    assert again.tobytes() == fresh.tobytes()


def test_sweep_margin_broadcasts_only_what_differs():
    rng = np.random.default_rng(15)
    dmin = rng.uniform(0.0, 3.0, (50, 4))
    start, comb = rng.uniform(0.0, 3.0, (50, 1)), 1.25
    valid = rng.random((50, 4)) < 0.7
    full = sweep.sweep_margin_m(dmin, np.broadcast_to(start, dmin.shape).copy(),
                                np.full(dmin.shape, comb), valid)
    assert sweep.sweep_margin_m(dmin, start, comb, valid).tobytes() == full.tobytes()
    assert sweep.sweep_margin_m(dmin, start, comb).tobytes() == sweep.sweep_margin_m(
        dmin, start, comb, np.ones(dmin.shape, bool)).tobytes()


def _first_contact_every_pair(x0, u, v0, v1, op, ov, valid, comb):
    """Each pair's first-contact step fraction with the roots of every valid pair found and
    searched, as :func:`sweep._first_contact` did before it skipped pairs that stay clear."""
    half, full, dt_rows = sweep._step_displacements(v0, v1, DT)
    args = sweep._pairs(x0, u, op, ov)
    pair_curve = sweep._pair_curve.compiled()
    critical = sweep._critical_times.compiled()
    gap_sq = sweep._gap_sq.compiled()
    crit, lo_s, hi_s, sign_s = (np.empty(3) for _ in range(4))
    first = np.ones(valid.shape)
    for i in range(valid.shape[0]):
        for j in range(valid.shape[1]):
            if not valid[i, j]:
                continue
            curve = pair_curve(*args, half, full, dt_rows[i], i, j)
            start = float(np.hypot(curve[0], curve[1]))
            limit = start if start < comb[i, j] else float(comb[i, j])
            limit_sq = limit * limit
            tol_sq = sweep.EPS * (2.0 * limit + sweep.EPS)
            critical(*curve, crit, lo_s, hi_s, sign_s)
            taus = sorted(1.0 if c != c else float(c) for c in crit)
            prev = 0.0
            for k in range(4):
                nxt = taus[k] if k < 3 else 1.0
                if (gap_sq(*curve, limit_sq, prev) >= -tol_sq
                        and gap_sq(*curve, limit_sq, nxt) < -tol_sq and nxt > prev):
                    lo, hi = prev, nxt
                    for _ in range(sweep.BISECTION_STEPS):
                        mid = 0.5 * (lo + hi)
                        if gap_sq(*curve, limit_sq, mid) < 0.0:
                            hi = mid
                        else:
                            lo = mid
                    first[i, j] = lo
                    break
                prev = max(prev, nxt)
    return first


@pytest.mark.parametrize("scale", [1.0, 1e-120, 1e-95, 1e95, 1e120])
def test_first_contact_skips_only_pairs_whose_roots_find_nothing(scale):
    # neighbours placed about |B| + |A| beyond the combined radius, within a few times the skip
    # slack on either side, plus overlapping, coincident, resting and non-finite pairs: every
    # pair's fraction must be, to the bit, what searching its roots gives
    rng = np.random.default_rng(21)
    n, j = 300, 6
    x0 = rng.normal(size=(n, 2)) * scale
    u = rng.normal(size=(n, 2)) * 0.3 * scale
    v0, v1 = rng.normal(size=(n, 2)) * scale, rng.normal(size=(n, 2)) * scale
    ov = rng.normal(size=(n, j, 2)) * scale
    comb = rng.uniform(0.2, 2.0, (n, j)) * scale
    v1[::31, 1] = np.nan
    half, full, _ = sweep._step_displacements(v0, v1, DT)
    carry = (u[:, None, :] - ov) * DT
    reach = (np.hypot(*np.moveaxis(4.0 * half[:, None] + carry - full[:, None], -1, 0))
             + np.hypot(*np.moveaxis(2.0 * full[:, None] - 4.0 * half[:, None], -1, 0)))
    rel = rng.choice([-0.4, -0.2, -1e-8, -1e-9, 0.0, 1e-9, 2e-9, 1e-8, 1e-3, 0.5], (n, j))
    gap = comb + reach + rel * (comb + 2.0 * reach)
    angle = rng.uniform(0.0, 2.0 * np.pi, (n, j))
    op = x0[:, None, :] - gap[..., None] * np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    op[::13, 0] = x0[::13]
    ov[::17, 1] = u[::17]
    comb[::19, 2] = 0.0
    comb[::23, 3] = np.nan
    op[::29, 4, 0] = np.inf
    valid = rng.random((n, j)) < 0.95
    first = np.empty(valid.shape)
    sweep._first_contact(*sweep._pairs(x0, u, op, ov), half, full, np.full(n, DT), valid,
                         np.ascontiguousarray(comb), first)
    expect = _first_contact_every_pair(x0, u, v0, v1, op, ov, valid, comb)
    assert first.tobytes() == expect.tobytes()
    clear = sweep._clear_of_limit.compiled()
    args = sweep._pairs(x0, u, op, ov)
    skipped = 0
    for i, k in np.argwhere(valid):
        curve = sweep._pair_curve(*args, half, full, DT, i, k)
        start = float(np.hypot(curve[0], curve[1]))
        skipped += clear(start, *curve[2:], start if start < comb[i, k] else comb[i, k])
    # beyond the decided limits (a squared distance that could underflow or overflow) nothing
    # is skipped; tiny scales meet no contact (the EPS tolerance is larger than the radii)
    assert skipped > 600 if 1e-100 < scale < 1e100 else skipped == 0
    assert (expect < 1.0).sum() > 100 if scale >= 1.0 else True


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_pair_margins_equal_the_margin_rule_on_the_banded_distances(monkeypatch, threads):
    # one loop applying the margin rule as it goes gives, to the bit, the margins of the
    # distances exact within the band, their times and every row's verdict
    monkeypatch.setattr(sweep, "thread_count", lambda work, least: threads)
    x0, u, v0, v1, op, ov, valid = _random_pairs(31, n=2500, j=7)
    rng = np.random.default_rng(32)
    comb = rng.uniform(0.05, 1.2, valid.shape)
    start = np.hypot(*np.moveaxis(x0[:, None, :] - op, -1, 0))
    start[::11, 3] = comb[::11, 3]
    start[::13, 1] = np.nan
    comb[::17, 2] = np.inf
    op[::19, 4, 1] = np.nan
    v1[::23, 0] = -0.0
    band = 0.3
    for times in (False, True):
        margin, t_min, passes = sweep.pair_margins_m(x0, u, v0, v1, DT, op, ov, valid, start,
                                                     comb, band, times=times)
        dmin, t_expect = sweep.sweep_min_distance_m(x0, u, v0, v1, DT, op, ov, valid,
                                                    exact_within_m=comb + band)
        expect = sweep.sweep_margin_m(dmin, start, comb, valid)
        assert margin.tobytes() == expect.tobytes()
        assert np.array_equal(passes, sweep.sweep_passes(expect))
        assert (t_min is None) if not times else t_min.tobytes() == t_expect.tobytes()
    # pairs solved exactly (a minimum after the start) and pairs beyond the band, rows that
    # pass and rows that fail
    assert (t_expect > 0.0).sum() > 1000 and (dmin > comb + band).sum() > 1000
    assert (~passes).sum() > 100 and passes.sum() > 100
    empty = sweep.pair_margins_m(x0, u, v0, v1, DT, op[:, :0], ov[:, :0], valid[:, :0],
                                 start[:, :0], comb[:, :0], band)
    assert empty[0].shape == (2500, 0) and empty[2].all()


@pytest.mark.parametrize("rows_of", ["some", "every", "repeated", "none"])
def test_gathered_pair_margins_equal_pair_margins_of_the_gathered_rows(rows_of):
    # the compiled gather of a few rows (their sweep end velocities v1 + alpha dt and their
    # displacements included) gives, to the bit, pair_margins_m of numpy's gather of them
    x0, u, v0, v1, op, ov, valid = _random_pairs(41, n=900, j=5)
    n = x0.shape[0]
    rng = np.random.default_rng(42)
    comb = rng.uniform(0.05, 1.2, valid.shape)
    start = np.hypot(*np.moveaxis(x0[:, None, :] - op, -1, 0))
    start[::13, 1] = np.nan
    comb[::17, 2] = np.inf
    op[::19, 4, 1] = np.nan
    alpha = np.where(rng.random((n, 1)) < 0.5, 0.0, rng.normal(size=(n, 2)))
    alpha[::7] = -0.0
    dt = rng.choice([0.1, 0.05, 1 / 30], n)
    rows = {"some": np.sort(rng.choice(n, 40, replace=False)), "every": np.arange(n),
            "repeated": np.array([5, 5, 0, 899, 3]), "none": np.zeros(0, np.int64)}[rows_of]
    v_end = v1[: rows.size].copy()
    v_end[::3, 0] = -0.0
    v_end[::5, 1] = 0.0
    margin, passes = sweep.gathered_pair_margins_m(rows, x0, u, v0, v_end, alpha, dt, op, ov,
                                                   valid, start, comb, 0.3)
    expect, _, expect_passes = sweep.pair_margins_m(
        x0[rows], u[rows], v0[rows], v_end + alpha[rows] * dt[rows].reshape(-1, 1), dt[rows],
        op[rows], ov[rows], valid[rows], start[rows], comb[rows], 0.3)
    assert margin.tobytes() == expect.tobytes()
    assert passes.tobytes() == expect_passes.tobytes()
