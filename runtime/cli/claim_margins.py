"""Signed margins of the profile-level claims: how much room the parameters leave before a
claim breaks (positive: holds with that much to spare; negative: broken by that much).

Each margin is evaluated with the generated runtime formulas (``navproof._generated.formulas``,
printed from the same sympy expressions the proofs use), on one of two bases:

- ``ranges``: the worst value over the profile's ranges. Each such margin is monotone in every
  parameter it reads, so the worst value is at a corner of the box, and every corner is tried.
- ``defaults``: the configured values (the defaults the controllers run with, e.g.
  ``HandoffParams.from_profile``).

Margins:

- R2 (ranges), m/s: ``Vh(V, k) - |u|`` — the support carry the controller can cancel on the
  steepest slope (all edges fixed, stop target |u| within the relative cap).
- H5 (defaults), s: ``deadline_ticks * tick_s - (attempts * T_access + T_brake)`` — the
  allowed access attempts, each a whole access curve (A1/A2 ``access_total_time``), plus
  braking from the curve's peak speed (``access_accel_time``) within the handoff deadline.
- A4 (defaults), m: ``d - max_t stop(t)`` with braking at once — never negative (A4 is
  proved); zero means the stop touches the edge (interrupted at the very end).
- A5 (defaults), m: the same with one physics step ``step_s`` of reaction at the current
  speed; negative is expected (A5 is refutable): the runtime keeps the scheduled deceleration
  and marks "no stop guarantee" where the remaining distance is too short. Informational.
- O-horizon (ranges), s: ``min(orca_time_horizon_s, obstacle_time_horizon_s) - step_s`` — the
  ORCA horizons are at least one step long.

The stop point of an interrupted access curve rises while the curve accelerates or cruises and
falls during its own deceleration (its time derivative is ``v + dt a'`` with ``a' <= 0`` only
there), so its maximum over the interruption times is at a phase boundary: those are the times
evaluated.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from navproof._generated import formulas
from navproof.core.tolerances import EPS
from navproof.specs.profile import Profile

RANGES = "ranges"
DEFAULTS = "defaults"


@dataclass(frozen=True)
class ClaimMargin:
    """One signed margin: ``value`` in ``unit``, evaluated at ``at`` (parameter values), with
    the verdict ``ok`` (None: informational, no verdict)."""

    id: str
    claims: str
    title: str
    unit: str
    basis: str
    value: float
    at: dict[str, float]
    ok: bool | None
    formula: str

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "claims": self.claims, "title": self.title, "unit": self.unit,
                "basis": self.basis, "value": self.value, "at": self.at, "ok": self.ok,
                "formula": self.formula}


def _worst_corner(profile: Profile, names: tuple[str, ...],
                  margin: Callable[..., float]) -> tuple[float, dict[str, float]]:
    """The smallest margin over the corners of the parameters' ranges, and that corner."""
    best: tuple[float, dict[str, float]] | None = None
    choices = [(float(profile[n].min), float(profile[n].max)) for n in names]
    for corner in itertools.product(*choices):
        at = dict(zip(names, corner, strict=True))
        value = margin(**at)
        if best is None or value < best[0]:
            best = (value, at)
    assert best is not None
    return best


def _defaults(profile: Profile, names: tuple[str, ...]) -> dict[str, float]:
    return {n: float(profile[n].default) for n in names}


def _r2(surface_speed_cap_mps: float, slope_factor: float, support_speed_mps: float) -> float:
    cap = formulas.horizontal_cap(surface_cap=surface_speed_cap_mps, k=slope_factor)
    return float(cap) - support_speed_mps


def _access(d: float, vcap: float, accel: float) -> dict[str, float]:
    return {"d": d, "vcap": vcap, "accel": accel}


def _h5(*, handoff_deadline_ticks: float, tick_s: float, max_access_attempts: float,
        access_length_m: float, access_speed_cap_mps: float, access_accel_mps2: float) -> float:
    curve = _access(access_length_m, access_speed_cap_mps, access_accel_mps2)
    access_s = float(formulas.access_total_time(**curve))
    brake_s = float(formulas.access_accel_time(**curve))
    return handoff_deadline_ticks * tick_s - (max_access_attempts * access_s + brake_s)


def _stop_margin(*, reaction_s: float, access_length_m: float, access_speed_cap_mps: float,
                 access_accel_mps2: float) -> float:
    curve = _access(access_length_m, access_speed_cap_mps, access_accel_mps2)
    accel_s = float(formulas.access_accel_time(**curve))
    cruise_s = float(formulas.access_cruise_time(**curve))
    times = (0.0, accel_s, accel_s + cruise_s, 2.0 * accel_s + cruise_s)
    worst = max(float(formulas.interrupted_stop_point(t=t, dt=reaction_s, **curve))
                for t in times)
    return access_length_m - worst


def _horizon(*, orca_time_horizon_s: float, obstacle_time_horizon_s: float,
             step_s: float) -> float:
    return min(orca_time_horizon_s, obstacle_time_horizon_s) - step_s


_ACCESS = ("access_length_m", "access_speed_cap_mps", "access_accel_mps2")


def claim_margins(profile: Profile) -> list[ClaimMargin]:
    """Every profile-level margin of ``profile`` (see the module docstring)."""
    out = []
    names: tuple[str, ...] = ("surface_speed_cap_mps", "slope_factor", "support_speed_mps")
    value, at = _worst_corner(profile, names, _r2)
    out.append(ClaimMargin("R2", "R2", "support carry cancellable at the steepest slope", "m/s",
                           RANGES, value, at, value >= -EPS, "V/k - |u|"))
    names = ("handoff_deadline_ticks", "tick_s", "max_access_attempts", *_ACCESS)
    at = _defaults(profile, names)
    value = _h5(**at)
    out.append(ClaimMargin("H5", "H5, A1, A2",
                           "access attempts plus braking within the handoff deadline", "s",
                           DEFAULTS, value, at, value >= -EPS,
                           "ticks * tick_s - (attempts * T_access + T_brake)"))
    at = _defaults(profile, _ACCESS)
    value = _stop_margin(reaction_s=0.0, **at)
    out.append(ClaimMargin("A4", "A4", "stop point of every interruption, braking at once", "m",
                           DEFAULTS, value, {**at, "reaction_s": 0.0}, value >= -EPS,
                           "d - max_t stop(t, reaction 0)"))
    at = _defaults(profile, (*_ACCESS, "step_s"))
    reaction = at.pop("step_s")
    value = _stop_margin(reaction_s=reaction, **at)
    out.append(ClaimMargin("A5", "A5",
                           "stop point with one reaction step (runtime: no stop guarantee)", "m",
                           DEFAULTS, value, {**at, "reaction_s": reaction}, None,
                           "d - max_t stop(t, reaction step_s)"))
    names = ("orca_time_horizon_s", "obstacle_time_horizon_s", "step_s")
    value, at = _worst_corner(profile, names, _horizon)
    out.append(ClaimMargin("O-horizon", "O3, O5", "ORCA horizons at least one step", "s",
                           RANGES, value, at, value >= -EPS, "min(tau, tau_obst) - step"))
    return out


def format_value(value: float) -> str:
    """A margin as a short signed decimal."""
    return f"{value:+.6g}"


def format_at(at: dict[str, float]) -> str:
    """Parameter values as ``name=value`` pairs (exact-looking decimals)."""
    return ", ".join(f"{k}={v:g}" for k, v in at.items())
