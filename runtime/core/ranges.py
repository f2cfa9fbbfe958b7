"""The profile's parameter ranges as run-time input checks of a step.

The proofs hold for every value inside a profile's ranges; a step whose step length, braking
budget, horizontal cap, support or edge speed lies outside them is outside what ``navproof
prove`` covered. ``check_step_in_profile`` refuses such a step with the parameter, the agent, the
value and the range, and changes nothing. Claim: B1, S3, S4, V1 (the hypotheses of their proofs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.core.tolerances import RANGE_BOUND_REL

if TYPE_CHECKING:
    from navproof.specs.profile import Profile


def _check_range(profile: Any, field: str, parameter: str, values: np.ndarray,
                 lo: float, hi: float, unit: str) -> None:
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    slack = RANGE_BOUND_REL * max(abs(lo), abs(hi), 1.0)
    outside = np.flatnonzero((values < lo - slack) | (values > hi + slack))
    if outside.size:
        first = int(outside[0])
        raise InvalidInput(
            f"{field}[{first}]", float(values[first]),
            f"outside the range [{lo:g}, {hi:g}] {unit} of {parameter} in profile "
            f"'{profile.name}' ({outside.size} value(s) outside; the proofs do not cover it)",
        )


def _bounds(profile: Any, name: str) -> tuple[float, float, str]:
    p = profile[name]
    return float(p.min), float(p.max), p.unit


def _step_values(inp: Any, profile: Any) -> list[tuple[str, str, np.ndarray, float, float,
                                                      str]]:
    """Every value of a step the proofs' ranges bound, per agent (N,) or per agent and edge
    (N, K, +inf-free: invalid edges give 0): (field, parameter, values, lo, hi, unit)."""
    out = []
    n = inp.position_m.shape[0]
    dt = np.broadcast_to(np.asarray(inp.dt_s, dtype=np.float64), (n,))
    lo, hi, unit = _bounds(profile, "step_s")
    out.append(("dt_s", "step_s", dt, lo, hi, unit))
    lo, hi, unit = _bounds(profile, "brake_budget_mps2")
    out.append(("accel_mps2", "brake_budget_mps2",
                np.broadcast_to(np.asarray(inp.accel_mps2, np.float64), (n,)), lo, hi, unit))
    v_lo, v_hi, unit = _bounds(profile, "surface_speed_cap_mps")
    k_lo, k_hi, _ = _bounds(profile, "slope_factor")
    out.append(("vh_mps", "surface_speed_cap_mps / slope_factor",
                np.broadcast_to(np.asarray(inp.vh_mps, np.float64), (n,)), v_lo / k_hi,
                v_hi / k_lo, unit))
    lo, hi, unit = _bounds(profile, "support_speed_mps")
    # the largest speed over the step: an accelerating or turning support changes it
    support_speed = inp.support.carry_speed_range_mps(inp.position_m, dt)
    out.append(("support.velocity_mps", "support_speed_mps", support_speed, lo, hi, unit))
    lo, hi, unit = _bounds(profile, "edge_speed_mps")
    edge_speed = np.where(inp.edges.valid,
                          inp.edges.motion.pivot_speed_range_mps(dt[:, None]), 0.0)
    out.append(("edges.velocity_mps", "edge_speed_mps", edge_speed, lo, hi, unit))
    return out


def check_step_in_profile(inp: Any, profile: Any) -> None:
    """Raise InvalidInput when a step input leaves ``profile``'s ranges (see module doc).

    Checks the step length (``step_s``), the braking budget (``brake_budget_mps2``), the
    horizontal cap against V/k over the ranges of V and k (``surface_speed_cap_mps``,
    ``slope_factor``), the support speed |u| and every valid edge's translation speed |e|, each
    the largest over the step (an accelerating or turning support changes its speed).
    """
    for field, parameter, values, lo, hi, unit in _step_values(inp, profile):
        if field == "edges.velocity_mps":
            values = values[inp.edges.valid]
        _check_range(profile, field, parameter, values, lo, hi, unit)


def agents_outside_profile(inp: Any, profile: Any) -> np.ndarray:
    """(N,) True for the agents whose step leaves ``profile``'s ranges (the values of
    :func:`check_step_in_profile`, per agent): the step is outside what the proofs cover, so it
    is never labelled safe. Claim: B1, S3, S4, V1."""
    outside = np.zeros(inp.position_m.shape[0], bool)
    for _, _, values, lo, hi, _ in _step_values(inp, profile):
        slack = RANGE_BOUND_REL * max(abs(lo), abs(hi), 1.0)
        bad = (values < lo - slack) | (values > hi + slack)
        outside |= bad.reshape(bad.shape[0], -1).any(axis=1)
    return outside


def check_in_profile_range(profile: Profile, field: str, parameter: str, values: Any) -> None:
    """Raise InvalidInput naming ``field``, the first value outside and the range when any of
    ``values`` leaves the range of ``parameter`` in ``profile`` (where the proofs hold)."""
    lo, hi, unit = _bounds(profile, parameter)
    try:
        _check_range(profile, field, parameter, values, lo, hi, unit)
    except InvalidInput as exc:
        if np.ndim(values):
            raise
        # one value: the field itself, not its first element
        raise InvalidInput(field, exc.value, exc.rule) from None
