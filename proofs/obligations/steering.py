"""T — clamped steering and Arrive (seed 002, claims T2 and T3; derivations:
``navproof.proofs.steering``).

- T2 (proved): one clamped steering step ``v' = v + (d - v) STEERING_CHANGE(|d - v|) / |d - v|``
  changes the velocity by at most maxAccel dt, and keeps ``|v'| <= maxSpeed`` when ``|v|`` and
  ``|d|`` are within it.
- T3/invariant (proved): along the line to the target (distance ``x``, speed ``w >= 0`` towards
  it; the follower of T2 in one dimension with ``d = ARRIVE_SPEED(|x|)``) the set ``x >= -r``,
  ``0 <= w <= ARRIVE_SPEED(|x|) + maxAccel dt`` is invariant, and inside the stop range
  (``|x| <= r``) the step ends at rest where it is. A body that starts at rest (or slower than
  it can brake from) therefore never passes the target by more than the stop range ``r`` and
  stops for good once inside it (T3/rest).
- T3/progress (proved): outside the stop range each step either enters it or covers at least
  ``dt min(maxSpeed, maxAccel dt)``: the body reaches the stop range in finitely many steps.
- T3/ramp (refuted): the naive ramp ``LINEAR_RAMP_SPEED`` with ``slowRadius <
  maxSpeed^2 / (2 maxAccel)`` asks, somewhere inside its radius, for a speed whose discrete
  braking distance ``BRAKE_DISTANCE`` exceeds what is left to the far end of the stop range; the
  replay runs the follower from there and confirms the overshoot.

Every range is the profile's: maxAccel ``steering_max_accel_mps2``, dt ``step_s``, maxSpeed
``max_speed_mps``, r ``arrive_stop_range_m``.
"""

from __future__ import annotations

import z3

from navproof.proofs import steering
from navproof.proofs.obligations.common import (
    PROVED,
    REFUTED,
    Builder,
    Obligation,
    Replay,
    Step,
    Values,
    runtime_formulas,
)
from navproof.specs.profile import Profile


def _params(bb: Builder) -> dict[str, z3.ArithRef]:
    return {
        "max_accel": bb.param("max_accel", "steering_max_accel_mps2"),
        "dt": bb.param("dt", "step_s"),
        "max_speed": bb.param("max_speed", "max_speed_mps"),
    }


def t2(profile: Profile) -> Obligation:
    """T2: |v' - v| <= maxAccel dt, and |v'| <= maxSpeed when |v|, |d| <= maxSpeed."""
    bb = Builder(profile)
    p = _params(bb)
    v = bb.vector("v")
    d = bb.vector("d")
    gap_vec = (d[0] - v[0], d[1] - v[1])
    gap = bb.norm("gap", gap_vec)
    change = bb.term(steering.STEERING_CHANGE, gap=gap, max_accel=p["max_accel"], dt=p["dt"])
    bb.shown["change"] = change
    scale = bb.alias("scale", change / gap)
    new = (v[0] + gap_vec[0] * scale, v[1] + gap_vec[1] * scale)
    limit = p["max_accel"] * p["dt"]
    cap_sq = p["max_speed"] * p["max_speed"]
    gap_sq = bb.alias("gap_sq", gap_vec[0] ** 2 + gap_vec[1] ** 2)
    v_sq = bb.alias("v_sq", v[0] ** 2 + v[1] ** 2)
    d_sq = bb.alias("d_sq", d[0] ** 2 + d[1] ** 2)
    step_sq = bb.alias("step_sq", (new[0] - v[0]) ** 2 + (new[1] - v[1]) ** 2)
    new_sq = bb.alias("new_sq", new[0] ** 2 + new[1] ** 2)
    within = z3.And(v_sq <= cap_sq, d_sq <= cap_sq)
    conclusion = z3.And(step_sq <= limit * limit, z3.Implies(within, new_sq <= cap_sq))
    components = bb.names(v, d)

    def replay(x: Values) -> Replay:
        import numpy as np

        from navproof.steering.clamp import clamped_steering

        vv = np.array([[x["v_x"], x["v_y"]]])
        dd = np.array([[x["d_x"], x["d_y"]]])
        out = clamped_steering(vv, dd, x["max_accel"], x["dt"])[0]
        step = float(np.hypot(*(out - vv[0])))
        too_far = step > x["max_accel"] * x["dt"] * (1 + 1e-9)
        inside = max(np.hypot(*vv[0]), np.hypot(*dd[0])) <= x["max_speed"]
        too_fast = inside and np.hypot(*out) > x["max_speed"] * (1 + 1e-9)
        return Replay(bool(too_far or too_fast), f"|v'-v| {step:.6g}, |v'| {np.hypot(*out):.6g}")

    # v' = (1 - scale) v + scale d with scale in [0, 1]: a point of the segment from v to d
    steps = [
        Step("scale in [0, 1]", z3.And(scale >= 0, scale <= 1)),
        Step("change within maxAccel dt", z3.And(scale * gap <= limit, gap * gap == gap_sq)),
        Step("step length", step_sq == scale * scale * gap_sq),
        Step("segment convexity", new_sq <= (1 - scale) * v_sq + scale * d_sq),
        Step("change bounded", step_sq <= limit * limit, forget=components),
        Step("cap kept", z3.Implies(within, new_sq <= cap_sq), forget=components),
    ]
    return bb.obligation(
        id="T2", claim="T2", title="clamped steering: bounded change, speed cap kept",
        expected=PROVED, premise=[gap > 0], conclusion=conclusion, replay=replay,
        witness_prefer=[gap > limit, within], steps=steps, conclusion_forget=components)


def _arrive_state(bb: Builder) -> dict[str, z3.ArithRef]:
    """Parameters, the state (x, w) and one step of the 1-D Arrive follower."""
    p = _params(bb)
    r = bb.param("r", "arrive_stop_range_m")
    x = bb.var("x")
    w = bb.var("w")
    abs_x = z3.If(x >= 0, x, -x)
    curve = bb.alias("curve", bb.term(steering.ARRIVE_SPEED, dist=abs_x, stop_range=r, **p))
    gap = z3.If(curve >= w, curve - w, w - curve)
    change = bb.alias("change", bb.term(steering.STEERING_CHANGE, gap=gap,
                                        max_accel=p["max_accel"], dt=p["dt"]))
    w1 = bb.alias("w1", z3.If(curve >= w, w + change, w - change))
    x1 = bb.alias("x1", x - w1 * p["dt"])
    return {**p, "r": r, "x": x, "w": w, "curve": curve, "w1": w1, "x1": x1}


def _invariant(bb: Builder, s: dict[str, z3.ArithRef], x: z3.ArithRef,
               w: z3.ArithRef, curve: z3.ArithRef) -> z3.BoolRef:
    return z3.And(x >= -s["r"], w >= 0, w <= curve + s["max_accel"] * s["dt"])


def _replay_follower(x: Values, *, ramp: bool) -> tuple[float, float]:
    """Run the discrete 1-D follower from the state (x, w) until it rests; returns the lowest
    position reached and the final speed."""
    f = runtime_formulas()
    pos, speed = x["x"], x["w"]
    lowest = pos
    for _ in range(200000):
        dist = abs(pos)
        if ramp:
            desired = float(f.linear_ramp_speed(dist=dist, max_speed=x["max_speed"],
                                                slow_radius=x["R"]))
        else:
            desired = float(f.arrive_speed(dist=dist, stop_range=x["r"],
                                           max_speed=x["max_speed"],
                                           max_accel=x["max_accel"], dt=x["dt"]))
        desired = desired if pos >= 0 else -desired
        change = float(f.steering_change(gap=abs(desired - speed), max_accel=x["max_accel"],
                                         dt=x["dt"]))
        speed = speed + change if desired >= speed else speed - change
        pos -= speed * x["dt"]
        lowest = min(lowest, pos)
        if speed == 0.0 and abs(desired) == 0.0:
            break
    return lowest, speed


def _t3_step(profile: Profile, *, inside: bool) -> Obligation:
    bb = Builder(profile)
    s = _arrive_state(bb)
    x1, w1 = s["x1"], s["w1"]
    curve1 = bb.alias("curve1", bb.term(steering.ARRIVE_SPEED, dist=z3.If(x1 >= 0, x1, -x1),
                                        stop_range=s["r"], max_speed=s["max_speed"],
                                        max_accel=s["max_accel"], dt=s["dt"]))
    invariant = _invariant(bb, s, s["x"], s["w"], s["curve"])

    def replay(x: Values) -> Replay:
        lowest, speed = _replay_follower(x, ramp=False)
        return Replay(bool(lowest < -x["r"] - 1e-9 or speed != 0.0),
                      f"lowest position {lowest:.6g}, final speed {speed:.6g}, stop range "
                      f"{x['r']:.6g}")

    if inside:
        return bb.obligation(
            id="T3/rest", claim="T3", title="Arrive: inside the stop range the step ends at "
                                            "rest in place",
            expected=PROVED, premise=[invariant, s["x"] <= s["r"]],
            conclusion=z3.And(w1 == 0, x1 == s["x"]), replay=replay,
            witness_prefer=[s["w"] > 0, s["x"] > 0])
    return bb.obligation(
        id="T3/invariant", claim="T3",
        title="Arrive: the follower stays brakeable and never passes the stop range",
        expected=PROVED, premise=[invariant, s["x"] > s["r"]],
        conclusion=_invariant(bb, s, x1, w1, curve1), replay=replay,
        witness_prefer=[s["w"] > 0, s["curve"] < s["max_speed"]])


def t3_invariant(profile: Profile) -> Obligation:
    """T3: outside the stop range one step keeps the follower in its invariant set
    (x >= -r, 0 <= w <= ARRIVE_SPEED(|x|) + maxAccel dt)."""
    return _t3_step(profile, inside=False)


def t3_rest(profile: Profile) -> Obligation:
    """T3: inside the stop range (and in the invariant set) the step ends at rest in place."""
    return _t3_step(profile, inside=True)


def t3_progress(profile: Profile) -> Obligation:
    """T3: outside the stop range a step enters it or covers at least dt min(maxSpeed, a dt)."""
    bb = Builder(profile)
    s = _arrive_state(bb)
    least = s["dt"] * z3.If(s["max_speed"] <= s["max_accel"] * s["dt"], s["max_speed"],
                            s["max_accel"] * s["dt"])
    conclusion = z3.Or(s["x1"] <= s["r"], s["x"] - s["x1"] >= least)

    def replay(x: Values) -> Replay:
        lowest, _ = _replay_follower({**x, "w": x["w"]}, ramp=False)
        return Replay(bool(lowest > x["r"]), f"lowest position {lowest:.6g}")

    return bb.obligation(
        id="T3/progress", claim="T3", title="Arrive: every step outside the stop range makes "
                                            "a fixed least progress or enters it",
        expected=PROVED,
        premise=[_invariant(bb, s, s["x"], s["w"], s["curve"]), s["x"] > s["r"]],
        conclusion=conclusion, replay=replay,
        witness_prefer=[s["w"] > 0, s["curve"] < s["max_speed"]])


def t3_linear_ramp(profile: Profile) -> Obligation:
    """T3 (refuted): the linear ramp with slowRadius < maxSpeed^2 / (2 maxAccel) asks for a
    speed the discrete follower cannot brake from before passing the stop range."""
    bb = Builder(profile)
    p = _params(bb)
    r = bb.param("r", "arrive_stop_range_m")
    radius = bb.var("R")
    x = bb.var("x")
    w = bb.alias("w", bb.term(steering.LINEAR_RAMP_SPEED, dist=x, max_speed=p["max_speed"],
                              slow_radius=radius))
    brake = bb.alias("brake", bb.term(steering.BRAKE_DISTANCE, speed=w,
                                      max_accel=p["max_accel"], dt=p["dt"]))
    premise = [radius > 0, radius * 2 * p["max_accel"] < p["max_speed"] ** 2, x > 0,
               x <= radius]

    def replay(v: Values) -> Replay:
        lowest, _ = _replay_follower(v, ramp=True)
        return Replay(bool(lowest < -v["r"]), f"from x = {v['x']:.6g} at the ramp speed "
                                               f"{v['w']:.6g}: lowest position {lowest:.6g}, "
                                               f"stop range {v['r']:.6g}")

    return bb.obligation(
        id="T3/ramp", claim="T3",
        title="the naive linear ramp overshoots the stop range", expected=REFUTED,
        premise=premise, conclusion=brake <= x + r, replay=replay,
        sharpen=[brake - x - r >= z3.RealVal("1/10")],
        witness_prefer=[x > r, x < radius])


OBLIGATIONS = {
    "T2": t2,
    "T3/invariant": t3_invariant,
    "T3/rest": t3_rest,
    "T3/progress": t3_progress,
    "T3/ramp": t3_linear_ramp,
}
REFUTABLE = frozenset({"T3/ramp"})
