"""The values the slope handoff controller exchanges: its parameters, the handoff target, the
actual feedback, the environment snapshot, the mover's command and report, and the timeline
event (Claim: H1–H10). Frozen values; the controller is :mod:`navproof.handoff.controller`."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from navproof.core.errors import InvalidInput, ObligationViolation, assertions_enabled
from navproof.handoff.record import MotionTags


@dataclass(frozen=True)
class HandoffParams:
    """Controller parameters, read from a profile (units in the names)."""

    tick_s: float
    step_s: float
    max_access_attempts: int
    handoff_deadline_ticks: int
    access_speed_cap_mps: float
    access_accel_mps2: float
    stop_speed_threshold_mps: float
    arrival_velocity_threshold_mps: float
    surface_speed_cap_mps: float
    brake_budget_mps2: float
    reaction_s: float = 0.0

    @classmethod
    def from_profile(cls, profile: Any = None, **overrides: float) -> HandoffParams:
        """Defaults of ``profile`` (the embedded default when None), each override checked
        against the profile's range."""
        if profile is None:
            from navproof.specs.profile import load_profile

            profile = load_profile()
        defaults = profile.defaults()
        values: dict[str, Any] = {}
        for name in (
            "tick_s", "step_s", "max_access_attempts", "handoff_deadline_ticks",
            "access_speed_cap_mps", "access_accel_mps2", "stop_speed_threshold_mps",
            "arrival_velocity_threshold_mps", "surface_speed_cap_mps", "brake_budget_mps2",
        ):
            value = overrides.get(name, defaults[name])
            try:
                profile.check_value(name, float(value))
            except ValueError as exc:
                raise InvalidInput(name, value, str(exc)) from None
            values[name] = value
        values["max_access_attempts"] = int(values["max_access_attempts"])
        values["handoff_deadline_ticks"] = int(values["handoff_deadline_ticks"])
        reaction_s = float(overrides.get("reaction_s", 0.0))
        if not (math.isfinite(reaction_s) and reaction_s >= 0):
            raise InvalidInput("reaction_s", reaction_s, "must be finite and >= 0")
        typed: dict[str, Any] = {
            k: (v if isinstance(v, int) else float(v)) for k, v in values.items()
        }
        return cls(**typed, reaction_s=reaction_s)


@dataclass(frozen=True)
class Versions:
    """Versions the handoff is registered against (Claim: H2)."""

    p: int
    q: int
    edge: int
    support: int
    nav: int


@dataclass(frozen=True)
class HandoffTarget:
    """Original patch P, neighbour patch Q, their common edge ``dot(n, x) = b`` (n points from P
    into Q) and Q's planar gradient and support velocity."""

    action_id: str
    p_patch: str
    q_patch: str
    edge_id: str
    edge_normal_xy: tuple[float, float]
    edge_offset_m: float
    support_id: str
    q_support_id: str
    q_gradient_xy: tuple[float, float]
    q_support_velocity_xy_mps: tuple[float, float]
    versions: Versions
    p_gradient_xy: tuple[float, float] = (0.0, 0.0)

    @property
    def normal(self) -> np.ndarray:
        return np.asarray(self.edge_normal_xy, dtype=float)


@dataclass(frozen=True)
class Feedback:
    """Actual state of the body from the world: pose, world velocity, contact and support."""

    time_s: float
    position_xy_m: tuple[float, float]
    velocity_xy_mps: tuple[float, float]
    contact_patch: str | None
    support_id: str | None
    contact_stable: bool = True

    @property
    def valid(self) -> bool:
        values = (self.time_s, *self.position_xy_m, *self.velocity_xy_mps)
        return all(math.isfinite(float(v)) for v in values)

    @property
    def position(self) -> np.ndarray:
        return np.asarray(self.position_xy_m, dtype=float)

    @property
    def velocity(self) -> np.ndarray:
        return np.asarray(self.velocity_xy_mps, dtype=float)

    @property
    def speed_mps(self) -> float:
        return float(np.hypot(*self.velocity))

    def as_record(self) -> dict[str, Any]:
        return {
            "time_s": self.time_s,
            "x_m": float(self.position_xy_m[0]),
            "y_m": float(self.position_xy_m[1]),
            "vx_mps": float(self.velocity_xy_mps[0]),
            "vy_mps": float(self.velocity_xy_mps[1]),
            "contact": self.contact_patch,
            "support": self.support_id,
        }


@dataclass(frozen=True)
class Snapshot:
    """What the environment says at a logical tick: obstacle and map versions, validity of the
    target and the support, whether the foot's contact with Q passes the step rules, and a sweep
    test of a straight access segment."""

    obstacle_version: int
    versions: Versions
    target_valid: bool
    support_valid: bool
    q_contact_ok: bool
    sweep_clear: Callable[[np.ndarray, np.ndarray], bool]


@dataclass(frozen=True)
class MotionCommand:
    """One physics step for the mover: displacement [m] and end velocity [m/s], with its tags."""

    tags: MotionTags
    step_index: int
    t0_s: float
    t1_s: float
    displacement_xy_m: tuple[float, float]
    end_velocity_xy_mps: tuple[float, float]


@dataclass(frozen=True)
class StepReport:
    """What the mover reports after a step: the displacement it executed, under the tags of the
    command it executed, and the actual state afterwards."""

    tags: MotionTags
    step_index: int
    t0_s: float
    t1_s: float
    displacement_xy_m: tuple[float, float]
    feedback: Feedback


@dataclass(frozen=True)
class HandoffEvent:
    """One entry of the controller's timeline."""

    time_s: float
    tick: int
    phase: str
    kind: str
    message: str
    position_xy_m: tuple[float, float]
    speed_mps: float


def check_attempt_budget(*, attempt_no: int, max_attempts: int, tick: int, deadline_tick: int,
                         assert_mode: bool | None = None) -> None:
    """Raise ObligationViolation (H5) in assertion mode when an access attempt would be
    registered beyond the attempt budget [count] or at or after the deadline [ticks]."""
    if not assertions_enabled(assert_mode):
        return
    if attempt_no > max_attempts:
        raise ObligationViolation(
            "H5", "access attempt beyond the per-handoff budget", observed=attempt_no,
            limit=max_attempts, margin=float(max_attempts - attempt_no),
        )
    if tick >= deadline_tick:
        raise ObligationViolation(
            "H5", "access attempt at or after the handoff deadline", observed=tick,
            limit=deadline_tick - 1, margin=float(deadline_tick - 1 - tick),
        )


def vec_list(value: Any) -> list[float]:
    """A vector as a list of floats (for the record's JSON)."""
    return [float(v) for v in np.asarray(value, dtype=float)]


def xy_pair(value: Any) -> tuple[float, float]:
    """A 2-vector as an (x, y) pair of floats."""
    x, y = vec_list(value)
    return x, y
