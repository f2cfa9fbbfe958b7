"""Prediction snapshot of one step (P1): what the candidate was computed against.

A snapshot records the step's time origin (s) and, per agent, the support trajectory version
and every boundary edge's motion version. Before a candidate is committed the snapshot is
compared with the actual state; for every agent whose versions (or time origin) changed, the
candidate is discarded and the step is rebuilt from the actual pose and the effective end
velocity against the actual support and edges. The snapshot's support motion is never used for
the rebuild, so an old platform velocity is never reused as compensation.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from navproof.boundary.edges import EdgeSet, take_edges
from navproof.boundary.motion import Support, take_support
from navproof.core.errors import InvalidInput
from navproof.core.jit import compiled_loop
from navproof.core.validation import check_valid_finite
from navproof.step.inputs import StepInput
from navproof.step.result import SafeStepResult
from navproof.step.solve import solve_safe_step


@dataclass(frozen=True)
class PredictionSnapshot:
    """Time origin (s), support versions (N,) and edge versions (N, K) of one step. Claim: P1."""

    time_origin_s: float
    support_version: np.ndarray
    edge_version: np.ndarray
    edge_valid: np.ndarray


@dataclass(frozen=True)
class ActualState:
    """What the world reports just before commit: time origin (s), actual positions (m, (N, 2)),
    effective end velocities relative to the support (m/s, (N, 2)), supports and edges."""

    time_origin_s: float
    position_m: np.ndarray
    velocity_mps: np.ndarray
    support: Support
    edges: EdgeSet


def take_snapshot(time_origin_s: float, support: Support, edges: EdgeSet) -> PredictionSnapshot:
    """Snapshot of the versions the step is about to be predicted with. Claim: P1."""
    t = float(time_origin_s)
    if not math.isfinite(t):
        raise InvalidInput("time_origin_s", time_origin_s, "must be finite")
    return PredictionSnapshot(t, support.motion.version.copy(), edges.motion.version.copy(),
                              edges.valid.copy())


def snapshot_mismatch(snapshot: PredictionSnapshot, time_origin_s: float, support: Support,
                      edges: EdgeSet) -> np.ndarray:
    """(N,) True where the actual state no longer matches the snapshot: another time origin,
    another support version, or any edge whose version or presence changed. Claim: P1."""
    n = snapshot.support_version.shape[0]
    if float(time_origin_s) != snapshot.time_origin_s:
        return np.ones(n, bool)
    support_version, edge_version = support.motion.version, edges.motion.version
    shape = snapshot.edge_valid.shape
    if (np.shape(support_version) == (n,) and edges.valid.shape == shape
            and np.shape(edge_version) == shape and snapshot.edge_version.shape == shape
            and edges.valid.dtype == bool and snapshot.edge_valid.dtype == bool):
        # the usual snapshot, of the step's own shapes: one pass instead of eight numpy calls
        out = np.empty(n, bool)
        _mismatch_rows(np.asarray(support_version), snapshot.support_version, edges.valid,
                       snapshot.edge_valid, np.asarray(edge_version), snapshot.edge_version, out)
        return out
    bad = support.motion.version != snapshot.support_version
    if edges.valid.shape != snapshot.edge_valid.shape:
        return np.ones(n, bool)
    edge_bad = (edges.valid != snapshot.edge_valid) | (
        edges.valid & (edges.motion.version != snapshot.edge_version))
    return bad | edge_bad.any(axis=1)


@compiled_loop
def _mismatch_rows(support_version, snap_support_version, edge_valid, snap_edge_valid,
                   edge_version, snap_edge_version, out):
    """Rows of :func:`snapshot_mismatch` at one time origin, all arrays of the snapshot's
    shapes: another support version, or an edge whose presence changed or that is present
    with another version. Claim: P1."""
    for i in range(out.shape[0]):
        bad = support_version[i] != snap_support_version[i]
        for k in range(edge_valid.shape[1]):
            if edge_valid[i, k] != snap_edge_valid[i, k] or (
                    edge_valid[i, k] and edge_version[i, k] != snap_edge_version[i, k]):
                bad = True
        out[i] = bad


def take_input_rows(inp: StepInput, rows: np.ndarray) -> StepInput:
    """The step input of agents ``rows`` only."""
    nb = inp.neighbors.take(rows) if inp.neighbors is not None else None
    orca_rows = inp.orca_valid.shape[0] == inp.count
    return StepInput(inp.position_m[rows], inp.velocity_mps[rows], inp.preferred_mps[rows],
                     inp.dt_s, take_support(inp.support, rows), take_edges(inp.edges, rows),
                     np.asarray(inp.vh_mps)[rows], np.asarray(inp.accel_mps2)[rows],
                     np.asarray(inp.radius_m)[rows],
                     inp.orca_point[rows] if orca_rows else inp.orca_point,
                     inp.orca_direction[rows] if orca_rows else inp.orca_direction,
                     inp.orca_valid[rows] if orca_rows else inp.orca_valid, nb,
                     None if inp.orca_num_hard is None else np.asarray(inp.orca_num_hard)[rows])


def scatter_rows(full: Any, rows: np.ndarray, part: Any) -> Any:
    """Copy of ``full`` with the agents ``rows`` replaced by ``part`` (arrays or dataclasses)."""
    if dataclasses.is_dataclass(full):
        rebuild: Any = type(full)
        return rebuild(**{f.name: scatter_rows(getattr(full, f.name), rows,
                                              getattr(part, f.name))
                             for f in dataclasses.fields(full)})
    out = np.array(full, copy=True)
    part = np.asarray(part)
    if out.ndim >= 2 and part.ndim >= 2 and out.shape[1:] != part.shape[1:]:
        width = min(out.shape[1], part.shape[1])
        out[rows, :width] = part[:, :width]
    else:
        out[rows] = part
    return out


def commit_step(snapshot: PredictionSnapshot, inp: StepInput, result: SafeStepResult,
                actual: ActualState, *, assertions: bool | None = None
                ) -> tuple[SafeStepResult, np.ndarray]:
    """The result to commit and the (N,) mask of agents whose candidate was discarded.

    Mismatched agents are solved again from ``actual``: actual pose, effective end velocity,
    actual support and actual edges, over the same step length and with the same preferred
    velocity, ORCA lines and neighbours. Claim: P1.
    """
    mismatch = snapshot_mismatch(snapshot, actual.time_origin_s, actual.support, actual.edges)
    # numpy's count of nonzero entries tells what any() tells, at a fraction of its cost
    if not np.count_nonzero(mismatch):
        return result, mismatch
    rows = np.flatnonzero(mismatch)
    base = take_input_rows(inp, rows)
    rebuilt_input = dataclasses.replace(
        base, position_m=check_valid_finite("actual.position_m", actual.position_m)[rows],
        velocity_mps=check_valid_finite("actual.velocity_mps", actual.velocity_mps)[rows],
        support=take_support(actual.support, rows), edges=take_edges(actual.edges, rows))
    rebuilt = solve_safe_step(rebuilt_input, assertions=assertions)
    return scatter_rows(result, rows, rebuilt), mismatch
