"""Derivation of the boundary half-planes on moving supports (seed 000, claims B1, B4, B5).

Everything is projected on the edge's outward unit normal n. With a margin
m(t) = b(t) - dot(n, x(t)) the edge is respected while m(t) >= 0.
"""

from __future__ import annotations

import sympy
from sympy import diff, integrate, simplify, solve

from navproof.proofs.formula import Formula
from navproof.proofs.symbols import (
    dt,
    n_dot_e,
    n_dot_u,
    n_dot_v,
    n_dot_v0,
    n_dot_v1,
    s,
    t,
    v0,
    v1,
)

tau = sympy.Symbol("tau", nonnegative=True)

# B1: constant velocity. x(t) = x0 + t (u + v), b(t) = b0 + t dot(n, e).
CONSTANT_VELOCITY_MARGIN = s + t * n_dot_e - t * (n_dot_u + n_dot_v)

# The half-plane dot(n, v) <= offset is the root of the step-end margin in dot(n, v).
(_b1_root,) = solve(sympy.Eq(CONSTANT_VELOCITY_MARGIN.subs(t, dt), 0), n_dot_v)
STEP_HALFPLANE_OFFSET = simplify(_b1_root)

# B4: the relative velocity ramps linearly from v0 to v1 over the step; integrate it exactly.
# Per component (any direction): the displacement relative to the support.
ACCEL_STEP_DISPLACEMENT = integrate(v0 + (v1 - v0) * tau / dt, (tau, 0, t))
_normal_position = n_dot_u * t + ACCEL_STEP_DISPLACEMENT.subs({v0: n_dot_v0, v1: n_dot_v1})
ACCEL_MARGIN = sympy.expand(s + t * n_dot_e - _normal_position)

# Step-end condition as a bound on dot(n, v1): a half-plane in v1.
(_b4_root,) = solve(sympy.Eq(ACCEL_MARGIN.subs(t, dt), 0), n_dot_v1)
ACCEL_STEP_V1_BOUND = sympy.expand(_b4_root)

# B5: the interior extremum t* where the margin's derivative vanishes.
(_extremum,) = solve(sympy.Eq(diff(ACCEL_MARGIN, t), 0), t)
ACCEL_EXTREMUM_TIME = simplify(_extremum)

# Sanity of the derivation itself: B4's bound is the mean-velocity form of B1's offset.
assert simplify(ACCEL_STEP_V1_BOUND - (2 * STEP_HALFPLANE_OFFSET - n_dot_v0)) == 0
_constant_as_accel = ACCEL_MARGIN.subs(n_dot_v1, n_dot_v0)
assert simplify(_constant_as_accel - CONSTANT_VELOCITY_MARGIN.subs(n_dot_v, n_dot_v0)) == 0

FORMULAS = (
    Formula(
        "step_halfplane_offset",
        STEP_HALFPLANE_OFFSET,
        (s, dt, n_dot_e, n_dot_u),
        ("B1", "B3"),
        "Offset of the step half-plane dot(n, v) <= s/dt + dot(n, e - u)",
        "m/s",
    ),
    Formula(
        "constant_velocity_margin",
        CONSTANT_VELOCITY_MARGIN,
        (s, t, n_dot_e, n_dot_u, n_dot_v),
        ("B1", "B2"),
        "Signed edge margin at time t of a constant-velocity step (>= 0 inside)",
        "m",
    ),
    Formula(
        "accel_step_v1_bound",
        ACCEL_STEP_V1_BOUND,
        (s, dt, n_dot_e, n_dot_u, n_dot_v0),
        ("B4",),
        "Upper bound on dot(n, v1) for the step end of a linearly accelerating step",
        "m/s",
    ),
    Formula(
        "accel_step_displacement",
        ACCEL_STEP_DISPLACEMENT,
        (t, dt, v0, v1),
        ("B4", "B6", "W1"),
        "Displacement relative to the support at time t of a step ramping from v0 to v1 (per axis)",
        "m",
    ),
    Formula(
        "accel_margin",
        ACCEL_MARGIN,
        (s, t, dt, n_dot_e, n_dot_u, n_dot_v0, n_dot_v1),
        ("B4", "B5"),
        "Signed edge margin at time t of a step accelerating linearly from v0 to v1",
        "m",
    ),
    Formula(
        "accel_extremum_time",
        ACCEL_EXTREMUM_TIME,
        (dt, n_dot_e, n_dot_u, n_dot_v0, n_dot_v1),
        ("B5",),
        "Time t* where the accelerating step's margin is extremal (undefined when v1 = v0)",
        "s",
    ),
)
