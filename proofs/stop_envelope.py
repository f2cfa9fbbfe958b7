"""Derivation of the reaction-plus-brake stop envelope (seed 000, claims S1–S5) and of the
discrete-time braking envelope that makes the safe label control-invariant (S7).

A candidate relative-to-reference velocity c = u + v - r is held for one reaction step dt, then
braked at the budget a straight back to zero. Along the direction of c the body travels
D(|c|) = |c| dt + |c|^2 / (2a); its normal displacement is dot(n, c) (dt + |c| / (2a)).

S7: the runtime moves in steps. Within a step the relative velocity ramps linearly from the
actual end velocity of the previous step (B4) and changes by at most a dt (V2), so the strongest
braking is one step at a time, |c| -> max(|c| - a dt, 0) along c. The S3 half-plane tightens by
dot(n, c) dt / (dt + Cmax/(2a)) per step, faster than such a step can brake when |c| is near
Cmax, so S3 alone is not recursively feasible. The braking envelope ``dot(n, c1) K <= margin at
the step end`` is: one braking step consumes dt (dot(n, c1) + dot(n, c2)) / 2 of the margin and
releases K (dot(n, c1) - dot(n, c2)) of the envelope, and K below is the least factor for which
the release covers the consumption at every speed up to Cmax and on the last step to rest.
"""

from __future__ import annotations

import sympy
from sympy import diff, integrate, simplify, solve

from navproof.proofs.boundary import ACCEL_MARGIN
from navproof.proofs.formula import Formula
from navproof.proofs.symbols import (
    a,
    carry,
    cmax,
    dt,
    kfac,
    n_dot_c,
    n_dot_e,
    n_dot_r,
    n_dot_u,
    n_dot_v0,
    n_dot_v1,
    s,
    s_end,
    speed,
    t,
    vh,
)

tau = sympy.Symbol("tau", nonnegative=True)

# S1: reaction at constant speed, then the speed falls at rate a until it reaches zero.
_brake_time = speed / a
STOP_DISTANCE = speed * dt + integrate(speed - a * tau, (tau, 0, _brake_time))
STOP_DISPLACEMENT_FACTOR = simplify(STOP_DISTANCE / speed)
NORMAL_STOP_DISPLACEMENT = n_dot_c * STOP_DISPLACEMENT_FACTOR

# S1 monotonicity: the distance grows with speed, so the trajectory's end is its worst point.
STOP_DISTANCE_SLOPE = diff(STOP_DISTANCE, speed)
assert STOP_DISTANCE_SLOPE.is_positive

# S2: the largest normal speed whose straight-in stop still fits in the margin s.
_roots = solve(sympy.Eq(STOP_DISTANCE, s), speed)
(NECESSARY_NORMAL_BOUND,) = [r for r in _roots if r.is_nonnegative is not False]
NECESSARY_NORMAL_BOUND = simplify(NECESSARY_NORMAL_BOUND)

# S1/S3 along the way: displacement per unit of c at time t after the step start, for the hold of
# c over dt followed by the brake at a along c until rest (at dt + |c|/a).
BRAKING_PHASE_FACTOR = dt + integrate(1 - a * tau / speed, (tau, 0, t - dt))
STOP_TRAJECTORY_FACTOR = sympy.Piecewise(
    (t, t <= dt),
    (BRAKING_PHASE_FACTOR, t <= dt + speed / a),
    (STOP_DISPLACEMENT_FACTOR, True),
)
# The braking piece joins the rest position continuously (the trajectory ends where S1 says).
assert simplify(BRAKING_PHASE_FACTOR.subs(t, dt + speed / a) - STOP_DISPLACEMENT_FACTOR) == 0

# S4: |u + v - r| <= |v| + |u - r| <= Vh + |u - r| (triangle inequality).
ENVELOPE_SPEED_CAP = vh + carry
# R2: the stop target vStop = r - u is reachable from the support only when |vStop| <= Vh
# (braking to c = 0 means v = r - u); a negative margin is "support carry exceeds cancel
# capacity".
STOP_TARGET_MARGIN = vh - carry

# S3: every edge shares the stop factor of the worst speed Cmax; solve the linear bound on dot(n,c).
(_s3_root,) = solve(sympy.Eq(n_dot_c * STOP_DISPLACEMENT_FACTOR.subs(speed, cmax), s), n_dot_c)
LINEAR_ENVELOPE_BOUND = simplify(_s3_root)

# S7: one step of the strongest braking along c (V2 radius a dt), never past rest.
BRAKED_SPEED = sympy.Piecewise((speed - a * dt, speed > a * dt), (0, True))

# While braking (|c| > a dt) the speed ratio is lambda = (|c| - a dt)/|c|: the step consumes
# dt dot(n, c1) (1 + lambda)/2 of the margin (linear ramp, B4) and the envelope releases
# K dot(n, c1) (1 - lambda). Equality gives the least K at that speed; it grows with the speed.
_lam = (speed - a * dt) / speed
(_k_braking,) = solve(sympy.Eq(kfac * (1 - _lam), dt * (1 + _lam) / 2), kfac)
assert simplify(_k_braking - (speed / a - dt / 2)) == 0
assert diff(_k_braking, speed).is_positive
# The last step (|c| <= a dt) ramps to rest over the whole step: it consumes dt dot(n, c1)/2.
_k_last = dt / 2
# K = max(Cmax/a - dt/2, dt/2), written as a piecewise form (the first piece wins above a dt).
BRAKE_ENVELOPE_FACTOR = sympy.Piecewise((_k_braking.subs(speed, cmax), cmax > a * dt),
                                        (_k_last, True))

# The envelope in the solve variable: margin at the step end (B4) >= K dot(n, u + v1 - r).
BRAKE_ENVELOPE_MARGIN = s_end - kfac * n_dot_c
_end_envelope = ACCEL_MARGIN.subs(t, dt) - kfac * (n_dot_u + n_dot_v1 - n_dot_r)
(_s7_root,) = solve(sympy.Eq(_end_envelope, 0), n_dot_v1)
BRAKE_ENVELOPE_OFFSET = simplify(_s7_root)
# The pieces meet at Cmax = a dt, and the factor covers the continuous brake from the step end
# that S1 assumes (Cmax/(2a) <= K on both pieces).
assert simplify(_k_braking.subs(speed, a * dt) - _k_last) == 0
assert simplify((_k_braking.subs(speed, cmax) - cmax / (2 * a)).subs(cmax, a * dt)) == 0

FORMULAS = (
    Formula(
        "stop_distance",
        STOP_DISTANCE,
        (speed, dt, a),
        ("S1", "A5"),
        "Distance travelled holding a speed for one reaction step, then braking at a to rest",
        "m",
    ),
    Formula(
        "stop_displacement_factor",
        STOP_DISPLACEMENT_FACTOR,
        (speed, dt, a),
        ("S1",),
        "Factor dt + |c|/(2a): displacement of the reaction-and-brake stop per unit of c",
        "s",
    ),
    Formula(
        "normal_stop_displacement",
        NORMAL_STOP_DISPLACEMENT,
        (n_dot_c, speed, dt, a),
        ("S1", "S3"),
        "Normal displacement dot(n, c) (dt + |c|/(2a)) of the whole reaction-and-brake stop",
        "m",
    ),
    Formula(
        "stop_trajectory_factor",
        STOP_TRAJECTORY_FACTOR,
        (t, dt, a, speed),
        ("S1", "S3"),
        "Displacement per unit of c at time t of the hold-then-brake stop trajectory",
        "s",
    ),
    Formula(
        "necessary_normal_bound",
        NECESSARY_NORMAL_BOUND,
        (s, dt, a),
        ("S2",),
        "Largest dot(n, c) whose stop fits in the margin s: sqrt((a dt)^2 + 2 a s) - a dt",
        "m/s",
    ),
    Formula(
        "envelope_speed_cap",
        ENVELOPE_SPEED_CAP,
        (vh, carry),
        ("S4",),
        "Shared envelope speed Cmax = Vh + |u - r|",
        "m/s",
    ),
    Formula(
        "stop_target_margin",
        STOP_TARGET_MARGIN,
        (vh, carry),
        ("R2",),
        "Speed margin Vh - |r - u| of the stop target (negative: carry exceeds cancel capacity)",
        "m/s",
    ),
    Formula(
        "linear_envelope_bound",
        LINEAR_ENVELOPE_BOUND,
        (s, dt, a, cmax),
        ("S3", "S5"),
        "Offset of the stop half-plane dot(n, u + v - r) <= s / (dt + Cmax/(2a))",
        "m/s",
    ),
    Formula(
        "braked_speed",
        BRAKED_SPEED,
        (speed, dt, a),
        ("S7", "F2"),
        "Speed after one step of the strongest braking: max(|c| - a dt, 0)",
        "m/s",
    ),
    Formula(
        "brake_envelope_factor",
        BRAKE_ENVELOPE_FACTOR,
        (cmax, dt, a),
        ("S7",),
        "Factor K = max(Cmax/a - dt/2, dt/2) of the discrete braking envelope",
        "s",
    ),
    Formula(
        "brake_envelope_offset",
        BRAKE_ENVELOPE_OFFSET,
        (s, dt, n_dot_e, n_dot_u, n_dot_v0, n_dot_r, kfac),
        ("S7", "B4"),
        "Offset of the S7 half-plane dot(n, v1) <= q: step-end margin >= K dot(n, u + v1 - r)",
        "m/s",
    ),
    Formula(
        "brake_envelope_margin",
        BRAKE_ENVELOPE_MARGIN,
        (s_end, n_dot_c, kfac),
        ("S7",),
        "Signed S7 margin: step-end margin minus K dot(n, c1)",
        "m",
    ),
)
