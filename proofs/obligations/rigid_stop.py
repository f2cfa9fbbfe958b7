"""B6 — the stop after the step next to rotating motion (derivations: ``navproof.proofs.rigid``,
``stop_envelope``).

The runtime certifies the stop that follows a step on a rotating support, or next to a rotating
edge, with the bound of ``B6/second_derivative``: after the step ends at y1 (support frame) it
samples y(tau) = y1 + v1 ``STOP_TRAJECTORY_FACTOR``(tau) for tau in [0, dt + |v1|/a], maps each
point at the absolute time dt + tau, and feeds M2 with q_max = ``STOP_CURVE_OFFSET_BOUND`` of
|y1 - c_s|, dq_max = |v1|, ddq_max = 0 while holding and a while braking, and the pivot bounds
over a horizon of 2 dt + |v1|/a. This composition is proved here:

- ``B6/stop_trajectory``: the sampled curve is the hold-then-brake kinematics (hold v1 for dt,
  then brake at a along -v1/|v1| to rest), its offset from the pivot stays within
  ``STOP_CURVE_OFFSET_BOUND``, |Q'| <= |v1|, |Q''| is 0 while holding and a while braking, and
  the sampled times lie within the pivot horizon;
- ``B6/stop_trajectory/tight``: an offset along v1 at the end of the stop reaches
  ``STOP_CURVE_OFFSET_BOUND`` exactly.
- ``B6/hold_drift`` and ``/tight``: at rest on the support afterwards, next to an edge that does
  not rotate, the pivot drift dot(n, P(t)) stays at or below ``HOLD_DRIFT_SUP`` for all t >= 0
  where the runtime certifies the hold, and reaches it.

Claim: B6 (seed 000).
"""

from __future__ import annotations

import math

import sympy
import z3

from navproof.proofs import rigid, stop_envelope
from navproof.proofs import symbols as sym
from navproof.proofs.obligations.common import (
    PROVED,
    Builder,
    Obligation,
    Replay,
    Step,
    Values,
    dot,
    runtime_formulas,
)
from navproof.proofs.obligations.kinematics import hold_then_brake
from navproof.proofs.obligations.rigid import keep_only, nonnegative, rigid_term
from navproof.proofs.obligations.rigid_curves import (
    Direction,
    Part,
    direction_steps,
    from_frame,
)
from navproof.specs.profile import Profile


def _stop_offset_bound(x: Values, q0: float, speed: float) -> float:
    return runtime_formulas().stop_curve_offset_bound(q0=q0, speed=speed, dt=x["dt"], a=x["a"])


def _runtime_factor(x: Values, tau: float) -> float:
    return float(runtime_formulas().stop_trajectory_factor(
        t=tau, dt=x["dt"], a=x["a"], speed=math.hypot(*from_frame(x, "v1"))))


def b6_stop_trajectory(profile: Profile) -> Obligation:
    """B6/stop_trajectory: for v1 != 0, a and dt over the profile's ranges and tau in
    [0, dt + |v1|/a]:
    (i) v1 ``STOP_TRAJECTORY_FACTOR``(tau) is the hold-then-brake displacement written here
    (v1 tau while holding; v1 dt + v1 s - a v1/|v1| s^2/2 with s = tau - dt while braking);
    (ii) |q0 + v1 phi(tau)| <= ``STOP_CURVE_OFFSET_BOUND``(q0, |v1|, dt, a) for any bound q0 of
    |q0| (stated as u.Q <= the bound for every unit u, vectors in u's frame: see ``Direction``);
    (iii) 0 <= phi' <= 1 (|Q'| <= |v1|), |v1| phi'' = 0 while holding and -a while braking;
    (iv) the absolute time dt + tau lies in [0, 2 dt + |v1|/a], the runtime's pivot horizon.
    Steps: the factor lies in [0, ``STOP_DISPLACEMENT_FACTOR``], then the triangle inequality.
    """
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    d = Direction(bb)
    c, cc = d.vector("v1")
    q0v, q0c = d.vector("q0_vec")
    speed = bb.norm("|v1|", c)
    q0 = bb.var("q0", nonnegative)
    inv_speed = bb.var("inv_speed")
    bb.hypotheses.append(z3.Implies(speed > 0, inv_speed * speed == 1))
    tau = bb.var("tau")
    args = {"dt": dt, "a": a, "speed": speed}
    factor = stop_envelope.STOP_TRAJECTORY_FACTOR
    phi = bb.alias("phi", bb.term(factor, t=tau, **args))
    slope = bb.term(sympy.diff(factor, sym.t), t=tau, **args)
    curvature = bb.term(sympy.diff(factor, sym.t, 2), t=tau, **args)
    factor_end = bb.alias("phi_end",
                          bb.term(stop_envelope.STOP_DISPLACEMENT_FACTOR, speed=speed, dt=dt, a=a))
    # (i) the kinematics: hold v1 for dt, then decelerate at a along -v1/|v1|
    s = tau - dt
    gaps = []
    for i, k in enumerate("xy"):
        braking = c[i] * dt + c[i] * s - a * inv_speed * c[i] * s * s / 2
        gaps.append(bb.alias(f"gap_{k}", c[i] * phi - z3.If(tau <= dt, c[i] * tau, braking)))
    # (ii) the offset from the support's pivot
    one = z3.RealVal(1)
    offset = [Part(q0v, q0c, q0, one, one), Part(c, cc, speed, phi, factor_end)]
    bound = rigid_term(bb, rigid.STOP_CURVE_OFFSET_BOUND, q0=q0, speed=speed, dt=dt, a=a)
    stop = (tau, dt, a, speed, phi, factor_end)
    chain, toward = direction_steps(bb, d, "Q", offset, stop)
    steps = [
        Step("the runtime's curve is the hold-then-brake kinematics",
             z3.And(gaps[0] == 0, gaps[1] == 0),
             keep_only(bb, *d.u, *cc, speed, inv_speed, *gaps, *stop)),
        Step("phi(tau) >= 0", phi >= 0, keep_only(bb, *stop)),
        Step("phi(tau) <= STOP_DISPLACEMENT_FACTOR (S1: the end is the farthest point)",
             phi <= factor_end, keep_only(bb, *stop)),
        *chain,
    ]
    derivatives = z3.And(0 <= slope, slope <= 1,
                         z3.If(tau <= dt, curvature == 0, speed * curvature == -a))
    horizon = z3.And(dt + tau >= 0, a * (dt + tau) <= 2 * a * dt + speed)

    def replay(x: Values) -> Replay:
        v1, q0_vec = from_frame(x, "v1"), from_frame(x, "q0_vec")
        spd = math.hypot(*v1)
        end = x["dt"] + spd / x["a"]
        tau_x = x["tau"]
        moved, _ = hold_then_brake(v1, x["dt"], x["a"], tau_x)
        phi_x = _runtime_factor(x, tau_x)
        bad = []
        scale = 1.0 + spd * end
        if math.hypot(v1[0] * phi_x - moved[0], v1[1] * phi_x - moved[1]) > 1e-6 * scale:
            bad.append(f"runtime curve {phi_x:.6g} v1 vs stepped {moved}")
        limit = _stop_offset_bound(x, x["q0"], spd)
        peak = max(math.hypot(*(q0_vec[k] + hold_then_brake(v1, x["dt"], x["a"], end * i / 64,
                                                               substeps=400)[0][k]
                                for k in range(2)))
                   for i in range(65))
        if peak > limit + 1e-6 * (1.0 + limit):
            bad.append(f"|Q| reaches {peak:.6g} > bound {limit:.6g}")
        step = 1e-6 * max(end, 1e-3)
        lo, hi = max(tau_x - step, 0.0), min(tau_x + step, end)
        rate = (_runtime_factor(x, hi) - _runtime_factor(x, lo)) / (hi - lo) if hi > lo else 1.0
        if not -1e-6 <= rate <= 1 + 1e-6:
            bad.append(f"phi' {rate:.6g} outside [0, 1]")
        admissible = math.hypot(*q0_vec) <= x["q0"] * (1 + 1e-9) and spd > 0
        return Replay(bool(bad and admissible and 0 <= tau_x <= end * (1 + 1e-12)),
                      "; ".join(bad) or f"phi {phi_x:.6g} matches the stepped stop; "
                      f"|Q| peak {peak:.6g} within {limit:.6g}")

    return bb.obligation(
        id="B6/stop_trajectory",
        claim="B6",
        title="the sampled stop is hold-then-brake, within its offset, speed and braking bounds",
        expected=PROVED,
        premise=[speed > 0, tau >= 0, a * (tau - dt) <= speed, dot(q0v, q0v) <= q0 * q0],
        conclusion=z3.And(gaps[0] == 0, gaps[1] == 0, toward <= bound, derivatives, horizon),
        replay=replay,
        witness_prefer=[tau > dt, a * (tau - dt) < speed, q0c[0] != 0, cc[1] != 0],
        steps=steps,
        conclusion_forget=keep_only(bb, *gaps, toward, q0, q0c[0], cc[0], *stop, inv_speed),
    )


def b6_stop_trajectory_tight(profile: Profile) -> Obligation:
    """B6/stop_trajectory/tight: an offset q0 along v1 at the end of the stop
    (tau = dt + |v1|/a) lies exactly ``STOP_CURVE_OFFSET_BOUND``(|q0|, |v1|, dt, a) from the
    pivot."""
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    e = bb.unit("e")
    q0 = bb.var("q0", nonnegative)
    speed = bb.var("|v1|", lambda x: x > 0)
    end = bb.var("tau_end")
    bb.hypotheses.append(a * (end - dt) == speed)
    phi = bb.alias("phi_end", bb.term(stop_envelope.STOP_TRAJECTORY_FACTOR, t=end, dt=dt, a=a,
                                      speed=speed))
    q = tuple(q0 * e[k] + speed * e[k] * phi for k in range(2))
    bound = rigid_term(bb, rigid.STOP_CURVE_OFFSET_BOUND, q0=q0, speed=speed, dt=dt, a=a)

    def replay(x: Values) -> Replay:
        v1 = (x["|v1|"] * x["e_x"], x["|v1|"] * x["e_y"])
        moved, _ = hold_then_brake(v1, x["dt"], x["a"], x["dt"] + x["|v1|"] / x["a"])
        reach = math.hypot(x["q0"] * x["e_x"] + moved[0], x["q0"] * x["e_y"] + moved[1])
        limit = runtime_formulas().stop_curve_offset_bound(q0=x["q0"], speed=x["|v1|"],
                                                           dt=x["dt"], a=x["a"])
        return Replay(bool(abs(reach - limit) > 1e-6 * (1.0 + limit)),
                      f"stepped |Q| at the end {reach:.6g} vs bound {limit:.6g}")

    return bb.obligation(
        id="B6/stop_trajectory/tight",
        claim="B6",
        title="an offset along v1 reaches the stop offset bound at the end of the stop",
        expected=PROVED,
        premise=[],
        conclusion=z3.And(dot(q, q) == bound * bound, bound >= 0),
        replay=replay,
        witness_prefer=[q0 > 0],
    )


def _hold_drift(bb: Builder) -> tuple[z3.ArithRef, ...]:
    """dot(n, p0), dot(n, dw), dot(n, da) of the pivot offset against a non-rotating edge, the
    premise under which the runtime certifies the hold (dot(n, da) < 0, or dot(n, da) = 0 and
    dot(n, dw) <= 0) and ``HOLD_DRIFT_SUP`` of them."""
    p0 = bb.var("n_dot_p")
    dw = bb.var("n_dot_dw")
    da = bb.var("n_dot_da")
    certified = z3.Or(da < 0, z3.And(da == 0, dw <= 0))
    sup = bb.alias("sup", rigid_term(bb, rigid.HOLD_DRIFT_SUP, n_dot_p=p0, n_dot_dw=dw,
                                     n_dot_da=da))
    return p0, dw, da, certified, sup


def _drift(n_dot_p, n_dot_dw, n_dot_da, t):
    """dot(n, P(t)) = dot(n, p0) + dot(n, dw) t + dot(n, da) t^2 / 2, from the kinematics (for
    z3 terms and floats alike)."""
    return n_dot_p + n_dot_dw * t + n_dot_da * t * t / 2


def _drift_at(x: Values, t: float) -> float:
    return _drift(x["n_dot_p"], x["n_dot_dw"], x["n_dot_da"], t)


def _runtime_sup(x: Values) -> float:
    return float(runtime_formulas().hold_drift_sup(n_dot_p=x["n_dot_p"], n_dot_dw=x["n_dot_dw"],
                                                   n_dot_da=x["n_dot_da"]))


def b6_hold_drift(profile: Profile) -> Obligation:
    """B6/hold_drift: at rest on its support after the stop, a body's margin against an edge
    that does not rotate changes by the pivot drift dot(n, P(t)) = dot(n, p0) + dot(n, dw) t
    + dot(n, da) t^2 / 2 (written here from the kinematics). Where the runtime certifies the
    hold, the drift never exceeds ``HOLD_DRIFT_SUP`` at any t >= 0. Claim: B6, R3."""
    bb = Builder(profile)
    p0, dw, da, certified, sup = _hold_drift(bb)
    t = bb.var("t", nonnegative)
    drift = bb.alias("drift", _drift(p0, dw, da, t))

    def replay(x: Values) -> Replay:
        limit = _runtime_sup(x)
        return Replay(bool(_drift_at(x, x["t"]) > limit + 1e-9 * (1.0 + abs(limit))),
                      f"drift at t = {x['t']:.6g}: {_drift_at(x, x['t']):.6g} vs "
                      f"supremum {limit:.6g}")

    return bb.obligation(
        id="B6/hold_drift",
        claim="B6",
        title="the pivot drift of a certified hold stays below its supremum",
        expected=PROVED,
        premise=[certified],
        conclusion=drift <= sup,
        replay=replay,
        witness_prefer=[dw > 0, da < 0, t > 0],
    )


def b6_hold_drift_tight(profile: Profile) -> Obligation:
    """B6/hold_drift/tight: the drift reaches ``HOLD_DRIFT_SUP``: at the parabola's vertex
    t* = -dot(n, dw) / dot(n, da) when the drift first rises (dot(n, dw) > 0, dot(n, da) < 0),
    at t = 0 otherwise. Claim: B6, R3."""
    bb = Builder(profile)
    p0, dw, da, certified, sup = _hold_drift(bb)
    peak = bb.var("t_peak")
    rising = z3.And(dw > 0, da < 0)
    bb.hypotheses.append(z3.If(rising, da * peak == -dw, peak == 0))
    drift = bb.alias("drift", _drift(p0, dw, da, peak))

    def replay(x: Values) -> Replay:
        limit = _runtime_sup(x)
        reached = _drift_at(x, x["t_peak"])
        return Replay(bool(x["t_peak"] < 0 or abs(reached - limit) > 1e-9 * (1.0 + abs(limit))),
                      f"drift at t = {x['t_peak']:.6g}: {reached:.6g} vs supremum {limit:.6g}")

    return bb.obligation(
        id="B6/hold_drift/tight",
        claim="B6",
        title="the pivot drift of a certified hold reaches its supremum",
        expected=PROVED,
        premise=[certified],
        conclusion=z3.And(peak >= 0, drift == sup),
        replay=replay,
        witness_prefer=[dw > 0, da < 0, p0 < 0],
    )


OBLIGATIONS = {
    "B6/stop_trajectory": b6_stop_trajectory,
    "B6/stop_trajectory/tight": b6_stop_trajectory_tight,
    "B6/hold_drift": b6_hold_drift,
    "B6/hold_drift/tight": b6_hold_drift_tight,
}
