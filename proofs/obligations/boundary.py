"""B — boundaries on moving supports (derivations: ``navproof.proofs.boundary``).

B1, B3, B4 are 2-D world-model equivalences; B2 and B5/extremum prove coverage over the whole step;
B5/endpoints is refutable: the endpoint margins alone do not cover a mid-step excursion.
"""

from __future__ import annotations

import sympy
import z3

from navproof.proofs import boundary
from navproof.proofs import symbols as sym
from navproof.proofs.obligations.common import (
    PROVED,
    REFUTED,
    Builder,
    Obligation,
    Replay,
    Values,
    dot,
    fdot,
    runtime_formulas,
)
from navproof.proofs.obligations.kinematics import ramp_margin_at
from navproof.specs.profile import Profile


def b1(profile: Profile) -> Obligation:
    """B1: the step-end position is inside the moved edge iff dot(n, v) <= s/dt + dot(n, e - u).

    2-D world model: x(t) = x0 + t (u + v), edge dot(n, x) <= b0 + t dot(n, e) with
    s = b0 - dot(n, x0). The offset is ``boundary.STEP_HALFPLANE_OFFSET``.
    """
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    u = bb.bounded_vector("u", "support_speed_mps")
    e = bb.bounded_vector("e", "edge_speed_mps")
    v = bb.vector("v")
    x0 = bb.vector("x0")
    b0 = s + dot(n, x0)
    x_end = (x0[0] + dt * (u[0] + v[0]), x0[1] + dt * (u[1] + v[1]))
    inside_end = dot(n, x_end) <= b0 + dt * dot(n, e)
    offset = bb.term(boundary.STEP_HALFPLANE_OFFSET, n_dot_e=dot(n, e), n_dot_u=dot(n, u))
    halfplane = dot(n, v) <= offset

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        off = f.step_halfplane_offset(
            s=x["s"], dt=x["dt"], n_dot_e=fdot(x, "n", "e"), n_dot_u=fdot(x, "n", "u")
        )
        end = [
            x["x0_x"] + x["dt"] * (x["u_x"] + x["v_x"]),
            x["x0_y"] + x["dt"] * (x["u_y"] + x["v_y"]),
        ]
        b_end = x["s"] + fdot(x, "n", "x0") + x["dt"] * fdot(x, "n", "e")
        inside = x["n_x"] * end[0] + x["n_y"] * end[1] <= b_end
        return Replay(
            inside != (fdot(x, "n", "v") <= off),
            f"inside at dt: {inside}; dot(n,v) <= offset {off:.6g}: {fdot(x, 'n', 'v') <= off}",
        )

    return bb.obligation(
        id="B1",
        claim="B1",
        title="step half-plane iff step-end inside",
        expected=PROVED,
        premise=[],
        conclusion=inside_end == halfplane,
        replay=replay,
        witness_prefer=[s > 0, dot(n, u) != 0, dot(n, e) != 0, dot(n, v) > 0],
    )


def b2(profile: Profile) -> Obligation:
    """B2: s >= 0 and the B1 half-plane imply a non-negative margin at every t in [0, dt].

    Margin ``boundary.CONSTANT_VELOCITY_MARGIN``, half-plane offset
    ``boundary.STEP_HALFPLANE_OFFSET``; projections on n range over +-|u|, +-|e| of the profile.
    """
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    s = bb.param("s", "initial_margin_m")
    nu = bb.projection("n_dot_u", "support_speed_mps")
    ne = bb.projection("n_dot_e", "edge_speed_mps")
    nv = bb.var("n_dot_v")
    t = bb.var("t")
    common = {"s": s, "n_dot_e": ne, "n_dot_u": nu}
    offset = bb.term(boundary.STEP_HALFPLANE_OFFSET, dt=dt, **common)
    margin = bb.term(boundary.CONSTANT_VELOCITY_MARGIN, t=t, n_dot_v=nv, **common)

    def replay(x: Values) -> Replay:
        m = runtime_formulas().constant_velocity_margin(
            s=x["s"], t=x["t"], n_dot_e=x["n_dot_e"], n_dot_u=x["n_dot_u"], n_dot_v=x["n_dot_v"]
        )
        return Replay(bool(m < 0 and 0 <= x["t"] <= x["dt"]), f"margin at t: {m:.6g}")

    return bb.obligation(
        id="B2",
        claim="B2",
        title="constant-velocity step covered for all t",
        expected=PROVED,
        premise=[s >= 0, nv <= offset, 0 <= t, t <= dt],
        conclusion=margin >= 0,
        replay=replay,
        witness_prefer=[s > 0, nv > 0, nu != 0, 0 < t, t < dt],
    )


def b2_world(profile: Profile) -> Obligation:
    """B2 pinned: ``CONSTANT_VELOCITY_MARGIN`` is the catalogue's world margin
    b(t) - dot(n, x(t)) = s + t dot(n, e) - t dot(n, u + v) at every t, and on the B1 half-plane's
    boundary (dot(n, v) = ``STEP_HALFPLANE_OFFSET``) it is exactly 0 at dt: the bound is tight."""
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    s = bb.param("s", "initial_margin_m")
    nu = bb.projection("n_dot_u", "support_speed_mps")
    ne = bb.projection("n_dot_e", "edge_speed_mps")
    nv = bb.var("n_dot_v")
    t = bb.var("t", lambda x: x >= 0)
    common = {"s": s, "n_dot_e": ne, "n_dot_u": nu}
    offset = bb.term(boundary.STEP_HALFPLANE_OFFSET, dt=dt, **common)
    margin = bb.term(boundary.CONSTANT_VELOCITY_MARGIN, t=t, n_dot_v=nv, **common)
    at_offset = bb.term(boundary.CONSTANT_VELOCITY_MARGIN, t=dt, n_dot_v=offset, **common)
    world = s + t * ne - t * (nu + nv)

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        args = dict(s=x["s"], n_dot_e=x["n_dot_e"], n_dot_u=x["n_dot_u"])
        m = f.constant_velocity_margin(t=x["t"], n_dot_v=x["n_dot_v"], **args)
        w = x["s"] + x["t"] * (x["n_dot_e"] - x["n_dot_u"] - x["n_dot_v"])
        off = f.step_halfplane_offset(dt=x["dt"], **args)
        end = f.constant_velocity_margin(t=x["dt"], n_dot_v=off, **args)
        return Replay(
            bool(abs(m - w) > 1e-9 or abs(end) > 1e-9),
            f"margin {m:.6g} vs world {w:.6g}; margin at dt on the boundary {end:.6g}",
        )

    return bb.obligation(
        id="B2/world",
        claim="B2",
        title="margin is the world margin; the half-plane is tight",
        expected=PROVED,
        premise=[],
        conclusion=z3.And(margin == world, at_offset == 0),
        replay=replay,
        witness_prefer=[s > 0, t > 0, nv != 0, nu != 0, ne != 0],
    )


def b3(profile: Profile) -> Obligation:
    """B3: a fixed edge (e = 0) and a co-moving edge (e = u) in one intersection.

    2-D: both B1 half-plane rows built from ``boundary.STEP_HALFPLANE_OFFSET`` with each edge's own
    e; together they keep the body inside both moving edges at every t in [0, dt]. The fixed row's
    offset is s1/dt - dot(n1, u) (support carry subtracted), the co-moving row's is s2/dt.
    """
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    s1 = bb.param("s1", "initial_margin_m")
    s2 = bb.param("s2", "initial_margin_m")
    n1 = bb.unit("n1")
    n2 = bb.unit("n2")
    u = bb.bounded_vector("u", "support_speed_mps")
    v = bb.vector("v")
    x0 = bb.vector("x0")
    t = bb.var("t")
    zero = z3.RealVal(0)
    fixed = bb.term(boundary.STEP_HALFPLANE_OFFSET, s=s1, dt=dt, n_dot_e=zero, n_dot_u=dot(n1, u))
    moving = bb.term(
        boundary.STEP_HALFPLANE_OFFSET, s=s2, dt=dt, n_dot_e=dot(n2, u), n_dot_u=dot(n2, u)
    )
    x_t = (x0[0] + t * (u[0] + v[0]), x0[1] + t * (u[1] + v[1]))
    # World edges: the fixed one stays at b1, the co-moving one translates with the support.
    inside_fixed = dot(n1, x_t) <= s1 + dot(n1, x0)
    inside_moving = dot(n2, x_t) <= s2 + dot(n2, x0) + t * dot(n2, u)
    conclusion = z3.And(
        inside_fixed,
        inside_moving,
        fixed == s1 / dt - dot(n1, u),
        moving == s2 / dt,
    )

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        m1 = f.constant_velocity_margin(
            s=x["s1"],
            t=x["t"],
            n_dot_e=0.0,
            n_dot_u=fdot(x, "n1", "u"),
            n_dot_v=fdot(x, "n1", "v"),
        )
        nu2 = fdot(x, "n2", "u")
        m2 = f.constant_velocity_margin(
            s=x["s2"], t=x["t"], n_dot_e=nu2, n_dot_u=nu2, n_dot_v=fdot(x, "n2", "v")
        )
        return Replay(bool(min(m1, m2) < 0), f"fixed margin {m1:.6g}, co-moving margin {m2:.6g}")

    return bb.obligation(
        id="B3",
        claim="B3",
        title="fixed and co-moving edges in one intersection",
        expected=PROVED,
        premise=[dot(n1, v) <= fixed, dot(n2, v) <= moving, 0 <= t, t <= dt],
        conclusion=conclusion,
        replay=replay,
        witness_prefer=[s1 > 0, s2 > 0, dot(n1, u) > 0, dot(n2, u) > 0, 0 < t, t < dt],
    )


def b4(profile: Profile) -> Obligation:
    """B4: the accelerating step ends inside iff dot(n, v1) <= ``ACCEL_STEP_V1_BOUND``.

    2-D world model x(t) = x0 + (u + v0) t + (v1 - v0) t^2 / (2 dt); equivalently the mean
    velocity dot(n, (v0 + v1)/2) respects the B1 offset ``STEP_HALFPLANE_OFFSET``; and the
    derived margin ``ACCEL_MARGIN`` at dt is the world margin.
    """
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    u = bb.bounded_vector("u", "support_speed_mps")
    e = bb.bounded_vector("e", "edge_speed_mps")
    v0 = bb.vector("v0")
    v1 = bb.vector("v1")
    x0 = bb.vector("x0")
    half = z3.RealVal("1/2")
    x_end = tuple(
        x0[i] + (u[i] + v0[i]) * dt + (v1[i] - v0[i]) * dt * dt * half / dt for i in range(2)
    )
    world_margin = s + dot(n, x0) + dt * dot(n, e) - dot(n, x_end)
    common = {"s": s, "dt": dt, "n_dot_e": dot(n, e), "n_dot_u": dot(n, u)}
    bound = bb.term(boundary.ACCEL_STEP_V1_BOUND, n_dot_v0=dot(n, v0), **common)
    offset = bb.term(boundary.STEP_HALFPLANE_OFFSET, **common)
    margin_end = bb.term(
        boundary.ACCEL_MARGIN, t=dt, n_dot_v0=dot(n, v0), n_dot_v1=dot(n, v1), **common
    )
    mean = (dot(n, v0) + dot(n, v1)) * half
    conclusion = z3.And(
        (world_margin >= 0) == (dot(n, v1) <= bound),
        (dot(n, v1) <= bound) == (mean <= offset),
        margin_end == world_margin,
    )

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        common_f = dict(s=x["s"], dt=x["dt"], n_dot_e=fdot(x, "n", "e"), n_dot_u=fdot(x, "n", "u"))
        bnd = f.accel_step_v1_bound(n_dot_v0=fdot(x, "n", "v0"), **common_f)
        m = f.accel_margin(
            t=x["dt"], n_dot_v0=fdot(x, "n", "v0"), n_dot_v1=fdot(x, "n", "v1"), **common_f
        )
        return Replay(
            bool((m >= 0) != (fdot(x, "n", "v1") <= bnd)),
            f"margin at dt {m:.6g}, v1 bound {bnd:.6g}",
        )

    return bb.obligation(
        id="B4",
        claim="B4",
        title="accelerating step end is a half-plane in v1",
        expected=PROVED,
        premise=[],
        conclusion=conclusion,
        replay=replay,
        witness_prefer=[s > 0, dot(n, u) != 0, dot(n, v1) != dot(n, v0)],
    )


def _b5(profile: Profile, with_extremum: bool) -> Obligation:
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    s = bb.param("s", "initial_margin_m")
    nu = bb.projection("n_dot_u", "support_speed_mps")
    ne = bb.projection("n_dot_e", "edge_speed_mps")
    v0 = bb.var("n_dot_v0")
    v1 = bb.var("n_dot_v1")
    t = bb.var("t")
    common = {"s": s, "dt": dt, "n_dot_e": ne, "n_dot_u": nu, "n_dot_v0": v0, "n_dot_v1": v1}
    margin = boundary.ACCEL_MARGIN
    premise = [
        bb.term(margin, t=sympy.Integer(0), **common) >= 0,
        bb.term(margin, t=sym.dt, **common) >= 0,
        0 <= t,
        t <= dt,
    ]
    if with_extremum:
        t_star = bb.term(
            boundary.ACCEL_EXTREMUM_TIME, **{k: v for k, v in common.items() if k != "s"}
        )
        margin_star = bb.term(margin, t=boundary.ACCEL_EXTREMUM_TIME, **common)
        bb.shown["t_star"] = t_star
        interior = z3.And(v0 != v1, 0 < t_star, t_star < dt)
        premise.append(z3.Implies(interior, margin_star >= 0))
    margin_t = bb.term(margin, t=t, **common)

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        args = dict(
            s=x["s"],
            dt=x["dt"],
            n_dot_e=x["n_dot_e"],
            n_dot_u=x["n_dot_u"],
            n_dot_v0=x["n_dot_v0"],
            n_dot_v1=x["n_dot_v1"],
        )
        m0 = f.accel_margin(t=0.0, **args)
        m1 = f.accel_margin(t=x["dt"], **args)
        mt = f.accel_margin(t=x["t"], **args)
        # the same margins by fine time stepping of the ramp, independent of the derivation
        w1 = ramp_margin_at(x["dt"], **args)
        wt = ramp_margin_at(x["t"], **args)
        tol = 1e-9 * (1.0 + abs(x["s"]))
        ok = bool(m0 >= 0 and m1 >= 0 and mt < 0 and 0 <= x["t"] <= x["dt"]
                  and x["s"] >= 0 and w1 >= -tol and wt < -tol)
        detail = (f"margin(0) {m0:.6g}, margin(dt) {m1:.6g}, margin(t) {mt:.6g}; "
                  f"time-stepped margin(dt) {w1:.6g}, margin(t) {wt:.6g}")
        if with_extremum:
            ts = f.accel_extremum_time(**{k: v for k, v in args.items() if k != "s"})
            ms = f.accel_margin(t=ts, **args)
            ok = ok and bool(not (0 < ts < x["dt"]) or ms >= 0)
            detail += f", t* {ts:.6g}, margin(t*) {ms:.6g}"
        return Replay(ok, detail)

    suffix = "extremum" if with_extremum else "endpoints"
    title = (
        "endpoints and interior extremum imply coverage"
        if with_extremum
        else "endpoint conditions alone do not imply coverage"
    )
    return bb.obligation(
        id=f"B5/{suffix}",
        claim="B5",
        title=title,
        expected=PROVED if with_extremum else REFUTED,
        premise=premise,
        conclusion=margin_t >= 0,
        replay=replay,
        witness_prefer=[z3.And(v0 != v1, 0 < bb.shown["t_star"], bb.shown["t_star"] < dt)]
        if with_extremum
        else [],
        sharpen=[] if with_extremum else [margin_t <= -z3.RealVal("1/1000")],
    )


def b5_stationary(profile: Profile) -> Obligation:
    """B5 pinned: ``ACCEL_MARGIN`` is the world margin of the accelerating step,
    s + t dot(n, e) - t dot(n, u) - (v0 t + (v1 - v0) t^2 / (2 dt)) (projections on n), and its
    time derivative vanishes at ``ACCEL_EXTREMUM_TIME`` when v0 != v1."""
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    s = bb.param("s", "initial_margin_m")
    nu = bb.projection("n_dot_u", "support_speed_mps")
    ne = bb.projection("n_dot_e", "edge_speed_mps")
    v0 = bb.var("n_dot_v0")
    v1 = bb.var("n_dot_v1")
    t = bb.var("t", lambda x: x >= 0)
    common = {"s": s, "dt": dt, "n_dot_e": ne, "n_dot_u": nu, "n_dot_v0": v0, "n_dot_v1": v1}
    margin = bb.term(boundary.ACCEL_MARGIN, t=t, **common)
    half = z3.RealVal("1/2")
    world = s + t * ne - t * nu - (v0 * t + (v1 - v0) * t * t * half / dt)
    t_star = bb.term(boundary.ACCEL_EXTREMUM_TIME, **{k: v for k, v in common.items() if k != "s"})
    bb.shown["t_star"] = t_star
    slope_at_star = ne - nu - v0 - (v1 - v0) * t_star / dt

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        args = {k: x[k] for k in ("s", "dt", "n_dot_e", "n_dot_u", "n_dot_v0", "n_dot_v1")}
        m = f.accel_margin(t=x["t"], **args)
        tt, h = x["t"], x["dt"]
        w = (
            args["s"]
            + tt * (args["n_dot_e"] - args["n_dot_u"])
            - (args["n_dot_v0"] * tt + (args["n_dot_v1"] - args["n_dot_v0"]) * tt * tt / (2 * h))
        )
        ts = f.accel_extremum_time(**{k: v for k, v in args.items() if k != "s"})
        # The derivative by a central difference of the world margin (independent of t*'s form).
        eps = 1e-6

        def world(time: float) -> float:
            return (
                args["s"]
                + time * (args["n_dot_e"] - args["n_dot_u"])
                - (
                    args["n_dot_v0"] * time
                    + (args["n_dot_v1"] - args["n_dot_v0"]) * time * time / (2 * h)
                )
            )

        slope = (world(ts + eps) - world(ts - eps)) / (2 * eps)
        return Replay(
            bool(abs(m - w) > 1e-9 or abs(slope) > 1e-6),
            f"margin {m:.6g} vs world {w:.6g}; world slope at t* {ts:.6g}: {slope:.3g}",
        )

    return bb.obligation(
        id="B5/stationary",
        claim="B5",
        title="accelerating margin is the world margin; t* is its stationary point",
        expected=PROVED,
        premise=[v0 != v1],
        conclusion=z3.And(margin == world, slope_at_star == 0),
        replay=replay,
        witness_prefer=[s > 0, t > 0, 0 < t_star, t_star < dt],
    )


def b5_endpoints(profile: Profile) -> Obligation:
    """B5 (refutable half): margin(0) >= 0 and margin(dt) >= 0 do NOT give margin(t) >= 0 for
    every t in [0, dt].

    Margin ``boundary.ACCEL_MARGIN``; a counterexample (a mid-step excursion) is required.
    """
    return _b5(profile, with_extremum=False)


def b5_extremum(profile: Profile) -> Obligation:
    """B5 (proved half): endpoints plus the margin at t* = ``ACCEL_EXTREMUM_TIME`` (when
    v0 != v1 and 0 < t* < dt) imply margin(t) >= 0 for every t in [0, dt]."""
    return _b5(profile, with_extremum=True)


OBLIGATIONS = {
    "B1": b1,
    "B2": b2,
    "B2/world": b2_world,
    "B3": b3,
    "B4": b4,
    "B5/endpoints": b5_endpoints,
    "B5/extremum": b5_extremum,
    "B5/stationary": b5_stationary,
}
REFUTABLE = frozenset({"B5/endpoints"})
