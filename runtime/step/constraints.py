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

from navproof._generated.formulas import (
    accel_step_v1_bound,
    brake_envelope_offset,
    linear_envelope_bound,
)
from navproof.boundary.reference import Reference, reference_from_offsets
from navproof.boundary.rigid import moving_frame_pairs, rotating_stop_pairs
from navproof.boundary.stop_envelope import envelope_cap_and_brake_factor
from navproof.core.jit import compiled_loop
from navproof.core.parallel import run_row_pieces
from navproof.core.tolerances import EPS
from navproof.core.validation import floats_of_shape
from navproof.orca.halfplanes import to_halfplanes
from navproof.solver.halfplanes import HalfPlanes
from navproof.step.inputs import PARALLEL_MIN_ROWS, StepInput
from navproof.step.workspace import SlotBuffers

IMPOSSIBLE_OFFSET_MPS = -1.0e6
"""Offset (m/s) standing in for a half-plane no velocity satisfies (a -inf or NaN bound)."""



@dataclass(frozen=True)
class Prepared:
    """Everything the solve and the verification of one step share: the carry ``u`` (N, 2), the
    normal components of edge velocity, carry and v0 and the initial margins ``s`` (N, K), the
    reference, the envelope cap ``cmax`` (N,) and the braking envelope factor ``kfac_s`` (N,),
    the edge half-planes (B4, S3, S7; (N, 3K)), the ORCA half-planes in v1 (N, L), both views
    into ``solve_planes`` (N, 3K + L), the slot order of the search
    (:mod:`navproof.step.search`, which adds a row's B5 cuts after them), ``wall`` (N, K) the
    valid walls (:attr:`navproof.boundary.edges.EdgeSet.wall`, taken once per step), and
    ``rot_stop`` (N, K): walls whose stop is certified in the local frame (B6), None if nothing
    rotates; ``moving`` (N, K): the pairs of :func:`navproof.boundary.rigid.moving_frame_pairs`
    (their curve needs the certified bound of B6), None if there is none; ``sweep_start_m`` and
    ``sweep_comb_m`` (N, J): each neighbour slot's start distance and combined radius
    (:meth:`navproof.step.inputs.Neighbors.start_distance_and_reach_m`), None without
    neighbours."""

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
    solve_planes: HalfPlanes
    wall: np.ndarray
    rot_stop: np.ndarray | None = None
    moving: np.ndarray | None = None
    sweep_start_m: np.ndarray | None = None
    sweep_comb_m: np.ndarray | None = None


def sanitise_halfplanes(offset: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop half-planes that never bind (+inf) and make impossible ones (-inf, NaN) finite."""
    valid = valid & ~(offset == np.inf)
    impossible = np.isnan(offset) | (offset == -np.inf)
    return np.where(impossible, IMPOSSIBLE_OFFSET_MPS, offset), valid


@compiled_loop
def _edge_components(x0, v0, sup_pivot, sup_vel, sup_omega, normal, offset, e_pivot, e_vel,
                     e_omega, u, n_dot_e, n_dot_u, n_dot_v0, s, n_dot_e_minus_u, lo, hi):
    """Per agent: the carry u = w + omega J (x0 - c) of its support at x0 (B3), and per edge
    the edge velocity e at x0 (the same material-point velocity), the normal components
    dot(n, e), dot(n, u), dot(n, v0), dot(n, e - u) and the initial margin s = b - dot(n, x0)
    (B1), each in the order of :meth:`navproof.boundary.motion.Motion.point_velocity` and
    :func:`navproof.core.vec2.dot2`. Claim: B1, B3, R1."""
    k = offset.shape[1]
    for i in range(lo, hi):
        x, y = x0[i, 0], x0[i, 1]
        ux = sup_vel[i, 0] + sup_omega[i] * -(y - sup_pivot[i, 1])
        uy = sup_vel[i, 1] + sup_omega[i] * (x - sup_pivot[i, 0])
        u[i, 0], u[i, 1] = ux, uy
        for j in range(k):
            nx, ny = normal[i, j, 0], normal[i, j, 1]
            om = e_omega[i, j]
            ex = e_vel[i, j, 0] + om * -(y - e_pivot[i, j, 1])
            ey = e_vel[i, j, 1] + om * (x - e_pivot[i, j, 0])
            n_dot_e[i, j] = nx * ex + ny * ey
            n_dot_u[i, j] = nx * ux + ny * uy
            n_dot_v0[i, j] = nx * v0[i, 0] + ny * v0[i, 1]
            s[i, j] = offset[i, j] - (nx * x + ny * y)
            n_dot_e_minus_u[i, j] = nx * (ex - ux) + ny * (ey - uy)


@compiled_loop
def _sanitised(offset, valid, impossible):
    """One half-plane's (offset, valid) as :func:`sanitise_halfplanes` leaves it."""
    if offset == np.inf:
        return offset, False
    if offset != offset or offset == -np.inf:
        return impossible, valid
    return offset, valid


@compiled_loop
def _edge_halfplanes(s, n_dot_e, n_dot_u, n_dot_v0, normal, valid, exists, wall, dt, a, cmax,
                     kfac, u, r, eps, impossible, orca_valid, out_normal, out_offset, out_valid,
                     lo, hi):
    """Per agent and edge the three half-planes ``dot(n, v1) <= q - EPS`` of the edge, in slots
    ``j`` (B4: ``accel_step_v1_bound``), ``K + j`` (S3: ``linear_envelope_bound`` plus
    dot(n, r - u)) and ``2K + j`` (S7: ``brake_envelope_offset``), sanitised
    (:func:`sanitise_halfplanes`); the stop half-planes only for walls of agents with a
    reference (``wall`` and ``exists``). The valid flags of the ORCA slots after them are
    ``orca_valid``. Claim: B4, S3, S7."""
    k = s.shape[1]
    for i in range(lo, hi):
        dti, ai, ci, ki = dt[i], a[i], cmax[i], kfac[i]
        rx, ry = r[i, 0], r[i, 1]
        rux, ruy = rx - u[i, 0], ry - u[i, 1]
        for j in range(orca_valid.shape[1]):
            out_valid[i, 3 * k + j] = orca_valid[i, j]
        for j in range(k):
            has_ref = exists[i] and wall[i, j]
            nx, ny = normal[i, j, 0], normal[i, j, 1]
            sij, nde, ndu, ndv0 = s[i, j], n_dot_e[i, j], n_dot_u[i, j], n_dot_v0[i, j]
            b4 = accel_step_v1_bound(s=sij, dt=dti, n_dot_e=nde, n_dot_u=ndu, n_dot_v0=ndv0)
            s3 = (linear_envelope_bound(s=sij, dt=dti, a=ai, cmax=ci)
                  + (nx * rux + ny * ruy))
            s7 = brake_envelope_offset(s=sij, dt=dti, n_dot_e=nde, n_dot_u=ndu, n_dot_v0=ndv0,
                                       n_dot_r=nx * rx + ny * ry, kfac=ki)
            out_offset[i, j], out_valid[i, j] = _sanitised(b4 - eps, valid[i, j], impossible)
            out_offset[i, k + j], out_valid[i, k + j] = _sanitised(s3 - eps, has_ref,
                                                                   impossible)
            out_offset[i, 2 * k + j], out_valid[i, 2 * k + j] = _sanitised(
                s7 - eps, has_ref, impossible)
            for slot in (j, k + j, 2 * k + j):
                out_normal[i, slot, 0], out_normal[i, slot, 1] = nx, ny


@dataclass(frozen=True)
class EdgeFrame:
    """What the solve and the assertion-mode re-check derive alike from a step input: the carry
    ``u`` (N, 2), the normal components dot(n, e), dot(n, u), dot(n, v0) and the initial
    margins ``s`` (N, K), the pairs whose frames move (``moving``) and whose stop is certified
    in the local frame (``rot_stop``, None if nothing rotates) (N, K), the reference (R1), the
    envelope cap ``cmax`` and the braking envelope factor ``kfac_s`` (N,)."""

    u: np.ndarray
    n_dot_e: np.ndarray
    n_dot_u: np.ndarray
    n_dot_v0: np.ndarray
    s: np.ndarray
    moving: np.ndarray
    rot_stop: np.ndarray | None
    ref: Reference
    cmax: np.ndarray
    kfac_s: np.ndarray


def edge_frame(inp: StepInput, accel_mps2: np.ndarray) -> EdgeFrame:
    """The :class:`EdgeFrame` of every agent of ``inp``: one compiled pass over each agent's
    edges (:func:`_edge_components`), the moving and rotating pairs, the reference from those
    components, then ``cmax`` and the braking factor for the budgets ``accel_mps2`` (N,).
    Claim: B1, B3, B6, R1, S3, S7."""
    edges, x0, v0 = inp.edges, inp.position_m, inp.velocity_mps
    n = edges.normal
    rows, k = n.shape[:2]
    sup, mot = inp.support.motion, edges.motion
    u, n_dot_e, n_dot_u, n_dot_v0, s, n_dot_e_minus_u = (
        np.empty((rows, 2)), *(np.empty((rows, k)) for _ in range(5)))
    f = floats_of_shape
    components = (x0, f(v0, (rows, 2)), f(sup.pivot_m, (rows, 2)), f(sup.velocity_mps, (rows, 2)),
                  f(sup.omega_radps, (rows,)), f(n, (rows, k, 2)), f(edges.offset_m, (rows, k)),
                  f(mot.pivot_m, (rows, k, 2)), f(mot.velocity_mps, (rows, k, 2)),
                  f(mot.omega_radps, (rows, k)), u, n_dot_e, n_dot_u, n_dot_v0, s,
                  n_dot_e_minus_u)
    run_row_pieces(lambda lo, hi: _edge_components(*components, lo, hi), rows,
                   min_rows=PARALLEL_MIN_ROWS)
    moving = moving_frame_pairs(edges, inp.support)
    rot_stop = rotating_stop_pairs(edges, inp.support, moving=moving)
    ref = reference_from_offsets(edges, u, n_dot_e_minus_u, inp.vh_mps, certified=rot_stop)
    cmax, kfac = envelope_cap_and_brake_factor(inp.vh_mps, u, ref.r_mps, inp.dt_per_agent_s,
                                               accel_mps2)
    return EdgeFrame(u, n_dot_e, n_dot_u, n_dot_v0, s, moving, rot_stop, ref, cmax, kfac)


def prepare_constraints(inp: StepInput, *, slots: SlotBuffers | None = None) -> Prepared:
    """Constraints of every agent in the solve variable v1: the step's :class:`EdgeFrame`,
    then one compiled pass over each agent's edges for the edge half-planes. The solve slots
    are written into ``slots`` when given (the returned planes are then views that its next
    use overwrites), else into new arrays. Claim: B1, B3, B4, S3, S7, R1, R2."""
    edges, x0 = inp.edges, inp.position_m
    n = edges.normal
    rows, k = n.shape[:2]
    frame = edge_frame(inp, inp.accel_mps2)
    u, ref, cmax, kfac = frame.u, frame.ref, frame.cmax, frame.kfac_s
    dt = inp.dt_per_agent_s
    # the stop half-planes need a reference; without one only the B4 half-plane remains
    wall = edges.wall
    # the solve's slots side by side: edge half-planes, then ORCA lines
    lines = inp.orca_valid.shape[1]
    width = 3 * k + lines
    normal, offset, valid = (SlotBuffers() if slots is None else slots).slots(rows, width)
    orca_slots = slice(3 * k, 3 * k + lines)
    # ORCA lines act on the world velocity w = u + v1
    to_halfplanes(inp.orca_point, inp.orca_direction, inp.orca_valid, shift_mps=u,
                  into=(normal[:, orca_slots], offset[:, orca_slots]))
    planes = (frame.s, frame.n_dot_e, frame.n_dot_u, frame.n_dot_v0,
              floats_of_shape(n, (rows, k, 2)), np.asarray(edges.valid, dtype=bool), ref.exists,
              np.asarray(wall, dtype=bool), floats_of_shape(dt, (rows,)),
              floats_of_shape(inp.accel_mps2, (rows,)), cmax, kfac, u, ref.r_mps,
              EPS, IMPOSSIBLE_OFFSET_MPS, np.asarray(inp.orca_valid, dtype=bool), normal, offset,
              valid)
    run_row_pieces(lambda lo, hi: _edge_halfplanes(*planes, lo, hi), rows,
                   min_rows=PARALLEL_MIN_ROWS)
    solve_planes = HalfPlanes(normal, offset, valid)
    edge_planes = halfplane_slots(solve_planes, slice(0, 3 * k))
    orca_planes = halfplane_slots(solve_planes, orca_slots)
    nb = inp.neighbors
    start, comb = (None, None) if nb is None else nb.start_distance_and_reach_m(x0, inp.radius_m)
    moving = frame.moving
    return Prepared(u, frame.n_dot_e, frame.n_dot_u, frame.n_dot_v0, frame.s, ref, cmax, kfac,
                    edge_planes, orca_planes, solve_planes, wall, frame.rot_stop,
                    moving if moving.any() else None, start, comb)


def halfplane_slots(planes: HalfPlanes, slots: slice) -> HalfPlanes:
    """The slots ``slots`` of every row of ``planes`` (views)."""
    return HalfPlanes(planes.normal[:, slots], planes.offset[:, slots], planes.valid[:, slots])
