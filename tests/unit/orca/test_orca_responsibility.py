"""Pair shares, non-cooperative agents, the keep-right tie-break and stall reports.

Claims: O7 (shares add up to 1; priorities; non-cooperative), O8 (deterministic tie-break,
stalls in the diagnostics), O3 (assertion mode's exact minimum-distance check).
"""

import numpy as np
import pytest

from navproof.core.errors import InvalidInput, ObligationViolation
from navproof.orca.crowd import AgentDefaults, Crowd
from navproof.orca.monitor import check_reciprocity, pair_min_distance
from navproof.orca.responsibility import (
    STALL_SPEED_FRACTION,
    keep_right_and_yield,
    pair_shares,
    stall_count,
    turn_right,
)

SMALL = AgentDefaults(neighbor_dist=15.0, max_neighbors=10, time_horizon=10.0,
                      time_horizon_obst=10.0, radius=0.5, max_speed=2.0)


def _shares(weight, priority, cooperative, stalled=None):
    n = len(weight)
    nb = np.array([[j for j in range(n) if j != i] for i in range(n)])
    share = pair_shares(nb, np.arange(n), weight=np.asarray(weight, float),
                        priority=np.asarray(priority, float),
                        cooperative=np.asarray(cooperative), equal_share=0.5,
                        higher_share=0.25, stalled=stalled)
    return {(i, int(nb[i, s])): float(share[i, s]) for i in range(n) for s in range(n - 1)}


def test_o7_pair_shares_add_up_to_one():
    shares = _shares([1.0, 3.0, 1.0], [0.0, 0.0, 2.0], [True, True, True])
    for (i, j), value in shares.items():
        assert value + shares[(j, i)] == pytest.approx(1.0, abs=1e-15)
    assert shares[(0, 1)] == pytest.approx(0.25)  # weights 1 : 3
    assert shares[(2, 0)] == 0.25 and shares[(0, 2)] == 0.75  # higher priority takes less


def test_o7_non_cooperative_neighbour_takes_nothing_the_other_everything():
    shares = _shares([1.0, 1.0], [0.0, 0.0], [True, False])
    assert shares[(0, 1)] == 1.0


def test_o8_stalled_equals_yield_by_index():
    shares = _shares([1.0, 1.0], [0.0, 0.0], [True, True], stalled=np.array([True, False]))
    assert shares[(0, 1)] == 0.25 and shares[(1, 0)] == 0.75


def _pair(kind, **options):
    crowd = Crowd(0.25, defaults=SMALL, assertions=True, **options)
    if kind == "head-on":
        crowd.add_agents(np.array([[-5.0, 0.0], [5.0, 0.0]]))
    else:
        crowd.add_agents(np.array([[-4.0, 0.0], [4.0, 0.0]]))
        crowd.add_obstacle([(-0.2, 0.7), (0.2, 0.7), (0.2, 10.0), (-0.2, 10.0)])
        crowd.add_obstacle([(-0.2, -10.0), (0.2, -10.0), (0.2, -0.7), (-0.2, -0.7)])
    goals = -crowd.position.copy()
    return crowd, goals


def _run(crowd, goals, steps):
    longest = 0
    for k in range(steps):
        vec = goals - crowd.position
        dist = np.hypot(vec[:, 0], vec[:, 1])
        crowd.set_pref_velocities(vec * np.where(dist > 1.0, 1.0 / np.maximum(dist, 1e-9),
                                                 1.0)[:, None])
        diag = crowd.step()
        longest = max(longest, int(diag.stalled_steps.max()))
        gap = np.hypot(*(crowd.position[0] - crowd.position[1])) - 1.0
        assert gap >= -1e-9
        if np.hypot(*(goals - crowd.position).T).max() < 0.05:
            return k + 1, longest, diag
    return None, longest, diag


@pytest.mark.parametrize("kind", ["head-on", "door"])
def test_o8_symmetric_pair_stalls_without_tie_break_and_the_stall_is_reported(kind):
    crowd, goals = _pair(kind)
    arrived, longest, diag = _run(crowd, goals, 120)
    assert arrived is None and longest >= 50
    assert "stalled" in str(diag.record(0)) and diag.record(0).stalled_steps == longest


@pytest.mark.parametrize("kind, bound", [("head-on", 150), ("door", 250)])
def test_o8_keep_right_resolves_in_a_bounded_number_of_steps(kind, bound):
    crowd, goals = _pair(kind, tie_break="keep-right")
    arrived, _, _ = _run(crowd, goals, bound)
    assert arrived is not None


def _swap(seed, **agent_options):
    rng = np.random.default_rng(seed)
    angle = 2 * np.pi * np.arange(6) / 6 + rng.uniform(0, 2 * np.pi)
    pos = 8.0 * np.stack([np.cos(angle), np.sin(angle)], 1) + rng.normal(0, 0.2, (6, 2))
    crowd = Crowd(0.25, defaults=AgentDefaults(radius=1.5), assertions=True)
    crowd.add_agents(pos, **agent_options)
    goals = -pos
    worst = -np.inf
    for _ in range(160):
        vec = goals - crowd.position
        dist = np.hypot(vec[:, 0], vec[:, 1])
        crowd.set_pref_velocities(vec * np.where(dist > 1.0, 1.0 / np.maximum(dist, 1e-9),
                                                 1.0)[:, None])
        crowd.step()
        d = np.hypot(*(crowd.position[:, None] - crowd.position[None]).transpose(2, 0, 1))
        np.fill_diagonal(d, np.inf)
        worst = max(worst, float(np.max(3.0 - d)))
    return worst, np.hypot(*(goals - crowd.position).T).max()


@pytest.mark.parametrize("seed", range(5))
def test_o7_swap_with_one_non_cooperative_agent_never_overlaps(seed):
    worst, remaining = _swap(seed, cooperative=np.arange(6) != 0)
    assert worst <= 1e-9 and remaining < 0.05


def test_pair_min_distance_is_exact():
    p = np.array([[4.0, 1.0], [4.0, 1.0], [4.0, 1.0]])
    x = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0]])
    horizon = np.array([10.0, 10.0, 2.0])
    np.testing.assert_allclose(pair_min_distance(p, x, horizon), [1.0, np.hypot(4, 1),
                                                                   np.hypot(2, 1)])


def test_o3_assertion_names_a_pair_that_comes_too_close():
    position = np.array([[0.0, 0.0], [4.0, 0.0]])
    nb = np.array([[1], [0]])
    with pytest.raises(ObligationViolation) as info:
        check_reciprocity(position, np.array([0.5, 0.5]), np.array([10.0, 10.0]), 0.25,
                          np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([2.0, 2.0]), nb,
                          np.array([True, True]))
    assert info.value.claim_id == "O3" and info.value.observed == pytest.approx(0.0)
    # the same velocities apart: nothing to report
    check_reciprocity(position, np.array([0.5, 0.5]), np.array([10.0, 10.0]), 0.25,
                      np.array([[-1.0, 0.0], [1.0, 0.0]]), np.array([2.0, 2.0]), nb,
                      np.array([True, True]))


def test_o3_o6_the_first_failing_pair_of_a_large_crowd_is_reported():
    # enough neighbour slots for the pass to run in pieces: the first failing pair in row-major
    # order is named, a pair with unequal horizons is not judged
    n, k = 4000, 10
    position = np.column_stack([np.arange(n) * 10.0, np.zeros(n)])
    nb = np.full((n, k), -1)
    selected = np.zeros((n, 2))
    horizon = np.full(n, 10.0)
    for a in (100, 500, 3000):
        nb[a, 3], nb[a + 1, 5] = a + 1, a
        selected[a], selected[a + 1] = [1.0, 0.0], [-1.0, 0.0]
    horizon[101] = 5.0
    position[501] = position[500] + [0.5, 0.0]
    args = (np.full(n, 0.5), horizon, 0.25)
    with pytest.raises(ObligationViolation) as info:
        check_reciprocity(position, *args, selected, np.full(n, 2.0), nb, np.ones(n, bool))
    assert info.value.claim_id == "O6" and info.value.agent == 500
    assert info.value.data["other"] == 501
    selected[500], selected[501] = [-1.0, 0.0], [1.0, 0.0]
    with pytest.raises(ObligationViolation) as info:
        check_reciprocity(position, *args, selected, np.full(n, 2.0), nb, np.ones(n, bool))
    assert info.value.claim_id == "O3" and info.value.agent == 3000
    assert info.value.observed == pytest.approx(0.0)


def test_o3_a_failing_pair_that_only_one_side_holds_is_not_judged():
    # agents 0 and 1 close in on each other but 1 does not hold 0 as a neighbour: the pair the
    # proofs are about is the mutual one, 2 and 3, reported though it comes later
    position = np.array([[0.0, 0.0], [4.0, 0.0], [20.0, 0.0], [24.0, 0.0]])
    nb = np.array([[1], [-1], [3], [2]])
    selected = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0], [-1.0, 0.0]])
    with pytest.raises(ObligationViolation) as info:
        check_reciprocity(position, np.full(4, 0.5), np.full(4, 10.0), 0.25, selected,
                          np.full(4, 2.0), nb, np.ones(4, bool))
    assert info.value.claim_id == "O3" and info.value.agent == 2
    assert info.value.data["other"] == 3
    nb[2, 0] = -1
    check_reciprocity(position, np.full(4, 0.5), np.full(4, 10.0), 0.25, selected,
                      np.full(4, 2.0), nb, np.ones(4, bool))


def _reciprocity_verdict(*args, **kwargs):
    """The (claim, agent, other, observed) check_reciprocity raises, or None."""
    try:
        check_reciprocity(*args, **kwargs)
    except ObligationViolation as exc:
        return exc.claim_id, exc.agent, exc.data["other"], exc.observed
    return None


def test_o3_cooperative_mask_judges_as_the_masked_neighbour_rows():
    # the cooperative mask gives the verdict of the neighbour rows of non-cooperative agents
    # emptied (the whole-array masking it replaced), on random crowds with failing pairs
    rng = np.random.default_rng(7)
    seen = set()
    for trial in range(300):
        n, k = 40, 6
        position = rng.uniform(0.0, 12.0, (n, 2))
        selected = rng.normal(0.0, 1.0, (n, 2))
        nb = np.argsort(rng.random((n, n)), axis=1)[:, :k]
        nb[nb == np.arange(n)[:, None]] = -1
        nb[rng.random((n, k)) < 0.2] = -1
        cooperative = rng.random(n) < (0.3 if trial % 3 == 0 else 0.9)
        feasible = rng.random(n) < 0.95
        args = (position, np.full(n, 0.5), np.full(n, 10.0), 0.25, selected, np.full(n, 2.0))
        masked = np.where(cooperative[:, None], nb, -1)
        expected = _reciprocity_verdict(*args, masked, feasible)
        assert _reciprocity_verdict(*args, nb, feasible, cooperative=cooperative) == expected
        seen.add(expected is None)
    assert seen == {True, False}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_o8_stall_count_decides_as_the_hypot_speeds():
    # the sum-of-squares shortcut gives the counts of hypot's lengths, at the limit's edge,
    # for zeros of both signs, subnormal, huge and non-finite velocities and odd limits
    rng = np.random.default_rng(5)
    n = 200_000
    max_speed = rng.choice([2.0, 1.0, 1e-300, 1e300, 0.0, 3e-136, np.nan, np.inf], n,
                           p=[0.6, 0.1, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05])
    limit = STALL_SPEED_FRACTION * max_speed
    angle = rng.uniform(0.0, 2.0 * np.pi, n)
    scale = limit * rng.choice([1.0, np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0),
                                1.0 + 1e-9, 1.0 - 1e-9, 0.5, 2.0], n)
    selected = np.stack([np.cos(angle), np.sin(angle)], axis=1) * scale[:, None]
    preferred = rng.normal(0.0, 1.0, (n, 2))
    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, 1e-310, 1e200])
    for arr in (selected, preferred):
        pick = rng.random(arr.shape) < 0.05
        arr[pick] = rng.choice(specials, int(pick.sum()))
    preferred[rng.random(n) < 0.05] = 0.0
    previous = rng.integers(0, 5, n)
    speed = np.hypot(selected[:, 0], selected[:, 1])
    pref_speed = np.hypot(preferred[:, 0], preferred[:, 1])
    stalled = (pref_speed > 0.0) & (speed < limit)
    expected = np.where(stalled, previous + 1, 0)
    got = stall_count(previous, selected, preferred, max_speed)
    assert np.array_equal(got, expected)
    assert 0 < stalled.sum() < n


def test_bad_options_are_rejected_before_anything_changes():
    with pytest.raises(InvalidInput):
        Crowd(0.25, tie_break="left")
    with pytest.raises(InvalidInput):
        Crowd(0.25, priority_share=0.75)
    crowd = Crowd(0.25)
    with pytest.raises(InvalidInput):
        crowd.add_agents(np.zeros((2, 2)), responsibility_weight=0.0)
    assert crowd.num_agents == 0


def _first_failing_pair_by_lengths(position, radius, horizon, time_step, selected, max_speed,
                                   nb, feasible):
    """check_reciprocity's rule with every pair's distance measured (hypot at the step's end
    for an overlapping pair, the exact closest approach otherwise): (claim, agent, other,
    observed, limit) of the first failing pair in row-major order, or None (the C library's
    hypot, which the compiled pass calls)."""
    from navproof.core.tolerances import MONITOR_FEASIBILITY_REL as rel

    n, k = nb.shape
    for a in range(n):
        for s in range(k):
            b = int(nb[a, s])
            if b <= a or not (feasible[a] and feasible[b]) or horizon[a] != horizon[b]:
                continue
            if a not in nb[b]:
                continue
            p = position[b] - position[a]
            x = selected[a] - selected[b]
            r = radius[a] + radius[b]
            over = p[0] * p[0] + p[1] * p[1] <= r * r
            h = time_step if over else horizon[a]
            tol = 2.0 * rel * (1.0 + max(max_speed[a], max_speed[b])) * h + rel * r
            distance = (float(np.hypot(p[0] - x[0] * h, p[1] - x[1] * h)) if over
                        else float(pair_min_distance(p[None], x[None], np.array([h]))[0]))
            if distance < r - tol:
                return ("O6" if over else "O3", a, b, distance, r)
    return None


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_o3_o6_reciprocity_reports_the_pair_the_measured_distances_find():
    # the pass decides distance < limit from squared lengths where that is clear: the same
    # first failing pair, observed distance and combined radius as measuring every distance,
    # on random crowds with pairs at the limit's edge (a few ulps either side), overlapping,
    # coincident, tiny, huge and non-finite values
    rng = np.random.default_rng(11)
    seen = set()
    for trial in range(400):
        n, k = 24, 5
        position = rng.uniform(0.0, 6.0, (n, 2))
        selected = rng.normal(0.0, 1.0, (n, 2))
        radius = np.full(n, 0.5)
        horizon = np.full(n, rng.choice([10.0, 2.0]))
        max_speed = np.full(n, 2.0)
        nb = np.argsort(rng.random((n, n)), axis=1)[:, :k]
        nb[nb == np.arange(n)[:, None]] = -1
        feasible = rng.random(n) < 0.97
        if trial % 4 == 0:
            # one pair's radii set so that its limit lies within a few ulps of its distance
            a = int(rng.integers(n))
            b = int(nb[a, 0]) if nb[a, 0] >= 0 else (a + 1) % n
            nb[a, 0], nb[b, 0] = b, a
            p, x = position[b] - position[a], selected[a] - selected[b]
            d = float(pair_min_distance(p[None], x[None], horizon[a:a + 1])[0])
            for _ in range(int(rng.integers(-3, 4)) + 3):
                d = np.nextafter(d, np.inf)
            # limit = 2 r (1 - 1e-6) - 2e-6 (1 + max speed) horizon
            radius[:] = ((d + 6e-6 * horizon[a]) / (2.0 * (1.0 - 1e-6))
                         + rng.choice([0.0, 0.0, 1e-12, 1e-9]))
        if trial % 5 == 1:
            pick = rng.random((n, 2)) < 0.05
            selected[pick] = rng.choice([0.0, -0.0, np.nan, np.inf, 1e-300, 1e300],
                                        int(pick.sum()))
        if trial % 7 == 2:
            position[1] = position[0]
            radius[:] = rng.choice([1e-140, 1e140, 0.0])
        args = (position, radius, horizon, 0.25, selected, max_speed, nb, feasible)
        expected = _first_failing_pair_by_lengths(*args)
        try:
            check_reciprocity(*args)
            got = None
        except ObligationViolation as exc:
            got = (exc.claim_id, exc.agent, exc.data["other"], exc.observed, exc.limit)
            assert exc.margin == exc.observed - exc.limit
        assert got == expected
        seen.add(None if expected is None else expected[0])
    assert seen == {None, "O3", "O6"}


def _keep_right_and_yield_numpy(desired, cap, held, yield_dir, yield_left, nb, position,
                                radius, angle, steps, reach_m):
    """keep_right_and_yield as the whole-array numpy expression it was written as."""
    count = desired.shape[0]
    if not held.any() and not (yield_left > 0).any():
        return desired, yield_dir, yield_left
    out = turn_right(desired, held, angle)
    if nb.shape[0] == count and nb.shape[1]:
        rows = np.arange(count)[:, None]
        j = np.where(nb >= 0, nb, 0)
        away = position[:, None, :] - position[j]
        reach = radius[:, None] + radius[j] + reach_m
        pair = (nb >= 0) & (nb < rows) & held[:, None] & held[j] \
            & (np.hypot(away[..., 0], away[..., 1]) <= reach)
        start = pair.any(axis=1) & (yield_left == 0)
        if start.any():
            first = np.argmax(pair, axis=1)
            direction = away[np.arange(count), first]
            length = np.hypot(*direction.T)
            unit = direction / np.where(length > 0.0, length, 1.0)[:, None]
            yield_dir = np.where(start[:, None], turn_right(unit, start, angle), yield_dir)
            yield_left = np.where(start, steps, yield_left)
    yielding = yield_left > 0
    out = np.where(yielding[:, None], yield_dir * (0.5 * cap)[:, None], out)
    return out, yield_dir, np.maximum(yield_left - 1, 0)


def _special(rng, shape, scale):
    """Random values with ties, zeros of both signs, NaN, infinities, subnormals, huge ones."""
    values = rng.normal(0.0, scale, shape)
    pick = rng.integers(0, 12, shape)
    special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -1e300, 1e300])
    values = np.where(pick < special.size, special[pick % special.size], values)
    return np.where(rng.random(shape) < 0.3, np.round(values), values)


@pytest.mark.parametrize("seed", range(40))
def test_o8_keep_right_and_yield_equals_the_numpy_expression(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 60)), int(rng.integers(0, 8))
    position = rng.uniform(-3.0, 3.0, (n, 2))
    position[rng.random(n) < 0.2] = position[0]  # coincident agents: zero vectors away
    position[rng.random(n) < 0.1] = -position[0]
    if seed % 4 == 0:
        position = _special(rng, (n, 2), 2.0)
    position = np.where(rng.random((n, 2)) < 0.05, -0.0, position)
    radius = rng.choice([0.0, 0.3, 0.5, np.nan], n, p=[0.1, 0.4, 0.45, 0.05])
    nb = np.where(rng.random((n, k)) < 0.2, -1, rng.integers(0, n, (n, k)))
    held = rng.random(n) < (0.9 if seed % 3 else 0.3)
    yield_left = np.where(rng.random(n) < 0.3, rng.integers(0, 4, n), 0).astype(np.int64)
    if seed % 5 == 0:
        yield_left[:] = 0
    yield_dir = _special(rng, (n, 2), 1.0)
    desired = _special(rng, (n, 2), 1.5)
    cap = np.abs(_special(rng, n, 2.0))
    reach_m = float(rng.choice([0.0, -0.0, 1.0, 0.25]))
    args = (desired, cap, held, yield_dir, yield_left, nb, position, radius, 0.5, 30, reach_m)
    with np.errstate(all="ignore"):
        expected = _keep_right_and_yield_numpy(*args)
    got = keep_right_and_yield(desired, cap, held=held, yield_dir=yield_dir,
                               yield_left=yield_left, neighbor_idx=nb, position_m=position,
                               radius_m=radius, angle_rad=0.5, yield_steps=30,
                               yield_reach_m=reach_m)
    for old, new in zip(expected, got, strict=True):
        assert old.dtype == new.dtype and old.shape == new.shape
        assert old.tobytes() == new.tobytes()


@pytest.mark.parametrize("n", [0, 1, 5, 300])
def test_o8_keep_right_and_yield_leaves_a_crowd_without_held_or_yielding_agents(n):
    rng = np.random.default_rng(n)
    desired, cap = rng.normal(0.0, 1.0, (n, 2)), np.ones(n)
    yield_dir = rng.normal(0.0, 1.0, (n, 2))
    nb = rng.integers(-1, max(n, 1), (n, 4))
    for yield_left in (np.zeros(n, np.int64), -rng.integers(0, 3, n)):
        held = np.zeros(n, dtype=bool)
        args = (desired, cap, held, yield_dir, yield_left, nb, desired, cap, 0.5, 30, 1.0)
        expected = _keep_right_and_yield_numpy(*args)
        got = keep_right_and_yield(desired, cap, held=held, yield_dir=yield_dir,
                                   yield_left=yield_left, neighbor_idx=nb, position_m=desired,
                                   radius_m=cap, angle_rad=0.5, yield_steps=30,
                                   yield_reach_m=1.0)
        assert all(a is b for a, b in zip(expected, got, strict=True))
        for row in range(n):
            # one held or one yielding agent is enough to act
            one_held, one_left = held.copy(), yield_left.copy()
            if row % 2:
                one_held[row] = True
            else:
                one_left[row] = 1
            expected = _keep_right_and_yield_numpy(desired, cap, one_held, yield_dir, one_left,
                                                   nb, desired, cap, 0.5, 30, 1.0)
            got = keep_right_and_yield(desired, cap, held=one_held, yield_dir=yield_dir,
                                       yield_left=one_left, neighbor_idx=nb,
                                       position_m=desired, radius_m=cap, angle_rad=0.5,
                                       yield_steps=30, yield_reach_m=1.0)
            assert all(a.tobytes() == b.tobytes() for a, b in zip(expected, got, strict=True))
            if row >= 20:
                break
