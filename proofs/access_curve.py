"""Derivation of the zero-speed access curve onto a handoff edge (seed 000, claims A1–A5).

The curve starts and ends at rest: accelerate at ``accel`` to a peak speed, cruise at the cap when
the length allows (A2), brake at ``accel`` to rest exactly at distance d. The short curve (A1) has
no cruise. Positions are integrated piece by piece, so a physics step that straddles a phase
boundary integrates each piece exactly (A3).
"""

from __future__ import annotations

import sympy
from sympy import Piecewise, integrate, simplify

from navproof.proofs.formula import Formula
from navproof.proofs.stop_envelope import STOP_DISTANCE
from navproof.proofs.symbols import a, accel, d, dt, speed, t, t0, t1, vcap

tau = sympy.Symbol("tau", nonnegative=True)
_peak = sympy.Symbol("peak", positive=True)

# A1: with no cruise, accelerating and braking each cover peak^2 / (2 accel); together d.
_short_peaks = sympy.solve(sympy.Eq(2 * _peak**2 / (2 * accel), d), _peak)
(SHORT_PEAK_SPEED,) = _short_peaks
SHORT_TOTAL_TIME = simplify(2 * SHORT_PEAK_SPEED / accel)

# A2: the long curve reaches the cap and cruises over what the ramps leave.
_ramp_length = vcap**2 / (2 * accel)
LONG_CRUISE_TIME = simplify((d - 2 * _ramp_length) / vcap)

IS_SHORT = d <= vcap**2 / accel
PEAK_SPEED = Piecewise((SHORT_PEAK_SPEED, IS_SHORT), (vcap, True))
ACCEL_TIME = Piecewise((SHORT_PEAK_SPEED / accel, IS_SHORT), (vcap / accel, True))
CRUISE_TIME = Piecewise((0, IS_SHORT), (LONG_CRUISE_TIME, True))
TOTAL_TIME = 2 * ACCEL_TIME + CRUISE_TIME


def _piecewise_curve(peak, accel_time, cruise_time):
    """Speed and position of a curve with the given peak and phase durations (generic pieces)."""
    total = 2 * accel_time + cruise_time
    brake_start = accel_time + cruise_time
    speed_pieces = (accel * tau, peak, accel * (total - tau))
    starts = (0, accel_time, brake_start)
    ends = (accel_time, brake_start, total)
    positions = []
    reached = sympy.Integer(0)
    for piece, start, end in zip(speed_pieces, starts, ends, strict=True):
        positions.append(simplify(reached + integrate(piece, (tau, start, t))))
        reached = simplify(reached + integrate(piece, (tau, start, end)))
    position = Piecewise(
        (positions[0], t <= accel_time),
        (positions[1], t <= brake_start),
        (positions[2], t <= total),
        (reached, True),
    )
    velocity = Piecewise(
        (speed_pieces[0].subs(tau, t), t <= accel_time),
        (speed_pieces[1], t <= brake_start),
        (speed_pieces[2].subs(tau, t), t <= total),
        (0, True),
    )
    return velocity, position, reached


_short = _piecewise_curve(SHORT_PEAK_SPEED, SHORT_PEAK_SPEED / accel, sympy.Integer(0))
_long = _piecewise_curve(vcap, vcap / accel, LONG_CRUISE_TIME)

# A1/A2 exactness: both curves end at distance d.
assert simplify(_short[2] - d) == 0
assert simplify(_long[2] - d) == 0

ACCESS_SPEED = Piecewise((_short[0], IS_SHORT), (_long[0], True))
ACCESS_POSITION = Piecewise((_short[1], IS_SHORT), (_long[1], True))

# A3: a physics step's displacement is the exact difference of positions, piece by piece.
ACCESS_STEP_DISPLACEMENT = ACCESS_POSITION.subs(t, t1) - ACCESS_POSITION.subs(t, t0)

# A4/A5: interrupted at t, hold the current speed for a reaction time dt (0 = brake at once), then
# brake at the curve's own magnitude to rest; the stop point along the curve.
INTERRUPTED_STOP_POINT = ACCESS_POSITION + STOP_DISTANCE.subs({speed: ACCESS_SPEED, a: accel})

_curve_args = (d, vcap, accel)

FORMULAS = (
    Formula(
        "access_peak_speed",
        PEAK_SPEED,
        _curve_args,
        ("A1", "A2"),
        "Peak speed of the access curve: sqrt(accel d) when short, vCap when long",
        "m/s",
    ),
    Formula(
        "access_accel_time",
        ACCEL_TIME,
        _curve_args,
        ("A1", "A2"),
        "Duration of the accelerating (and of the braking) phase of the access curve",
        "s",
    ),
    Formula(
        "access_cruise_time",
        CRUISE_TIME,
        _curve_args,
        ("A2",),
        "Duration of the cruise at vCap: (d - vCap^2/accel)/vCap when long, 0 when short",
        "s",
    ),
    Formula(
        "access_total_time",
        TOTAL_TIME,
        _curve_args,
        ("A1", "A2"),
        "Total duration of the access curve (2 sqrt(d/accel) when short)",
        "s",
    ),
    Formula(
        "access_speed",
        ACCESS_SPEED,
        (t, *_curve_args),
        ("A1", "A2"),
        "Speed along the access curve at time t (0 before the start of time and after the end)",
        "m/s",
    ),
    Formula(
        "access_position",
        ACCESS_POSITION,
        (t, *_curve_args),
        ("A1", "A2", "A3"),
        "Distance travelled along the access curve at time t, in [0, d]",
        "m",
    ),
    Formula(
        "access_step_displacement",
        ACCESS_STEP_DISPLACEMENT,
        (t0, t1, *_curve_args),
        ("A3",),
        "Exact displacement along the access curve over the physics step [t0, t1]",
        "m",
    ),
    Formula(
        "interrupted_stop_point",
        INTERRUPTED_STOP_POINT,
        (t, dt, *_curve_args),
        ("A4", "A5"),
        "Stop point along the curve when interrupted at t, held for dt, then braked at accel",
        "m",
    ),
)
