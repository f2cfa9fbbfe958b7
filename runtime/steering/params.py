"""Steering parameters read from a profile (units in the names). Claim: T2, T3."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from navproof.core.errors import InvalidInput


@dataclass(frozen=True)
class SteeringParams:
    """maxAccel of clamped steering (m/s^2) and Arrive's stop range (m)."""

    max_accel_mps2: float
    stop_range_m: float

    @classmethod
    def from_profile(cls, profile: Any = None, **overrides: float) -> SteeringParams:
        """Defaults of ``profile`` (the embedded default when None); each override is checked
        against the profile's range (the range the T2/T3 proofs cover)."""
        if profile is None:
            from navproof.specs.profile import load_profile

            profile = load_profile()
        names = {"max_accel_mps2": "steering_max_accel_mps2",
                 "stop_range_m": "arrive_stop_range_m"}
        values = {}
        for field, parameter in names.items():
            value = float(overrides.get(field, profile.defaults()[parameter]))
            try:
                profile.check_value(parameter, value)
            except ValueError as exc:
                raise InvalidInput(field, value, str(exc)) from None
            values[field] = value
        return cls(**values)
