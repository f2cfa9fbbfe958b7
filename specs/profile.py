"""Parameter profiles: TOML files giving each parameter a unit, a default and a range.

The same ranges become the z3 hypotheses (exact rationals) and the runtime's input checks.
Every number is read exactly: ``0.1`` in a profile is the rational 1/10 in a proof.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from navproof.specs.errors import SpecError

DEFAULT_PROFILE_PATH = Path(__file__).parent / "profiles" / "default.toml"


@dataclass(frozen=True)
class ParameterRule:
    """What a parameter must be: its unit, whether it is an integer, and its admissible domain."""

    unit: str
    domain: str
    admits: Callable[[Fraction], bool]
    integer: bool = False


def _positive(x: Fraction) -> bool:
    return x > 0


def _non_negative(x: Fraction) -> bool:
    return x >= 0


# Admissible domains. A profile range must lie inside them; a range touching a forbidden value
# (a zero braking budget, a slope factor below 1) is a bad profile, not a proof obligation.
PARAMETER_RULES: dict[str, ParameterRule] = {
    "step_s": ParameterRule("s", "> 0", _positive),
    "brake_budget_mps2": ParameterRule("m/s^2", "> 0", _positive),
    "surface_speed_cap_mps": ParameterRule("m/s", "> 0", _positive),
    "slope_factor": ParameterRule("1", ">= 1", lambda x: x >= 1),
    "support_speed_mps": ParameterRule("m/s", ">= 0", _non_negative),
    "edge_speed_mps": ParameterRule("m/s", ">= 0", _non_negative),
    "initial_margin_m": ParameterRule("m", ">= 0", _non_negative),
    "access_speed_cap_mps": ParameterRule("m/s", "> 0", _positive),
    "access_accel_mps2": ParameterRule("m/s^2", "> 0", _positive),
    "access_length_m": ParameterRule("m", ">= 0", _non_negative),
    "orca_time_horizon_s": ParameterRule("s", "> 0", _positive),
    "obstacle_time_horizon_s": ParameterRule("s", "> 0", _positive),
    "agent_radius_m": ParameterRule("m", "> 0", _positive),
    "max_speed_mps": ParameterRule("m/s", "> 0", _positive),
    "neighbor_dist_m": ParameterRule("m", "> 0", _positive),
    "max_neighbors": ParameterRule("count", ">= 0", _non_negative, integer=True),
    "tick_s": ParameterRule("s", "> 0", _positive),
    "max_access_attempts": ParameterRule("count", "in [1, 3] (H5)", lambda x: 1 <= x <= 3, True),
    "handoff_deadline_ticks": ParameterRule(
        "ticks", "in [1, 30] (H5)", lambda x: 1 <= x <= 30, True
    ),
    "stop_speed_threshold_mps": ParameterRule("m/s", ">= 0", _non_negative),
    "arrival_velocity_threshold_mps": ParameterRule("m/s", ">= 0", _non_negative),
    # steering and Arrive (T2, T3)
    "steering_max_accel_mps2": ParameterRule("m/s^2", "> 0", _positive),
    "arrive_stop_range_m": ParameterRule("m", "> 0", _positive),
}


@dataclass(frozen=True)
class Parameter:
    """One profile parameter: exact range bounds and default, unit, and why it has that value."""

    name: str
    unit: str
    default: Fraction
    min: Fraction
    max: Fraction
    rationale: str
    integer: bool = False

    @property
    def default_float(self) -> float:
        return float(self.default)

    def contains(self, value: float) -> bool:
        """True when ``value`` lies in the closed range [min, max]."""
        return math.isfinite(value) and float(self.min) <= value <= float(self.max)


@dataclass(frozen=True)
class ProofBudgets:
    """Deterministic solver budgets of ``navproof prove`` (table ``[proof_budgets]``).

    Resource limits, not seconds: the same proof gets the same answer on a loaded machine.
    ``z3_rlimit`` bounds each z3 query (z3's ``rlimit``); ``cvc5_resource_limit`` bounds each
    query of the cross-check (cvc5's ``resource-limit-per``).
    """

    z3_rlimit: int = 20_000_000
    cvc5_resource_limit: int = 2_000_000


@dataclass(frozen=True)
class Profile:
    """A named, validated set of parameters."""

    name: str
    description: str
    source: str
    parameters: dict[str, Parameter]
    budgets: ProofBudgets = ProofBudgets()

    def __getitem__(self, name: str) -> Parameter:
        return self.parameters[name]

    def defaults(self) -> dict[str, float]:
        """Default values as floats, by parameter name (what the runtime starts from)."""
        return {name: p.default_float for name, p in self.parameters.items()}

    def check_value(self, name: str, value: float) -> None:
        """Raise ValueError naming the parameter, value and range when ``value`` is outside it."""
        param = self.parameters[name]
        if not param.contains(value):
            raise ValueError(
                f"{name} = {value!r} is outside the profile range "
                f"[{float(param.min)}, {float(param.max)}] {param.unit} of profile '{self.name}'"
            )


def _exact(file: str, key: str, value: object) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise SpecError(file, key, value, "must be a number")
    if isinstance(value, Decimal) and not value.is_finite():
        raise SpecError(file, key, value, "must be finite")
    return Fraction(value)


def _parameter(file: str, name: str, raw: object) -> Parameter:
    key = f"parameters.{name}"
    rule = PARAMETER_RULES.get(name)
    if rule is None:
        raise SpecError(file, key, None, f"unknown parameter; known: {sorted(PARAMETER_RULES)}")
    if not isinstance(raw, dict):
        raise SpecError(file, key, raw, "must be a table with unit, default, min, max, rationale")
    allowed = {"unit", "default", "min", "max", "rationale", "integer"}
    unknown = set(raw) - allowed
    if unknown:
        raise SpecError(file, key, sorted(unknown), f"unknown keys; allowed: {sorted(allowed)}")
    for field in ("unit", "default", "min", "max", "rationale"):
        if field not in raw:
            raise SpecError(file, f"{key}.{field}", None, "is required")
    if raw["unit"] != rule.unit:
        raise SpecError(file, f"{key}.unit", raw["unit"], f"must be '{rule.unit}'")
    if not isinstance(raw["rationale"], str) or not raw["rationale"].strip():
        raise SpecError(file, f"{key}.rationale", raw["rationale"], "must be a non-empty string")
    values = {f: _exact(file, f"{key}.{f}", raw[f]) for f in ("default", "min", "max")}
    for field, value in values.items():
        if rule.integer and value.denominator != 1:
            raise SpecError(file, f"{key}.{field}", raw[field], "must be a whole number")
        if not rule.admits(value):
            raise SpecError(file, f"{key}.{field}", raw[field], f"must be {rule.domain}")
    if values["min"] > values["max"]:
        raise SpecError(file, f"{key}.min", raw["min"], f"must be <= max ({raw['max']})")
    if not values["min"] <= values["default"] <= values["max"]:
        raise SpecError(
            file, f"{key}.default", raw["default"], f"must lie in [{raw['min']}, {raw['max']}]"
        )
    return Parameter(
        name=name,
        unit=rule.unit,
        default=values["default"],
        min=values["min"],
        max=values["max"],
        rationale=raw["rationale"].strip(),
        integer=rule.integer,
    )


def load_profile(path: str | Path | None = None) -> Profile:
    """Load and validate a profile; ``None`` loads the embedded default.

    Raises SpecError naming the file, key, value and rule on any defect; nothing is changed.
    """
    path = Path(path) if path is not None else DEFAULT_PROFILE_PATH
    file = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(file, "<file>", None, f"cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        # a binary file, or text saved as latin-1: TOML is UTF-8 by definition
        raise SpecError(file, "<file>", None,
                        f"is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset "
                        f"{exc.start}); save the profile as UTF-8") from exc
    try:
        data = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(file, "<file>", None, f"is not valid TOML: {exc}") from exc
    unknown = set(data) - {"profile", "parameters", "proof_budgets"}
    if unknown:
        raise SpecError(
            file,
            "<top>",
            sorted(unknown),
            "unknown tables; allowed: profile, parameters, proof_budgets",
        )
    meta = data.get("profile", {})
    if not isinstance(meta, dict):
        raise SpecError(file, "profile", meta, "must be a table ([profile] with a name)")
    name = meta.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SpecError(file, "profile.name", name, "must be a non-empty string")
    raw_params = data.get("parameters")
    if not isinstance(raw_params, dict):
        raise SpecError(file, "parameters", raw_params, "must be a table of parameters")
    parameters = {n: _parameter(file, n, raw) for n, raw in raw_params.items()}
    missing = sorted(set(PARAMETER_RULES) - set(parameters))
    if missing:
        raise SpecError(file, "parameters", missing, "required parameters are missing")
    return Profile(
        name=name.strip(),
        description=str(meta.get("description", "")),
        source=file,
        parameters={n: parameters[n] for n in PARAMETER_RULES},
        budgets=_budgets(file, data.get("proof_budgets", {})),
    )


def _budgets(file: str, raw: object) -> ProofBudgets:
    """The ``[proof_budgets]`` table: each key a positive integer; missing keys keep defaults."""
    if not isinstance(raw, dict):
        raise SpecError(file, "proof_budgets", raw, "must be a table")
    allowed = {"z3_rlimit", "cvc5_resource_limit"}
    unknown = set(raw) - allowed
    if unknown:
        raise SpecError(
            file, "proof_budgets", sorted(unknown), f"unknown keys; allowed: {sorted(allowed)}"
        )
    values: dict[str, int] = {}
    for key, value in raw.items():
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise SpecError(file, f"proof_budgets.{key}", value, "must be an integer > 0")
        values[key] = value
    return ProofBudgets(**values)
