"""One step from the same input state agrees with the C++ RVO2 library (through pyrvo) to 1e-4.

The library computes in float32 and the crowd in float64. Dense, overlapping crowds force the
already-colliding case and the linear program 3 fallback; obstacles bring in their special cases;
jammed Circle-like states (agents from a ring meeting in the middle) bring both at once.
Skipped only where the pyrvo wheel is not available for the platform.

Two claims, kept apart:

* Same rules. The loop-per-agent port (tests/reference) run in float32 reproduces the library
  bit for bit, in every agent of every state, and the crowd agrees with the same port in
  float64 to 1e-9. So where the crowd and the library differ, only the precision differs.
* Same answer, 1e-4 in every velocity and position, except in rare agents where float32 cannot
  deliver 1e-4. Two such spots are known:
  - linear program 3 projecting onto the bisector of two nearly parallel ORCA lines (det of
    their directions ~1e-2): the projected point lies 20 to 500 m/s out while the answer lies
    in the 2 m/s disk, so linear program 1's discriminant ``dot^2 + r^2 - |p|^2``, the
    bisector ``normalize(d_j - d_i)`` and ``point + t * direction`` all cancel many of
    float32's 24 bits; the library's answer moves by 1e-4 to 1e-2 m/s (sometimes out of the
    max-speed disk, e.g. |v| = 2.005 m/s), the float64 one does not;
  - two bodies touching to within float32 rounding, ``distSq - combinedRadiusSq`` = 6e-7 of
    9 m^2: the leg length ``sqrt(distSq - combinedRadiusSq)`` is then all input rounding.
  An agent is excused only when this is *detected* without looking at the library's answer:
  re-solving the crowd's own lines in float32 (as rounded, and with a few float32 ulps of
  jitter, the size of the library's own rounding of them), or re-stepping the crowd from its
  input rounded to float32 (and jittered likewise), moves the agent by more than a tenth of
  the tolerance. Excused agents must stay under 1% of all agents of all states.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import numpy as np
import pytest

from navproof.orca.crowd import Crowd

pyrvo = pytest.importorskip("pyrvo", reason="the pyrvo bindings of the C++ RVO2 library")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "reference"))
import rvo2_reference as ref  # noqa: E402

TOL = 1e-4
ILL_CONDITIONED = TOL / 10
"""Float32 rounding (of the input or in the linear program) moving an agent further (m/s)."""
JITTER_SAMPLES = 16
MAX_EXCUSED_FRACTION = 0.01

OBSTACLES = [
    [(-3.0, -3.0), (3.0, -3.0), (3.0, 3.0), (-3.0, 3.0)],
    [(5.0, 5.0), (9.0, 6.0)],
    [(-10.0, 0.0), (-6.0, 0.0), (-8.0, 4.0), (-7.0, 1.0)],
]
CIRCLE = dict(dist=15.0, max_n=10, tau=10.0, tau_obst=10.0)


def _random_state(seed, n, box):
    rng = np.random.default_rng(seed)
    return dict(
        pos=rng.uniform(-box, box, (n, 2)),
        vel=rng.uniform(-2.0, 2.0, (n, 2)),
        pref=rng.uniform(-2.5, 2.5, (n, 2)),
        rad=rng.uniform(0.4, 1.5, n),
    )


def _circle_state(n, ring, radius, steps, obstacles=(), seed=0):
    """RVO2's Circle example (goals antipodal, slightly jittered start) run ``steps`` steps."""
    rng = np.random.default_rng(seed)
    angle = 2.0 * np.pi * np.arange(n) / n
    start = ring * np.stack([np.cos(angle), np.sin(angle)], axis=1)
    goal = -start
    crowd = Crowd(0.25)
    crowd.add_agents(start + rng.uniform(-0.4, 0.4, start.shape), radius=radius, max_speed=2.0,
                     neighbor_dist=CIRCLE["dist"], max_neighbors=CIRCLE["max_n"],
                     time_horizon=CIRCLE["tau"], time_horizon_obst=CIRCLE["tau_obst"])
    for poly in obstacles:
        crowd.add_obstacle(poly)

    def pref(position):
        to_goal = goal - position
        dist = np.linalg.norm(to_goal, axis=1, keepdims=True)
        return 2.0 * np.where(dist > 1.0, to_goal / np.maximum(dist, 1e-12), to_goal)

    for _ in range(steps):
        crowd.set_pref_velocities(pref(crowd.position))
        crowd.step()
    return dict(pos=crowd.position.copy(), vel=crowd.velocity.copy(), pref=pref(crowd.position),
                rad=np.full(n, float(radius)))


# name -> (state factory, obstacles, agent parameters)
STATES = {
    **{f"dense-{seed}": (functools.partial(_random_state, seed, 150, 12.0), [], {})
       for seed in range(8)},
    **{f"obstacles-{seed}": (functools.partial(_random_state, 100 + seed, 80, 14.0), OBSTACLES,
                             {}) for seed in range(8)},
    "obstacles-short-horizons": (functools.partial(_random_state, 7, 100, 12.0), OBSTACLES,
                                 dict(dist=6.0, max_n=4, tau=2.0, tau_obst=1.0)),
    "circle-jammed-64": (functools.partial(_circle_state, 64, 40.0, 1.5, 80), [], CIRCLE),
    "circle-jammed-100": (functools.partial(_circle_state, 100, 30.0, 0.7, 60), [], CIRCLE),
    "circle-dispersing-64": (functools.partial(_circle_state, 64, 40.0, 1.5, 130), [], CIRCLE),
    "circle-around-a-block": (functools.partial(_circle_state, 64, 30.0, 1.0, 70, OBSTACLES[:1]),
                              OBSTACLES[:1], CIRCLE),
}


def _library_step(state, obstacles, *, dist, max_n, tau, tau_obst, dt):
    real = pyrvo.RVOSimulator(dt, dist, max_n, tau, tau_obst, 1.0, 2.0)
    n = len(state["rad"])
    for i in range(n):
        real.add_agent(tuple(state["pos"][i]), dist, max_n, tau, tau_obst,
                       float(state["rad"][i]), 2.0, tuple(state["vel"][i]))
        real.set_agent_pref_velocity(i, tuple(state["pref"][i]))
    for poly in obstacles:
        real.add_obstacle(poly)
    real.process_obstacles()
    real.do_step()
    real_vel = np.array([real.get_agent_velocity(i).to_tuple() for i in range(n)])
    real_pos = np.array([real.get_agent_position(i).to_tuple() for i in range(n)])
    return real_vel, real_pos


def _crowd_step(state, obstacles, *, dist, max_n, tau, tau_obst, dt):
    crowd = Crowd(dt)
    crowd.add_agents(state["pos"], velocity=state["vel"], pref_velocity=state["pref"],
                     radius=state["rad"], max_speed=2.0, neighbor_dist=dist, max_neighbors=max_n,
                     time_horizon=tau, time_horizon_obst=tau_obst)
    for poly in obstacles:
        crowd.add_obstacle(poly)
    diagnostics = crowd.step()
    return crowd, diagnostics


def _port_step(port, scalar, state, obstacles, *, dist, max_n, tau, tau_obst, dt):
    sim = port.Simulator(scalar(dt))
    for i in range(len(state["rad"])):
        sim.add_agent(state["pos"][i].astype(scalar), scalar(dist), max_n, scalar(tau),
                      scalar(tau_obst), scalar(state["rad"][i]), scalar(2.0),
                      state["vel"][i].astype(scalar), state["pref"][i].astype(scalar))
    for poly in obstacles:
        sim.add_obstacle(np.asarray(poly, dtype=scalar))
    sim.process_obstacles()
    sim.do_step()
    vel = np.array([[a.velocity.x, a.velocity.y] for a in sim.agents], dtype=np.float64)
    pos = np.array([[a.position.x, a.position.y] for a in sim.agents], dtype=np.float64)
    return vel, pos


@functools.cache
def _run(name):
    factory, obstacles, params = STATES[name]
    kw = dict(dist=10.0, max_n=10, tau=5.0, tau_obst=2.0, dt=0.25) | params
    state = factory()
    real_vel, real_pos = _library_step(state, obstacles, **kw)
    crowd, diagnostics = _crowd_step(state, obstacles, **kw)
    return state, obstacles, kw, crowd, diagnostics, real_vel, real_pos


def _solve_lines(port, scalar, point, direction, num_hard, pref, max_speed):
    """RVO2's linearProgram2, then linearProgram3 where it fails, in the port's arithmetic."""
    lines = [port.Line(port.V(scalar(p[0]), scalar(p[1])), port.V(scalar(d[0]), scalar(d[1])))
             for p, d in zip(point, direction, strict=True)]
    radius = scalar(max_speed)
    fail, result = port.linear_program2(lines, radius, port.V(scalar(pref[0]), scalar(pref[1])),
                                        False, port.V())
    if fail < len(lines):
        result = port.linear_program3(lines, int(num_hard), fail, radius, result)
    return np.array([float(result.x), float(result.y)])


def lp_float32_spread(diagnostics, agent, *, samples=JITTER_SAMPLES, seed=0):
    """How far float32 arithmetic moves this agent's linear-program solution (m/s).

    The agent's own lines (as the crowd built them, in the crowd's solve order) are solved in
    float64 and then in float32: once as rounded, and ``samples - 1`` times with every
    coordinate moved by up to 2 float32 ulps, the size of the library's own rounding of them.
    Returns the largest distance (max-norm) of a float32 solution from the float64 one.
    """
    port32 = ref.float32_port()
    idx = np.flatnonzero(diagnostics.valid[agent])
    point = diagnostics.line_point[agent, idx]
    direction = diagnostics.line_dir[agent, idx]
    args = (diagnostics.num_hard[agent], diagnostics.preferred[agent],
            diagnostics.max_speed[agent])
    exact = _solve_lines(ref, float, point, direction, *args)
    rng = np.random.default_rng(seed)
    spread = 0.0
    for k in range(samples):
        p32, d32 = point.astype(np.float32), direction.astype(np.float32)
        if k:
            p32 = _ulp_jitter(p32, rng)
            d32 = _ulp_jitter(d32, rng)
        solved = _solve_lines(port32, np.float32, p32, d32, *args)
        spread = max(spread, float(np.abs(solved - exact).max()))
    return spread


@functools.cache
def input_float32_spread(name, *, samples=8, seed=0):
    """Per agent, how far the crowd's float64 step moves when its input is taken in float32 (m/s).

    The library sees the input rounded to float32; the crowd is stepped from that rounding and
    from ``samples - 1`` copies moved by up to 2 more float32 ulps per number. A large move marks
    a line built at a near-tie, e.g. two bodies touching to within float32 rounding of
    ``distSq > combinedRadiusSq``, where the leg length ``sqrt(distSq - combinedRadiusSq)``
    is all rounding.
    """
    state, obstacles, kw, crowd, _, _, _ = _run(name)
    rng = np.random.default_rng(seed)
    spread = np.zeros(len(state["rad"]))
    for k in range(samples):
        moved = {key: value.astype(np.float32) for key, value in state.items()}
        if k:
            moved = {key: _ulp_jitter(value, rng) for key, value in moved.items()}
        moved = {key: value.astype(np.float64) for key, value in moved.items()}
        other, _ = _crowd_step(moved, obstacles, **kw)
        spread = np.maximum(spread, np.abs(other.velocity - crowd.velocity).max(axis=1))
    return spread


def float32_spread(name, agent):
    """How far float32 rounding (of the input, or inside the linear program) moves the agent."""
    diagnostics = _run(name)[4]
    return max(float(input_float32_spread(name)[agent]), lp_float32_spread(diagnostics, agent))


def _ulp_jitter(values, rng):
    steps = rng.integers(-2, 3, values.shape)
    out = values.copy()
    for _ in range(2):
        move = steps != 0
        out[move] = np.nextafter(out[move], np.where(steps[move] > 0, np.inf, -np.inf)
                                 .astype(np.float32))
        steps = steps - np.sign(steps)
    return out


def _excused(name):
    """Agents beyond the tolerance; each must show a detected float32 ill-conditioning."""
    _, _, _, crowd, _, real_vel, real_pos = _run(name)
    dev = np.maximum(np.abs(crowd.velocity - real_vel).max(axis=1),
                     np.abs(crowd.position - real_pos).max(axis=1))
    beyond = np.flatnonzero(dev > TOL)
    spreads = {int(a): float32_spread(name, int(a)) for a in beyond}
    return dev, spreads


@pytest.mark.parametrize("name", list(STATES))
def test_the_port_in_float32_reproduces_the_library_bit_for_bit(name):
    state, obstacles, kw, _, _, real_vel, real_pos = _run(name)
    vel, pos = _port_step(ref.float32_port(), np.float32, state, obstacles, **kw)
    np.testing.assert_array_equal(vel, real_vel)
    np.testing.assert_array_equal(pos, real_pos)


@pytest.mark.parametrize("name", list(STATES))
def test_the_crowd_agrees_with_the_port_in_float64(name):
    state, obstacles, kw, crowd, _, _, _ = _run(name)
    vel, pos = _port_step(ref, np.float64, state, obstacles, **kw)
    np.testing.assert_allclose(crowd.velocity, vel, atol=1e-9, rtol=0)
    np.testing.assert_allclose(crowd.position, pos, atol=1e-9, rtol=0)


@pytest.mark.parametrize("name", list(STATES))
def test_one_step_agrees_with_the_library(name):
    _, _, _, crowd, diagnostics, _, _ = _run(name)
    if name.startswith(("dense", "circle-jammed")):
        assert not np.all(diagnostics.feasible), "the state should exercise the fallback"
    dev, spreads = _excused(name)
    undetected = {a: (dev[a], s) for a, s in spreads.items() if s <= ILL_CONDITIONED}
    assert not undetected, (
        f"agents beyond {TOL} without float32 ill-conditioning "
        f"(agent: (deviation, float32 spread)): {undetected}")
    assert np.all(dev[np.setdiff1d(np.arange(len(dev)), list(spreads))] <= TOL)


def test_excused_agents_are_rare():
    total = 0
    excused = {}
    for name in STATES:
        dev, spreads = _excused(name)
        total += len(dev)
        excused.update({(name, a): (float(dev[a]), s) for a, s in spreads.items()})
    assert len(excused) <= MAX_EXCUSED_FRACTION * total, excused


def test_the_detector_flags_the_known_ill_conditioned_agents():
    # dense-3 agent 9 and obstacles-0 agent 75: linear program 3 projects onto the bisector of
    # ORCA lines at det 0.078 and 0.018, 61 and 331 m/s out; float32 moves them 2e-4 and 6e-3
    for name, agent in (("dense-3", 9), ("obstacles-0", 75)):
        assert lp_float32_spread(_run(name)[4], agent) > ILL_CONDITIONED
    # circle-dispersing-64 agents 51 and 54 touch: distSq - combinedRadiusSq = 5.7e-7 of 9 m^2
    for agent in (51, 54):
        assert input_float32_spread("circle-dispersing-64")[agent] > ILL_CONDITIONED
    # a well-conditioned agent is not flagged
    assert float32_spread("obstacles-0", 0) < ILL_CONDITIONED / 10
