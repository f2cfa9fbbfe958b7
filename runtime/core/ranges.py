"""The profile's parameter ranges as run-time input checks of a step.

The proofs hold for every value inside a profile's ranges; a step whose step length, braking
budget, horizontal cap, support or edge speed lies outside them is outside what ``navproof
prove`` covered. ``check_step_in_profile`` refuses such a step with the parameter, the agent, the
value and the range, and changes nothing. Claim: B1, S3, S4, V1 (the hypotheses of their proofs).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.core.filled import filled
from navproof.core.jit import compiled_loop
from navproof.core.tolerances import RANGE_BOUND_REL
from navproof.core.validation import floats_of_shape

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


def _step_ranges(profile: Any) -> list[tuple[str, str, float, float, str]]:
    """The ranges a step's values must lie in, in the order of :func:`_step_values`: (field,
    parameter, lo, hi, unit)."""
    out = []
    for field, parameter in (("dt_s", "step_s"), ("accel_mps2", "brake_budget_mps2")):
        out.append((field, parameter, *_bounds(profile, parameter)))
    v_lo, v_hi, unit = _bounds(profile, "surface_speed_cap_mps")
    k_lo, k_hi, _ = _bounds(profile, "slope_factor")
    out.append(("vh_mps", "surface_speed_cap_mps / slope_factor", v_lo / k_hi, v_hi / k_lo,
                unit))
    out.append(("support.velocity_mps", "support_speed_mps",
                *_bounds(profile, "support_speed_mps")))
    out.append(("edges.velocity_mps", "edge_speed_mps", *_bounds(profile, "edge_speed_mps")))
    return out


def _step_values(inp: Any, profile: Any) -> list[tuple[str, str, np.ndarray, float, float,
                                                      str]]:
    """Every value of a step the proofs' ranges bound, per agent (N,) or per agent and edge
    (N, K, +inf-free: invalid edges give 0): (field, parameter, values, lo, hi, unit)."""
    n = inp.position_m.shape[0]
    dt = np.broadcast_to(np.asarray(inp.dt_s, dtype=np.float64), (n,))
    values = [dt, np.broadcast_to(np.asarray(inp.accel_mps2, np.float64), (n,)),
              np.broadcast_to(np.asarray(inp.vh_mps, np.float64), (n,)),
              # the largest speed over the step: an accelerating or turning support changes it
              inp.support.carry_speed_range_mps(inp.position_m, dt),
              np.where(inp.edges.valid, inp.edges.motion.pivot_speed_range_mps(dt[:, None]),
                       0.0)]
    return [(field, parameter, value, lo, hi, unit) for (field, parameter, lo, hi, unit), value
            in zip(_step_ranges(profile), values, strict=True)]


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


def agents_outside_profile(inp: Any, profile: Any, *,
                           support_speed_mps: np.ndarray | None = None,
                           fixed_edges: bool = False) -> np.ndarray:
    """(N,) True for the agents whose step leaves ``profile``'s ranges (the values of
    :func:`check_step_in_profile`, per agent): the step is outside what the proofs cover, so it
    is never labelled safe. The support's speed range comes from the support
    (:meth:`~navproof.boundary.Support.carry_speed_range_mps`) unless the caller already has
    it (``support_speed_mps``, m/s, (N,)); ``fixed_edges`` says that no edge moves (zero
    velocity and acceleration), so that with a finite step every edge's speed range is
    exactly 0 (:meth:`~navproof.boundary.Motion.pivot_speed_range_mps`) and is tested once
    for all. The rest is one compiled pass per agent (:func:`_outside_rows`).
    Claim: B1, S3, S4, V1."""
    n = inp.position_m.shape[0]
    dt = _per_row(inp.dt_s, n)
    limits = _slackened_limits(profile)
    if support_speed_mps is None:
        support_speed_mps = inp.support.carry_speed_range_mps(inp.position_m, dt)
    every_edge_outside = False
    step = inp.dt_s
    if fixed_edges and (math.isfinite(step) if isinstance(step, float)
                        else np.count_nonzero(np.isfinite(step)) == np.size(step)):
        # every edge at 0 m/s: the pass's test of each edge, once
        every_edge_outside = inp.edges.valid.shape[1] > 0 and bool(
            (0.0 < limits[4, 0]) | (0.0 > limits[4, 1]))
        edge_valid, edge_speed = np.zeros((n, 0), np.bool_), np.zeros((n, 0))
    else:
        edge_valid = inp.edges.valid
        edge_speed = inp.edges.motion.pivot_speed_range_mps(dt[:, None])
    outside = np.empty(n, np.bool_)
    _outside_rows(dt, _per_row(inp.accel_mps2, n), _per_row(inp.vh_mps, n),
                  np.asarray(support_speed_mps, dtype=np.float64), edge_valid, edge_speed,
                  limits, outside)
    if every_edge_outside:
        outside[:] = True
    return outside


def _per_row(value: Any, n: int) -> np.ndarray:
    """``value`` as float64 with one value per row (n,): one value (a step's single length)
    filled into a new array (the compiled pass reads a filled array faster than a broadcast
    view of one value: at twenty thousand rows the pair costs a third), else
    :func:`navproof.core.validation.floats_of_shape`."""
    if isinstance(value, float):
        return filled(n, value)
    arr = np.asarray(value, dtype=np.float64)
    return np.full((n,), arr) if arr.ndim == 0 else floats_of_shape(arr, (n,))


_LIMITS_PARAMETERS = ("step_s", "brake_budget_mps2", "surface_speed_cap_mps", "slope_factor",
                      "support_speed_mps", "edge_speed_mps")
"""The profile parameters whose ranges :func:`_step_ranges` reads."""

_limits_cache: tuple[tuple[tuple[Any, Any, Any], ...], np.ndarray] | None = None


def _slackened_limits(profile: Any) -> np.ndarray:
    """The ranges of :func:`_step_ranges` widened by their slack, (5, 2) (lo, hi), read-only.
    The limits are a function of each parameter's bounds alone, so the same parameter objects
    with the same bound objects as the last call's (fractions: immutable) give the last call's
    limits."""
    global _limits_cache
    parameters = [profile[name] for name in _LIMITS_PARAMETERS]
    cached = _limits_cache
    if cached is not None:
        for p, (q, lo, hi) in zip(parameters, cached[0], strict=True):
            if p is not q or p.min is not lo or p.max is not hi:
                break
        else:
            return cached[1]
    key = tuple((p, p.min, p.max) for p in parameters)
    limits = np.empty((5, 2))
    for row, (_, _, lo, hi, _) in enumerate(_step_ranges(profile)):
        slack = RANGE_BOUND_REL * max(abs(lo), abs(hi), 1.0)
        limits[row] = lo - slack, hi + slack
    limits.flags.writeable = False
    _limits_cache = (key, limits)
    return limits


@compiled_loop
def _outside_rows(dt, accel, vh, support_speed, edge_valid, edge_speed, limits, out):
    """Every row of :func:`agents_outside_profile`: the step length, braking budget, cap and
    support speed range of the agent and the speed range of each of its edges (an invalid edge
    counts as 0 m/s) against the slackened ranges ``limits`` (5, 2), in that order.
    Claim: B1, S3, S4, V1."""
    dt_lo, dt_hi, accel_lo, accel_hi = limits[0, 0], limits[0, 1], limits[1, 0], limits[1, 1]
    vh_lo, vh_hi, support_lo, support_hi = limits[2, 0], limits[2, 1], limits[3, 0], limits[3, 1]
    edge_lo, edge_hi = limits[4, 0], limits[4, 1]
    for i in range(out.shape[0]):
        # every comparison evaluated (no branches): the loop stays straight
        bad = (dt[i] < dt_lo) | (dt[i] > dt_hi) | (accel[i] < accel_lo) \
            | (accel[i] > accel_hi) | (vh[i] < vh_lo) | (vh[i] > vh_hi) \
            | (support_speed[i] < support_lo) | (support_speed[i] > support_hi)
        for k in range(edge_valid.shape[1]):
            speed = edge_speed[i, k] if edge_valid[i, k] else 0.0
            bad |= (speed < edge_lo) | (speed > edge_hi)
        out[i] = bad


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
