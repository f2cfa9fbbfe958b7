"""B6 — the curve bounds fed into the certified margin (derivations: ``navproof.proofs.rigid``).

M2 of ``B6/second_derivative`` takes bounds of |P|, |P'|, |P''| (the pivot offset) and of |Q|,
|Q'|, |Q''| (the body about its support's pivot). Each curve is written here from its
kinematics, never taken from the derivation, and its bounds are proved (triangle inequality,
Cauchy-Schwarz) and pinned by an aligned construction that reaches them exactly:

- ``B6/pivot`` (+ ``/tight``): P(t) = p0 + dw t + da t^2/2 on [0, horizon];
- ``B6/accel_curve`` (+ ``/tight``): the accelerating step Q(t) = q0 + v0 t + (v1 - v0) t^2/(2 dt)
  on [0, dt], which is also B4's ``ACCEL_STEP_DISPLACEMENT`` that the runtime samples;
- the stop after the step: :mod:`navproof.proofs.obligations.rigid_stop`.

Claim: B6 (seed 000).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import z3

from navproof.proofs import boundary, rigid
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
from navproof.proofs.obligations.rigid import keep_only, nonnegative, rigid_term, rot
from navproof.specs.profile import Profile

Vec = tuple[z3.ArithRef, z3.ArithRef]


class Direction:
    """A unit direction u, and vectors written in the frame (u, rot u).

    |S| <= B for every S iff u.S <= B for every unit u, so each curve bound is stated as
    u.S(t) <= B. A vector is written X = X_along u + X_across rot u: for a unit u every vector of
    the plane has exactly one such pair, so nothing is lost, u.X = X_along, and the solver finds
    counterexamples of a wrong bound without searching the unit circle.
    """

    def __init__(self, bb: Builder) -> None:
        self.bb = bb
        self.u = bb.unit("u")

    def vector(self, name: str) -> tuple[Vec, tuple[z3.ArithRef, z3.ArithRef]]:
        """A free vector and its (along, across) coordinates."""
        along, across = self.bb.var(f"{name}_along"), self.bb.var(f"{name}_across")
        r = rot(self.u)
        return (along * self.u[0] + across * r[0], along * self.u[1] + across * r[1]), (along,
                                                                                       across)


@dataclass(frozen=True)
class Part:
    """One term w(t) X of a vector polynomial: X, its coordinates (along, across) in the frame
    of the direction, a bound of |X|, the weight w(t) >= 0 and its largest value."""

    vec: Vec
    coords: tuple[z3.ArithRef, z3.ArithRef]
    bound: z3.ArithRef
    weight: z3.ArithRef
    top: z3.ArithRef


def scaled(parts: list[Part]) -> Vec:
    return (z3.Sum([p.weight * p.vec[0] for p in parts]),
            z3.Sum([p.weight * p.vec[1] for p in parts]))


def within_bound(part: Part) -> z3.BoolRef:
    """|X| <= bound, squared (the bound is non-negative)."""
    return dot(part.vec, part.vec) <= part.bound * part.bound


def direction_steps(bb: Builder, d: Direction, name: str, parts: list[Part],
                    time: tuple[z3.ArithRef, ...]) -> tuple[list[Step], z3.ArithRef]:
    """Lemmas that give u.S <= sum top_i bound_i for S = sum w_i X_i: u.S = sum w_i X_i_along,
    each coordinate at most bound_i (Cauchy-Schwarz), each weight at most its top
    (``time``: the variables the weights depend on). Returns the steps and u.S (named)."""
    toward = bb.alias(f"u.{name}", dot(d.u, scaled(parts)))
    alongs = [p.coords[0] for p in parts]
    coords = [c for p in parts for c in p.coords]
    bounds = [p.bound for p in parts]
    steps = [
        Step(f"{name}: |X{i}_along| <= bound{i} (|X{i}|^2 = along^2 + across^2, |u| = 1)",
             z3.And(p.coords[0] <= p.bound, -p.coords[0] <= p.bound),
             keep_only(bb, *d.u, *p.coords, p.bound))
        for i, p in enumerate(parts)
    ]
    reach = z3.Sum([p.weight * a for p, a in zip(parts, alongs, strict=True)])
    steps += [
        Step(f"{name}: u.S = sum w_i X_i_along", toward == reach,
             keep_only(bb, *d.u, *coords, toward, *time)),
        Step(f"{name}: sum w_i X_i_along <= sum top_i bound_i",
             reach <= z3.Sum([p.top * p.bound for p in parts]),
             keep_only(bb, *alongs, *bounds, *time)),
    ]
    return steps, toward


def from_frame(x: Values, name: str) -> tuple[float, float]:
    """A vector of a model from its coordinates in the frame (u, rot u)."""
    a, b = x[f"{name}_along"], x[f"{name}_across"]
    return a * x["u_x"] - b * x["u_y"], a * x["u_y"] + b * x["u_x"]


def _peaks(curve, end: float, samples: int = 4001) -> tuple[float, float, float]:
    """The largest |S|, |S'|, |S''| over [0, end] of ``curve(t) = (S, S', S'')``, sampled finely
    (independent of any bound)."""
    values = [curve(end * i / (samples - 1)) for i in range(samples)]
    return tuple(max(math.hypot(*v[k]) for v in values) for k in range(3))


def _uniformly_accelerated(start: tuple[float, float], vel: tuple[float, float],
                           acc: tuple[float, float], t: float
                           ) -> tuple[tuple[float, float], ...]:
    """Position, velocity and acceleration at time t of a point starting at ``start`` with
    velocity ``vel`` and constant acceleration ``acc`` (the kinematics, no derived formula)."""
    pos = tuple(start[k] + vel[k] * t + acc[k] * t * t / 2 for k in range(2))
    return pos, tuple(vel[k] + acc[k] * t for k in range(2)), acc


def _pivot_values(vec: dict[str, tuple[float, float]], t: float
                  ) -> tuple[tuple[float, float], ...]:
    """P(t), P'(t), P''(t) of the pivot offset, written from its kinematics."""
    return _uniformly_accelerated(vec["p0"], vec["dw"], vec["da"], t)


def _pivot_bounds(x: Values, p0: float, dw: float, da: float) -> tuple[float, float, float]:
    f = runtime_formulas()
    return (f.pivot_offset_bound(p0=p0, dw=dw, d_accel=da, horizon=x["horizon"]),
            f.pivot_speed_bound(dw=dw, d_accel=da, horizon=x["horizon"]),
            f.pivot_accel_bound(d_accel=da))


def _pivot_subs(p0: z3.ArithRef, dw: z3.ArithRef, da: z3.ArithRef, horizon: z3.ArithRef
                ) -> dict[str, z3.ArithRef]:
    return {"p0": p0, "dw": dw, "d_accel": da, "horizon": horizon}


def b6_pivot(profile: Profile) -> Obligation:
    """B6/pivot: the pivot offset P(t) = p0 + dw t + da t^2/2 (support pivot minus edge pivot
    under constant accelerations), its velocity P' = dw + da t and acceleration P'' = da stay
    within ``PIVOT_OFFSET_BOUND``, ``PIVOT_SPEED_BOUND`` and ``PIVOT_ACCEL_BOUND`` for every t in
    [0, horizon], given any bounds p0, dw, d_accel of |p0|, |dw|, |da| (the runtime passes the
    norms): u.P(t) <= the bound for every unit u. Steps: Cauchy-Schwarz on each coefficient."""
    bb = Builder(profile)
    d = Direction(bb)
    horizon = bb.var("horizon", nonnegative)
    t = bb.var("t", nonnegative)
    (p0v, p0c), (dwv, dwc), (dav, dac) = (d.vector(n) for n in ("p0_vec", "dw_vec", "da_vec"))
    p0, dw, da = (bb.var(n, nonnegative) for n in ("p0", "dw", "d_accel"))
    one = z3.RealVal(1)
    offset = [Part(p0v, p0c, p0, one, one), Part(dwv, dwc, dw, t, horizon),
              Part(dav, dac, da, t * t / 2, horizon * horizon / 2)]
    speed = [Part(dwv, dwc, dw, one, one), Part(dav, dac, da, t, horizon)]
    accel = [Part(dav, dac, da, one, one)]
    subs = _pivot_subs(p0, dw, da, horizon)
    bounds = [rigid_term(bb, rigid.PIVOT_OFFSET_BOUND, **subs),
              rigid_term(bb, rigid.PIVOT_SPEED_BOUND, **subs),
              rigid_term(bb, rigid.PIVOT_ACCEL_BOUND, **subs)]
    steps: list[Step] = []
    reached = []
    for name, parts, bound in (("P", offset, bounds[0]), ("P'", speed, bounds[1]),
                               ("P''", accel, bounds[2])):
        chain, toward = direction_steps(bb, d, name, parts, (t, horizon))
        steps += chain
        reached.append(toward <= bound)

    def replay(x: Values) -> Replay:
        vectors = {n: from_frame(x, f"{n}_vec") for n in ("p0", "dw", "da")}
        lengths = (x["p0"], x["dw"], x["d_accel"])
        limits = _pivot_bounds(x, *lengths)
        admissible = all(math.hypot(*vectors[n]) <= b * (1 + 1e-9)
                         for n, b in zip(("p0", "dw", "da"), lengths, strict=True))
        peaks = _peaks(lambda s: _pivot_values(vectors, s), x["horizon"])
        bad = [f"{n} {p:.6g} > {b:.6g}" for n, p, b in zip(("|P|", "|P'|", "|P''|"), peaks,
                                                              limits, strict=True)
               if p > b + 1e-9 * (1.0 + abs(b))]
        return Replay(bool(admissible and bad), "; ".join(bad) or
                      f"sampled peaks {peaks} within the bounds {limits}")

    return bb.obligation(
        id="B6/pivot",
        claim="B6",
        title="the pivot offset, its speed and acceleration stay within their bounds",
        expected=PROVED,
        premise=[t <= horizon, *(within_bound(p) for p in offset)],
        conclusion=z3.And(*reached),
        replay=replay,
        witness_prefer=[t > 0, t < horizon, p0c[0] != 0, dwc[0] != 0, dac[1] != 0],
        steps=steps,
        conclusion_forget=bb.names(*d.u, p0c[1], dwc[1], dac[1]),
    )


def _aligned(e: Vec, length: z3.ArithRef) -> Vec:
    return length * e[0], length * e[1]


def b6_pivot_tight(profile: Profile) -> Obligation:
    """B6/pivot/tight: p0, dw and da along one unit vector e (norms p0, dw, d_accel) reach
    ``PIVOT_OFFSET_BOUND``, ``PIVOT_SPEED_BOUND`` and ``PIVOT_ACCEL_BOUND`` exactly at
    t = horizon."""
    bb = Builder(profile)
    horizon = bb.var("horizon", nonnegative)
    e = bb.unit("e")
    p0, dw, da = (bb.var(n, nonnegative) for n in ("p0", "dw", "d_accel"))
    p0v, dwv, dav = _aligned(e, p0), _aligned(e, dw), _aligned(e, da)
    h = horizon
    pos = tuple(p0v[k] + dwv[k] * h + dav[k] * h * h / 2 for k in range(2))
    vel = tuple(dwv[k] + dav[k] * h for k in range(2))
    subs = _pivot_subs(p0, dw, da, horizon)
    bounds = [rigid_term(bb, rigid.PIVOT_OFFSET_BOUND, **subs),
              rigid_term(bb, rigid.PIVOT_SPEED_BOUND, **subs),
              rigid_term(bb, rigid.PIVOT_ACCEL_BOUND, **subs)]
    reached = [z3.And(dot(v, v) == b * b, b >= 0) for v, b in zip((pos, vel, dav), bounds,
                                                                   strict=True)]

    def replay(x: Values) -> Replay:
        model = {n: (length * x["e_x"], length * x["e_y"])
                 for n, length in (("p0", x["p0"]), ("dw", x["dw"]), ("da", x["d_accel"]))}
        limits = _pivot_bounds(x, x["p0"], x["dw"], x["d_accel"])
        reach = [math.hypot(*v) for v in _pivot_values(model, x["horizon"])]
        off = [abs(r - b) for r, b in zip(reach, limits, strict=True)]
        return Replay(bool(max(off) > 1e-9 * (1.0 + max(map(abs, limits)))),
                      f"aligned |P|, |P'|, |P''| at the horizon {reach} vs bounds {limits}")

    return bb.obligation(
        id="B6/pivot/tight",
        claim="B6",
        title="aligned pivot motion reaches the pivot bounds at the horizon",
        expected=PROVED,
        premise=[],
        conclusion=z3.And(*reached, dot(p0v, p0v) == p0 * p0, dot(dwv, dwv) == dw * dw,
                          dot(dav, dav) == da * da),
        replay=replay,
        witness_prefer=[horizon > 0, p0 > 0, dw > 0, da > 0],
    )


# --- B6/accel_curve --------------------------------------------------------------------------


class _Step:
    """The accelerating step of the runtime: dt over the profile's step range, t in [0, dt],
    1/dt as a variable (its definition a hypothesis)."""

    def __init__(self, bb: Builder) -> None:
        self.dt = bb.param("dt", "step_s")
        self.inv_dt = bb.var("inv_dt")
        bb.hypotheses.append(self.inv_dt * self.dt == 1)


def _curve_values(vec: dict[str, tuple[float, float]], dt: float, t: float
                  ) -> tuple[tuple[float, float], ...]:
    """Q(t), Q'(t), Q''(t) of the accelerating step, written from its kinematics: the velocity
    ramps linearly from v0 to v1 over dt."""
    v0, v1 = vec["v0"], vec["v1"]
    return _uniformly_accelerated(vec["q0"], v0, tuple((v1[k] - v0[k]) / dt for k in range(2)), t)


def _curve_bounds(x: Values, q0: float, v0: float, dv: float) -> tuple[float, float, float]:
    f = runtime_formulas()
    return (f.accel_curve_offset_bound(q0=q0, v0_norm=v0, dv_norm=dv, dt=x["dt"]),
            f.accel_curve_speed_bound(v0_norm=v0, dv_norm=dv),
            f.accel_curve_accel_bound(dv_norm=dv, dt=x["dt"]))


def _curve_subs(q0: z3.ArithRef, v0: z3.ArithRef, dv: z3.ArithRef, dt: z3.ArithRef
                ) -> dict[str, z3.ArithRef]:
    return {"q0": q0, "v0_norm": v0, "dv_norm": dv, "dt": dt}


def _curve_formulas(bb: Builder, subs: dict[str, z3.ArithRef]) -> list[z3.ArithRef]:
    return [rigid_term(bb, rigid.ACCEL_CURVE_OFFSET_BOUND, **subs),
            rigid_term(bb, rigid.ACCEL_CURVE_SPEED_BOUND, **subs),
            rigid_term(bb, rigid.ACCEL_CURVE_ACCEL_BOUND, **subs)]


def b6_accel_curve(profile: Profile) -> Obligation:
    """B6/accel_curve: over the accelerating step (t in [0, dt], dt over the profile's step
    range) the body's curve about its support's pivot Q(t) = q0 + v0 t + (v1 - v0) t^2/(2 dt)
    is B4's ``ACCEL_STEP_DISPLACEMENT`` (what the runtime samples), and Q, Q', Q'' stay within
    ``ACCEL_CURVE_OFFSET_BOUND``, ``ACCEL_CURVE_SPEED_BOUND``, ``ACCEL_CURVE_ACCEL_BOUND`` given
    any bounds q0, v0_norm, dv_norm of |q0|, |v0|, |v1 - v0| (the runtime passes the norms):
    u.Q(t) <= the bound for every unit u. Steps: Cauchy-Schwarz on each coefficient."""
    bb = Builder(profile)
    d = Direction(bb)
    st = _Step(bb)
    dt, inv_dt = st.dt, st.inv_dt
    t = bb.var("t", nonnegative)
    (q0v, q0c), (v0v, v0c), (v1v, v1c) = (d.vector(n) for n in ("q0_vec", "v0", "v1"))
    dvv = (v1v[0] - v0v[0], v1v[1] - v0v[1])
    dvc = (v1c[0] - v0c[0], v1c[1] - v0c[1])
    q0, v0, dv = (bb.var(n, nonnegative) for n in ("q0", "v0_norm", "dv_norm"))
    one = z3.RealVal(1)
    offset = [Part(q0v, q0c, q0, one, one), Part(v0v, v0c, v0, t, dt),
              Part(dvv, dvc, dv, t * t * inv_dt / 2, dt / 2)]
    speed = [Part(v0v, v0c, v0, one, one), Part(dvv, dvc, dv, t * inv_dt, one)]
    accel = [Part(dvv, dvc, dv, inv_dt, inv_dt)]
    pos = scaled(offset)
    bounds = _curve_formulas(bb, _curve_subs(q0, v0, dv, dt))
    coords = (*q0c, *v0c, *v1c)
    # the runtime's curve minus the kinematic one, per component (named, so the conclusion can
    # forget the vectors)
    gaps = [bb.alias(f"gap_{k}", pos[i] - q0v[i] - bb.term(
        boundary.ACCEL_STEP_DISPLACEMENT, t=t, dt=dt, v0=v0v[i], v1=v1v[i]))
        for i, k in enumerate("xy")]
    time = (t, dt, inv_dt)
    steps: list[Step] = [
        Step("the runtime samples this curve (B4's ACCEL_STEP_DISPLACEMENT)",
             z3.And(gaps[0] == 0, gaps[1] == 0), keep_only(bb, *d.u, *coords, *gaps, *time))]
    reached = []
    for name, parts, bound in (("Q", offset, bounds[0]), ("Q'", speed, bounds[1]),
                               ("Q''", accel, bounds[2])):
        chain, toward = direction_steps(bb, d, name, parts, time)
        steps += chain
        reached.append(toward <= bound)

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        vectors = {n: from_frame(x, name) for n, name in (("q0", "q0_vec"), ("v0", "v0"),
                                                          ("v1", "v1"))}
        lengths = (x["q0"], x["v0_norm"], x["dv_norm"])
        limits = _curve_bounds(x, *lengths)
        dv_vec = (vectors["v1"][0] - vectors["v0"][0], vectors["v1"][1] - vectors["v0"][1])
        admissible = all(math.hypot(*v) <= b * (1 + 1e-9) for v, b in zip(
            (vectors["q0"], vectors["v0"], dv_vec), lengths, strict=True))
        peaks = _peaks(lambda s: _curve_values(vectors, x["dt"], s), x["dt"])
        bad = [f"{n} {p:.6g} > {b:.6g}" for n, p, b in zip(("|Q|", "|Q'|", "|Q''|"), peaks,
                                                              limits, strict=True)
               if admissible and p > b + 1e-9 * (1.0 + abs(b))]
        model = _curve_values(vectors, x["dt"], x["t"])[0]
        runtime = [vectors["q0"][k] + f.accel_step_displacement(
            t=x["t"], dt=x["dt"], v0=vectors["v0"][k], v1=vectors["v1"][k]) for k in range(2)]
        if max(abs(model[i] - runtime[i]) for i in range(2)) > 1e-9 * (1.0 + max(lengths)):
            bad.append(f"runtime curve {runtime} vs kinematics {model}")
        return Replay(bool(bad), "; ".join(bad) or f"sampled peaks {peaks} within {limits}")

    return bb.obligation(
        id="B6/accel_curve",
        claim="B6",
        title="the accelerating step's curve, speed and acceleration stay within their bounds",
        expected=PROVED,
        premise=[t <= dt, *(within_bound(p) for p in offset)],
        conclusion=z3.And(gaps[0] == 0, gaps[1] == 0, *reached),
        replay=replay,
        witness_prefer=[t > 0, t < dt, q0c[0] != 0, v0c[0] != 0, dvc[1] != 0],
        steps=steps,
        conclusion_forget=bb.names(*d.u, q0c[1], v0c[1], v1c[1]),
    )


def b6_accel_curve_tight(profile: Profile) -> Obligation:
    """B6/accel_curve/tight: q0, v0 and v1 - v0 along one unit vector e (norms q0, v0_norm,
    dv_norm) reach ``ACCEL_CURVE_OFFSET_BOUND``, ``ACCEL_CURVE_SPEED_BOUND`` and
    ``ACCEL_CURVE_ACCEL_BOUND`` exactly at the end of the step."""
    bb = Builder(profile)
    st = _Step(bb)
    dt, inv_dt = st.dt, st.inv_dt
    e = bb.unit("e")
    q0, v0, dv = (bb.var(n, nonnegative) for n in ("q0", "v0_norm", "dv_norm"))
    q0v, v0v, dvv = _aligned(e, q0), _aligned(e, v0), _aligned(e, dv)
    pos = tuple(q0v[k] + v0v[k] * dt + dvv[k] * dt * dt * inv_dt / 2 for k in range(2))
    vel = tuple(v0v[k] + dvv[k] * dt * inv_dt for k in range(2))
    acc = (dvv[0] * inv_dt, dvv[1] * inv_dt)
    bounds = _curve_formulas(bb, _curve_subs(q0, v0, dv, dt))
    reached = [z3.And(dot(v, v) == b * b, b >= 0) for v, b in zip((pos, vel, acc), bounds,
                                                                   strict=True)]

    def replay(x: Values) -> Replay:
        top = x["v0_norm"] + x["dv_norm"]
        model = {n: (length * x["e_x"], length * x["e_y"])
                 for n, length in (("q0", x["q0"]), ("v0", x["v0_norm"]), ("v1", top))}
        limits = _curve_bounds(x, x["q0"], x["v0_norm"], x["dv_norm"])
        reach = [math.hypot(*v) for v in _curve_values(model, x["dt"], x["dt"])]
        off = [abs(r - b) for r, b in zip(reach, limits, strict=True)]
        return Replay(bool(max(off) > 1e-9 * (1.0 + max(map(abs, limits)))),
                      f"aligned |Q|, |Q'|, |Q''| at dt {reach} vs bounds {limits}")

    return bb.obligation(
        id="B6/accel_curve/tight",
        claim="B6",
        title="an aligned accelerating step reaches the curve bounds at its end",
        expected=PROVED,
        premise=[],
        conclusion=z3.And(*reached),
        replay=replay,
        witness_prefer=[q0 > 0, v0 > 0, dv > 0],
    )


OBLIGATIONS = {
    "B6/pivot": b6_pivot,
    "B6/pivot/tight": b6_pivot_tight,
    "B6/accel_curve": b6_accel_curve,
    "B6/accel_curve/tight": b6_accel_curve_tight,
}
