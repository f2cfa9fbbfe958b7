"""Derivation of the reaction-plus-brake stop envelope (seed 000, claims S1–S5).

A candidate relative-to-reference velocity c = u + v - r is held for one reaction step dt, then
braked at the budget a straight back to zero. Along the direction of c the body travels
D(|c|) = |c| dt + |c|^2 / (2a); its normal displacement is dot(n, c) (dt + |c| / (2a)).
"""

from __future__ import annotations

import sympy
from sympy import diff, integrate, simplify, solve

from navproof.proofs.formula import Formula
from navproof.proofs.symbols import a, carry, cmax, dt, n_dot_c, s, speed, t, vh

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

# S3: every edge shares the stop factor of the worst speed Cmax; solve the linear bound on dot(n,c).
(_s3_root,) = solve(sympy.Eq(n_dot_c * STOP_DISPLACEMENT_FACTOR.subs(speed, cmax), s), n_dot_c)
LINEAR_ENVELOPE_BOUND = simplify(_s3_root)

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
        "linear_envelope_bound",
        LINEAR_ENVELOPE_BOUND,
        (s, dt, a, cmax),
        ("S3", "S5"),
        "Offset of the stop half-plane dot(n, u + v - r) <= s / (dt + Cmax/(2a))",
        "m/s",
    ),
)
