"""The P/Q handoff demo's data: the scenario file (``pq_handoff.toml`` beside this module, shipped
as package data), its schema and its checks. The logic that runs it lives in
:mod:`navproof.demos.pq_handoff.run`; :func:`navproof.scenario.load_scenario` reads this schema
(``kind = "pq-handoff"``) beside the World scenarios.

Schema (every key required unless marked; lengths in m, times in s)::

    [scenario]
    kind = "pq-handoff"          # marks the schema
    action_id = "pq-handoff-1"   # the handoff's id in the record

    [patches]                    # the edge is X = 0; the plane is X <= 0, the slope X >= 0
    plane = "P"
    slope = "Q"
    slope_gradient_x = 1.7320508075688772   # slope height = gradient * X; k = sqrt(1 + g^2)
    edge_id = "P|Q"
    support_id = "ground"        # the (fixed) support both patches lie on

    [body]
    start_x_m = -0.09            # the foot rests here on the plane (< 0)

    [[obstacle_changes]]         # optional; each change bumps the obstacle version (from 1)
    time_s = 0.2                 # strictly increasing, >= 0
    blocks_access = true         # whether the access sweep is blocked from then on

    [handoff]                    # optional: handoff parameters of the profile this scenario
    access_accel_mps2 = 1.0      # uses, each checked against the profile's range (a missing
                                 # key takes the profile's default)

Errors raise :class:`navproof.core.errors.ScenarioError` (an InvalidInput) naming the file, the key,
the value and the rule; nothing runs from a bad file. Claim: V1 (k), H5 (budgets), A1 (curve).
"""

from __future__ import annotations

import functools
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from navproof.boundary.slope import slope_factor
from navproof.core.errors import InvalidInput, ScenarioError
from navproof.core.tolerances import EPS
from navproof.handoff.controller import HandoffParams, HandoffTarget, Versions

KIND = "pq-handoff"
DEFAULT_FILE = Path(__file__).resolve().parent / "pq_handoff.toml"
"""The demo's data, package data of :mod:`navproof.demos.pq_handoff`: ``navproof simulate
pq-handoff`` finds it in an installed wheel as in the repository. It is not a World scenario
file (those, under ``examples/``, run with ``navproof simulate FILE.toml``)."""

HANDOFF_KEYS = ("tick_s", "step_s", "max_access_attempts", "handoff_deadline_ticks",
                "access_speed_cap_mps", "access_accel_mps2", "stop_speed_threshold_mps",
                "arrival_velocity_threshold_mps", "surface_speed_cap_mps", "brake_budget_mps2",
                "reaction_s")
TABLES = {
    "scenario": ("kind", "action_id"),
    "patches": ("plane", "slope", "slope_gradient_x", "edge_id", "support_id"),
    "body": ("start_x_m",),
    "obstacle_changes": ("time_s", "blocks_access"),
    "handoff": HANDOFF_KEYS,
}


@dataclass(frozen=True)
class PQScenario:
    """The P/Q demo's data: names, Q's gradient along X, the start, the obstacle-version
    changes ``(time_s, blocks_access)`` and the handoff parameters the run uses."""

    source: str
    action_id: str
    plane: str
    slope: str
    slope_gradient_x: float
    edge_id: str
    support_id: str
    start_x_m: float
    obstacle_changes: tuple[tuple[float, bool], ...]
    params: HandoffParams

    @property
    def slope_factor(self) -> float:
        """k of the slope (Claim: V1)."""
        return float(slope_factor(np.array([self.slope_gradient_x, 0.0])))

    def target(self) -> HandoffTarget:
        """The plane, the slope and their common edge X = 0 (n = +X points into the slope)."""
        return HandoffTarget(
            action_id=self.action_id,
            p_patch=self.plane,
            q_patch=self.slope,
            edge_id=self.edge_id,
            edge_normal_xy=(1.0, 0.0),
            edge_offset_m=0.0,
            support_id=self.support_id,
            q_support_id=self.support_id,
            q_gradient_xy=(self.slope_gradient_x, 0.0),
            q_support_velocity_xy_mps=(0.0, 0.0),
            versions=Versions(p=1, q=1, edge=1, support=1, nav=1),
        )

    def headline(self) -> str:
        """One line describing the scenario (the first line of the report)."""
        return (f"plane {self.plane} (X <= 0), slope {self.slope} (X >= 0, height "
                f"{_surd(self.slope_gradient_x)} X, k = {self.slope_factor:g}); foot at "
                f"X = {self.start_x_m:g}, a = {self.params.access_accel_mps2:g} m/s^2, "
                f"vCap = {self.params.access_speed_cap_mps:g} m/s")


def _surd(value: float) -> str:
    """``sqrt(n)`` when ``value`` is the root of a whole non-square n, else ``value:g``."""
    n = round(value * value)
    root = math.isqrt(n)
    if n > 1 and root * root != n and abs(value - math.sqrt(n)) <= EPS:
        return f"sqrt({n})"
    return f"{value:g}"


def load_pq_scenario(path: str | Path | None = None, *, profile: Any = None) -> PQScenario:
    """Read and check a P/Q scenario file (default: :data:`DEFAULT_FILE`); the handoff
    parameters are checked against ``profile`` (the embedded default when None)."""
    from navproof.specs.profile import load_profile

    path = Path(path) if path is not None else DEFAULT_FILE
    file = str(path)

    def fail(key: str, value: object, rule: str) -> ScenarioError:
        return ScenarioError(file, key, value, rule)

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise fail("<file>", file, f"cannot be read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise fail("<file>", file, f"is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - set(TABLES))
    if unknown:
        raise fail(unknown[0], data[unknown[0]], f"unknown table; allowed: {list(TABLES)}")

    def table(name: str, *, required: bool = True) -> dict[str, Any]:
        value = data.get(name, None if required else {})
        if not isinstance(value, dict):
            raise fail(name, value, "must be a table" + (" (required)" if required else ""))
        return _known(fail, name, value)

    def text(tbl: dict[str, Any], key: str, name: str) -> str:
        value = tbl.get(name)
        if not isinstance(value, str) or not value.strip():
            raise fail(f"{key}.{name}", value, "must be a non-empty string")
        return value

    meta, patches, body = table("scenario"), table("patches"), table("body")
    handoff = table("handoff", required=False)
    if meta.get("kind") != KIND:
        raise fail("scenario.kind", meta.get("kind"), f"must be {KIND!r}")
    plane, slope = text(patches, "patches", "plane"), text(patches, "patches", "slope")
    if plane == slope:
        raise fail("patches.slope", slope, "must differ from patches.plane")
    profile = profile if profile is not None else load_profile()
    gradient = _number(fail, "patches.slope_gradient_x", patches.get("slope_gradient_x"))
    if gradient < 0:
        raise fail("patches.slope_gradient_x", gradient, "must be >= 0 (the slope rises into Q)")
    k = float(slope_factor(np.array([gradient, 0.0])))
    try:
        profile.check_value("slope_factor", k)
    except ValueError as exc:
        raise fail("patches.slope_gradient_x", gradient,
                   f"gives k = {k:g}; slope_factor {exc}") from None
    start_x_m = _number(fail, "body.start_x_m", body.get("start_x_m"))
    if start_x_m >= -EPS:
        raise fail("body.start_x_m", start_x_m, "must be < 0 (the foot starts on the plane, "
                                                "off the edge X = 0)")
    changes = _obstacle_changes(fail, data.get("obstacle_changes", []))
    overrides = {name: _number(fail, f"handoff.{name}", value) for name, value in handoff.items()}
    for name in ("max_access_attempts", "handoff_deadline_ticks"):
        if name in overrides and overrides[name] != int(overrides[name]):
            raise fail(f"handoff.{name}", handoff[name], "must be a whole number")
    try:
        params = HandoffParams.from_profile(profile, **overrides)
    except InvalidInput as exc:
        raise fail(f"handoff.{exc.field}", exc.value, exc.rule) from None
    return PQScenario(
        source=file, action_id=text(meta, "scenario", "action_id"), plane=plane, slope=slope,
        slope_gradient_x=gradient, edge_id=text(patches, "patches", "edge_id"),
        support_id=text(patches, "patches", "support_id"), start_x_m=start_x_m,
        obstacle_changes=changes, params=params,
    )


@functools.cache
def default_pq_scenario() -> PQScenario:
    """The demo's own file under the embedded profile (read once)."""
    return load_pq_scenario()


def _known(fail: Any, name: str, value: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(value) - set(TABLES[name]))
    if unknown:
        raise fail(f"{name}.{unknown[0]}", value[unknown[0]],
                   f"unknown key; allowed: {list(TABLES[name])}")
    return value


def _number(fail: Any, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(key, value, "must be a number")
    if not math.isfinite(float(value)):
        raise fail(key, value, "must be finite")
    return float(value)


def _obstacle_changes(fail: Any, value: object) -> tuple[tuple[float, bool], ...]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise fail("obstacle_changes", value, "must be an array of tables ([[obstacle_changes]])")
    changes: list[tuple[float, bool]] = []
    for i, change in enumerate(value):
        key = f"obstacle_changes[{i}]"
        _known(fail, "obstacle_changes", change)
        time_s = _number(fail, f"{key}.time_s", change.get("time_s"))
        if time_s < 0:
            raise fail(f"{key}.time_s", time_s, "must be >= 0")
        if changes and time_s <= changes[-1][0]:
            raise fail(f"{key}.time_s", time_s,
                       f"must be later than the previous change ({changes[-1][0]:g} s)")
        blocks = change.get("blocks_access")
        if not isinstance(blocks, bool):
            raise fail(f"{key}.blocks_access", blocks, "must be true or false")
        changes.append((time_s, blocks))
    return tuple(changes)
