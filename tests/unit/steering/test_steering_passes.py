"""The steering's compiled passes give the whole-array evaluations they replaced bit for bit
(T1, T2, T3): directions, Arrive/Seek along a route, the speed cap and the clamped step."""

import numpy as np
import pytest

from navproof._generated import formulas
from navproof._generated.formulas import arrive_speed_scalar
from navproof.core.jit import compiled_loop
from navproof.core.tolerances import STEERING_REACHED_REL
from navproof.steering import clamped_steering, route_velocity, speed_capped
from navproof.steering.seek import direction_to

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, -1e-300, 1e300])


def same_bits(value, want):
    """The same bits wherever a value is a number (signed zeros included), NaN at the same
    places (the sign of a NaN is not defined by IEEE arithmetic)."""
    nan = np.isnan(want)
    return np.array_equal(np.isnan(value), nan) and value[~nan].tobytes() == want[~nan].tobytes()


def vectors(rng, n):
    out = rng.normal(size=(n, 2)) * 10.0 ** rng.integers(-6, 4, (n, 1))
    out[:SPECIAL.size, 0] = SPECIAL
    out[SPECIAL.size:2 * SPECIAL.size, 1] = SPECIAL
    out[-5:] = out[-10:-5]  # equal pairs: zero gaps
    return out


def numpy_direction_to(position, target):
    delta = target - position
    dist = np.hypot(delta[:, 0], delta[:, 1])
    inv = np.divide(1.0, dist, out=np.zeros_like(dist), where=dist > 0.0)
    return delta * inv[:, None], dist


def numpy_clamped(v, desired, accel, dt):
    gap = desired - v
    gap_mps = np.hypot(gap[:, 0], gap[:, 1])
    change = formulas.steering_change(gap=gap_mps, max_accel=accel, dt=dt)
    scale = np.divide(change, gap_mps, out=np.zeros_like(gap_mps), where=gap_mps > 0.0)
    reached = scale >= 1.0 - STEERING_REACHED_REL
    return np.where(reached[:, None], desired, v + gap * scale[:, None])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_directions_equal_the_whole_array_evaluation_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    position, target = vectors(rng, 3000), vectors(rng, 3000)
    target[-5:] = position[-5:]
    with np.errstate(all="ignore"):
        want = numpy_direction_to(position, target)
        got = direction_to(position, target)
    assert same_bits(got[0], want[0]) and same_bits(got[1], want[1])


@pytest.mark.parametrize("dt", [0.1, 0.05, 0.2])
def test_route_velocity_equals_arrive_and_seek_bit_for_bit(dt):
    rng = np.random.default_rng(4)
    n = 3000
    position, target = rng.normal(size=(n, 2)) * 5.0, rng.normal(size=(n, 2)) * 5.0
    target[:100] = position[:100] + rng.normal(size=(100, 2)) * 0.05
    target[:10] = position[:10]
    last = rng.random(n) < 0.5
    vh, accel = rng.uniform(0.1, 3.0, n), rng.uniform(0.1, 5.0, n)
    stop = rng.uniform(0.01, 0.3, n)
    unit, dist = numpy_direction_to(position, target)
    arrive = unit * formulas.arrive_speed(dist=dist, stop_range=stop, max_speed=vh,
                                          max_accel=accel, dt=dt)[:, None]
    want = np.where(last[:, None], arrive, unit * vh.reshape(-1, 1))
    got = route_velocity(position, target, last, max_speed_mps=vh, max_accel_mps2=accel,
                         stop_range_m=stop, dt_s=dt)
    assert got.tobytes() == want.tobytes()


SQUARE_APART_DT = 0.21395647777182983
"""A step whose Python square ``dt**2`` (libm's pow) is not ``dt * dt``."""


def arrive_inputs(rng, n):
    """Distances, stop ranges, caps and accelerations of Arrive, special values, ties and
    distances within the stop range included."""
    columns = [rng.uniform(0.0, 10.0, n), rng.uniform(0.0, 1.0, n), rng.uniform(0.0, 3.0, n),
               rng.uniform(0.01, 5.0, n)]
    for k, col in enumerate(columns):
        pick = rng.random(n) < 0.05
        col[pick] = rng.choice(np.append(SPECIAL, [-1.0, 5e-324]), pick.sum())
        col[k * 50:k * 50 + SPECIAL.size] = SPECIAL
    columns[1][-200:] = columns[0][-200:]  # exactly at the stop range
    return columns


@compiled_loop
def _scalar_arrive_rows(dist, stop, vmax, accel, dt, out):
    """The generated scalar form of Arrive's speed per row, from a compiled loop."""
    for i in range(out.shape[0]):
        out[i] = arrive_speed_scalar(dist=dist[i], stop_range=stop[i], max_speed=vmax[i],
                                     max_accel=accel[i], dt=dt)


@pytest.mark.parametrize("dt", [0.1, 0.05, 0.25, 1 / 30, 0.2, 1e-3, SQUARE_APART_DT])
def test_arrive_speed_scalar_form_equals_numpy_form_bit_for_bit(dt):
    rng = np.random.default_rng(11)
    dist, stop, vmax, accel = arrive_inputs(rng, 20000)
    with np.errstate(all="ignore"):
        want = np.asarray(formulas.arrive_speed(dist=dist, stop_range=stop, max_speed=vmax,
                                                max_accel=accel, dt=dt), dtype=np.float64)
        got = np.empty(dist.size)
        _scalar_arrive_rows(dist, stop, vmax, accel, dt, got)
    if dt**2 == dt * dt:
        assert got.tobytes() == want.tobytes()
    else:
        # the compiled square is dt * dt: route_velocity keeps numpy's form for such a step
        assert not np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("dt", [0.1, SQUARE_APART_DT])
@pytest.mark.parametrize("scalars", [False, True])
def test_route_velocity_on_special_values_equals_arrive_and_seek(dt, scalars):
    rng = np.random.default_rng(5)
    n = 4000
    dist, stop, vh, accel = arrive_inputs(rng, n)
    position = vectors(rng, n)
    with np.errstate(all="ignore"):
        target = position + np.stack([np.nan_to_num(dist, nan=1.0), np.zeros(n)], axis=1)
    target[:20] = SPECIAL.repeat(5).reshape(20, 2)
    last = rng.random(n) < 0.7
    if scalars:
        stop, accel = 0.25, 1.5
    with np.errstate(all="ignore"):
        unit, d = numpy_direction_to(position, target)
        arrive = unit * np.asarray(formulas.arrive_speed(
            dist=d, stop_range=stop, max_speed=vh, max_accel=accel, dt=dt))[:, None]
        want = np.where(last[:, None], arrive, unit * vh.reshape(-1, 1))
        got = route_velocity(position, target, last, max_speed_mps=vh, max_accel_mps2=accel,
                             stop_range_m=stop, dt_s=dt)
    assert same_bits(got, want)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_speed_cap_equals_the_whole_array_evaluation_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    v = vectors(rng, 3000)
    cap = rng.uniform(0.0, 3.0, 3000)
    cap[:SPECIAL.size] = SPECIAL
    with np.errstate(all="ignore"):
        speed = np.hypot(*v.T)
        over = speed > cap
        want = np.where(over[:, None], v * (cap / np.where(over, speed, 1.0))[:, None], v)
        got = speed_capped(v, cap)
    assert same_bits(got, want)


@pytest.mark.parametrize("accel", [2.0, "rows"])
def test_the_clamped_step_equals_the_whole_array_evaluation_bit_for_bit(accel):
    rng = np.random.default_rng(9)
    n = 3000
    v, desired = vectors(rng, n), vectors(rng, n)
    desired[100:200] = v[100:200] + rng.normal(size=(100, 2)) * 1e-3
    a = rng.uniform(0.0, 5.0, n) if accel == "rows" else accel
    with np.errstate(all="ignore"):
        want = numpy_clamped(v, desired, a, 0.1)
        got = clamped_steering(v, desired, a, 0.1)
    assert same_bits(got, want)


def numpy_steering_verdict(v, new, desired, accel, cap, dt):
    """The whole-array check the compiled margins replaced: None, or (claim case, agent,
    observed, limit, margin)."""
    from navproof.core.tolerances import EPS, STEERING_CHECK_REL

    change = np.hypot(*(new - v).T)
    limit = accel * dt
    tol = STEERING_CHECK_REL * (1.0 + cap) + EPS
    margin = limit - change
    if np.any(margin < -tol):
        i = int(np.argmin(margin))
        return ("change", i, float(change[i]), float(limit[i]), float(margin[i]))
    covered = (np.hypot(*v.T) <= cap + tol) & (np.hypot(*desired.T) <= cap + tol)
    speed_margin = np.where(covered, cap - np.hypot(*new.T), np.inf)
    if np.any(speed_margin < -tol):
        i = int(np.argmin(speed_margin))
        return ("cap", i, float(np.hypot(*new[i])), float(cap[i]), float(speed_margin[i]))
    return None


@pytest.mark.parametrize("seed", range(6))
def test_the_steering_check_gives_the_whole_array_verdict(seed):
    from navproof import ObligationViolation
    from navproof.steering import check_steering_step

    rng = np.random.default_rng(seed)
    n = 2000
    cap, accel = rng.uniform(0.5, 2.0, n), rng.uniform(0.5, 3.0, n)
    v = rng.normal(size=(n, 2)) * 0.5
    desired = rng.normal(size=(n, 2)) * 0.5
    new = clamped_steering(v, desired, accel, 0.1)
    if seed % 3 == 1:
        new[rng.integers(n, size=3)] += [0.5, 0.0]  # changed by more than maxAccel dt
    elif seed % 3 == 2:
        grown = rng.integers(n, size=3)
        v[grown], desired[grown] = 0.0, 0.0
        new[grown] = (cap[grown] + 0.001)[:, None] * [1.0, 0.0]  # left the cap
        accel[grown] = 100.0
    want = numpy_steering_verdict(v, new, desired, accel, cap, 0.1)
    try:
        check_steering_step(v, new, desired, accel, cap, 0.1)
        got = None
    except ObligationViolation as exc:
        case = "change" if "maxAccel" in str(exc) else "cap"
        got = (case, exc.agent, exc.observed, exc.limit, exc.margin)
    assert got == want
    assert (want is None) == (seed % 3 == 0)


def test_passes_broadcast_only_inputs_of_another_shape():
    rng = np.random.default_rng(21)
    n = 64
    position, target = rng.normal(0.0, 3.0, (n, 2)), rng.normal(0.0, 3.0, (1, 2))
    velocity, cap = rng.normal(0.0, 1.0, (n, 2)), rng.uniform(0.2, 1.5, n)
    last = rng.random(n) < 0.5
    full_target = np.broadcast_to(target, (n, 2)).copy()
    unit, dist = direction_to(position, target)
    want_unit, want_dist = direction_to(position, full_target)
    assert unit.tobytes() == want_unit.tobytes() and dist.tobytes() == want_dist.tobytes()
    assert speed_capped(velocity, 0.9).tobytes() == speed_capped(velocity, np.full(n, 0.9)
                                                                 ).tobytes()
    assert speed_capped(velocity, cap[:1]).tobytes() == speed_capped(
        velocity, np.full(n, cap[0])).tobytes()
    assert clamped_steering(velocity, target, 1.0, 0.1).tobytes() == clamped_steering(
        velocity, full_target, np.full(n, 1.0), 0.1).tobytes()
    common = dict(max_accel_mps2=1.0, stop_range_m=0.2, dt_s=0.1)
    assert route_velocity(position, target, last, max_speed_mps=1.2, **common).tobytes() == \
        route_velocity(position, full_target, last, max_speed_mps=np.full(n, 1.2),
                       **common).tobytes()


def test_the_steering_check_takes_one_cap_for_all_as_one_per_agent():
    from navproof import ObligationViolation
    from navproof.steering import check_steering_step

    rng = np.random.default_rng(22)
    n = 64
    velocity, desired = rng.normal(0.0, 0.3, (n, 2)), rng.normal(0.0, 0.3, (n, 2))
    new = clamped_steering(velocity, desired, 1.0, 0.1)
    check_steering_step(velocity, new, desired, 1.0, 1.2, 0.1)
    check_steering_step(velocity, new, desired, np.full(n, 1.0), np.full(n, 1.2), 0.1)
    jumped = new.copy()
    jumped[5] += 0.5
    for accel, cap in ((1.0, 1.2), (np.full(n, 1.0), np.full(n, 1.2))):
        with pytest.raises(ObligationViolation) as err:
            check_steering_step(velocity, jumped, desired, accel, cap, 0.1)
        assert err.value.agent == 5


@pytest.mark.parametrize("accel", [2.0, "rows", "float32"])
def test_capped_clamped_steering_equals_the_cap_then_the_clamped_step(accel):
    from navproof.steering import capped_clamped_steering

    rng = np.random.default_rng(21)
    n = 3000
    v, desired_world, carry = vectors(rng, n), vectors(rng, n), vectors(rng, n)
    carry[: n // 2] = 0.0
    desired_world[100:200] = v[100:200] + carry[100:200] + rng.normal(size=(100, 2)) * 1e-3
    cap = rng.uniform(0.0, 3.0, n)
    cap[:SPECIAL.size] = SPECIAL
    a = {"rows": rng.uniform(0.0, 5.0, n), "float32": rng.uniform(0.0, 5.0, n).astype(np.float32),
         2.0: 2.0}[accel]
    a_rows = a if accel != "rows" else a.copy()
    if accel == "rows":
        a_rows[-SPECIAL.size:] = SPECIAL
    with np.errstate(all="ignore"):
        speed = np.hypot(*(desired_world - carry).T)
        over = speed > cap
        want_desired = np.where(over[:, None], (desired_world - carry)
                                * (cap / np.where(over, speed, 1.0))[:, None],
                                desired_world - carry)
        want = numpy_clamped(v, want_desired, a_rows, 0.1)
        got, got_desired = capped_clamped_steering(v, desired_world, carry, cap, a_rows, 0.1)
    assert same_bits(got_desired, want_desired)
    assert same_bits(got, want)
