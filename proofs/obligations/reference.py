"""R — reference velocity (derivations: ``navproof.proofs.boundary``, ``slope``).

R2 is a profile-consistency obligation: with every edge fixed the stop target |u| must fit under
the relative cap V/k for every value of the ranges; it fails when a profile's support speed range
outgrows the cap (which ``navproof audit`` reports). R2/report is the claim as the catalogue
states it: the runtime's stop-target margin flags exactly the unreachable stop targets.
R3: holding at r never loses margin.
"""

from __future__ import annotations

import math

import z3

from navproof.proofs import boundary, slope, stop_envelope
from navproof.proofs.obligations.common import (
    PROVED,
    Builder,
    Obligation,
    Replay,
    Values,
    add,
    dot,
    fdot,
    fnorm,
    runtime_formulas,
    sub,
)
from navproof.proofs.obligations.stop_envelope import horizontal_cap
from navproof.specs.profile import Profile


def r2(profile: Profile) -> Obligation:
    """R2 (profile consistency): with every edge fixed (r = 0) the stop target |vStop| = |u| is
    within the relative cap ``HORIZONTAL_CAP``(V, k) for every value of the profile's ranges."""
    bb = Builder(profile)
    u = bb.bounded_vector("u", "support_speed_mps")
    surface = bb.param("V", "surface_speed_cap_mps")
    k = bb.param("k", "slope_factor")
    vh = bb.term(slope.HORIZONTAL_CAP, surface_cap=surface, k=k)
    bb.shown["Vh"] = vh
    stop_target = bb.norm("|vStop|", (-u[0], -u[1]))

    def replay(x: Values) -> Replay:
        cap = runtime_formulas().horizontal_cap(surface_cap=x["V"], k=x["k"])
        target = fnorm(x, "u")
        return Replay(bool(target > cap), f"|vStop| {target:.6g}, Vh {cap:.6g}")

    return bb.obligation(
        id="R2",
        claim="R2",
        title="all-fixed stop target within the relative cap",
        expected=PROVED,
        premise=[],
        conclusion=stop_target <= vh,
        replay=replay,
        witness_prefer=[u[0] * u[0] + u[1] * u[1] > 0],
        sharpen=[stop_target >= vh + z3.RealVal("1/1000")],
    )


def r2_report(profile: Profile) -> Obligation:
    """R2 as the catalogue states it: the runtime's stop-target margin ``STOP_TARGET_MARGIN``
    (Vh, |r - u|) is >= 0 exactly when some relative velocity within the cap brakes to the stop
    target (c = u + v - r = 0 forces v = r - u, so |r - u| <= Vh); below zero the runtime
    reports "support carry exceeds cancel capacity". u and r are free vectors: a carry beyond
    the profile's support range must be reported too (the catalogue's worked example u = (1, 0),
    a fixed wall, Vh = 0.8)."""
    bb = Builder(profile)
    u = bb.vector("u")
    r = bb.vector("r")
    vh = horizontal_cap(bb)
    v_stop = sub(r, u)
    carry = bb.norm("|r-u|", v_stop)
    margin = bb.alias("stop_margin", bb.term(stop_envelope.STOP_TARGET_MARGIN, vh=vh,
                                             carry=carry))

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        cap = f.horizontal_cap(surface_cap=x["V"], k=x["k"])
        target = math.hypot(x["r_x"] - x["u_x"], x["r_y"] - x["u_y"])
        m = f.stop_target_margin(vh=cap, carry=target)
        return Replay(bool((m >= 0) != (target <= cap)),
                      f"stop margin {m:.6g}, |vStop| {target:.6g}, Vh {cap:.6g}")

    return bb.obligation(
        id="R2/report",
        claim="R2",
        title="the stop target is reported unreachable exactly beyond the relative cap",
        expected=PROVED,
        premise=[],
        conclusion=(margin >= 0) == (dot(v_stop, v_stop) <= vh * vh),
        replay=replay,
        witness_prefer=[margin < 0, r[0] == 0, r[1] == 0],
    )


def r3(profile: Profile) -> Obligation:
    """R3: with c = u + v - r = 0 and dot(n, r - e) <= 0 the margin
    ``CONSTANT_VELOCITY_MARGIN`` never decreases: margin(t2) >= margin(t1) for t2 >= t1 >= 0."""
    bb = Builder(profile)
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    u = bb.bounded_vector("u", "support_speed_mps")
    e = bb.bounded_vector("e", "edge_speed_mps")
    v = bb.vector("v")
    r = bb.vector("r")
    t1 = bb.var("t1")
    t2 = bb.var("t2")
    common = {"s": s, "n_dot_e": dot(n, e), "n_dot_u": dot(n, u), "n_dot_v": dot(n, v)}
    m1 = bb.term(boundary.CONSTANT_VELOCITY_MARGIN, t=t1, **common)
    m2 = bb.term(boundary.CONSTANT_VELOCITY_MARGIN, t=t2, **common)
    c = sub(add(u, v), r)

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        args = dict(
            s=x["s"],
            n_dot_e=fdot(x, "n", "e"),
            n_dot_u=fdot(x, "n", "u"),
            n_dot_v=fdot(x, "n", "v"),
        )
        a1 = f.constant_velocity_margin(t=x["t1"], **args)
        a2 = f.constant_velocity_margin(t=x["t2"], **args)
        return Replay(bool(a2 < a1), f"margin(t1) {a1:.6g}, margin(t2) {a2:.6g}")

    return bb.obligation(
        id="R3",
        claim="R3",
        title="holding at r never loses margin",
        expected=PROVED,
        premise=[c[0] == 0, c[1] == 0, dot(n, sub(r, e)) <= 0, 0 <= t1, t1 <= t2],
        conclusion=m2 >= m1,
        replay=replay,
        witness_prefer=[t1 < t2, dot(n, sub(r, e)) < 0],
    )


OBLIGATIONS = {"R2": r2, "R2/report": r2_report, "R3": r3}
