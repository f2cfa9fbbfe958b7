"""Independent numeric models for replaying counterexamples: fine time stepping of the body's
motion, written from the kinematics of seed 000 and not from any derived formula, so a replay
does not just re-evaluate the expression the solver saw."""

from __future__ import annotations

import math

SUBSTEPS = 2000
"""Sub-steps per phase. Velocities are linear in time within a phase, so the midpoint rule
integrates them exactly up to rounding; the count sets how finely the least margin is sampled."""


def ramp_margin_at(t: float, *, s: float, dt: float, n_dot_e: float, n_dot_u: float,
                   n_dot_v0: float, n_dot_v1: float, substeps: int = SUBSTEPS) -> float:
    """Edge margin at time t of a step whose relative velocity ramps from v0 to v1 over dt
    (along the normal), the support moving at u and the edge at e."""
    h = t / substeps
    moved = 0.0
    for i in range(substeps):
        tau = (i + 0.5) * h
        moved += h * (n_dot_u + n_dot_v0 + (n_dot_v1 - n_dot_v0) * tau / dt - n_dot_e)
    return s - moved


def least_margin_step_then_brake(s: float, dt: float, a: float, n, u, e, r, v0, v1,
                                 substeps: int = SUBSTEPS) -> float:
    """The least margin over the step from v0 to v1 followed by braking at a along
    c1 = u + v1 - r until c = 0, the edge moving at e and the body drifting with r."""
    def nd(p) -> float:
        return n[0] * p[0] + n[1] * p[1]

    h = dt / substeps
    pos, least = 0.0, s
    for i in range(substeps):
        frac = (i + 0.5) / substeps
        vel = (u[0] + v0[0] + (v1[0] - v0[0]) * frac, u[1] + v0[1] + (v1[1] - v0[1]) * frac)
        pos += h * (nd(vel) - nd(e))
        least = min(least, s - pos)
    c1 = (u[0] + v1[0] - r[0], u[1] + v1[1] - r[1])
    speed = math.hypot(*c1)
    if speed > 0.0:
        brake_s = speed / a
        hb = brake_s / substeps
        for i in range(substeps):
            scale = 1.0 - a * (i + 0.5) * hb / speed
            vel = (r[0] + c1[0] * scale, r[1] + c1[1] * scale)
            pos += hb * (nd(vel) - nd(e))
            least = min(least, s - pos)
    return least


def second_difference(f, h: float) -> float:
    """f''(0) of a smooth scalar function by the central second difference with step h,
    extrapolated once (Richardson) so that the truncation error is O(h^4)."""
    coarse = (f(2 * h) - 2 * f(0.0) + f(-2 * h)) / (4 * h * h)
    fine = (f(h) - 2 * f(0.0) + f(-h)) / (h * h)
    return (4 * fine - coarse) / 3


def hold_then_brake(c: tuple[float, float], dt: float, a: float, t: float,
                    substeps: int = SUBSTEPS) -> tuple[tuple[float, float], tuple[float, float]]:
    """Displacement and velocity at time t of the stop after a step: hold the velocity c for dt,
    then lose a per second along -c/|c| until rest (S1's stop, 2-D), by fine time stepping."""
    speed = math.hypot(*c)

    def scale(s: float) -> float:
        if s <= dt:
            return 1.0
        return max(0.0, 1.0 - a * (s - dt) / speed) if speed > 0.0 else 0.0

    h = t / substeps
    moved = sum(scale((i + 0.5) * h) for i in range(substeps)) * h
    return (c[0] * moved, c[1] * moved), (c[0] * scale(t), c[1] * scale(t))
