"""Range endpoints reached by rescaling the witness (for the scale-free ORCA geometry).

ORCA's geometry has no length or time of its own: multiplying every length by ``s`` and every
time by ``k`` (so every velocity by ``s / k``) maps a configuration that meets an obligation's
facts onto another one that meets them. An endpoint of a parameter that z3 finds slowly (a
nonlinear satisfiability search) is therefore first tried with the primary variables fixed at
a rescaled copy of the non-vacuity witness; z3 still decides that query, so a reachable verdict
is a model of the facts, never an assumption. When no scale keeps every parameter inside its
range, or the rescaled point is not a model, the engine asks the plain query.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from navproof.proofs.obligations.common import Endpoint


@dataclass(frozen=True)
class ScaleRoles:
    """Which named variables are lengths, times and velocities; ``speed_cap`` bounds every
    velocity's norm; ``kept`` are dimensionless (shares, unit directions) and stay as they are."""

    lengths: tuple[str, ...]
    times: tuple[str, ...]
    velocities: tuple[str, ...]
    speed_cap: str | None = None
    kept: tuple[str, ...] = ()


Assignment = dict[str, Fraction]


def _ranges(endpoints: list[Endpoint]) -> dict[str, tuple[Fraction, Fraction]]:
    ranges: dict[str, dict[str, Fraction]] = {}
    for point in endpoints:
        ranges.setdefault(point.variable, {})[point.end] = Fraction(point.value)
    return {name: (ends["min"], ends["max"]) for name, ends in ranges.items() if len(ends) == 2}


def _scaled(roles: ScaleRoles, witness: Assignment, s: Fraction, k: Fraction) -> Assignment:
    """The witness with lengths times ``s``, times times ``k``; names without a rational value in
    the witness stay free."""
    factors = [(roles.lengths, s), (roles.times, k), (roles.velocities, s / k),
               (roles.kept, Fraction(1))]
    return {name: witness[name] * f for names, f in factors for name in names if name in witness}


def _within(point: Assignment, ranges: dict[str, tuple[Fraction, Fraction]]) -> bool:
    return all(lo <= point[name] <= hi for name, (lo, hi) in ranges.items() if name in point)


def _factor_range(names: tuple[str, ...], witness: Assignment,
                  ranges: dict[str, tuple[Fraction, Fraction]]) -> tuple[Fraction, Fraction]:
    """The scale factors that keep every named variable with a range inside it."""
    low, high = Fraction(0), Fraction(10**9)
    for name in names:
        if name in ranges and witness.get(name, 0) > 0:
            lo, hi = ranges[name]
            low, high = max(low, lo / witness[name]), min(high, hi / witness[name])
    return low, high


def _clamp(x: Fraction, low: Fraction, high: Fraction) -> Fraction | None:
    return None if low > high else min(max(x, low), high)


def rescaled_endpoint(
    roles: ScaleRoles,
) -> Callable[[Endpoint, Assignment, list[Endpoint]], Assignment | None]:
    """The endpoint hint of an obligation with these roles (see the module docstring)."""

    def hint(point: Endpoint, witness: Assignment, endpoints: list[Endpoint]) -> Assignment | None:
        old = witness.get(point.variable)
        if not old or old <= 0:
            return None
        ranges = _ranges(endpoints)
        target = Fraction(point.value)
        s_low, s_high = _factor_range(roles.lengths, witness, ranges)
        k_low, k_high = _factor_range(roles.times, witness, ranges)
        cap_w = witness.get(roles.speed_cap) if roles.speed_cap else None
        cap_low, cap_high = ranges.get(roles.speed_cap or "", (Fraction(0), Fraction(10**9)))
        # velocities scale by s / k; the cap must stay >= cap_w s / k (|v| <= cap_w at witness)
        ratio_high = cap_high / cap_w if cap_w else Fraction(10**9)
        if point.variable == roles.speed_cap:
            ratio_high = min(ratio_high, target / old)
        s: Fraction | None
        k: Fraction | None
        if point.variable in roles.lengths:
            s = target / old
            k = _clamp(Fraction(1), max(k_low, s / ratio_high), k_high)
        elif point.variable in roles.times:
            k = target / old
            s = _clamp(Fraction(1), s_low, min(s_high, ratio_high * k))
        elif point.variable == roles.speed_cap:
            # the smallest lengths leave the most room for the horizon to slow velocities down
            s = s_low if 0 < s_low <= s_high else _clamp(Fraction(1), s_low, s_high)
            k = None if s is None else _clamp(Fraction(1), max(k_low, s / ratio_high), k_high)
        else:
            return None
        if s is None or k is None:
            return None
        out = _scaled(roles, witness, s, k)
        if roles.speed_cap and cap_w is not None:
            cap = target if point.variable == roles.speed_cap else max(cap_low, cap_w * s / k)
            out[roles.speed_cap] = cap
        out[point.variable] = target
        return out if _within(out, ranges) else None

    return hint
