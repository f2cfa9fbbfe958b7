"""S — stop envelope (derivations: ``navproof.proofs.stop_envelope``).

S1 is a list of sympy identities; S2-S5 are z3 obligations, S2, S3 and S5 led through lemma steps.
"""

from __future__ import annotations

import math

import sympy
import z3

from navproof.proofs import boundary, slope, stop_envelope
from navproof.proofs import symbols as sym
from navproof.proofs.obligations.common import (
    PROVED,
    Builder,
    Obligation,
    Replay,
    Step,
    Values,
    add,
    cauchy_schwarz_step,
    dot,
    fdot,
    fnorm,
    identity_obligation,
    is_zero,
    runtime_formulas,
    sub,
    triangle_steps,
)
from navproof.specs.profile import Profile

# The integration variable of the braking speed profile (S1 identities).
_tau = sympy.Symbol("tau", nonnegative=True)


def s2(profile: Profile) -> Obligation:
    """S2: dot(n, c) > ``NECESSARY_NORMAL_BOUND`` implies ``NORMAL_STOP_DISPLACEMENT`` > s.

    2-D c and unit n; |c| is the sqrt variable of the translation. Step: dot(n, c) <= |c|.
    """
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    c = bb.vector("c")
    speed = bb.norm("|c|", c)
    n_c = bb.alias("n_dot_c", dot(n, c))
    bound = bb.term(stop_envelope.NECESSARY_NORMAL_BOUND, s=s, dt=dt, a=a)
    displacement = bb.term(
        stop_envelope.NORMAL_STOP_DISPLACEMENT, n_dot_c=n_c, speed=speed, dt=dt, a=a
    )
    vectors = bb.names(n, c)

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        nb = f.necessary_normal_bound(s=x["s"], dt=x["dt"], a=x["a"])
        disp = f.normal_stop_displacement(
            n_dot_c=fdot(x, "n", "c"), speed=fnorm(x, "c"), dt=x["dt"], a=x["a"]
        )
        return Replay(
            bool(fdot(x, "n", "c") > nb and disp <= x["s"]),
            f"bound {nb:.6g}, displacement {disp:.6g}, s {x['s']:.6g}",
        )

    return bb.obligation(
        id="S2",
        claim="S2",
        title="beyond the necessary bound no stop fits",
        expected=PROVED,
        premise=[n_c > bound],
        conclusion=displacement > s,
        replay=replay,
        witness_prefer=[n_c < speed],
        steps=[Step("dot(n,c) <= |c| (unit n)", n_c <= speed, bb.names(s, dt, a))],
        conclusion_forget=vectors,
    )


def s2_tight(profile: Profile) -> Obligation:
    """S2 pinned (tight): with c parallel to n (dot(n, c) = |c|) at exactly
    ``NECESSARY_NORMAL_BOUND``, the normal stop displacement ``NORMAL_STOP_DISPLACEMENT`` is
    exactly s: the bound is the largest admissible normal speed, not merely a safe one."""
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    s = bb.param("s", "initial_margin_m")
    bound = bb.alias("bound", bb.term(stop_envelope.NECESSARY_NORMAL_BOUND, s=s, dt=dt, a=a))
    displacement = bb.term(
        stop_envelope.NORMAL_STOP_DISPLACEMENT, n_dot_c=bound, speed=bound, dt=dt, a=a
    )
    bb.shown["displacement"] = displacement

    def replay(x: Values) -> Replay:
        nb = runtime_formulas().necessary_normal_bound(s=x["s"], dt=x["dt"], a=x["a"])
        moved = _stepped_stop_distance(nb, x["dt"], x["a"])
        return Replay(
            bool(abs(moved - x["s"]) > 1e-4 * max(1.0, x["s"])),
            f"bound {nb:.6g}: time-stepped stop moves {moved:.6g} vs s {x['s']:.6g}",
        )

    return bb.obligation(
        id="S2/tight",
        claim="S2",
        title="a straight-in stop at the necessary bound uses exactly the margin",
        expected=PROVED,
        premise=[],
        conclusion=z3.And(bound >= 0, displacement == s),
        replay=replay,
        witness_prefer=[s > 0],
    )


def s3_tight(profile: Profile) -> Obligation:
    """S3 pinned (tight): a c with |c| = Cmax and dot(n, c) = ``LINEAR_ENVELOPE_BOUND`` stops
    with a normal displacement of exactly s."""
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    s = bb.param("s", "initial_margin_m")
    cmax = bb.var("Cmax", lambda x: x > 0)
    bound = bb.alias(
        "bound", bb.term(stop_envelope.LINEAR_ENVELOPE_BOUND, s=s, dt=dt, a=a, cmax=cmax)
    )
    displacement = bb.term(
        stop_envelope.NORMAL_STOP_DISPLACEMENT, n_dot_c=bound, speed=cmax, dt=dt, a=a
    )

    def replay(x: Values) -> Replay:
        lb = runtime_formulas().linear_envelope_bound(
            s=x["s"], dt=x["dt"], a=x["a"], cmax=x["Cmax"]
        )
        moved = lb / x["Cmax"] * _stepped_stop_distance(x["Cmax"], x["dt"], x["a"])
        return Replay(
            bool(abs(moved - x["s"]) > 1e-4 * max(1.0, x["s"])),
            f"bound {lb:.6g}: time-stepped normal displacement {moved:.6g} vs s {x['s']:.6g}",
        )

    return bb.obligation(
        id="S3/tight",
        claim="S3",
        title="at |c| = Cmax the linear envelope uses exactly the margin",
        expected=PROVED,
        premise=[],
        conclusion=displacement == s,
        replay=replay,
        witness_prefer=[s > 0],
    )


def s4_cap(profile: Profile) -> Obligation:
    """S4 pinned: ``ENVELOPE_SPEED_CAP`` is the catalogue's Cmax = Vh + |u - r|, with
    Vh = ``HORIZONTAL_CAP``(V, k) = V / k."""
    bb = Builder(profile)
    surface = bb.param("V", "surface_speed_cap_mps")
    k = bb.param("k", "slope_factor")
    carry = bb.var("|u-r|", lambda x: x >= 0)
    vh = bb.alias("Vh", bb.term(slope.HORIZONTAL_CAP, surface_cap=surface, k=k))
    cmax = bb.term(stop_envelope.ENVELOPE_SPEED_CAP, vh=vh, carry=carry)
    bb.shown["Cmax"] = cmax

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        vh_f = f.horizontal_cap(surface_cap=x["V"], k=x["k"])
        cm = f.envelope_speed_cap(vh=vh_f, carry=x["|u-r|"])
        want = x["V"] / x["k"] + x["|u-r|"]
        return Replay(bool(abs(cm - want) > 1e-9), f"Cmax {cm:.6g} vs V/k + |u-r| {want:.6g}")

    return bb.obligation(
        id="S4/cap",
        claim="S4",
        title="Cmax = V/k + |u - r|",
        expected=PROVED,
        premise=[],
        conclusion=z3.And(vh * k == surface, cmax == vh + carry),
        replay=replay,
        witness_prefer=[carry > 0, k > 1],
    )


def s5_tight(profile: Profile) -> Obligation:
    """S5 pinned (tight): when Cmax equals ``NECESSARY_NORMAL_BOUND`` the linear envelope
    ``LINEAR_ENVELOPE_BOUND`` equals it too, so S5's inequality is the best possible."""
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    s = bb.param("s", "initial_margin_m")
    bb.outside_claim("s", "min", "s = 0 gives a zero necessary bound, and Cmax is positive")
    necessary = bb.alias(
        "necessary", bb.term(stop_envelope.NECESSARY_NORMAL_BOUND, s=s, dt=dt, a=a)
    )
    linear = bb.term(stop_envelope.LINEAR_ENVELOPE_BOUND, s=s, dt=dt, a=a, cmax=necessary)
    bb.shown["linear"] = linear

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        nb = f.necessary_normal_bound(s=x["s"], dt=x["dt"], a=x["a"])
        lb = f.linear_envelope_bound(s=x["s"], dt=x["dt"], a=x["a"], cmax=nb)
        return Replay(bool(abs(lb - nb) > 1e-9), f"linear {lb:.6g} vs necessary {nb:.6g}")

    return bb.obligation(
        id="S5/tight",
        claim="S5",
        title="the linear envelope meets the necessary bound at Cmax = the bound",
        expected=PROVED,
        premise=[s > 0],
        conclusion=linear == necessary,
        replay=replay,
    )


def _stepped_stop_distance(speed_mps: float, dt_s: float, a_mps2: float) -> float:
    """Distance of the hold-then-brake stop by fine time stepping (independent of S1's formula):
    hold ``speed_mps`` for ``dt_s``, then lose ``a_mps2`` per second until rest."""
    steps = 20000
    distance = speed_mps * dt_s
    brake_s = speed_mps / a_mps2
    h = brake_s / steps
    for i in range(steps):
        # Midpoint rule on the linear speed profile of each sub-step.
        distance += (speed_mps - a_mps2 * (i + 0.5) * h) * h
    return distance


def horizontal_cap(bb: Builder) -> z3.ArithRef:
    """Vh = ``HORIZONTAL_CAP``(V, k) (an alias) over the profile's surface cap and slope factor."""
    surface = bb.param("V", "surface_speed_cap_mps")
    k = bb.param("k", "slope_factor")
    return bb.alias("Vh", bb.term(slope.HORIZONTAL_CAP, surface_cap=surface, k=k))


def _envelope_cap(bb: Builder, u, r) -> tuple[z3.ArithRef, z3.ArithRef]:
    """Vh = ``HORIZONTAL_CAP``(V, k) and Cmax = ``ENVELOPE_SPEED_CAP``(Vh, |u - r|) (aliases)."""
    vh = horizontal_cap(bb)
    carry = bb.norm("|u-r|", sub(u, r))
    cmax = bb.alias("Cmax", bb.term(stop_envelope.ENVELOPE_SPEED_CAP, vh=vh, carry=carry))
    return vh, cmax


_CAPS = ("V", "k", "Vh", "Cmax")
"""Names of the caps behind Cmax (``_envelope_cap``): what the triangle steps forget."""


def _speed_triangle(bb: Builder, u, v, r, forget: tuple[str, ...]) -> list[Step]:
    """Steps of |c| = |v + (u - r)| <= |v| + |u - r| (S4's triangle inequality), with the norms
    |v|, |u-r|, |c| already built (``Builder.norm``); ``forget``: the other quantities."""
    norms = (bb.shown["|v|"], bb.shown["|u-r|"], bb.shown["|c|"])
    return triangle_steps(v, sub(u, r), norms, forget)


def s3(profile: Profile) -> Obligation:
    """S3: |c| <= Cmax and dot(n, c) <= ``LINEAR_ENVELOPE_BOUND`` keep the margin >= 0 over the
    whole reaction-and-brake trajectory and the hold at r afterwards, when dot(n, r - e) <= 0.

    2-D: c = u + v - r, world velocity r + c sigma(t) with sigma the reaction-then-brake profile.
    Margin at time t >= 0: the constant-velocity margin ``CONSTANT_VELOCITY_MARGIN`` of the
    reference motion r minus dot(n, c) times ``STOP_TRAJECTORY_FACTOR`` (which ends at S1's
    ``STOP_DISPLACEMENT_FACTOR``). Steps: the trajectory factor lies in [0, factor(|c|)], the
    factor grows with the speed up to Cmax, the linear bound caps dot(n, c) factor(Cmax) by s,
    and the reference motion never moves towards the edge.
    """
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    u = bb.bounded_vector("u", "support_speed_mps")
    e = bb.bounded_vector("e", "edge_speed_mps")
    v = bb.vector("v")
    r = bb.vector("r")
    t = bb.var("t")
    _, cmax = _envelope_cap(bb, u, r)
    c = sub(add(u, v), r)
    speed = bb.norm("|c|", c)
    n_c = bb.alias("n_dot_c", dot(n, c))
    n_re = bb.alias("n_dot_r_minus_e", dot(n, sub(r, e)))
    bound = bb.term(stop_envelope.LINEAR_ENVELOPE_BOUND, s=s, dt=dt, a=a, cmax=cmax)
    reference_margin = bb.alias(
        "reference_margin",
        bb.term(
            boundary.CONSTANT_VELOCITY_MARGIN,
            s=s,
            t=t,
            n_dot_e=dot(n, e),
            n_dot_u=dot(n, u),
            n_dot_v=dot(n, sub(r, u)),
        ),
    )
    factor = bb.term(stop_envelope.STOP_TRAJECTORY_FACTOR, t=t, dt=dt, a=a, speed=speed)
    factor_end = bb.term(stop_envelope.STOP_DISPLACEMENT_FACTOR, speed=speed, dt=dt, a=a)
    factor_cap = bb.term(stop_envelope.STOP_DISPLACEMENT_FACTOR, speed=cmax, dt=dt, a=a)
    margin = reference_margin - n_c * factor
    vectors = bb.names(n, u, e, v, r)
    geometry = (*vectors, *bb.names(bb.shown["|u-r|"]), "V", "k", "Vh")

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        c_x = x["u_x"] + x["v_x"] - x["r_x"]
        c_y = x["u_y"] + x["v_y"] - x["r_y"]
        n_c_f = x["n_x"] * c_x + x["n_y"] * c_y
        spd = math.hypot(c_x, c_y)
        vh = f.horizontal_cap(surface_cap=x["V"], k=x["k"])
        cm = f.envelope_speed_cap(vh=vh, carry=math.hypot(x["u_x"] - x["r_x"], x["u_y"] - x["r_y"]))
        lb = f.linear_envelope_bound(s=x["s"], dt=x["dt"], a=x["a"], cmax=cm)
        tt = x["t"]
        fac = f.stop_trajectory_factor(t=tt, dt=x["dt"], a=x["a"], speed=spd)
        ref = f.constant_velocity_margin(
            s=x["s"], t=tt, n_dot_e=fdot(x, "n", "e"), n_dot_u=fdot(x, "n", "r"), n_dot_v=0.0
        )
        m = ref - n_c_f * fac
        premise = spd <= cm and n_c_f <= lb
        return Replay(
            bool(premise and m < 0), f"margin at t {m:.6g}, bound {lb:.6g}, Cmax {cm:.6g}"
        )

    steps = [
        Step("trajectory factor >= 0", factor >= 0, geometry),
        Step(
            "trajectory factor <= factor(|c|) (S1: the end is the worst point)",
            factor <= factor_end,
            geometry,
        ),
        Step("factor(|c|) <= factor(Cmax)", factor_end <= factor_cap, geometry),
        Step("dot(n,c) factor(Cmax) <= s (linear envelope)", n_c * factor_cap <= s, geometry),
        Step("dot(n,c) factor(t) <= s", n_c * factor <= s, geometry),
        Step(
            "reference motion keeps the margin >= s",
            reference_margin >= s,
            (*bb.names(v, bb.shown["|u-r|"], speed), "V", "k", "Vh", "Cmax"),
        ),
    ]
    return bb.obligation(
        id="S3",
        claim="S3",
        title="linear envelope keeps the whole stop inside",
        expected=PROVED,
        premise=[speed <= cmax, n_c <= bound, n_re <= 0, t >= 0],
        conclusion=margin >= 0,
        replay=replay,
        witness_prefer=[n_c > 0, dt < t, a * (t - dt) < speed, n_re < 0],
        steps=steps,
        conclusion_forget=geometry,
    )


def s4(profile: Profile) -> Obligation:
    """S4: |v| <= Vh = ``HORIZONTAL_CAP`` implies |u + v - r| <= ``ENVELOPE_SPEED_CAP``.

    Steps: the triangle inequality |c| <= |v| + |u - r| in squared form (``triangle_steps``)."""
    bb = Builder(profile)
    u = bb.bounded_vector("u", "support_speed_mps")
    v = bb.vector("v")
    r = bb.vector("r")
    vh, cmax = _envelope_cap(bb, u, r)
    speed_v = bb.norm("|v|", v)
    speed_c = bb.norm("|c|", sub(add(u, v), r))

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        vh_f = f.horizontal_cap(surface_cap=x["V"], k=x["k"])
        cm = f.envelope_speed_cap(
            vh=vh_f, carry=math.hypot(x["u_x"] - x["r_x"], x["u_y"] - x["r_y"])
        )
        c = math.hypot(x["u_x"] + x["v_x"] - x["r_x"], x["u_y"] + x["v_y"] - x["r_y"])
        return Replay(bool(fnorm(x, "v") <= vh_f and c > cm), f"|c| {c:.6g}, Cmax {cm:.6g}")

    return bb.obligation(
        id="S4",
        claim="S4",
        title="relative speed cap bounds the envelope speed",
        expected=PROVED,
        premise=[speed_v <= vh],
        conclusion=speed_c <= cmax,
        replay=replay,
        witness_prefer=[speed_v > 0, bb.shown["|u-r|"] > 0],
        steps=_speed_triangle(bb, u, v, r, forget=_CAPS),
        conclusion_forget=bb.names(u, v, r),
    )


def s5(profile: Profile) -> Obligation:
    """S5: under S4 (|v| <= Vh, Cmax = Vh + |u - r|) a c = u + v - r admitted by the linear
    envelope ``LINEAR_ENVELOPE_BOUND`` also respects ``NECESSARY_NORMAL_BOUND``.

    Steps: |c| <= Cmax (S4's triangle inequality, through S4's steps), dot(n, c) <= |c| (unit n,
    Cauchy-Schwarz in squared form), hence dot(n, c) <= Cmax.
    """
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    u = bb.bounded_vector("u", "support_speed_mps")
    v = bb.vector("v")
    r = bb.vector("r")
    vh, cmax = _envelope_cap(bb, u, r)
    speed_v = bb.norm("|v|", v)
    c = sub(add(u, v), r)
    speed_c = bb.norm("|c|", c)
    n_c = bb.alias("n_dot_c", dot(n, c))
    linear = bb.term(stop_envelope.LINEAR_ENVELOPE_BOUND, s=s, dt=dt, a=a, cmax=cmax)
    necessary = bb.term(stop_envelope.NECESSARY_NORMAL_BOUND, s=s, dt=dt, a=a)
    stop = bb.names(s, dt, a)
    vectors = (*bb.names(n, u, v, r), *bb.names(speed_v, bb.shown["|u-r|"]), "V", "k", "Vh")

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        vh_f = f.horizontal_cap(surface_cap=x["V"], k=x["k"])
        cm = f.envelope_speed_cap(
            vh=vh_f, carry=math.hypot(x["u_x"] - x["r_x"], x["u_y"] - x["r_y"])
        )
        lb = f.linear_envelope_bound(s=x["s"], dt=x["dt"], a=x["a"], cmax=cm)
        nb = f.necessary_normal_bound(s=x["s"], dt=x["dt"], a=x["a"])
        n_c_f = x["n_x"] * (x["u_x"] + x["v_x"] - x["r_x"]) + x["n_y"] * (
            x["u_y"] + x["v_y"] - x["r_y"]
        )
        return Replay(
            bool(fnorm(x, "v") <= vh_f and n_c_f <= lb and n_c_f > nb),
            f"dot(n,c) {n_c_f:.6g}, linear {lb:.6g}, necessary {nb:.6g}",
        )

    coordinates = bb.names(n, u, v, r)
    others = (*stop, *_CAPS, *bb.names(speed_v, bb.shown["|u-r|"]))
    without_c = (*others, *bb.names(speed_c))
    steps = [
        *_speed_triangle(bb, u, v, r, forget=(*stop, *bb.names(n), *_CAPS)),
        Step("|c| <= Cmax (S4)", speed_c <= cmax, (*stop, *coordinates)),
        # dot(n, c) <= |c| in squared form; the alias n_dot_c lets the last step compare
        # variables only.
        cauchy_schwarz_step(n, c, (*others, *bb.names(n_c, speed_c), *coordinates)),
        Step(
            "dot(n,n) dot(c,c) = dot(c,c) (unit n)",
            dot(n, n) * dot(c, c) == dot(c, c),
            (*others, *bb.names(n_c, speed_c)),
        ),
        Step("n_dot_c^2 = dot(n,c)^2", n_c * n_c == dot(n, c) * dot(n, c), without_c),
        Step("dot(n,c)^2 <= dot(c,c) (unit n)", n_c * n_c <= dot(c, c), without_c),
        Step("dot(n,c)^2 <= |c|^2", n_c * n_c <= speed_c * speed_c, others),
        Step("dot(n,c) <= |c| (unit n)", n_c <= speed_c, (*others, *coordinates)),
        Step("dot(n,c) <= Cmax", n_c <= cmax, vectors),
    ]
    return bb.obligation(
        id="S5",
        claim="S5",
        title="linear envelope within the necessary bound",
        expected=PROVED,
        premise=[speed_v <= vh, n_c <= linear],
        conclusion=n_c <= necessary,
        replay=replay,
        witness_prefer=[n_c > 0, bb.shown["|u-r|"] > 0],
        steps=steps,
        conclusion_forget=(*vectors, *bb.names(speed_c)),
    )


def _switches_at(pw: sympy.Piecewise, times: list[sympy.Basic]) -> bool:
    """True when the pieces of a time Piecewise are ``t <= times[i]`` and then a default."""
    conditions = [cond for _, cond in pw.args]
    if len(conditions) != len(times) + 1 or conditions[-1] != sympy.true:
        return False
    # sympy may print ``t <= dt`` as ``dt >= t``: compare the relation's content, not its form.
    return all(
        isinstance(cond, (sympy.Le, sympy.Ge)) and cond.lts == sym.t and is_zero(cond.gts - time)
        for cond, time in zip(conditions[:-1], times, strict=True)
    )


def _s1_identities() -> list[tuple[str, bool]]:
    c, a, dt = sym.speed, sym.a, sym.dt
    dist = stop_envelope.STOP_DISTANCE
    slope_ = sympy.diff(dist, c)
    return [
        ("stop distance is c (dt + c/(2a))", is_zero(dist - c * (dt + c / (2 * a)))),
        ("braking part obeys v^2 = 2 a x", is_zero(2 * a * (dist - c * dt) - c**2)),
        ("factor is distance / |c|", is_zero(stop_envelope.STOP_DISPLACEMENT_FACTOR * c - dist)),
        (
            "normal displacement is dot(n, c) times the factor",
            is_zero(
                stop_envelope.NORMAL_STOP_DISPLACEMENT
                - sym.n_dot_c * stop_envelope.STOP_DISPLACEMENT_FACTOR
            ),
        ),
        ("d(distance)/d|c| = dt + |c|/a", is_zero(slope_ - (dt + c / a))),
        ("d(distance)/d|c| > 0 (monotone)", bool((dt + c / a).is_positive)),
        (
            "the time integral of the braking speed profile is the distance",
            is_zero(
                sympy.integrate(c, (_tau, 0, dt))
                + sympy.integrate(c - a * (_tau - dt), (_tau, dt, dt + c / a))
                - dist
            ),
        ),
        (
            "the braking trajectory moves along c at the braking speed (never back)",
            is_zero(
                sympy.diff(stop_envelope.BRAKING_PHASE_FACTOR, sym.t) * c - (c - a * (sym.t - dt))
            ),
        ),
        (
            "trajectory piece 1 (reaction, t <= dt) is t",
            is_zero(stop_envelope.STOP_TRAJECTORY_FACTOR.args[0][0] - sym.t),
        ),
        (
            "trajectory piece 2 (braking) is dt + (t - dt) - a (t - dt)^2 / (2 |c|)",
            is_zero(
                stop_envelope.STOP_TRAJECTORY_FACTOR.args[1][0]
                - (dt + (sym.t - dt) - a * (sym.t - dt) ** 2 / (2 * c))
            ),
        ),
        (
            "trajectory piece 3 (at rest) is dt + |c| / (2a)",
            is_zero(stop_envelope.STOP_TRAJECTORY_FACTOR.args[2][0] - (dt + c / (2 * a))),
        ),
        (
            "trajectory pieces switch at dt and at dt + |c|/a",
            _switches_at(stop_envelope.STOP_TRAJECTORY_FACTOR, [dt, dt + c / a]),
        ),
        (
            "the braking trajectory ends at the stop distance",
            is_zero(stop_envelope.BRAKING_PHASE_FACTOR.subs(sym.t, dt + c / a) * c - dist),
        ),
    ]


s1 = identity_obligation(
    "S1", "reaction-plus-brake displacement and its monotonicity", _s1_identities, module=__name__
)


OBLIGATIONS = {
    "S1": s1,
    "S2": s2,
    "S2/tight": s2_tight,
    "S3": s3,
    "S3/tight": s3_tight,
    "S4": s4,
    "S4/cap": s4_cap,
    "S5": s5,
    "S5/tight": s5_tight,
}
