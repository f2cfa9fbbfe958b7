"""Route progress and status passes give the whole-array evaluations they replaced bit for bit:
current waypoints, arrivals, held and stalled bodies (O8)."""

import numpy as np
import pytest

from navproof.core.tolerances import EPS
from navproof.orca.responsibility import stalled_now
from navproof.world.progress import route_targets, update_status


def routes(rng, n, width=4):
    route = rng.normal(size=(n, width, 2)) * 3.0
    count = rng.integers(1, width + 1, n)
    index = np.minimum(rng.integers(0, width, n), count - 1)
    return route, count, index


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_route_targets_equal_the_whole_array_evaluation(seed):
    rng = np.random.default_rng(seed)
    n = 4000
    route, count, index = routes(rng, n)
    rows = np.arange(n)
    radius = rng.uniform(0.1, 0.6, n)
    position = route[rows, index] + rng.normal(size=(n, 2)) * 0.5
    position[:5] = route[rows[:5], index[:5]]
    target = route[rows, index]
    last = index >= count - 1
    passed = ~last & (np.hypot(*(target - position).T) <= radius)
    want_index = np.where(passed, index + 1, index)
    want_last = want_index >= count - 1
    got_target, got_last, got_index = route_targets(route, count, index, position, radius)
    assert got_index.tolist() == want_index.tolist()
    assert got_last.tolist() == want_last.tolist()
    assert got_target.tobytes() == route[rows, want_index].tobytes()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_status_equals_the_whole_array_evaluation(seed):
    rng = np.random.default_rng(seed)
    n = 4000
    route, count, index = routes(rng, n)
    rows = np.arange(n)
    goal = route[rows, count - 1]
    position = goal + rng.normal(size=(n, 2)) * rng.choice([1e-3, 0.1, 1.0], (n, 1))
    velocity = rng.normal(size=(n, 2)) * rng.choice([0.0, 1e-3, 0.02, 1.0], (n, 1))
    preferred = rng.normal(size=(n, 2)) * rng.choice([0.0, 0.1, 1.0], (n, 1))
    carry = np.where(rng.random((n, 1)) < 0.5, 0.0, rng.normal(size=(n, 2)) * 0.3)
    carry[:20] = -preferred[:20]
    stop = rng.uniform(0.01, 0.2, n)
    max_speed = rng.uniform(0.5, 2.0, n)
    arrived = np.where(rng.random(n) < 0.5, np.nan, rng.uniform(0.0, 5.0, n))
    held, stall = rng.integers(0, 30, n), rng.integers(0, 30, n)
    stalled = rng.random(n) < 0.1
    arrival, time_s, limit = 0.05, 7.25, 20
    # the whole-array evaluation
    on_goal_leg = index >= count - 1
    dist = np.hypot(*(goal - position).T)
    speed = np.hypot(*velocity.T)
    at_goal = on_goal_leg & (dist <= stop + EPS) & (speed <= arrival + EPS)
    want_arrived = arrived.copy()
    want_arrived[at_goal & np.isnan(arrived)] = time_s
    want_arrived[~at_goal] = np.nan
    wanted = np.hypot(*(preferred + carry).T)
    stuck = ~at_goal & stalled_now(speed, wanted, max_speed)
    want_held = np.where(~at_goal & (speed < 0.5 * wanted), held + 1, 0)
    want_stall = np.where(stuck, stall + 1, 0)
    want_stalled = stalled | (want_stall >= limit)
    got_held, got_stall = update_status(
        route, count, index, position, velocity, preferred, carry, stop_range_m=stop,
        arrival_speed_mps=arrival, max_speed_mps=max_speed, time_s=time_s,
        arrived_at_s=arrived, held_steps=held, stall_steps=stall, stalled=stalled,
        stall_limit=limit, tol=EPS)
    assert got_held.tolist() == want_held.tolist()
    assert got_stall.tolist() == want_stall.tolist()
    assert stalled.tolist() == want_stalled.tolist()
    assert arrived.tobytes() == want_arrived.tobytes()
