"""Per-agent ORCA parameters: their defaults (from the profile), their working bounds and their
proven ranges (the profile's), and the checks of the crowd's inputs against them. Claim: O1-O8
(the hypotheses the ORCA proofs assume of each agent).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from navproof.core.deprecation import renamed_keywords, warn_renamed_attribute
from navproof.core.errors import InvalidInput
from navproof.core.ranges import check_in_profile_range
from navproof.core.validation import (
    MAX_DURATION_S,
    MAX_LENGTH_M,
    MAX_NEIGHBORS,
    MAX_SPEED_MPS,
    MIN_DURATION_S,
    MIN_NEIGHBOR_DIST_M,
    check_valid_integer,
    check_valid_range,
)

if TYPE_CHECKING:
    from navproof.specs.profile import Profile

PROFILE_PARAMETERS = {
    "neighbor_dist": "neighbor_dist_m",
    "max_neighbors": "max_neighbors",
    "time_horizon": "orca_time_horizon_s",
    "time_horizon_obst": "obstacle_time_horizon_s",
    "radius": "agent_radius_m",
    "max_speed": "max_speed_mps",
}
"""The profile parameter of each per-agent ORCA setting: its default and its proven range."""


@cache
def default_profile() -> Profile:
    """The embedded default profile (read once per process, on first use)."""
    from navproof.specs.profile import load_profile

    return load_profile()


def _profile_default(name: str) -> Callable[[], Any]:
    def default() -> Any:
        value = default_profile()[PROFILE_PARAMETERS[name]].default
        return int(value) if name == "max_neighbors" else float(value)

    return default


AGENT_DEFAULT_ALIASES = {
    "neighbor_dist": "neighbor_dist_m",
    "time_horizon": "time_horizon_s",
    "time_horizon_obst": "time_horizon_obst_s",
    "radius": "radius_m",
    "max_speed": "max_speed_mps",
    "velocity": "velocity_mps",
}
"""Old (unit-less) field names of :class:`AgentDefaults` -> their names; the old ones warn."""


@dataclass(frozen=True)
class AgentDefaults:
    """Parameters given to agents added without explicit values (RVO2's setAgentDefaults);
    a field not given takes the default profile's value (``PROFILE_PARAMETERS``). The one
    agent-parameter set of the crowd and the World (the World adds its own kinematics in
    :class:`navproof.world.agents.AgentDefaults`).

    The old field names (``radius``, ``max_speed``, ``neighbor_dist``, ``time_horizon``,
    ``time_horizon_obst``, ``velocity``) are accepted as keywords and read as attributes for
    one release, with a ``DeprecationWarning``."""

    neighbor_dist_m: float = field(default_factory=_profile_default("neighbor_dist"))
    max_neighbors: int = field(default_factory=_profile_default("max_neighbors"))
    time_horizon_s: float = field(default_factory=_profile_default("time_horizon"))
    time_horizon_obst_s: float = field(default_factory=_profile_default("time_horizon_obst"))
    radius_m: float = field(default_factory=_profile_default("radius"))
    max_speed_mps: float = field(default_factory=_profile_default("max_speed"))
    velocity_mps: tuple[float, float] = (0.0, 0.0)

    @classmethod
    def from_profile(cls, profile: Profile) -> AgentDefaults:
        """The defaults of ``profile``'s ORCA parameters."""
        values = {name: profile[parameter].default for name, parameter in
                  PROFILE_PARAMETERS.items()}
        return cls(**_renamed({name: int(v) if name == "max_neighbors" else float(v)
                               for name, v in values.items()}))

    def __getattr__(self, name: str) -> Any:
        new = AGENT_DEFAULT_ALIASES.get(name)
        if new is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        warn_renamed_attribute("AgentDefaults", name, new)
        return getattr(self, new)


def _renamed(values: dict[str, Any]) -> dict[str, Any]:
    """Settings keyed by the crowd's setting names -> keyed by AgentDefaults' field names."""
    return {AGENT_DEFAULT_ALIASES.get(k, k): v for k, v in values.items()}


_generated_init = AgentDefaults.__init__


def _init_with_aliases(self: AgentDefaults, *args: Any, **kwargs: Any) -> None:
    _generated_init(self, *args, **renamed_keywords("AgentDefaults", kwargs,
                                                    AGENT_DEFAULT_ALIASES))


_init_with_aliases.__doc__ = _generated_init.__doc__
AgentDefaults.__init__ = _init_with_aliases  # type: ignore[method-assign]


FLOAT_FIELDS = ("radius", "max_speed", "neighbor_dist", "time_horizon", "time_horizon_obst",
                 "responsibility_weight", "priority")

# Working bounds of the O7 settings: weights are compared as ratios, priorities by order.
MAX_RESPONSIBILITY_WEIGHT = 1e6
MAX_PRIORITY = 1e9

# (low, high, low excluded, unit) of each per-agent number; see navproof.core.validation
SCALAR_RULES: dict[str, tuple[float, float, bool, str]] = {
    "radius": (0.0, MAX_LENGTH_M, False, "m"),
    "max_speed": (0.0, MAX_SPEED_MPS, False, "m/s"),
    "neighbor_dist": (0.0, MAX_LENGTH_M, False, "m"),
    "time_horizon": (MIN_DURATION_S, MAX_DURATION_S, False, "s"),
    "time_horizon_obst": (MIN_DURATION_S, MAX_DURATION_S, False, "s"),
    "responsibility_weight": (0.0, MAX_RESPONSIBILITY_WEIGHT, True, ""),
    "priority": (-MAX_PRIORITY, MAX_PRIORITY, False, ""),
}
VECTOR_BOUNDS: dict[str, tuple[float, str]] = {
    "position": (MAX_LENGTH_M, "m"),
    "velocity": (MAX_SPEED_MPS, "m/s"),
    "pref_velocity": (MAX_SPEED_MPS, "m/s"),
}


def check_valid_agent_scalar(name: str, value: Any) -> np.ndarray:
    """A per-agent number (or array of them) within its rule, as float64 (ints for
    ``max_neighbors``); a neighbour distance is 0 (no neighbours) or at least
    ``MIN_NEIGHBOR_DIST_M``."""
    if name == "max_neighbors":
        return check_valid_integer(name, value, low=0, high=MAX_NEIGHBORS)
    low, high, low_open, unit = SCALAR_RULES[name]
    arr = check_valid_range(name, value, low=low, high=high, low_open=low_open, unit=unit)
    if name == "neighbor_dist":
        tiny = (arr > 0.0) & (arr < MIN_NEIGHBOR_DIST_M)
        if tiny.any():
            idx = tuple(int(i) for i in np.argwhere(tiny)[0])
            label = f"{name}[{', '.join(map(str, idx))}]" if idx else name
            raise InvalidInput(label, float(arr[idx]),
                               f"must be 0 (no neighbours) or >= {MIN_NEIGHBOR_DIST_M:g} m")
    return arr


def check_valid_agent_vectors(name: str, value: Any) -> np.ndarray:
    """Positions or velocities (..., 2) with every component within its working bound."""
    bound, unit = VECTOR_BOUNDS[name]
    return check_valid_range(name, value, low=-bound, high=bound, unit=unit)


def check_agents_in_profile(profile: Profile | None, name: str, values: np.ndarray) -> None:
    """InvalidInput when the per-agent ORCA parameter ``name`` leaves ``profile``'s range (no
    check without a profile, or for a setting the profile does not cover)."""
    if profile is not None and name in PROFILE_PARAMETERS:
        check_in_profile_range(profile, name, PROFILE_PARAMETERS[name], values)
