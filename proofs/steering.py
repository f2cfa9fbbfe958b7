"""Derivation of clamped steering and the Arrive speed curve (seed 002, claims T2 and T3).

Clamped steering (T2): ``steering = clampMagnitude((desired - v) / dt, maxAccel)``,
``v' = v + steering dt``: the velocity moves towards the desired one by
``min(|desired - v|, maxAccel dt)``. The seed writes ``clampMagnitude(desired - v, maxAccel)``,
reading the velocity gap as an acceleration over a one-second response; navproof closes the
gap over one step (the response the seed leaves to the implementation, "转向响应"), so a
reachable desired velocity is reached in one step. Either way ``v'`` lies on the segment from
``v`` to ``desired``, which gives both bounds of T2.

Arrive (T3): the discrete-time follower moves ``p' = p + v' dt`` with the new velocity. Braking
at ``maxAccel`` from speed ``w = m maxAccel dt`` it moves ``w - maxAccel dt``, ``w - 2 maxAccel
dt``, ... one step each, ``BRAKE_DISTANCE = w (w - maxAccel dt) / (2 maxAccel)`` in all (the sum
below). The shipped curve asks, at distance ``dist``, for the speed ``w`` whose own step plus
that braking distance ends exactly at the stop range: ``dist - stop_range = w dt +
BRAKE_DISTANCE(w)``, i.e. ``w (w + maxAccel dt) = 2 maxAccel (dist - stop_range)``. Its positive
root, capped at ``maxSpeed`` and zero inside the stop range, is ``ARRIVE_SPEED``. Along it the
curve drops by exactly ``maxAccel dt`` per step, so the follower can always keep up (proved
over the profile ranges in ``navproof.proofs.obligations``).

The naive ``LINEAR_RAMP_SPEED = maxSpeed dist / slowRadius`` asks for speeds the follower cannot
brake from when ``slowRadius < maxSpeed^2 / (2 maxAccel)`` (refuted with a replayed overshoot).
"""

from __future__ import annotations

import sympy
from sympy import Max, Min, Piecewise, simplify, summation

from navproof.proofs.formula import Formula
from navproof.proofs.symbols import (
    dist,
    dt,
    gap,
    max_accel,
    max_speed,
    slow_radius,
    speed,
    stop_range,
)

# T2: the change of velocity one step of clamped steering makes (along desired - v).
STEERING_CHANGE = Min(gap, max_accel * dt)

# T3: braking distance of the discrete follower from speed w = m maxAccel dt (m whole steps).
_m = sympy.Symbol("m", positive=True, integer=True)
_j = sympy.Symbol("j", positive=True, integer=True)
_brake_sum = summation((_m * max_accel * dt - _j * max_accel * dt) * dt, (_j, 1, _m))
BRAKE_DISTANCE = simplify(speed * (speed - max_accel * dt) / (2 * max_accel))
assert simplify(_brake_sum - BRAKE_DISTANCE.subs(speed, _m * max_accel * dt)) == 0

# The speed whose step plus the braking distance from it ends at the stop range.
_w = sympy.Symbol("w", nonnegative=True)
_excess = sympy.Symbol("excess", nonnegative=True)  # dist - stop_range where positive
_roots = sympy.solve(sympy.Eq(_w * dt + BRAKE_DISTANCE.subs(speed, _w), _excess), _w)
(_CURVE_ROOT,) = [r for r in _roots if r.subs({_excess: 1, max_accel: 1, dt: 1}) >= 0]
ARRIVE_CURVE_UNCAPPED = _CURVE_ROOT.subs(_excess, Max(dist - stop_range, 0))
# Inside the stop range the curve is exactly zero; the explicit branch keeps the runtime's
# value exactly zero too (the root's two terms cancel only up to rounding).
ARRIVE_SPEED = Piecewise((0, dist <= stop_range), (Min(max_speed, ARRIVE_CURVE_UNCAPPED), True))
assert simplify(ARRIVE_CURVE_UNCAPPED.subs(dist, stop_range)) == 0

# T3 (refuted): the naive linear ramp.
LINEAR_RAMP_SPEED = Min(max_speed, max_speed * dist / slow_radius)

FORMULAS = (
    Formula(
        "steering_change",
        STEERING_CHANGE,
        (gap, max_accel, dt),
        ("T2",),
        "Velocity change of one clamped steering step towards the desired velocity",
        "m/s",
    ),
    Formula(
        "arrive_speed",
        ARRIVE_SPEED,
        (dist, stop_range, max_speed, max_accel, dt),
        ("T3",),
        "Arrive speed curve: the speed the discrete follower can still brake from to rest at "
        "the stop range",
        "m/s",
    ),
    Formula(
        "discrete_brake_distance",
        BRAKE_DISTANCE,
        (speed, max_accel, dt),
        ("T3",),
        "Distance the discrete follower travels braking at maxAccel from speed w (w a whole "
        "number of maxAccel dt)",
        "m",
    ),
    Formula(
        "linear_ramp_speed",
        LINEAR_RAMP_SPEED,
        (dist, max_speed, slow_radius),
        ("T3",),
        "The naive linear ramp maxSpeed dist / slowRadius (refuted by T3; never used to steer)",
        "m/s",
    ),
)
