"""Rigid motions of edges and supports over one step (seed 000).

``M(t) y = pivot + velocity t + R(omega t) (y - pivot)``, with ``M(0)`` the identity, so the
world frame at the start of the step is every body's local frame. ``omega = 0`` is a translation
with ``e = velocity``; ``velocity = 0`` and ``omega = 0`` is a fixed edge or static ground.
Claim: B3, B6, P1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof.core.validation import check_valid_finite

MOTION_FIXED = 0
MOTION_TRANSLATING = 1
MOTION_RIGID = 2
MOTION_NAMES = ("fixed", "translating", "rigid")


@dataclass(frozen=True)
class Motion:
    """Rigid motions over one step: ``pivot_m``, ``velocity_mps`` (shape ``(..., 2)``) and
    ``omega_radps`` (shape ``(...)``); ``version`` is the trajectory version recorded by P1.

    Claim: B3 (fixed / translating edges), B6 (rigid motion M(t)), P1 (versions).
    """

    pivot_m: np.ndarray
    velocity_mps: np.ndarray
    omega_radps: np.ndarray
    version: np.ndarray

    @staticmethod
    def translating(velocity_mps: np.ndarray, *, version: np.ndarray | int = 0) -> Motion:
        """Pure translations with the given velocities (m/s); zero velocity is a fixed motion."""
        vel = check_valid_finite("velocity_mps", velocity_mps)
        shape = vel.shape[:-1]
        return Motion(np.zeros_like(vel), vel, np.zeros(shape),
                      np.broadcast_to(np.asarray(version, dtype=np.int64), shape).copy())

    @staticmethod
    def rotating(pivot_m: np.ndarray, omega_radps: np.ndarray, *,
                 velocity_mps: np.ndarray | None = None,
                 version: np.ndarray | int = 0) -> Motion:
        """Rotations at ``omega_radps`` (rad/s) about pivots moving at ``velocity_mps`` (m/s)."""
        pivot = check_valid_finite("pivot_m", pivot_m)
        omega = check_valid_finite("omega_radps", np.broadcast_to(omega_radps, pivot.shape[:-1]))
        vel = np.zeros_like(pivot) if velocity_mps is None else check_valid_finite(
            "velocity_mps", np.broadcast_to(velocity_mps, pivot.shape))
        return Motion(pivot, np.array(vel, dtype=np.float64), np.array(omega, dtype=np.float64),
                      np.broadcast_to(np.asarray(version, dtype=np.int64), omega.shape).copy())

    @property
    def kind(self) -> np.ndarray:
        """MOTION_FIXED / MOTION_TRANSLATING / MOTION_RIGID per entry."""
        moving = np.any(self.velocity_mps != 0.0, axis=-1)
        return np.where(self.omega_radps != 0.0, MOTION_RIGID,
                        np.where(moving, MOTION_TRANSLATING, MOTION_FIXED))

    def point_velocity(self, x_m: np.ndarray) -> np.ndarray:
        """World velocity (m/s) at time 0 of the material point at ``x_m``: w + omega J (x - c)."""
        rel = x_m - self.pivot_m
        om = self.omega_radps[..., None]
        return self.velocity_mps + om * np.stack([-rel[..., 1], rel[..., 0]], axis=-1)


@dataclass(frozen=True)
class Support:
    """The surface each agent stands on: its rigid motion over the step (one per agent, (N,)).

    Claim: B3 (support carry u), B6 (rotating platforms), P1 (support version).
    """

    motion: Motion

    @staticmethod
    def translating(velocity_mps: np.ndarray, *, version: np.ndarray | int = 0) -> Support:
        """Supports translating at ``velocity_mps`` (N, 2) m/s; zero is static ground."""
        return Support(Motion.translating(velocity_mps, version=version))

    def carry_mps(self, x_m: np.ndarray) -> np.ndarray:
        """Support velocity u (m/s, (N, 2)) at the body's start position. Claim: B1, B3."""
        return self.motion.point_velocity(x_m)


def take_motion(m: Motion, rows: np.ndarray) -> Motion:
    """The motions of the rows ``rows`` only."""
    return Motion(m.pivot_m[rows], m.velocity_mps[rows], m.omega_radps[rows], m.version[rows])


def take_support(support: Support, rows: np.ndarray) -> Support:
    """The supports of the agents ``rows`` only."""
    return Support(take_motion(support.motion, rows))
