"""Derivation of two further half-planes in v1 used by the combined step (claims B5, S1, S3).

Both are built from the expressions of :mod:`navproof.proofs.boundary`, projected on an edge's
outward unit normal n, with the margin m(t) of the step accelerating from v0 to v1.

- ``accel_coverage_v1_bound``: the exact whole-step coverage condition of B5 as one bound on
  dot(n, v1). For a fixed t the margin is affine and decreasing in dot(n, v1), so coverage over
  (0, dt] is the minimum over t of the per-time bounds; that minimum sits at the tangency time
  t = -2 s / alpha (alpha = dot(n, e - u - v0), the margin's initial rate) when it falls inside
  the step, and at t = dt (the B4 end condition) otherwise.
- ``end_stop_v1_bound``: braking at a from the END of the step with |c1| <= Cmax stays inside:
  m(dt) >= dot(n, c1) Cmax / (2a) with c1 = u + v1 - r, solved for dot(n, v1).

The runtime currently reaches both through the generated ``accel_margin``,
``accel_extremum_time`` and ``normal_stop_displacement`` (cutting planes, affine roots); with
these closed forms generated it can use them directly.
"""

from __future__ import annotations

import sympy
from sympy import Piecewise, Rational, diff, simplify, solve

from navproof.proofs.boundary import ACCEL_MARGIN, ACCEL_STEP_V1_BOUND
from navproof.proofs.formula import Formula
from navproof.proofs.stop_envelope import NORMAL_STOP_DISPLACEMENT
from navproof.proofs.symbols import (
    a,
    cmax,
    dt,
    n_dot_c,
    n_dot_e,
    n_dot_u,
    n_dot_v0,
    n_dot_v1,
    s,
    speed,
    t,
)

n_dot_r = sympy.Symbol("n_dot_r", real=True)  # reference velocity along n, m/s

# B5, exact: per-time bound on dot(n, v1), minimised over t in (0, dt]
(_per_time_bound,) = solve(sympy.Eq(ACCEL_MARGIN, 0), n_dot_v1)
(_tangency,) = solve(sympy.Eq(diff(_per_time_bound, t), 0), t)
_alpha = n_dot_e - n_dot_u - n_dot_v0
assert simplify(_tangency + 2 * s / _alpha) == 0
_inside_bound = simplify(_per_time_bound.subs(t, _tangency))
assert simplify(_inside_bound - (n_dot_v0 - _alpha**2 * dt / (2 * s))) == 0
ACCEL_COVERAGE_V1_BOUND = Piecewise(
    (_inside_bound, -_alpha * dt > 2 * s),
    (ACCEL_STEP_V1_BOUND, True),
)

# S1/S3 at the step end: m(dt) >= dot(n, c1) Cmax/(2a) with zero reaction time
_brake = NORMAL_STOP_DISPLACEMENT.subs({n_dot_c: n_dot_v1 + n_dot_u - n_dot_r, speed: cmax,
                                        dt: 0})
(_end_stop,) = solve(sympy.Eq(ACCEL_MARGIN.subs(t, dt) - _brake, 0), n_dot_v1)
END_STOP_V1_BOUND = sympy.simplify(_end_stop)

# Sanity: the seed's B5 numbers (x0 = -0.01 m, u = 1 m/s, v0 = 0, dt = 0.1 s) need v1 <= -5
assert ACCEL_COVERAGE_V1_BOUND.subs(
    {s: Rational(1, 100), dt: Rational(1, 10), n_dot_e: 0, n_dot_u: 1, n_dot_v0: 0}) == -5
# ... and with a wide margin the end condition (B4) binds
assert ACCEL_COVERAGE_V1_BOUND.subs(
    {s: Rational(1, 2), dt: Rational(1, 10), n_dot_e: 0, n_dot_u: 1, n_dot_v0: 0}) == 8

FORMULAS = (
    Formula(
        "accel_coverage_v1_bound",
        ACCEL_COVERAGE_V1_BOUND,
        (s, dt, n_dot_e, n_dot_u, n_dot_v0),
        ("B5",),
        "Exact bound on dot(n, v1) for whole-step coverage of the accelerating step",
        "m/s",
    ),
    Formula(
        "end_stop_v1_bound",
        END_STOP_V1_BOUND,
        (s, dt, a, cmax, n_dot_e, n_dot_u, n_dot_r, n_dot_v0),
        ("S1", "S3"),
        "Bound on dot(n, v1) so that braking at a from the step end (|c1| <= Cmax) stays inside",
        "m/s",
    ),
)
