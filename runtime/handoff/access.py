"""Zero-speed access curves onto a handoff edge and the brakes that interrupt them.

Every number here comes from the generated formulas (``navproof._generated.formulas``): the
curve's pieces (A1/A2), each physics step's exact displacement across piece boundaries (A3), the
stop point of an interrupted curve (A4/A5) and the braking distance. A straight brake from speed
``v0`` at ``a`` is evaluated as the decelerating half of the symmetric short access curve whose
peak is ``v0`` (length twice the braking distance), so it too integrates exactly per step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof._generated import formulas
from navproof.core.errors import InvalidInput, ObligationViolation, assertions_enabled
from navproof.core.tolerances import EPS, SPEED_MATCH_TOL_MPS
from navproof.core.validation import check_valid_scalar


def _scalar(value: object) -> float:
    return float(np.asarray(value, dtype=float))


@dataclass(frozen=True)
class AccessCurve:
    """A zero-speed-to-zero-speed access curve of length ``length_m`` [m] (Claim: A1, A2).

    Accelerates at ``accel_mps2``, cruises at ``vcap_mps`` when the length allows, and brakes at
    ``accel_mps2`` to rest exactly at ``length_m``. Times are curve-local, from 0 at dispatch.
    """

    length_m: float
    vcap_mps: float
    accel_mps2: float
    accel_time_s: float
    cruise_time_s: float
    total_time_s: float
    peak_speed_mps: float

    @classmethod
    def plan(cls, length_m: float, *, vcap_mps: float, accel_mps2: float) -> AccessCurve:
        """The curve of the given length, cap and acceleration (Claim: A1, A2)."""
        length_m = check_valid_scalar("length_m", length_m, minimum=0.0)
        vcap_mps = check_valid_scalar("vcap_mps", vcap_mps, strictly_positive=True)
        accel_mps2 = check_valid_scalar("accel_mps2", accel_mps2, strictly_positive=True)
        args = {"d": length_m, "vcap": vcap_mps, "accel": accel_mps2}
        return cls(
            length_m=length_m,
            vcap_mps=vcap_mps,
            accel_mps2=accel_mps2,
            accel_time_s=_scalar(formulas.access_accel_time(**args)),
            cruise_time_s=_scalar(formulas.access_cruise_time(**args)),
            total_time_s=_scalar(formulas.access_total_time(**args)),
            peak_speed_mps=_scalar(formulas.access_peak_speed(**args)),
        )

    @property
    def _args(self) -> dict[str, float]:
        return {"d": self.length_m, "vcap": self.vcap_mps, "accel": self.accel_mps2}

    @property
    def brake_start_s(self) -> float:
        """Curve time at which the scheduled deceleration begins [s] (Claim: H4)."""
        return self.total_time_s - self.accel_time_s

    def _time(self, t_s: float) -> float:
        t_s = check_valid_scalar("t_s", t_s, minimum=-EPS)
        return min(max(t_s, 0.0), self.total_time_s)

    def position_m(self, t_s: float) -> float:
        """Distance travelled along the curve at curve time ``t_s`` [m], in [0, length] (A2)."""
        return _scalar(formulas.access_position(t=self._time(t_s), **self._args))

    def speed_mps(self, t_s: float) -> float:
        """Speed along the curve at curve time ``t_s`` [m/s]; 0 at both ends (A1, A2)."""
        return _scalar(formulas.access_speed(t=self._time(t_s), **self._args))

    def step_displacement_m(self, t0_s: float, t1_s: float) -> float:
        """Displacement over the physics step [t0, t1] [m], each piece integrated exactly
        (Claim: A3)."""
        t0, t1 = self._time(t0_s), self._time(t1_s)
        if t1 < t0:
            raise InvalidInput("t1_s", t1_s, f"must be >= t0_s = {t0_s}")
        return _scalar(formulas.access_step_displacement(t0=t0, t1=t1, **self._args))

    def stop_point_m(self, t_s: float, *, reaction_s: float = 0.0) -> float:
        """Stop point along the curve when interrupted at ``t_s`` [m]: immediate brake with
        ``reaction_s = 0`` (Claim: A4), or holding the speed one reaction step first (Claim: A5)."""
        reaction_s = check_valid_scalar("reaction_s", reaction_s, minimum=0.0)
        return _scalar(
            formulas.interrupted_stop_point(t=self._time(t_s), dt=reaction_s, **self._args)
        )

    def in_scheduled_deceleration(self, t_s: float) -> bool:
        """True once the curve's own braking piece has begun (Claim: H4)."""
        return self._time(t_s) >= self.brake_start_s - EPS

    def finished(self, t_s: float) -> bool:
        return t_s >= self.total_time_s - EPS

    def pieces_s(self) -> dict[str, float]:
        """The piece durations for the action record [s]."""
        return {
            "accel_s": self.accel_time_s,
            "cruise_s": self.cruise_time_s,
            "brake_s": self.accel_time_s,
            "total_s": self.total_time_s,
        }


def braking_distance_m(*, speed_mps: float, accel_mps2: float, reaction_s: float = 0.0) -> float:
    """Distance to rest from ``speed_mps`` holding it ``reaction_s`` then braking at
    ``accel_mps2`` [m] (Claim: S1, A5)."""
    speed_mps = check_valid_scalar("speed_mps", speed_mps, minimum=0.0)
    accel_mps2 = check_valid_scalar("accel_mps2", accel_mps2, strictly_positive=True)
    reaction_s = check_valid_scalar("reaction_s", reaction_s, minimum=0.0)
    return _scalar(formulas.stop_distance(speed=speed_mps, dt=reaction_s, a=accel_mps2))


@dataclass(frozen=True)
class BrakeCurve:
    """A straight brake from ``speed0_mps`` to rest at ``accel_mps2`` [m, s] (Claim: A4, H6).

    Evaluated as the decelerating half of the symmetric short access curve with peak
    ``speed0_mps``: that curve's length is twice the braking distance and its deceleration
    starts at its accel time, so positions and step displacements come from the same generated
    closed forms as the access curve and are exact across the step in which the brake ends.
    """

    speed0_mps: float
    accel_mps2: float
    distance_m: float
    duration_s: float
    _mirror_length_m: float
    _offset_s: float

    @classmethod
    def plan(cls, speed0_mps: float, *, accel_mps2: float) -> BrakeCurve:
        speed0_mps = check_valid_scalar("speed0_mps", speed0_mps, minimum=0.0)
        accel_mps2 = check_valid_scalar("accel_mps2", accel_mps2, strictly_positive=True)
        if speed0_mps <= EPS:
            return cls(0.0, accel_mps2, 0.0, 0.0, 0.0, 0.0)
        distance_m = braking_distance_m(speed_mps=speed0_mps, accel_mps2=accel_mps2)
        mirror = AccessCurve.plan(2.0 * distance_m, vcap_mps=speed0_mps, accel_mps2=accel_mps2)
        return cls(
            speed0_mps=speed0_mps,
            accel_mps2=accel_mps2,
            distance_m=distance_m,
            duration_s=mirror.accel_time_s,
            _mirror_length_m=mirror.length_m,
            _offset_s=mirror.accel_time_s,
        )

    def _mirror(self) -> AccessCurve:
        return AccessCurve.plan(
            self._mirror_length_m, vcap_mps=max(self.speed0_mps, EPS), accel_mps2=self.accel_mps2
        )

    def _time(self, tau_s: float) -> float:
        tau_s = check_valid_scalar("tau_s", tau_s, minimum=-EPS)
        return min(max(tau_s, 0.0), self.duration_s)

    def speed_mps(self, tau_s: float) -> float:
        """Speed at brake time ``tau_s`` [m/s]."""
        if self.speed0_mps <= EPS:
            return 0.0
        return self._mirror().speed_mps(self._offset_s + self._time(tau_s))

    def step_displacement_m(self, tau0_s: float, tau1_s: float) -> float:
        """Displacement over the brake-time step [tau0, tau1] [m], exact (Claim: A3, A4)."""
        if self.speed0_mps <= EPS:
            return 0.0
        return self._mirror().step_displacement_m(
            self._offset_s + self._time(tau0_s), self._offset_s + self._time(tau1_s)
        )

    def position_m(self, tau_s: float) -> float:
        """Distance braked by brake time ``tau_s`` [m], in [0, distance_m]."""
        return self.step_displacement_m(0.0, tau_s)

    def finished(self, tau_s: float) -> bool:
        return tau_s >= self.duration_s - EPS


@dataclass(frozen=True)
class StopGuarantee:
    """Whether a brake from the current state stops within the remaining distance.

    ``margin_m`` = remaining distance - braking distance; negative means "no stop guarantee":
    the brake cannot be recorded as a safe stop (Claim: A5).
    """

    guaranteed: bool
    margin_m: float
    braking_distance_m: float


def stop_guarantee(
    *, remaining_m: float, speed_mps: float, accel_mps2: float, reaction_s: float = 0.0
) -> StopGuarantee:
    """Remaining distance to the edge against the reaction-and-brake distance [m] (Claim: A5)."""
    remaining_m = check_valid_scalar("remaining_m", remaining_m)
    distance_m = braking_distance_m(
        speed_mps=speed_mps, accel_mps2=accel_mps2, reaction_s=reaction_s
    )
    margin_m = remaining_m - distance_m
    return StopGuarantee(margin_m >= -EPS, margin_m, distance_m)


def check_stop_within(
    *, stop_point_m: float, length_m: float, assert_mode: bool | None = None
) -> None:
    """Raise ObligationViolation (A4) in assertion mode when a planned stop point passes the end
    of the access curve."""
    if not assertions_enabled(assert_mode):
        return
    margin_m = length_m - stop_point_m
    if margin_m < -EPS:
        raise ObligationViolation(
            "A4",
            "immediate brake of an access curve stops beyond the common edge",
            observed=stop_point_m,
            limit=length_m,
            margin=margin_m,
        )


class CurveMotion:
    """An access curve placed in the world: origin, unit tangent and dispatch time (Claim: A3).

    ``step`` returns the world displacement [m] and the end velocity [m/s] of a physics step.
    """

    kind = "curve"

    def __init__(self, curve: AccessCurve, *, origin_xy_m: object, tangent_xy: object,
                 start_time_s: float) -> None:
        self.curve = curve
        self.origin_xy_m = np.asarray(origin_xy_m, dtype=float)
        self.tangent_xy = np.asarray(tangent_xy, dtype=float)
        self.start_time_s = float(start_time_s)

    def local_time_s(self, t_s: float) -> float:
        return t_s - self.start_time_s

    def step(self, t0_s: float, t1_s: float) -> tuple[np.ndarray, np.ndarray]:
        disp_m = self.curve.step_displacement_m(self.local_time_s(t0_s), self.local_time_s(t1_s))
        speed_mps = self.curve.speed_mps(self.local_time_s(t1_s))
        return disp_m * self.tangent_xy, speed_mps * self.tangent_xy

    def finished(self, t_s: float) -> bool:
        return self.curve.finished(self.local_time_s(t_s))


class BrakeMotion:
    """A straight brake along a fixed unit direction from a start time (Claim: A4, H6, H7)."""

    kind = "brake"

    def __init__(self, brake: BrakeCurve, *, direction_xy: object, start_time_s: float) -> None:
        self.brake = brake
        self.direction_xy = np.asarray(direction_xy, dtype=float)
        self.start_time_s = float(start_time_s)

    def step(self, t0_s: float, t1_s: float) -> tuple[np.ndarray, np.ndarray]:
        tau0, tau1 = t0_s - self.start_time_s, t1_s - self.start_time_s
        disp_m = self.brake.step_displacement_m(tau0, tau1)
        return disp_m * self.direction_xy, self.brake.speed_mps(tau1) * self.direction_xy

    def finished(self, t_s: float) -> bool:
        return self.brake.finished(t_s - self.start_time_s)


def brake_from_velocity(
    velocity_xy_mps: object, *, accel_mps2: float, start_time_s: float
) -> BrakeMotion:
    """A brake from the actual velocity along its own direction (Claim: A4, H7, H8).

    When the body moved along the access tangent, this is the brake "along the original tangent";
    after an external push it brakes the velocity the body actually has.
    """
    velocity = np.asarray(velocity_xy_mps, dtype=float)
    if velocity.shape != (2,) or not np.all(np.isfinite(velocity)):
        raise InvalidInput("velocity_xy_mps", velocity_xy_mps, "must be a finite 2-vector")
    speed_mps = float(np.hypot(*velocity))
    direction = velocity / speed_mps if speed_mps > EPS else np.zeros(2)
    return BrakeMotion(
        BrakeCurve.plan(speed_mps, accel_mps2=accel_mps2),
        direction_xy=direction,
        start_time_s=start_time_s,
    )


@dataclass(frozen=True)
class InterruptPlan:
    """What an interruption at curve time ``t_s`` does to the mover (Claim: A4, A5, H4).

    ``keeps_scheduled_deceleration``: the curve was already in its own braking piece, which is
    kept as the brake (no reaction hold, never cancelled). ``stop_point_m`` is along the curve.
    """

    keeps_scheduled_deceleration: bool
    stop_point_m: float
    guarantee: StopGuarantee


def plan_interrupt(
    curve: AccessCurve, t_s: float, *, speed_mps: float, travelled_m: float,
    reaction_s: float = 0.0,
) -> InterruptPlan:
    """Stop point and stop guarantee of an interruption at curve time ``t_s`` given the actual
    speed [m/s] and the actual distance travelled [m] (Claim: A4, A5, H4).

    Inside the scheduled deceleration the curve keeps braking to its own end, so the stop point is
    the curve's length. Elsewhere the brake starts from the actual speed; the remaining distance
    against the braking distance (with ``reaction_s`` of latency) gives the guarantee.
    """
    remaining_m = curve.length_m - travelled_m
    following = abs(speed_mps - curve.speed_mps(t_s)) <= SPEED_MATCH_TOL_MPS
    if curve.in_scheduled_deceleration(t_s) and following:
        guarantee = stop_guarantee(
            remaining_m=remaining_m, speed_mps=speed_mps, accel_mps2=curve.accel_mps2
        )
        return InterruptPlan(True, curve.length_m, guarantee)
    guarantee = stop_guarantee(
        remaining_m=remaining_m,
        speed_mps=speed_mps,
        accel_mps2=curve.accel_mps2,
        reaction_s=reaction_s,
    )
    return InterruptPlan(False, travelled_m + guarantee.braking_distance_m, guarantee)
