"""Rigid motions of edges and supports over one step (seed 000).

``M(t) y = pivot + velocity t + acceleration t^2 / 2 + R(omega t) (y - pivot)``: a rotation
about a pivot that moves with constant linear acceleration over the step, with ``M(0)`` the
identity, so the world frame at the start of the step is every body's local frame. ``omega = 0``
is a translation with ``e = velocity + acceleration t``; all zero is a fixed edge or static
ground. Claim: B3, B6, P1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.validation import check_valid_finite

MOTION_FIXED = 0
MOTION_TRANSLATING = 1
MOTION_RIGID = 2
MOTION_NAMES = ("fixed", "translating", "rigid")


@inlined_loop
def _pivot_speed_range(wx, wy, ax, ay, dt):
    """max(|w|, |w + alpha dt|) of one pivot (numpy's operations: |v| = sqrt(x^2 + y^2), a NaN
    kept). Claim: B3, B6."""
    ex = wx + ax * dt
    ey = wy + ay * dt
    start = math.sqrt(wx * wx + wy * wy)
    end = math.sqrt(ex * ex + ey * ey)
    return start if start >= end or start != start else end


@compiled_loop
def _pivot_speed_ranges(velocity, acceleration, dt, out):
    """:func:`_pivot_speed_range` per row of (M, 2) pivot velocities and accelerations, step
    lengths (M,)."""
    for i in range(out.shape[0]):
        out[i] = _pivot_speed_range(velocity[i, 0], velocity[i, 1], acceleration[i, 0],
                                    acceleration[i, 1], dt[i])


@compiled_loop
def _point_speed_ranges(pivot, velocity, acceleration, omega, x, dt, out):
    """:meth:`Motion.point_speed_range_mps` per row ((M, 2) pivots, velocities, accelerations
    and points, (M,) rates and step lengths), in numpy's order of operations. Claim: B3, B6."""
    for i in range(out.shape[0]):
        wx, wy = velocity[i, 0], velocity[i, 1]
        ax, ay = acceleration[i, 0], acceleration[i, 1]
        om = abs(omega[i])
        if om == 0.0:
            out[i] = _pivot_speed_range(wx, wy, ax, ay, dt[i])
            continue
        rx = x[i, 0] - pivot[i, 0]
        ry = x[i, 1] - pivot[i, 1]
        ux = wx + omega[i] * (-ry)
        uy = wy + omega[i] * rx
        start = math.sqrt(ux * ux + uy * uy)
        if wx == 0.0 and wy == 0.0 and ax == 0.0 and ay == 0.0:
            out[i] = start
        else:
            arm = math.sqrt(rx * rx + ry * ry)
            out[i] = start + (math.sqrt(ax * ax + ay * ay) + om * om * arm) * dt[i]


def _vectors(shape: tuple[int, ...], *arrays: np.ndarray) -> list[np.ndarray]:
    """Each ``(..., 2)`` array broadcast to ``shape + (2,)`` as contiguous (M, 2) rows."""
    return [np.ascontiguousarray(np.broadcast_to(np.asarray(a, dtype=np.float64),
                                                 (*shape, 2))).reshape(-1, 2) for a in arrays]


def _scalars(shape: tuple[int, ...], *arrays: np.ndarray | float) -> list[np.ndarray]:
    """Each array broadcast to ``shape`` as a contiguous (M,) row."""
    return [np.ascontiguousarray(np.broadcast_to(np.asarray(a, dtype=np.float64),
                                                 shape)).reshape(-1) for a in arrays]


@dataclass(frozen=True)
class Motion:
    """Rigid motions over one step: ``pivot_m``, ``velocity_mps`` (the pivot's velocity at the
    start of the step), ``acceleration_mps2`` (the pivot's constant linear acceleration over the
    step; None is zero) (shape ``(..., 2)``) and ``omega_radps`` (shape ``(...)``); ``version``
    is the trajectory version recorded by P1.

    Claim: B3 (fixed / translating edges), B6 (rigid motion M(t), rotating or accelerating),
    P1 (versions).
    """

    pivot_m: np.ndarray
    velocity_mps: np.ndarray
    omega_radps: np.ndarray
    version: np.ndarray
    # None (zero acceleration) is accepted and replaced by an array in __post_init__: readers
    # always see an array
    acceleration_mps2: np.ndarray = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        vel = np.asarray(self.velocity_mps, dtype=np.float64)
        if self.acceleration_mps2 is None:
            accel = np.zeros_like(vel)
        else:
            accel = check_valid_finite("acceleration_mps2", self.acceleration_mps2)
            if accel.shape != vel.shape:
                try:
                    accel = np.broadcast_to(accel, vel.shape).copy()
                except ValueError:
                    raise InvalidInput("acceleration_mps2", accel.shape,
                                       f"must broadcast to the velocity shape {vel.shape}"
                                       ) from None
        # a value: filled once at construction, never changed afterwards
        object.__setattr__(self, "acceleration_mps2", accel)

    @staticmethod
    def translating(velocity_mps: np.ndarray, *, acceleration_mps2: np.ndarray | None = None,
                    version: np.ndarray | int = 0) -> Motion:
        """Pure translations with the given start velocities (m/s) and constant accelerations
        (m/s^2, default zero); zero velocity and acceleration is a fixed motion."""
        vel = check_valid_finite("velocity_mps", velocity_mps)
        shape = vel.shape[:-1]
        return Motion(np.zeros_like(vel), vel, np.zeros(shape),
                      np.broadcast_to(np.asarray(version, dtype=np.int64), shape).copy(),
                      np.zeros_like(vel) if acceleration_mps2 is None else acceleration_mps2)

    @staticmethod
    def rotating(pivot_m: np.ndarray, omega_radps: np.ndarray, *,
                 velocity_mps: np.ndarray | None = None,
                 acceleration_mps2: np.ndarray | None = None,
                 version: np.ndarray | int = 0) -> Motion:
        """Rotations at ``omega_radps`` (rad/s) about pivots moving at ``velocity_mps`` (m/s) at
        the start and accelerating at ``acceleration_mps2`` (m/s^2, default zero)."""
        pivot = check_valid_finite("pivot_m", pivot_m)
        omega = check_valid_finite("omega_radps", np.broadcast_to(omega_radps, pivot.shape[:-1]))
        vel = np.zeros_like(pivot) if velocity_mps is None else check_valid_finite(
            "velocity_mps", np.broadcast_to(velocity_mps, pivot.shape))
        return Motion(pivot, np.array(vel, dtype=np.float64), np.array(omega, dtype=np.float64),
                      np.broadcast_to(np.asarray(version, dtype=np.int64), omega.shape).copy(),
                      np.zeros_like(pivot) if acceleration_mps2 is None else acceleration_mps2)

    @property
    def accelerating(self) -> np.ndarray:
        """True per entry where the pivot accelerates (shape ``(...)``)."""
        return np.any(self.acceleration_mps2 != 0.0, axis=-1)

    @property
    def kind(self) -> np.ndarray:
        """MOTION_FIXED / MOTION_TRANSLATING / MOTION_RIGID per entry."""
        moving = np.any(self.velocity_mps != 0.0, axis=-1) | self.accelerating
        return np.where(self.omega_radps != 0.0, MOTION_RIGID,
                        np.where(moving, MOTION_TRANSLATING, MOTION_FIXED))

    def point_velocity(self, x_m: np.ndarray) -> np.ndarray:
        """World velocity (m/s) at time 0 of the material point at ``x_m``: w + omega J (x - c)."""
        rel = x_m - self.pivot_m
        om = self.omega_radps[..., None]
        return self.velocity_mps + om * np.stack([-rel[..., 1], rel[..., 0]], axis=-1)

    def pivot_speed_range_mps(self, dt_s: float | np.ndarray) -> np.ndarray:
        """Largest pivot speed |w + alpha t| (m/s, shape ``(...)``) over t in [0, dt] (``dt_s``
        broadcast to the leading shape): the speed is convex in t, so its largest value is at
        one end of the step."""
        vel, accel = self.velocity_mps, self.acceleration_mps2
        shape = np.broadcast_shapes(np.shape(vel)[:-1], np.shape(accel)[:-1], np.shape(dt_s))
        if not (np.any(vel) or np.any(accel)) and np.all(np.isfinite(dt_s)):
            # a pivot that never moves (fixed walls, the static ground): every range is exactly
            # the 0 the pass would give, without the pass
            return np.zeros(shape)
        out = np.empty(shape)
        _pivot_speed_ranges(*_vectors(shape, vel, accel), *_scalars(shape, dt_s),
                            out.reshape(-1))
        return out

    def point_speed_range_mps(self, x_m: np.ndarray, dt_s: float | np.ndarray) -> np.ndarray:
        """Upper bound (m/s, shape ``(...)``) of the speed over t in [0, dt] of the material
        point at ``x_m`` at time 0: u(t) = w + alpha t + omega J R(omega t)(x - c).

        Exact where the motion does not rotate (the pivot's largest speed) and where it only
        turns about a fixed pivot (constant |omega||x - c|); otherwise |u(0)| plus the largest
        change, (|alpha| + omega^2 |x - c|) dt."""
        vectors = (self.pivot_m, self.velocity_mps, self.acceleration_mps2)
        shape = np.broadcast_shapes(*(np.shape(a)[:-1] for a in (*vectors, x_m)),
                                    np.shape(self.omega_radps), np.shape(dt_s))
        out = np.empty(shape)
        pivot, vel, accel, x = _vectors(shape, *vectors, x_m)
        omega, dt = _scalars(shape, self.omega_radps, dt_s)
        _point_speed_ranges(pivot, vel, accel, omega, x, dt, out.reshape(-1))
        return out


@dataclass(frozen=True)
class Support:
    """The surface each agent stands on: its rigid motion over the step (one per agent, (N,)).

    Claim: B3 (support carry u), B6 (rotating platforms), P1 (support version).
    """

    motion: Motion

    @staticmethod
    def translating(velocity_mps: np.ndarray, *, acceleration_mps2: np.ndarray | None = None,
                    version: np.ndarray | int = 0) -> Support:
        """Supports translating at ``velocity_mps`` (N, 2) m/s at the start of the step and
        accelerating at ``acceleration_mps2`` (N, 2) m/s^2 (default zero); zero is static
        ground."""
        return Support(Motion.translating(velocity_mps, acceleration_mps2=acceleration_mps2,
                                          version=version))

    def carry_mps(self, x_m: np.ndarray) -> np.ndarray:
        """Support velocity u (m/s, (N, 2)) at the body's start position at the start of the
        step (it changes over the step where the support turns or accelerates). Claim: B1, B3."""
        return self.motion.point_velocity(x_m)

    def carry_speed_range_mps(self, x_m: np.ndarray, dt_s: float | np.ndarray) -> np.ndarray:
        """Upper bound (m/s, (N,)) of the support speed |u(t)| over the step at the material
        point under each body's start position (exact without rotation). Claim: B3, S4."""
        return self.motion.point_speed_range_mps(x_m, dt_s)


def take_motion(m: Motion, rows: np.ndarray | slice) -> Motion:
    """The motions of the rows ``rows`` only."""
    return Motion(m.pivot_m[rows], m.velocity_mps[rows], m.omega_radps[rows], m.version[rows],
                  m.acceleration_mps2[rows])


def take_support(support: Support, rows: np.ndarray | slice) -> Support:
    """The supports of the agents ``rows`` only."""
    return Support(take_motion(support.motion, rows))
