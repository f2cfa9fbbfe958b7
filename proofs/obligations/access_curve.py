"""A — access curve (derivations: ``navproof.proofs.access_curve``).

A1 and A3 are sympy identities; A2 and A4 are z3 obligations; A5 is refutable: one reaction step
at the current speed can carry the body over the end of the curve.
"""

from __future__ import annotations

import sympy
import z3

from navproof.proofs import access_curve
from navproof.proofs import symbols as sym
from navproof.proofs.obligations.common import (
    PROVED,
    REFUTED,
    Builder,
    Obligation,
    Replay,
    Step,
    Values,
    branch,
    identity_obligation,
    is_zero,
    runtime_formulas,
    time_pieces,
)
from navproof.specs.profile import Profile


def _access(bb: Builder) -> dict[str, z3.ArithRef]:
    return {
        "d": bb.param("d", "access_length_m"),
        "vcap": bb.param("vcap", "access_speed_cap_mps"),
        "accel": bb.param("accel", "access_accel_mps2"),
    }


def a2(profile: Profile) -> Obligation:
    """A2: on a long curve (d > vCap^2/a) ``ACCESS_POSITION`` reaches exactly d at
    ``TOTAL_TIME``, ``ACCESS_SPEED`` stays in [0, vCap], and the position is monotone in [0, d].

    Steps: each conjunct of the conclusion on its own."""
    bb = Builder(profile)
    curve = _access(bb)
    t1 = bb.var("t1")
    t2 = bb.var("t2")
    total = bb.term(access_curve.TOTAL_TIME, **curve)
    bb.shown["T"] = total
    long_curve = z3.Not(bb.formula(access_curve.IS_SHORT, **curve))
    bb.outside_claim("d", "min", "a long curve has d > vCap^2/a > 0; A1 covers the short one")
    end = bb.term(access_curve.ACCESS_POSITION, t=access_curve.TOTAL_TIME, **curve)
    p1 = bb.term(access_curve.ACCESS_POSITION, t=t1, **curve)
    p2 = bb.term(access_curve.ACCESS_POSITION, t=t2, **curve)
    v1 = bb.term(access_curve.ACCESS_SPEED, t=t1, **curve)
    parts = [
        ("the curve ends at d", end == curve["d"]),
        ("speed >= 0", 0 <= v1),
        ("speed <= vCap", v1 <= curve["vcap"]),
        ("position >= 0", 0 <= p1),
        ("position is monotone", p1 <= p2),
        ("position <= d", p2 <= curve["d"]),
    ]
    conclusion = z3.And([part for _, part in parts])

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        args = dict(d=x["d"], vcap=x["vcap"], accel=x["accel"])
        tot = f.access_total_time(**args)
        pe = f.access_position(t=tot, **args)
        q1 = f.access_position(t=x["t1"], **args)
        q2 = f.access_position(t=x["t2"], **args)
        w1 = f.access_speed(t=x["t1"], **args)
        bad = (
            abs(pe - x["d"]) > 1e-9 or w1 < 0 or w1 > x["vcap"] or q1 < 0 or q1 > q2 or q2 > x["d"]
        )
        return Replay(bool(bad), f"end {pe:.6g}, p(t1) {q1:.6g}, p(t2) {q2:.6g}, v(t1) {w1:.6g}")

    return bb.obligation(
        id="A2",
        claim="A2",
        title="long access curve: exact length, capped, monotone",
        expected=PROVED,
        premise=[long_curve, 0 <= t1, t1 <= t2],
        conclusion=conclusion,
        replay=replay,
        witness_prefer=[0 < t1, t1 < t2, t2 < total],
        steps=[Step(name, part) for name, part in parts],
    )


def a2_peak(profile: Profile) -> Obligation:
    """A1/A2 pinned: ``PEAK_SPEED`` is vCap on a long curve and sqrt(a d) on a short one, and the
    curve's speed ``ACCESS_SPEED`` reaches it at the end of the acceleration ``ACCEL_TIME``."""
    bb = Builder(profile)
    curve = _access(bb)
    peak = bb.alias("peak", bb.term(access_curve.PEAK_SPEED, **curve))
    short = bb.formula(access_curve.IS_SHORT, **curve)
    catalogue_short = bb.term(sympy.sqrt(sym.accel * sym.d), d=curve["d"], accel=curve["accel"])
    reached = bb.term(access_curve.ACCESS_SPEED, t=access_curve.ACCEL_TIME, **curve)

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        args = dict(d=x["d"], vcap=x["vcap"], accel=x["accel"])
        pk = f.access_peak_speed(**args)
        want = (x["accel"] * x["d"]) ** 0.5 if x["d"] <= x["vcap"] ** 2 / x["accel"] else x["vcap"]
        return Replay(bool(abs(pk - want) > 1e-9), f"peak {pk:.6g} vs catalogue {want:.6g}")

    return bb.obligation(
        id="A2/peak",
        claim="A2",
        title="peak speed vCap (long), sqrt(a d) (short), reached by the curve",
        expected=PROVED,
        premise=[],
        conclusion=z3.And(
            z3.If(short, peak == catalogue_short, peak == curve["vcap"]), reached == peak
        ),
        replay=replay,
        witness_prefer=[z3.Not(short)],
    )


def _stepped_stop_point(position_m: float, speed_mps: float, hold_s: float, accel: float) -> float:
    """Stop point by fine time stepping, independent of the access-curve and S1 formulas: hold
    ``speed_mps`` for ``hold_s``, then brake at ``accel`` until rest."""
    steps = 20000
    x = position_m + speed_mps * hold_s
    h = speed_mps / accel / steps
    for i in range(steps):
        x += (speed_mps - accel * (i + 0.5) * h) * h
    return x


def _a45(profile: Profile, reaction: bool) -> Obligation:
    bb = Builder(profile)
    curve = _access(bb)
    t = bb.var("t")
    # Braking at once is the stop point with a zero reaction time, substituted exactly.
    dt = bb.param("dt", "step_s") if reaction else sympy.Integer(0)
    total = bb.term(access_curve.TOTAL_TIME, **curve)
    bb.shown["T"] = total
    stop = bb.term(access_curve.INTERRUPTED_STOP_POINT, t=t, dt=dt, **curve)
    bb.shown["stop"] = stop

    # The independent braking model: from the interruption speed v, braking at the curve's
    # accel covers v^2 / (2 accel) (kinematics, not the S1 derivation).
    position = bb.term(access_curve.ACCESS_POSITION, t=t, **curve)
    speed_now = bb.term(access_curve.ACCESS_SPEED, t=t, **curve)
    hold = dt if reaction else z3.RealVal(0)
    kinematic_stop = position + speed_now * hold + speed_now * speed_now / (2 * curve["accel"])

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        args = dict(d=x["d"], vcap=x["vcap"], accel=x["accel"])
        sp = f.interrupted_stop_point(t=x["t"], dt=x.get("dt", 0.0), **args)
        stepped = _stepped_stop_point(
            f.access_position(t=x["t"], **args),
            f.access_speed(t=x["t"], **args),
            x.get("dt", 0.0),
            x["accel"],
        )
        bad = (
            stepped > x["d"] + 1e-9 or abs(stepped - sp) > 1e-6
            if not reaction
            else stepped > x["d"]
        )
        return Replay(
            bool(bad),
            f"stop point {sp:.6g}, time-stepped braking {stepped:.6g}, d {x['d']:.6g}",
        )

    if reaction:
        return bb.obligation(
            id="A5",
            claim="A5",
            title="a reaction step at current speed can cross",
            expected=REFUTED,
            premise=[0 <= t, t <= total],
            conclusion=stop <= curve["d"],
            replay=replay,
            witness_prefer=[0 < t, t < total],
            sharpen=[stop - curve["d"] >= z3.RealVal("1/1000")],
        )
    kinematic = stop == kinematic_stop
    short = bb.formula(access_curve.IS_SHORT, **curve)
    accelerating = bb.formula(sympy.Le(sym.t, access_curve.ACCEL_TIME), t=t, **curve)
    cruising = bb.formula(
        sympy.Le(sym.t, access_curve.ACCEL_TIME + access_curve.CRUISE_TIME), t=t, **curve
    )
    root = bb.term(sympy.sqrt(sym.accel), accel=curve["accel"])
    inverse_root = bb.term(1 / sympy.sqrt(sym.accel), accel=curve["accel"])
    phases = [
        ("accelerating", accelerating),
        ("cruising", z3.And(z3.Not(accelerating), cruising)),
        ("braking, short curve", z3.And(z3.Not(cruising), short)),
        ("braking, long curve", z3.And(z3.Not(cruising), z3.Not(short))),
    ]
    return bb.obligation(
        id="A4",
        claim="A4",
        title="interrupted and braked at once never crosses",
        expected=PROVED,
        premise=[0 <= t, t <= total],
        conclusion=z3.And(kinematic, stop <= curve["d"]),
        replay=replay,
        witness_prefer=[0 < t, t < total, curve["d"] > 0],
        steps=[
            Step("the stop point is the kinematic stop", kinematic),
            Step("accel / sqrt(accel) = sqrt(accel)", curve["accel"] * inverse_root == root),
            *(
                Step(f"{name}: the stop point is <= d", z3.Implies(phase, stop <= curve["d"]))
                for name, phase in phases
            ),
            Step("the stop point is <= d", stop <= curve["d"]),
        ],
    )


def a4(profile: Profile) -> Obligation:
    """A4: interrupted at any t in [0, T] and braked at once at the curve's accel, the stop point
    ``INTERRUPTED_STOP_POINT`` (reaction dt = 0) is <= d.

    Steps: the stop point is the kinematic one, accel / sqrt(accel) = sqrt(accel) (the short
    curve's times are in sqrt(d / accel)), then stop <= d in each phase (accelerating, cruising,
    braking on a short or a long curve), hence everywhere."""
    return _a45(profile, reaction=False)


def a5(profile: Profile) -> Obligation:
    """A5 (refutable): with one reaction step dt at the current speed first, the stop point
    ``INTERRUPTED_STOP_POINT`` can exceed d; a counterexample is required."""
    return _a45(profile, reaction=True)


def _a1_identities() -> list[tuple[str, bool]]:
    d, accel = sym.d, sym.accel
    short = access_curve.IS_SHORT
    peak = branch(access_curve.PEAK_SPEED, short)
    total = branch(access_curve.TOTAL_TIME, short, fold=True)
    position = branch(access_curve.ACCESS_POSITION, short)
    speed = branch(access_curve.ACCESS_SPEED, short)
    accel_time = branch(access_curve.ACCEL_TIME, short)
    return [
        ("short peak is sqrt(a d)", is_zero(peak - sympy.sqrt(accel * d))),
        ("short total time is 2 sqrt(d/a)", is_zero(total - 2 * sympy.sqrt(d / accel))),
        (
            "short curve reaches d at its total time",
            is_zero(position.args[1][0].subs(sym.t, total) - d),
        ),
        (
            "short curve's speed at the end of acceleration is the peak",
            is_zero(speed.args[0][0].subs(sym.t, accel_time) - peak),
        ),
        ("short curve's cruise time is zero", is_zero(branch(access_curve.CRUISE_TIME, short))),
        ("short ramps meet at the peak", is_zero(2 * peak**2 / (2 * accel) - d)),
    ]


def _a3_identities() -> list[tuple[str, bool]]:
    t = sym.t
    checks: list[tuple[str, bool]] = []
    for label, condition in (("short", access_curve.IS_SHORT), ("long", sympy.true)):
        positions = time_pieces(branch(access_curve.ACCESS_POSITION, condition))
        speeds = time_pieces(branch(access_curve.ACCESS_SPEED, condition))
        checks.append((f"{label}: position starts at 0", is_zero(positions[0][0].subs(t, 0))))
        for i in range(len(positions) - 1):
            expr, bound = positions[i]
            nxt = positions[i + 1][0]
            checks.append(
                (
                    f"{label}: position continuous at boundary {i + 1}",
                    bound is not None and is_zero(expr.subs(t, bound) - nxt.subs(t, bound)),
                )
            )
        for i, ((p, _), (v, _)) in enumerate(zip(positions, speeds, strict=True)):
            checks.append(
                (f"{label}: d(position)/dt = speed on piece {i + 1}", is_zero(sympy.diff(p, t) - v))
            )
    t2 = sympy.Symbol("t2", nonnegative=True)
    step = access_curve.ACCESS_STEP_DISPLACEMENT
    telescoped = (
        step + step.subs({sym.t0: sym.t1, sym.t1: t2}, simultaneous=True) - step.subs(sym.t1, t2)
    )
    checks.append(("step displacements telescope", is_zero(telescoped)))
    checks.append(
        (
            "a step is the difference of positions",
            is_zero(
                step
                - (
                    access_curve.ACCESS_POSITION.subs(t, sym.t1)
                    - access_curve.ACCESS_POSITION.subs(t, sym.t0)
                )
            ),
        )
    )
    return checks


a1 = identity_obligation(
    "A1", "short access curve: peak sqrt(a d), total 2 sqrt(d/a)", _a1_identities, module=__name__
)
a3 = identity_obligation(
    "A3",
    "access positions continuous, derivative = speed, steps telescope",
    _a3_identities,
    module=__name__,
)


OBLIGATIONS = {"A1": a1, "A2": a2, "A2/peak": a2_peak, "A3": a3, "A4": a4, "A5": a5}
REFUTABLE = frozenset({"A5"})
