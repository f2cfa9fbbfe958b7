"""The independent check's compiled passes equal the numpy expressions they replaced, bit for
bit, on random inputs with zeros of both signs, NaN, inf, tiny and huge values (a NaN is
compared as NaN: the compiler may move a negation across a product, which changes no number
but a NaN's sign bit). Claim: C4, C1, B5, W1, V1, O2, T4."""

from __future__ import annotations

import numpy as np
import pytest

from navproof.world import independent_check as ic

SPECIALS = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-300, -1e-300, 1e300, 0.1, -2.5])


def _random(rng: np.random.Generator, shape: tuple[int, ...], special: float = 0.05
            ) -> np.ndarray:
    """Normal values (m, m/s) with a share ``special`` of edge cases."""
    values = rng.normal(0.0, 2.0, shape)
    pick = rng.random(shape) < special
    values[pick] = rng.choice(SPECIALS, int(pick.sum()))
    return values


def _same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    """Equal bit for bit where ``want`` is a number, NaN where it is NaN."""
    nan = np.isnan(want)
    return (np.array_equal(np.isnan(got), nan)
            and got[~nan].tobytes() == want[~nan].tobytes())


def _numpy_verdicts(dt, coarse, committed, commit, split, second, second_commit, pivot,
                    pivot_v, pivot_a, omega, handoff, cap, slope_factor, end_position,
                    end_velocity, corridor, patch, platform, obstacle, agent):
    """The end of the check as numpy computed it before the compiled pass."""
    end = coarse[:, -1]
    full = commit >= dt
    v_rel = np.where(full[:, None], committed, 0.0)
    if split is not None:
        was_split = np.isfinite(split)
        second_full = second_commit >= dt - np.minimum(split, dt)
        v_rel = np.where(was_split[:, None], np.where(second_full[:, None], second, 0.0), v_rel)
    centre = pivot + pivot_v * dt + 0.5 * pivot_a * dt**2
    arm = end - centre
    carry = pivot_v + pivot_a * dt + omega[:, None] * np.stack([-arm[:, 1], arm[:, 0]], axis=1)
    c, s = np.cos(omega * dt), np.sin(omega * dt)
    v_world = carry + np.stack([c * v_rel[:, 0] - s * v_rel[:, 1],
                                s * v_rel[:, 0] + c * v_rel[:, 1]], axis=-1)
    rel_excess = np.hypot(*v_rel.T) - cap
    world_excess = np.hypot(*end_velocity.T) - (cap + np.hypot(*carry.T))
    speed = np.maximum(rel_excess, world_excess)
    speed = np.where(handoff, world_excess, speed)
    drift_m = np.hypot(*(end - end_position).T)
    drift_mps = np.where(handoff, 0.0, np.hypot(*(v_world - end_velocity).T))
    sloped = slope_factor > 1.0
    margins = {
        "C4": (corridor, ic.TOLERANCE_M), "C1": (patch, ic.TOLERANCE_M),
        "B5": (np.minimum(platform, obstacle), ic.TOLERANCE_M), "W1": (agent, ic.TOLERANCE_M),
        "V1": (np.where(sloped, -speed, np.inf), ic.SPEED_TOLERANCE_MPS),
        "O2": (np.where(sloped, np.inf, -speed), ic.SPEED_TOLERANCE_MPS),
        "T4": (np.minimum(-drift_m, -drift_mps), ic.TOLERANCE_M),
    }
    n = corridor.shape[0]
    claim = np.full(n, "", dtype="<U2")
    margin = np.full(n, np.inf)
    for cid in reversed(ic.CLAIM_ORDER):
        value, slack = margins[cid]
        bad = value < -slack
        claim[bad] = cid
        margin[bad] = value[bad]
    wall = np.minimum(np.minimum(corridor, patch), platform)
    return wall, speed, claim, margin


@pytest.mark.parametrize("rotating", [False, True], ids=["still", "rotating"])
@pytest.mark.parametrize("split", [False, True], ids=["whole", "split"])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_verdicts_equal_the_numpy_expressions_bit_for_bit(rotating, split):
    rng = np.random.default_rng(11 + 2 * rotating + split)
    n, dt = 4000, 0.1
    vec, col = (lambda: _random(rng, (n, 2))), (lambda: _random(rng, (n,)))
    coarse = _random(rng, (n, ic.SAMPLES + 1, 2))
    commit = np.where(rng.random(n) < 0.7, dt, rng.uniform(0.0, dt, n))
    omega = col() * 0.1 if rotating else np.where(rng.random(n) < 0.5, 0.0, -0.0)
    split_s = np.where(rng.random(n) < 0.5, rng.uniform(0.0, 0.12, n), np.inf)
    split_s[rng.random(n) < 0.02] = np.nan
    second_commit = np.where(rng.random(n) < 0.5, dt, rng.uniform(0.0, dt, n))
    handoff = rng.random(n) < 0.1
    slope = np.where(rng.random(n) < 0.3, 2.0, 1.0)
    clearances = [np.abs(col()) * np.where(rng.random(n) < 0.1, -1.0, 1.0) for _ in range(5)]
    inputs = dict(committed=vec(), commit=commit, pivot=vec(), pivot_v=vec(), pivot_a=vec(),
                  omega=omega, handoff=handoff, cap=np.abs(col()), slope_factor=slope,
                  end_position=vec(), end_velocity=vec())
    second = vec()
    # end positions within about the tolerance of the curve's end (drifts either side of it)
    near = rng.random(n) < 0.3
    offset = rng.normal(0.0, 1.0, (n, 2))
    offset *= (ic.TOLERANCE_M * rng.choice([0.0, 0.5, 1.0 - 1e-12, 1.0, 1.0 + 1e-12, 2.0], n)
               / np.maximum(np.hypot(*offset.T), 1e-300))[:, None]
    inputs["end_position"][near] = coarse[near, -1] + offset[near]
    # bodies on shared supports (runs of equal carries) whose end velocity is, or nearly is,
    # their relative velocity (zeros of either sign)
    runs = np.repeat(np.arange(n // 8), 8)
    shared = rng.random(n) < 0.5
    for name in ("pivot_v", "pivot_a"):
        inputs[name][shared] = inputs[name][runs][shared]
    same = rng.random(n) < 0.4
    inputs["end_velocity"][same] = inputs["committed"][same] * rng.choice(
        [1.0, -1.0, 1.0 + 1e-15], (int(same.sum()), 1))
    inputs["end_velocity"][same & (rng.random(n) < 0.1)] = np.array([0.0, -0.0])
    want = _numpy_verdicts(dt, coarse, split=split_s if split else None, second=second,
                           second_commit=second_commit, corridor=clearances[0],
                           patch=clearances[1], platform=clearances[2], obstacle=clearances[3],
                           agent=clearances[4], **inputs)
    none = np.zeros(0)
    cos, sin = ((np.cos(omega * dt), np.sin(omega * dt)) if rotating else (none, none))
    wall, speed, margin = np.empty(n), np.empty(n), np.empty(n)
    claim = np.empty(n, np.int64)
    ic._verdicts(dt, dt**2, coarse, inputs["committed"], commit,
                 split_s if split else none, second if split else np.zeros((0, 2)),
                 second_commit if split else none, inputs["pivot"], inputs["pivot_v"],
                 inputs["pivot_a"], omega, cos, sin, handoff, inputs["cap"], slope,
                 inputs["end_position"], inputs["end_velocity"], *clearances, 0, n, wall, speed,
                 claim, margin)
    assert _same_bits(wall, want[0])
    assert _same_bits(speed, want[1])
    assert np.array_equal(ic._CLAIM_NAMES[claim], want[2])
    assert _same_bits(margin, want[3])


def _polygons() -> list[np.ndarray]:
    """Convex, concave, degenerate and tiny-edged polygons, a segment and a point."""
    rng = np.random.default_rng(7)
    angles = np.sort(rng.uniform(0.0, 2.0 * np.pi, 12))
    star = np.stack([np.cos(angles), np.sin(angles)], axis=1) * rng.uniform(1.0, 4.0, (12, 1))
    return [
        np.array([[-2.0, -2.0], [270.0, -2.0], [270.0, 124.0], [-2.0, 124.0]]),
        np.array([[0.0, 0.0], [3.0, 0.0], [3.0, 1.0], [1.0, 1.0], [1.0, 3.0], [0.0, 3.0]]),
        star + 5.0,
        np.array([[0.0, 0.0], [1e-170, 0.0], [1.0, 1.0]]),
        np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [2.0, 2.0], [0.0, 2.0]]),
        np.array([[0.0, 0.0], [2.0, 1.0]]),
        np.array([[1.0, 1.0]]),
        np.array([[0.0, 0.0], [1e120, 0.0], [0.0, 1e120]]),
        np.array([[0.0, 0.0], [1e60, 0.0], [0.0, 1.0]]),
    ]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_polygon_on_samples_equals_the_distance_at_every_sample_bit_for_bit():
    rng = np.random.default_rng(17)
    polygons = _polygons()
    table = ic.PolygonTable(polygons)
    n, samples = 3000, ic.SAMPLES + 1
    start = rng.uniform(-5.0, 12.0, (n, 1, 2))
    start[: n // 10] = rng.uniform(-3.0, 272.0, (n // 10, 1, 2))
    step = rng.normal(0.0, 0.05, (n, 1, 2)) * rng.choice([0.0, 1.0, 20.0], (n, 1, 1))
    coarse = start + step * np.arange(samples)[None, :, None]
    # on vertices and edges exactly, and samples that are not finite or huge
    coarse[0, :] = [0.0, 0.0]
    coarse[1, :, 1] = 0.0
    coarse[2, 3] = [np.nan, 1.0]
    coarse[3, 5] = [np.inf, 0.5]
    coarse[4, :] = [1e150, -1e150]
    coarse[5, 4] = [-0.0, -0.0]
    for g in range(len(polygons)):
        want = table.signed_distance_m(coarse.reshape(-1, 2))[:, g].reshape(n, samples)
        for i in range(n):
            assert _same_bits(_on_samples(table, g, coarse, i), want[i]), (g, i)


def test_polygon_on_samples_keeps_the_sign_of_samples_moving_about_as_far_as_the_boundary():
    # the samples' box diagonal about the first sample's distance to the boundary: the
    # crossings are counted once only when the boundary lies beyond the diagonal
    rng = np.random.default_rng(19)
    polygons = _polygons()
    table = ic.PolygonTable(polygons)
    n, samples = 2000, ic.SAMPLES + 1
    first = rng.uniform(-5.0, 12.0, (n, 2))
    heading = rng.normal(0.0, 1.0, (n, 2))
    heading /= np.hypot(*heading.T)[:, None]
    factor = rng.choice([0.5, 1.0 - 1e-9, 1.0, 1.0 + 1e-9, 1.5, 2.0], n)
    for g in range(len(polygons)):
        d0 = np.abs(table.signed_distance_m(first)[:, g])
        step = heading * (factor * d0 / (samples - 1))[:, None]
        coarse = first[:, None] + step[:, None] * np.arange(samples)[None, :, None]
        want = table.signed_distance_m(coarse.reshape(-1, 2))[:, g].reshape(n, samples)
        for i in range(n):
            assert _same_bits(_on_samples(table, g, coarse, i), want[i]), (g, i)


def _refined(vals: np.ndarray, half_lip_h: float) -> bool:
    """Whether the certified minimum bisects an interval of the grid: the bound of any
    interval below the refinement level of the least sample (NaN wins the least, as numpy's
    minimum)."""
    best = np.minimum.reduce(vals)
    level = -ic.TOLERANCE_M if best >= -ic.TOLERANCE_M else best - ic.TOLERANCE_M
    return bool(np.any(0.5 * (vals[:-1] + vals[1:]) - half_lip_h < level))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_polygon_least_when_settled_equals_the_least_sample_bit_for_bit():
    # settled only where no interval is bisected, with the least sampled clearance to the bit;
    # bodies deep inside, outside, across the boundary, on it, far and not finite
    rng = np.random.default_rng(23)
    polygons = _polygons()
    table = ic.PolygonTable(polygons)
    n, samples = 3000, ic.SAMPLES + 1
    start = rng.uniform(-5.0, 12.0, (n, 1, 2))
    start[: n // 10] = rng.uniform(-3.0, 272.0, (n // 10, 1, 2))
    step = rng.normal(0.0, 0.05, (n, 1, 2)) * rng.choice([0.0, 1.0, 20.0], (n, 1, 1))
    coarse = start + step * np.arange(samples)[None, :, None]
    coarse[0, :] = [0.0, 0.0]
    coarse[1, :, 1] = 0.0
    coarse[2, 3] = [np.nan, 1.0]
    coarse[3, 5] = [np.inf, 0.5]
    coarse[4, :] = [1e150, -1e150]
    coarse[5, 4] = [-0.0, -0.0]
    half_lip_h = rng.choice([0.0, 1e-9, 1e-3, 0.05, 1.0, 100.0, np.inf, np.nan], n)
    settled_count = 0
    for g in range(len(polygons)):
        want = -table.signed_distance_m(coarse.reshape(-1, 2))[:, g].reshape(n, samples)
        for i in range(n):
            sq, inside = _parts_on_samples(table, g, coarse, i)
            least, settled = ic._polygon_least_when_settled(sq, inside, half_lip_h[i])
            if settled:
                settled_count += 1
                assert not _refined(want[i], half_lip_h[i]), (g, i)
                assert np.float64(least).tobytes() == np.minimum.reduce(want[i]).tobytes(), (g, i)
    assert settled_count > n


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_pair_on_samples_equals_every_samples_hypot_bit_for_bit():
    # bodies that move alike (equal differences over runs of samples, zeros of both signs),
    # apart, and not finite; settled only where no interval is bisected
    rng = np.random.default_rng(29)
    n, samples = 4000, ic.SAMPLES + 1
    coarse = _random(rng, (n, samples, 2))
    alike = rng.random(n) < 0.5
    coarse[alike] = coarse[alike][:, :1] + rng.choice([0.0, 1e-3], (int(alike.sum()), 1, 1)) \
        * np.arange(samples)[None, :, None]
    coarse[::7, :, 1] = rng.choice([0.0, -0.0], (len(range(0, n, 7)), samples))
    first, second = rng.integers(0, n, n), rng.integers(0, n, n)
    off = rng.choice([0.0, 0.8, 1.5, np.inf, np.nan], n)
    half_lip_h = rng.choice([0.0, 1e-9, 1e-3, 0.05, 1.0, np.inf, np.nan], n)
    gap = np.empty(samples)
    settled_count = 0
    for p in range(n):
        i, j = first[p], second[p]
        want = np.hypot(coarse[i, :, 0] - coarse[j, :, 0], coarse[i, :, 1] - coarse[j, :, 1]) \
            - off[p]
        least, settled = ic._pair_on_samples(coarse, i, j, off[p], gap, half_lip_h[p])
        assert _same_bits(gap, want), p
        if settled:
            settled_count += 1
            assert not _refined(want, half_lip_h[p]), p
            assert np.float64(least).tobytes() == np.minimum.reduce(want).tobytes(), p
    assert settled_count > n // 4


def _parts_on_samples(table: ic.PolygonTable, g: int, coarse: np.ndarray, i: int
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Body ``i``'s squared distances and inside flags against polygon ``g`` at its samples."""
    listed = np.empty(2 * max(np.diff(table.first)), np.int64)
    sq, inside = np.empty(coarse.shape[1]), np.empty(coarse.shape[1], bool)
    ic._polygon_on_samples(table.arrays, g, coarse, i, listed, sq, inside)
    return sq, inside


def _on_samples(table: ic.PolygonTable, g: int, coarse: np.ndarray, i: int) -> np.ndarray:
    """Body ``i``'s signed distances to polygon ``g`` at its samples, from their parts."""
    sq, inside = _parts_on_samples(table, g, coarse, i)
    dist = np.empty(coarse.shape[1])
    ic._signed_from_squares(sq, inside, dist)
    return dist


def test_curves_linear_flag_equals_the_numpy_expression():
    # linear in time: no handoff, no rotation, committed for the whole step, not split
    rng = np.random.default_rng(41)
    n, dt = 500, 0.1
    vec = rng.normal(0.0, 1.0, (n, 2))
    omega = rng.choice([0.0, -0.0, 0.3, np.nan], n)
    commit = rng.choice([dt, 0.05, np.nan, np.inf], n)
    split = rng.choice([np.inf, 0.05, np.nan, -np.inf], n)
    handoff = np.flatnonzero(rng.random(n) < 0.2)
    mo = ic.StepMotion(0.0, dt, vec, vec, vec, commit, vec, vec, vec, omega, np.full(n, -1),
                       np.full(n, -1), np.ones(n), np.ones(n), handoff, np.full(n, 0.3), vec,
                       vec, None, (), (), np.zeros(0, bool), (), split, vec, np.full(n, dt))
    cur = ic._Curves(mo, np.linspace(0.0, dt, ic.SAMPLES + 1))
    free = np.ones(n, bool)
    free[handoff] = False
    want = free & (omega == 0.0) & (commit >= dt) & ~np.isfinite(split)
    assert np.array_equal(cur.linear, want)


@pytest.mark.parametrize("dt", [0.1, np.inf])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_curves_speed_bounds_equal_the_numpy_expressions_bit_for_bit(dt):
    # bodies on shared supports (runs of equal pivot velocities and accelerations, zeros of
    # both signs), rotating or not, with specials and huge arms
    rng = np.random.default_rng(47)
    n = 3000
    runs = np.repeat(np.arange(n // 10), 10)
    pivot_v, pivot_a = _random(rng, (n // 10, 2))[runs], _random(rng, (n // 10, 2))[runs]
    pivot_v[rng.random(n) < 0.05] *= -0.0
    start, pivot = _random(rng, (n, 2)), _random(rng, (n, 2))
    v0, v1, end = _random(rng, (n, 2)), _random(rng, (n, 2)), _random(rng, (n, 2))
    omega = rng.choice([0.0, -0.0, 0.3, np.nan, np.inf], n, p=[0.4, 0.2, 0.2, 0.1, 0.1])
    handoff = np.flatnonzero(rng.random(n) < 0.1)
    mo = ic.StepMotion(0.0, dt, start, v0, v1, np.full(n, dt), pivot, pivot_v, pivot_a, omega,
                       np.full(n, -1), np.full(n, -1), np.ones(n), np.ones(n), handoff,
                       np.full(n, 0.3), end, v1, None, (), (), np.zeros(0, bool), ())
    cur = ic._Curves(mo, np.linspace(0.0, 0.1, ic.SAMPLES + 1))
    rel = np.maximum(np.hypot(*v0.T), np.hypot(*v1.T))
    arm = np.hypot(*(start - pivot).T) + dt * rel
    speed = np.hypot(*pivot_v.T) + np.hypot(*pivot_a.T) * dt + np.abs(omega) * arm + rel
    straight = np.hypot(*(end - start).T) / dt
    speed[handoff], rel[handoff] = straight[handoff], straight[handoff]
    assert _same_bits(cur.speed_bound_mps, speed)
    assert _same_bits(cur.rel_speed_bound_mps, rel)


def _numpy_hash_table(x, reach, table_per_body):
    """The spatial hash as numpy computed it before the compiled pass (finite inputs)."""
    n = x.shape[0]
    cell_m = max(2.0 * float(np.max(reach)), 1e-9)
    cell = np.floor((x - x.min(axis=0)) / cell_m).astype(np.int64)
    width = int(cell[:, 1].max()) + 3
    key = (cell[:, 0] + 1) * width + (cell[:, 1] + 1)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    offsets = np.array([dx * width + dy for dx in (-1, 0, 1) for dy in (-1, 0, 1)], np.int64)
    cells = int(sorted_key[-1]) + width + 2
    if cells <= table_per_body * n:
        start = np.searchsorted(sorted_key, np.arange(cells + 1)).astype(np.int64)
    else:
        start = np.zeros(0, np.int64)
    return order, sorted_key, x[order], reach[order], offsets, start


@pytest.mark.parametrize("table_per_body", [64, 0])
def test_hash_table_equals_the_numpy_expressions(table_per_body):
    # dense and sparse crowds, coincident bodies, signed zeros, zero and tiny reaches
    rng = np.random.default_rng(43)
    hashed = 0
    for trial in range(200):
        n = int(rng.integers(1, 200))
        scale = 10.0 ** rng.uniform(-3, 4)
        x = rng.uniform(-scale, scale, (n, 2))
        if trial % 3 == 0:
            x = np.concatenate([x, x[: n // 2 + 1] + 1e3 * scale])
        if trial % 5 == 0:
            x[rng.integers(0, x.shape[0], 3)] = [-0.0, 0.0]
        reach = rng.uniform(0.0, 0.1, x.shape[0]) * scale * rng.choice([0.0, 1e-6, 1.0])
        cells = np.floor((x.max(axis=0) - x.min(axis=0)) / max(2.0 * reach.max(), 1e-9))
        if (cells[0] + 2.0) * (cells[1] + 4.0) >= ic.HASH_KEYS_MAX:
            continue  # keys beyond int64: every body in one cell (the next test)
        hashed += 1
        m = x.shape[0]
        order, sorted_key = np.empty(m, np.int64), np.empty(m, np.int64)
        sorted_x, sorted_reach, offsets = np.empty((m, 2)), np.empty(m), np.empty(9, np.int64)
        rank = np.empty(m, np.int64)
        start = ic._hash_table(x, reach, table_per_body, order, sorted_key, sorted_x,
                               sorted_reach, offsets, rank)
        want = _numpy_hash_table(x, reach, table_per_body)
        for got, expected in zip((order, sorted_key, sorted_x, sorted_reach, offsets, start),
                                 want, strict=True):
            assert got.tobytes() == expected.tobytes(), trial
        assert np.array_equal(order[rank], np.arange(m))
    assert hashed > 100


def test_hash_table_puts_every_body_in_one_cell_when_a_value_is_not_finite():
    # every pair is then measured: the pairs within reach are those of the finite bodies
    rng = np.random.default_rng(47)
    for bad in ([np.nan, 0.0], [np.inf, 1.0], [0.0, -np.inf]):
        x = rng.uniform(-5.0, 5.0, (40, 2))
        reach = rng.uniform(0.0, 1.0, 40)
        x[7] = bad
        i, j = ic.candidate_pairs(x, reach)
        with np.errstate(invalid="ignore"):
            d = np.hypot(*(x[:, None] - x[None]).transpose(2, 0, 1))
        want = {(a, b) for a, b in zip(*np.nonzero(d <= reach[:, None] + reach[None]),
                                       strict=True) if a < b}
        assert set(zip(i.tolist(), j.tolist(), strict=True)) == want
    reach[3] = np.nan
    x[7] = [0.5, 0.5]
    i, j = ic.candidate_pairs(x, reach)
    assert 3 not in set(i.tolist()) | set(j.tolist())


def _cell_by_cell_pairs(x, reach, table_per_body):
    """The pairs of the spatial hash found cell by cell: every body i, each of the 3 x 3 cells
    around it in ``offsets`` order, that cell's bodies in sorted order, kept when i < j and
    within reach (numpy's hypot)."""
    order, sorted_key, _, _, offsets, _ = _numpy_hash_table(x, reach, table_per_body)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    first, second = [], []
    for i in range(x.shape[0]):
        for offset in offsets:
            for q in np.flatnonzero(sorted_key == sorted_key[rank[i]] + offset):
                j = int(order[q])
                if i < j and np.hypot(*(x[i] - x[j])) <= reach[i] + reach[j]:
                    first.append(i)
                    second.append(j)
    return np.array(first, np.int64), np.array(second, np.int64)


@pytest.mark.parametrize("table_per_body", [64, 0])
def test_hash_pairs_are_found_cell_by_cell_in_order(table_per_body):
    # each column of three cells is read as one run of sorted bodies: the same pairs in the
    # same order as cell after cell, with the cell table and with binary search, in dense,
    # clustered and coincident crowds, cut into pieces at any body
    rng = np.random.default_rng(61)
    size = ic.CELL_TABLE_PER_BODY
    try:
        ic.CELL_TABLE_PER_BODY = table_per_body
        for trial in range(60):
            n = int(rng.integers(2, 150))
            x = rng.uniform(-10.0, 10.0, (n, 2))
            if trial % 3 == 0:
                x[: n // 2] += 300.0
            if trial % 4 == 0:
                x[rng.integers(0, n, 4)] = [1.0, -0.0]
            reach = rng.uniform(0.0, 2.0, n) * rng.choice([0.1, 1.0, 5.0])
            got = ic.candidate_pairs(x, reach)
            want = _cell_by_cell_pairs(x, reach, table_per_body)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]), trial
            order, sorted_key, rank = (np.empty(n, np.int64) for _ in range(3))
            sorted_x, sorted_reach, offsets = np.empty((n, 2)), np.empty(n), np.empty(9, np.int64)
            start = ic._hash_table(x, reach, table_per_body, order, sorted_key, sorted_x,
                                   sorted_reach, offsets, rank)
            cuts = np.unique(np.concatenate([[0, n], rng.integers(0, n + 1, 3)]))
            pieces = []
            for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
                run = np.empty((hi - lo, 3, 2), np.int64)
                room = ic._hash_runs(sorted_key, offsets, start, rank, lo, hi, run)
                pairs = np.empty((2, room), np.int64)
                found = ic._hash_pairs(order, sorted_x, sorted_reach, rank, run, lo, hi, pairs)
                pieces.append(pairs[:, :found])
            cut = np.concatenate(pieces, axis=1)
            assert np.array_equal(cut, np.stack(want)), trial
    finally:
        ic.CELL_TABLE_PER_BODY = size


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_sample_grid_is_numpys_linspace_of_each_step():
    for dt in [0.1, 0.05, 1.0 / 3.0, 0.0, -0.0, np.nan, np.float64(0.1), np.float32(0.1),
               1e-300, np.inf, 0.1]:
        grid = ic._sample_grid(dt)
        want = np.linspace(0.0, dt, ic.SAMPLES + 1)
        assert grid.dtype == want.dtype and grid.tobytes() == want.tobytes(), dt
        assert ic._sample_grid(dt) is grid


def test_scratch_hands_out_one_view_per_shape_into_the_names_storage():
    first = ic._scratch("test_scratch", (3, 4))
    assert first.shape == (3, 4) and first.dtype == np.float64 and first.flags.c_contiguous
    assert ic._scratch("test_scratch", (3, 4)) is first
    smaller = ic._scratch("test_scratch", (5,))
    first[...] = np.arange(12.0).reshape(3, 4)
    assert np.array_equal(smaller, np.arange(5.0))
    # a larger array or another dtype replaces the storage; no view of the old one is handed out
    grown = ic._scratch("test_scratch", (4, 4))
    assert not np.shares_memory(grown, first)
    again = ic._scratch("test_scratch", (3, 4))
    assert again is not first and np.shares_memory(again, grown)
    flags = ic._scratch("test_scratch", (2,), np.bool_)
    assert flags.dtype == np.bool_ and not np.shares_memory(flags, grown)
    assert ic._scratch("test_scratch", (3, 4)) is not again
    assert ic._scratch("test_scratch", (3, 4)).dtype == np.float64
    # past the kept views' bound the views are forgotten, the storage kept
    for size in range(ic._SCRATCH_VIEWS_MAX + 1):
        view = ic._scratch("test_scratch_many", (size + 1,))
    assert view.shape == (ic._SCRATCH_VIEWS_MAX + 1,)
    assert np.shares_memory(ic._scratch("test_scratch_many", (1,)), view)


def test_scratch_keeps_its_storage_for_a_count_that_grows_a_little():
    first = ic._scratch("test_scratch_room", (100,))
    assert np.shares_memory(ic._scratch("test_scratch_room", (125,)), first)
    assert not np.shares_memory(ic._scratch("test_scratch_room", (126,)), first)


def test_hash_pairs_write_over_their_storage_and_candidate_pairs_keeps_its_own():
    # the check's pairs are views of storage kept per thread, written over by the next hash
    # with the same pairs; candidate_pairs hands out arrays of its own, which no later hash
    # changes
    rng = np.random.default_rng(73)
    x, reach = rng.uniform(0.0, 10.0, (300, 2)), np.full(300, 0.4)
    hashed = ic._SpatialHash(x, reach)
    hashed.build()
    first, second = hashed.pairs()
    want = first.copy(), second.copy()
    assert want[0].size
    again = hashed.pairs()
    assert np.shares_memory(again[0], first)
    assert np.array_equal(again[0], want[0]) and np.array_equal(again[1], want[1])
    own = ic.candidate_pairs(x, reach)
    assert np.array_equal(own[0], want[0]) and np.array_equal(own[1], want[1])
    ic.candidate_pairs(rng.uniform(0.0, 5.0, (300, 2)), reach)
    assert np.array_equal(own[0], want[0]) and np.array_equal(own[1], want[1])


@pytest.mark.parametrize("flags", [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_curves_positions_equal_the_world_point_at_every_sample_bit_for_bit(flags):
    # runs of bodies on shared supports (zeros of both signs, NaN), commit times before, at and
    # past the step, NaN; a step split, rotating or with handoff bodies takes the general path
    rng = np.random.default_rng(53)
    n, dt = 2000, 0.1
    runs = np.repeat(np.arange(n // 10), 10)
    pivot_v, pivot_a = _random(rng, (n // 10, 2))[runs], _random(rng, (n // 10, 2))[runs]
    pivot_v[rng.random(n) < 0.05] *= -0.0
    pivot_a[rng.random(n) < 0.05] *= -0.0
    start, pivot = _random(rng, (n, 2)), _random(rng, (n, 2))
    v0, v1, end = _random(rng, (n, 2)), _random(rng, (n, 2)), _random(rng, (n, 2))
    commit = rng.choice([dt, 0.05, 0.2, np.nan, np.inf, 0.0], n)
    omega = np.where(rng.random(n) < 0.3, 0.4, 0.0) if flags[1] else np.zeros(n)
    handoff = np.flatnonzero(rng.random(n) < 0.1) if flags[2] else np.zeros(0, np.int64)
    split = (np.where(rng.random(n) < 0.3, 0.05, np.inf), v1[::-1].copy(), np.full(n, dt)) \
        if flags[0] else (None, None, None)
    mo = ic.StepMotion(0.0, dt, start, v0, v1, commit, pivot, pivot_v, pivot_a, omega,
                       np.full(n, -1), np.full(n, -1), np.ones(n), np.ones(n), handoff,
                       np.full(n, 0.3), end, v1, None, (), (), np.zeros(0, bool), (), *split)
    grid = np.linspace(0.0, dt, ic.SAMPLES + 1)
    cur = ic._Curves(mo, grid)
    want = np.array([[ic._world_at(cur.curve, cur.options, i, t) for t in grid]
                     for i in range(n)])
    assert _same_bits(cur.coarse, want)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_polygon_least_inside_equals_the_least_sample_bit_for_bit():
    # where it decides, the least sampled clearance of every sample and edge, settled as the
    # whole evaluation settles it: bodies deep inside, near corners and walls, across the
    # boundary, outside, moving about as far as the boundary, not finite
    rng = np.random.default_rng(59)
    polygons = _polygons()
    table = ic.PolygonTable(polygons)
    n, samples = 3000, ic.SAMPLES + 1
    start = rng.uniform(-5.0, 12.0, (n, 1, 2))
    start[: n // 3] = rng.uniform(-3.0, 272.0, (n // 3, 1, 2))
    start[n // 3: n // 2] = rng.choice([-2.0, 0.0, 2.0, 3.0, 124.0, 270.0], (n // 6, 1, 2)) \
        + rng.normal(0.0, 0.3, (n // 6, 1, 2))
    step = rng.normal(0.0, 0.05, (n, 1, 2)) * rng.choice([0.0, 1.0, 20.0, 200.0], (n, 1, 1))
    coarse = start + step * np.arange(samples)[None, :, None]
    coarse[0, :] = [0.0, 0.0]
    coarse[1, :, 1] = 0.0
    coarse[2, 3] = [np.nan, 1.0]
    coarse[3, 5] = [np.inf, 0.5]
    coarse[4, :] = [1e150, -1e150]
    coarse[5, 4] = [-0.0, -0.0]
    half_lip_h = rng.choice([0.0, 1e-9, 1e-3, 0.05, 1.0, 100.0, np.inf, np.nan], n)
    decided = 0
    for g in range(len(polygons)):
        want = -table.signed_distance_m(coarse.reshape(-1, 2))[:, g].reshape(n, samples)
        for i in range(n):
            least, settled = ic._polygon_least_inside(table.arrays, g, coarse, i, half_lip_h[i])
            if settled:
                decided += 1
                assert np.all(want[i] > 0.0), (g, i)
                assert not _refined(want[i], half_lip_h[i]), (g, i)
                assert np.float64(least).tobytes() == np.minimum.reduce(want[i]).tobytes(), (g, i)
                sq, inside = _parts_on_samples(table, g, coarse, i)
                assert ic._polygon_least_when_settled(sq, inside, half_lip_h[i]) == (least, True)
    assert decided > n // 6


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_pair_speed_bound_is_at_least_the_larger_relative_speed():
    # tiny (subnormal squares), huge (overflowing squares), zeros of both signs, not finite
    rng = np.random.default_rng(59)
    scale = rng.choice([1e-320, 1e-300, 1e-160, 1e-141, 1e-140, 1e-139, 1e-3, 1.0, 1e150,
                        1e154, 1e200, 1e300], (20000, 4))
    comp = _random(rng, (20000, 4), special=0.1) * scale
    want = np.maximum(np.hypot(comp[:, 0], comp[:, 1]), np.hypot(comp[:, 2], comp[:, 3]))
    got = np.array([ic._pair_speed_bound(*row) for row in comp])
    number = ~np.isnan(got)
    assert np.all(np.isnan(got[np.isnan(want)]))
    assert np.all(got[number] >= want[number])
    assert number.sum() > 15000


@pytest.mark.parametrize("dt", [0.1, -0.1])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_pair_min_equals_the_pairs_with_their_exact_lipschitz_constants_bit_for_bit(dt):
    # bodies near contact and overlapping, moving alike and apart, linear or not (commit times
    # within the step), with specials: the pairs the speed bound settles and those it does not
    # end as with the exact constants everywhere (finite speeds: an unbounded constant
    # bisects without end)
    rng = np.random.default_rng(61)
    n = 600
    start = rng.uniform(0.0, 6.0, (n, 2))
    v0, v1 = rng.normal(0.0, 2.0, (n, 2)), rng.normal(0.0, 2.0, (n, 2))
    alike = rng.random(n) < 0.3
    v0[alike], v1[alike] = 0.5, -0.25
    v0[rng.random(n) < 0.02] *= 1e-160
    v1[rng.random(n) < 0.02] *= -0.0
    commit = rng.choice([dt, 0.5 * dt, np.inf], n, p=[0.6, 0.2, 0.2])
    pivot = np.zeros((n, 2))
    zeros, radius = np.zeros((n, 2)), rng.uniform(0.2, 0.4, n)
    mo = ic.StepMotion(0.0, dt, start, v0, v1, commit, pivot, zeros, zeros, np.zeros(n),
                       np.full(n, -1), np.full(n, -1), np.ones(n), np.ones(n),
                       np.zeros(0, np.int64), np.full(n, 1.5), start, v1, None, (), (),
                       np.zeros(0, bool), ())
    grid = np.linspace(0.0, dt, ic.SAMPLES + 1)
    cur = ic._Curves(mo, grid)
    first, second = ic.candidate_pairs(start, radius + 0.5)
    got = ic._pair_min(cur, first, second, radius, grid)

    both = cur.linear[first] & cur.linear[second]
    dv0, dv1 = cur.world_v0_mps[first] - cur.world_v0_mps[second], \
        cur.world_v1_mps[first] - cur.world_v1_mps[second]
    lipschitz = np.where(both, np.maximum(np.hypot(*dv0.T), np.hypot(*dv1.T)),
                         cur.speed_bound_mps[first] + cur.speed_bound_mps[second])
    offset = radius[first] + radius[second]
    items = first.size
    sampled, settled, want = np.empty((items, grid.size)), np.empty(items, bool), \
        np.empty(items)
    args = (ic._PAIR, cur.curve, cur.options, ic._NO_POLYGONS.arrays, first, second, offset,
            lipschitz, cur.coarse, grid)
    ic._sampled_clearances(*args, 0, items, sampled, settled, want)
    ic._certified_mins(*args, sampled, settled, 0, items, want)
    assert _same_bits(got, want)
    if dt > 0.0:
        assert 100 < settled.sum() < items - 20 and both.sum() > items // 2
        assert (both & ~settled).sum() > 20


def test_refinement_of_a_plain_step_equals_the_general_points_bit_for_bit():
    # a step without split, rotation or handoff evaluates its points without those branches;
    # the same step flagged as having a handoff (no body moved by it) takes the general
    # points, which give the same values there: every pair's minimum is the same to the bit
    rng = np.random.default_rng(71)
    n, dt = 300, 0.1
    start = rng.uniform(0.0, 3.0, (n, 2))
    v0, v1 = rng.normal(0.0, 2.0, (n, 2)), rng.normal(0.0, 2.0, (n, 2))
    commit = rng.choice([dt, 0.5 * dt, 0.0], n)
    pivot_v = rng.choice([0.0, 0.3], (n, 1)) * np.ones((1, 2))
    pivot_a = rng.choice([0.0, -1.0], (n, 1)) * np.ones((1, 2))
    mo = ic.StepMotion(0.0, dt, start, v0, v1, commit, np.zeros((n, 2)), pivot_v, pivot_a,
                       np.zeros(n), np.full(n, -1), np.full(n, -1), np.ones(n), np.ones(n),
                       np.zeros(0, np.int64), np.full(n, 0.2), start, v1, None, (), (),
                       np.zeros(0, bool), ())
    grid = np.linspace(0.0, dt, ic.SAMPLES + 1)
    cur = ic._Curves(mo, grid)
    assert not cur.options[1:].any()
    first, second = ic.candidate_pairs(start, np.full(n, 0.6))
    items = first.size
    offset = np.full(items, 0.4)
    lipschitz = cur.speed_bound_mps[first] + cur.speed_bound_mps[second]
    flagged = cur.options.copy()
    flagged[3] = 1.0
    got = {}
    for name, options in (("plain", cur.options), ("general", flagged)):
        args = (ic._PAIR, cur.curve, options, ic._NO_POLYGONS.arrays, first, second, offset,
                lipschitz, cur.coarse, grid)
        sampled, settled, out = np.empty((items, grid.size)), np.empty(items, bool), \
            np.empty(items)
        ic._sampled_clearances(*args, 0, items, sampled, settled, out)
        refined = int((~settled).sum())
        ic._certified_mins(*args, sampled, settled, 0, items, out)
        got[name] = out
    assert refined > 50
    assert _same_bits(got["plain"], got["general"])
    assert (got["plain"] < 0.0).any()


@pytest.mark.parametrize("kind", [ic._CORRIDOR, ic._PATCH, ic._OBSTACLE])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_piece_mins_equal_the_samples_then_the_refinement_bit_for_bit(kind):
    # one call per piece gives what the sampling pass then the refinement pass give, for
    # bodies inside, across and outside the polygons, fast and slow, cut into pieces anywhere
    rng = np.random.default_rng(67)
    n, dt = 500, 0.1
    start = rng.uniform(-3.0, 8.0, (n, 2))
    v0, v1 = rng.normal(0.0, 3.0, (n, 2)), rng.normal(0.0, 3.0, (n, 2))
    commit = rng.choice([dt, 0.5 * dt], n)
    zeros = np.zeros((n, 2))
    mo = ic.StepMotion(0.0, dt, start, v0, v1, commit, zeros, zeros, zeros, np.zeros(n),
                       np.full(n, -1), np.full(n, -1), np.ones(n), np.ones(n),
                       np.zeros(0, np.int64), np.full(n, 1.5), start, v1, None, (), (),
                       np.zeros(0, bool), ())
    grid = np.linspace(0.0, dt, ic.SAMPLES + 1)
    cur = ic._Curves(mo, grid)
    polygons = _polygons()
    table = ic.PolygonTable(polygons)
    other = rng.integers(0, len(polygons), n) if kind == ic._PATCH else np.zeros(n, np.int64)
    offset = rng.uniform(0.0, 0.5, n) if kind == ic._OBSTACLE else np.zeros(n)
    args = (kind, cur.curve, cur.options, table.arrays, np.arange(n), other, offset,
            cur.speed_bound_mps.copy(), cur.coarse, grid)
    sampled, settled = np.empty((n, grid.size)), np.empty(n, bool)
    want = np.empty(n)
    ic._sampled_clearances(*args, 0, n, sampled, settled, want)
    ic._certified_mins(*args, sampled, settled, 0, n, want)
    got = np.empty(n)
    cuts = np.unique(np.concatenate([[0, n], rng.integers(0, n + 1, 5)]))
    for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
        ic._piece_mins(*args, lo, hi, sampled, settled, got)
    assert _same_bits(got, want)
    assert (want < 0.0).any() and (want > 0.0).any()
