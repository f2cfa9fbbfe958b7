"""Derivation of the certified bound of edge margins next to rotating motion (seed 000, B6).

Where a support or an edge rotates and the two do not share one rigid motion, the body's margin
against the edge is read in the edge's local frame: f(t) = dot(nLocal, M_edge(t)^-1 x(t)) - b.
With the support's rigid motion carrying the body, f = const + m1(t).P(t) + m2(t).Q(t), where
m1 is a unit vector turning at the edge's rate omega_e, m2 one turning at the relative rate
d_omega = omega_s - omega_e, P(t) = c_s - c_e + (w_s - w_e) t the pivot offset and Q(t) = y(t) - c_s
the body's offset from its support's pivot.
With accelerating motion (pivots moving as c + w t + alpha t^2 / 2) the pivot offset gains the
term (alpha_s - alpha_e) t^2 / 2 and P'' = alpha_s - alpha_e; Q is unchanged (it lives in the
support's frame). The runtime samples f at the ends of each piece of
width h and adds the interpolation excess of a C^2 function, M2 h^2 / 8 with M2 >= |f''|.

Built from three reusable steps, so a tighter bound replaces one of them:

* :func:`rotating_term_bound`: |(m.X)''| for a unit vector m turning at a rate w (derived from
  m(t) = (cos(w t + phi), sin(w t + phi)) and Cauchy-Schwarz);
* :func:`polynomial_norm_bound`: |X(t)| on [0, T] of a vector polynomial, by the triangle
  inequality over its coefficients;
* the interpolation excess: the largest gap between a C^2 function and its chord.
"""

from __future__ import annotations

import sympy
from sympy import Abs, Matrix, Symbol, cos, diff, simplify, sin, solve, sqrt

from navproof.proofs.boundary import ACCEL_STEP_DISPLACEMENT
from navproof.proofs.formula import Formula
from navproof.proofs.stop_envelope import STOP_DISPLACEMENT_FACTOR
from navproof.proofs.symbols import a, dt, speed, t, v0, v1

# Magnitudes (all non-negative): rates in rad/s, lengths in m, speeds in m/s.
omega_e = Symbol("omega_e", nonnegative=True)  # |edge rotation rate|, rad/s
d_omega = Symbol("d_omega", nonnegative=True)  # |support rate - edge rate|, rad/s
dw = Symbol("dw", nonnegative=True)  # |w_s - w_e|, pivot drift speed at the start, m/s
d_accel = Symbol("d_accel", nonnegative=True)  # |alpha_s - alpha_e|, pivot drift accel., m/s^2
dp_max = Symbol("dp_max", nonnegative=True)  # bound of |P'(t)| over the interval, m/s
ddp_max = Symbol("ddp_max", nonnegative=True)  # bound of |P''(t)| over the interval, m/s^2
p0 = Symbol("p0", nonnegative=True)  # |c_s - c_e| at the step start, m
p_max = Symbol("p_max", nonnegative=True)  # bound of |P(t)| over the interval, m
q0 = Symbol("q0", nonnegative=True)  # |y(0) - c_s|, m
q_max = Symbol("q_max", nonnegative=True)  # bound of |Q(t)|, m
dq_max = Symbol("dq_max", nonnegative=True)  # bound of |Q'(t)|, m/s
ddq_max = Symbol("ddq_max", nonnegative=True)  # bound of |Q''(t)|, m/s^2
v0_norm = Symbol("v0_norm", nonnegative=True)  # |v0|, m/s
dv_norm = Symbol("dv_norm", nonnegative=True)  # |v1 - v0|, m/s
m2 = Symbol("m2", nonnegative=True)  # bound of |f''| over a piece, m/s^2
h = Symbol("h", positive=True)  # width of one piece, s
horizon = Symbol("horizon", nonnegative=True)  # length of the interval bounded, s
ulp = Symbol("ulp", positive=True)  # float64 machine epsilon, 1
offset_abs = Symbol("offset_abs", nonnegative=True)  # |b| of the edge, m

ROUNDING_ULPS = 4
"""Units of float64 rounding, per metre of the largest magnitude f is computed from, added so
the float64 evaluation of f cannot hide a margin (a few roundings per rotation and sum)."""

# --- one rotating term: (m.X)'' = m''.X + 2 m'.X' + m.X'' with |m| = 1, |m'| = |w|, |m''| = w^2
_w = Symbol("w", real=True)
_phi = Symbol("phi", real=True)
_m = Matrix([cos(_w * t + _phi), sin(_w * t + _phi)])
_x = Matrix([sympy.Function("X1")(t), sympy.Function("X2")(t)])
_dm, _ddm = _m.diff(t), _m.diff(t, 2)
assert simplify(diff(_m.dot(_x), t, 2)
                - (_ddm.dot(_x) + 2 * _dm.dot(_x.diff(t)) + _m.dot(_x.diff(t, 2)))) == 0
UNIT_NORM = simplify(sqrt(_m.dot(_m)))
RATE_NORM = simplify(sqrt(_dm.dot(_dm)))
TURN_NORM = simplify(sqrt(_ddm.dot(_ddm)))
assert UNIT_NORM == 1 and RATE_NORM == Abs(_w) and simplify(TURN_NORM - _w**2) == 0


def rotating_term_bound(rate: sympy.Expr, x_max: sympy.Expr, dx_max: sympy.Expr,
                        ddx_max: sympy.Expr) -> sympy.Expr:
    """Bound of |(m.X)''| for a unit vector m turning at ``rate`` and bounds of |X|, |X'|,
    |X''| (Cauchy-Schwarz on each term of the product rule)."""
    return (TURN_NORM.subs(_w, rate) * x_max + 2 * RATE_NORM.subs(_w, rate) * dx_max
            + UNIT_NORM * ddx_max)


def polynomial_norm_bound(expr: sympy.Expr, var: sympy.Symbol, upper: sympy.Expr,
                          norms: dict[sympy.Symbol, sympy.Symbol]) -> sympy.Expr:
    """Bound of |X(var)| for var in [0, upper] of a vector polynomial X given per component
    (``expr`` linear in the vector symbols of ``norms``, mapped to their magnitudes): the sum
    over powers k and vectors of |coefficient| |vector| upper^k (triangle inequality)."""
    poly = sympy.Poly(sympy.expand(expr), var)
    total = sympy.Integer(0)
    for (power,), coeff in poly.terms():
        for vec, norm in norms.items():
            factor = diff(coeff, vec)
            assert not factor.has(*norms), "coefficients must be linear in the vectors"
            total += Abs(factor) * norm * upper**power
        rest = coeff.subs({vec: 0 for vec in norms})
        assert rest == 0, "every coefficient term must carry a vector"
    return simplify(total)


# --- the pieces of f: P is the pivot offset (quadratic in t with accelerating motion), Q the
# body's curve about its support's pivot
_p0v, _dwv, _dav, _q0v, _dvv = (Symbol(n, real=True)
                                for n in ("p0_vec", "dw_vec", "da_vec", "q0_vec", "dv_vec"))
_pivot = _p0v + _dwv * t + _dav * t**2 / 2
_pivot_norms = {_p0v: p0, _dwv: dw, _dav: d_accel}
PIVOT_OFFSET_BOUND = polynomial_norm_bound(_pivot, t, horizon, _pivot_norms)
PIVOT_SPEED_BOUND = polynomial_norm_bound(diff(_pivot, t), t, horizon, _pivot_norms)
PIVOT_ACCEL_BOUND = polynomial_norm_bound(diff(_pivot, t, 2), t, horizon, _pivot_norms)

# Q(t) = q0 + accelerating displacement (B4) over the step, with v1 = v0 + dv
_q_step = _q0v + ACCEL_STEP_DISPLACEMENT.subs(v1, v0 + _dvv)
_step_norms = {_q0v: q0, v0: v0_norm, _dvv: dv_norm}
ACCEL_CURVE_OFFSET_BOUND = polynomial_norm_bound(_q_step, t, dt, _step_norms)
ACCEL_CURVE_SPEED_BOUND = polynomial_norm_bound(diff(_q_step, t), t, dt, _step_norms)
ACCEL_CURVE_ACCEL_BOUND = polynomial_norm_bound(diff(_q_step, t, 2), t, dt, _step_norms)

# The stop after the step moves the body along v1 by phi(tau) |v1| at most, phi rising to the
# stop displacement factor of S1 (hold for dt, then brake at a to rest).
STOP_CURVE_OFFSET_BOUND = q0 + speed * STOP_DISPLACEMENT_FACTOR

RIGID_SECOND_DERIVATIVE_BOUND = (rotating_term_bound(omega_e, p_max, dp_max, ddp_max)
                                 + rotating_term_bound(d_omega, q_max, dq_max, ddq_max))

# --- interpolation excess: e = f - chord vanishes at both ends of [0, h] and |e''| <= M2, so
# e(t) <= M2 t (h - t) / 2 (comparison with the parabola of curvature M2); its largest value:
_gap = m2 * t * (h - t) / 2
(_t_peak,) = solve(diff(_gap, t), t)
INTERPOLATION_EXCESS_BOUND = simplify(_gap.subs(t, _t_peak))
assert simplify(INTERPOLATION_EXCESS_BOUND - m2 * h**2 / 8) == 0

ROUNDING_SLACK = ROUNDING_ULPS * ulp * (1 + offset_abs + q_max + p_max)

# --- the hold at rest on the support after the stop, against an edge that does not rotate: the
# pivot offset's normal component g(t) = dot(n, p0) + dot(n, dw) t + dot(n, da) t^2 / 2 must be
# bounded above over every t >= 0. It is when dot(n, da) < 0 (a parabola opening downwards: its
# vertex, or t = 0 when the vertex lies before it) or when dot(n, da) = 0 and dot(n, dw) <= 0
# (non-increasing, largest at t = 0); otherwise it grows without bound and no hold is certified.
n_dot_p = Symbol("n_dot_p", real=True)  # dot(n, c_s - c_e) at the step start, m
n_dot_dw = Symbol("n_dot_dw", real=True)  # dot(n, w_s - w_e), m/s
n_dot_da = Symbol("n_dot_da", real=True)  # dot(n, alpha_s - alpha_e), m/s^2
_drift = n_dot_p + n_dot_dw * t + n_dot_da * t**2 / 2
(_t_vertex,) = solve(diff(_drift, t), t)
_vertex_value = simplify(_drift.subs(t, _t_vertex))
# the vertex is the maximum of a downward parabola: g(t*) - g(t) = -dot(n, da) (t - t*)^2 / 2
assert simplify(_vertex_value - _drift + n_dot_da * (t - _t_vertex) ** 2 / 2) == 0
# with dot(n, dw) <= 0 and dot(n, da) <= 0 the drift never rises above its start for t >= 0
assert simplify(_drift.subs(t, 0) - _drift + t * (n_dot_dw + n_dot_da * t / 2)) == 0
HOLD_DRIFT_SUP = sympy.Piecewise((_vertex_value, (n_dot_dw > 0) & (n_dot_da < 0)),
                                 (_drift.subs(t, 0), True))

FORMULAS = (
    Formula("rigid_second_derivative_bound", RIGID_SECOND_DERIVATIVE_BOUND,
            (omega_e, d_omega, p_max, dp_max, ddp_max, q_max, dq_max, ddq_max), ("B6",),
            "Bound M2 of |f''| of the local-frame margin excess f = m1.P + m2.Q", "m/s^2"),
    Formula("interpolation_excess_bound", INTERPOLATION_EXCESS_BOUND, (m2, h), ("B6",),
            "Largest excess of a C^2 function with |f''| <= M2 over its chord on a piece of "
            "width h", "m"),
    Formula("rigid_rounding_slack", ROUNDING_SLACK, (ulp, offset_abs, q_max, p_max), ("B6",),
            "Float64 rounding slack added to the certified local-frame bound", "m"),
    Formula("pivot_offset_bound", PIVOT_OFFSET_BOUND, (p0, dw, d_accel, horizon), ("B6",),
            "Bound of |P(t)| = |c_s - c_e + (w_s - w_e) t + (alpha_s - alpha_e) t^2 / 2| for t in "
            "[0, horizon]", "m"),
    Formula("pivot_speed_bound", PIVOT_SPEED_BOUND, (dw, d_accel, horizon), ("B6",),
            "Bound of |P'(t)| for t in [0, horizon]", "m/s"),
    Formula("pivot_accel_bound", PIVOT_ACCEL_BOUND, (d_accel,), ("B6",),
            "Bound of |P''(t)| (constant)", "m/s^2"),
    Formula("accel_curve_offset_bound", ACCEL_CURVE_OFFSET_BOUND, (q0, v0_norm, dv_norm, dt),
            ("B6",), "Bound of |Q(t)| over the accelerating step from |Q(0)|, |v0|, |v1 - v0|",
            "m"),
    Formula("accel_curve_speed_bound", ACCEL_CURVE_SPEED_BOUND, (v0_norm, dv_norm), ("B6",),
            "Bound of |Q'(t)| over the accelerating step", "m/s"),
    Formula("accel_curve_accel_bound", ACCEL_CURVE_ACCEL_BOUND, (dv_norm, dt), ("B6",),
            "Bound of |Q''(t)| over the accelerating step", "m/s^2"),
    Formula("stop_curve_offset_bound", STOP_CURVE_OFFSET_BOUND, (q0, speed, dt, a),
            ("B6", "S1"), "Bound of |Q| over the hold-then-brake stop from |Q| at its start",
            "m"),
    Formula("hold_drift_sup", HOLD_DRIFT_SUP, (n_dot_p, n_dot_dw, n_dot_da), ("B6", "R3"),
            "Supremum over t >= 0 of dot(n, P(t)) = dot(n, p0) + dot(n, dw) t + dot(n, da) t^2 / 2 "
            "(valid where dot(n, da) < 0, or dot(n, da) = 0 and dot(n, dw) <= 0)", "m"),
)
