"""Constraints of the safe step in the solve variable v1, prepared once per step (seed 000).

Per edge: the continuous-acceleration step-end half-plane (B4), the shared stop envelope (S3)
and the discrete braking envelope (S7: the step-end margin covers K dot(n, c1), which keeps the
safe label recursively feasible); the ORCA half-planes (O2, built on world velocities) shifted
by the support carry u: ``dot(n, u + v1) <= c``; the reference velocity and stop target (R1,
R2); the walls whose stop is certified in a local frame (B6). Those walls leave the reference's
constraints: their stop and the hold at rest on the support are certified along the support's
motion, a reference that turns or accelerates with it (seed 000: "支撑或边界旋转、加速时，参考速度
也会变化").
Claim: B1, B3, B4, S3, S7, R1, R2, O2, O5, B6.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof.boundary.margins import accel_halfplane_offset_mps
from navproof.boundary.reference import Reference, reference_velocity
from navproof.boundary.rigid import rotating_stop_pairs
from navproof.boundary.step_length import per_edge
from navproof.boundary.stop_envelope import (
    brake_envelope_factor_s,
    brake_envelope_offset_mps,
    envelope_speed_cap_mps,
    stop_halfplane_offset_mps,
)
from navproof.core.tolerances import EPS
from navproof.core.vec2 import dot2
from navproof.orca.halfplanes import to_halfplanes
from navproof.solver.halfplanes import HalfPlanes
from navproof.step.inputs import StepInput

IMPOSSIBLE_OFFSET_MPS = -1.0e6
"""Offset (m/s) standing in for a half-plane no velocity satisfies (a -inf or NaN bound)."""


@dataclass(frozen=True)
class Prepared:
    """Everything the solve and the verification of one step share: the carry ``u`` (N, 2), the
    normal components of edge velocity, carry and v0 and the initial margins ``s`` (N, K), the
    reference, the envelope cap ``cmax`` (N,) and the braking envelope factor ``kfac_s`` (N,),
    the edge half-planes (B4, S3, S7; (N, 3K)), the ORCA half-planes in v1 (N, L), and
    ``rot_stop`` (N, K): walls whose stop is certified in the local frame (B6), None if nothing
    rotates."""

    u: np.ndarray
    n_dot_e: np.ndarray
    n_dot_u: np.ndarray
    n_dot_v0: np.ndarray
    s: np.ndarray
    ref: Reference
    cmax: np.ndarray
    kfac_s: np.ndarray
    edge_planes: HalfPlanes
    orca_planes: HalfPlanes
    rot_stop: np.ndarray | None = None


def sanitise_halfplanes(offset: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop half-planes that never bind (+inf) and make impossible ones (-inf, NaN) finite."""
    valid = valid & ~(offset == np.inf)
    impossible = np.isnan(offset) | (offset == -np.inf)
    return np.where(impossible, IMPOSSIBLE_OFFSET_MPS, offset), valid


def prepare_constraints(inp: StepInput) -> Prepared:
    """Constraints of every agent in the solve variable v1. Claim: B1, B3, B4, S3, S7, R1, R2."""
    dt = inp.dt_s
    edges, x0, v0 = inp.edges, inp.position_m, inp.velocity_mps
    n = edges.normal
    u = inp.support.carry_mps(x0)
    e = edges.edge_velocity_mps(x0)
    n_dot_e = dot2(n, e)
    n_dot_u = dot2(n, u[:, None, :])
    n_dot_v0 = dot2(n, v0[:, None, :])
    s = edges.initial_margin_m(x0)
    rot_stop = rotating_stop_pairs(edges, inp.support)
    ref = reference_velocity(edges, inp.support, x0, inp.vh_mps, certified=rot_stop)
    cmax = envelope_speed_cap_mps(inp.vh_mps, u, ref.r_mps)
    kfac = brake_envelope_factor_s(cmax, inp.dt_per_agent_s, inp.accel_mps2)
    b4 = accel_halfplane_offset_mps(s, per_edge(dt), n_dot_e, n_dot_u, n_dot_v0)
    s3 = stop_halfplane_offset_mps(n, s, dt, inp.accel_mps2, cmax, u, ref.r_mps)
    s7 = brake_envelope_offset_mps(n, s, dt, kfac, n_dot_e, u, ref.r_mps, v0)
    # the stop half-planes need a reference; without one only the B4 half-plane remains
    has_ref = ref.exists[:, None] & edges.wall
    offsets = np.concatenate([b4, s3, s7], axis=1) - EPS
    valid = np.concatenate([edges.valid, has_ref, has_ref], axis=1)
    offsets, valid = sanitise_halfplanes(offsets, valid)
    edge_planes = HalfPlanes(np.concatenate([n, n, n], axis=1), offsets, valid)
    # ORCA lines act on the world velocity w = u + v1
    orca_planes = to_halfplanes(inp.orca_point, inp.orca_direction, inp.orca_valid,
                                shift_mps=u)
    return Prepared(u, n_dot_e, n_dot_u, n_dot_v0, s, ref, cmax, kfac, edge_planes, orca_planes,
                    rot_stop)


def obstacle_lines_only(orca: HalfPlanes, num_hard: np.ndarray) -> HalfPlanes:
    """The ORCA half-planes with only the first ``num_hard`` (R,) slots of each row kept: the
    static-obstacle lines (O5) that F1 never relaxes."""
    slot = np.arange(orca.valid.shape[1])[None, :]
    return HalfPlanes(orca.normal, orca.offset, orca.valid & (slot < num_hard[:, None]))
