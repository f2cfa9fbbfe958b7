"""What one ORCA solve read and decided, per agent: the snapshot, the lines, the verdicts.

Seed 002 lists what to look at when avoidance misbehaves (当前速度, 期望速度, 最终选择速度,
邻居范围, 相对位置与相对速度, ORCA 约束线, 时间窗, 快照时点); :class:`StepDiagnostics` holds them
as arrays over the crowd and :meth:`StepDiagnostics.record` as one agent's readable record.
Claim: O2, O4.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from navproof.core.tolerances import ACTIVE_TOL_MPS
from navproof.orca.halfplanes import line_violation

if TYPE_CHECKING:
    from navproof.orca.crowd import Crowd


@dataclass(frozen=True)
class SolveSnapshot:
    """The state one solve read (seed 002: 邻居范围, 相对位置与相对速度, 时间窗, 快照时点).

    Copies of the crowd's per-agent arrays at the snapshot: ``position_m`` and ``velocity_mps``
    (N, 2) (the current velocity the ORCA lines were built from), ``radius_m``,
    ``neighbor_dist_m``, ``time_horizon_s``, ``time_horizon_obst_s`` (N,), the step
    ``time_step_s``, the agent neighbours ``agent_neighbor_idx`` (N, k) in line order (-1
    padded) and the obstacle edges near each agent as segments ``obstacle_edge_m`` (N, m, 2, 2)
    with ``obstacle_edge_valid`` (N, m). Claim: O4.
    """

    position_m: np.ndarray
    velocity_mps: np.ndarray
    radius_m: np.ndarray
    neighbor_dist_m: np.ndarray
    time_horizon_s: np.ndarray
    time_horizon_obst_s: np.ndarray
    time_step_s: float
    agent_neighbor_idx: np.ndarray
    obstacle_edge_m: np.ndarray
    obstacle_edge_valid: np.ndarray

    def neighbors(self, agent: int) -> list[dict[str, Any]]:
        """The agent's neighbours in line order: index, relative position (m) and relative
        velocity (m/s) of the neighbour as seen from the agent, radius and distance."""
        out = []
        for slot, j in enumerate(self.agent_neighbor_idx[agent].tolist()):
            if j < 0:
                continue
            rel_p = self.position_m[j] - self.position_m[agent]
            rel_v = self.velocity_mps[j] - self.velocity_mps[agent]
            out.append({
                "slot": slot,
                "agent": int(j),
                "relative_position_m": [float(x) for x in rel_p],
                "relative_velocity_mps": [float(x) for x in rel_v],
                "radius_m": float(self.radius_m[j]),
                "distance_m": float(np.hypot(*rel_p)),
            })
        return out

    def obstacle_edges(self, agent: int) -> list[list[list[float]]]:
        """Nearby obstacle edges as segments [[x1, y1], [x2, y2]] relative to the agent (m)."""
        rows = self.obstacle_edge_m[agent][self.obstacle_edge_valid[agent]]
        rel = rows - self.position_m[agent]
        return [[[float(x) for x in a], [float(x) for x in b]] for a, b in rel]


def snapshot_of(crowd: Crowd, agent_neighbor_idx: np.ndarray,
                obstacle_neighbor_idx: np.ndarray) -> SolveSnapshot:
    """The snapshot a solve of ``crowd`` reads, with its neighbour indices (copied)."""
    obst = crowd.obstacles
    valid = obstacle_neighbor_idx >= 0
    edge = np.zeros(obstacle_neighbor_idx.shape + (2, 2))
    if valid.shape[1] and valid.any():
        first = obstacle_neighbor_idx[valid]
        edge[valid, 0] = obst.point[first]
        edge[valid, 1] = obst.point[obst.next[first]]
    return SolveSnapshot(
        crowd.position.copy(), crowd.velocity.copy(), crowd.radius.copy(),
        crowd.neighbor_dist.copy(), crowd.time_horizon.copy(), crowd.time_horizon_obst.copy(),
        float(crowd.time_step), agent_neighbor_idx.copy(), edge, valid)


@dataclass(frozen=True)
class AgentRecord:
    """Readable diagnostics of one agent's last solve. Claim: O4."""

    agent: int
    snapshot_time_s: float
    preferred_velocity: tuple[float, float]
    selected_velocity: tuple[float, float]
    max_speed_mps: float
    constraint_count: int
    obstacle_constraint_count: int
    feasible: bool
    label: str
    active_constraints: list[int]
    conflicting_constraints: list[int]
    zero_velocity_feasible: bool
    max_violation_mps: float
    lines: list[dict[str, Any]] = field(default_factory=list)
    current_velocity: tuple[float, float] | None = None
    position_m: tuple[float, float] | None = None
    radius_m: float | None = None
    neighbor_dist_m: float | None = None
    time_horizon_s: float | None = None
    time_horizon_obst_s: float | None = None
    time_step_s: float | None = None
    neighbors: list[dict[str, Any]] = field(default_factory=list)
    obstacle_edges: list[list[list[float]]] = field(default_factory=list)
    stalled_steps: int = 0

    def as_dict(self) -> dict[str, Any]:
        """Plain-JSON form of the record."""
        return {
            "agent": self.agent,
            "snapshot_time_s": self.snapshot_time_s,
            "preferred_velocity": list(self.preferred_velocity),
            "selected_velocity": list(self.selected_velocity),
            "max_speed_mps": self.max_speed_mps,
            "constraint_count": self.constraint_count,
            "obstacle_constraint_count": self.obstacle_constraint_count,
            "feasible": self.feasible,
            "label": self.label,
            "active_constraints": self.active_constraints,
            "conflicting_constraints": self.conflicting_constraints,
            "zero_velocity_feasible": self.zero_velocity_feasible,
            "max_violation_mps": self.max_violation_mps,
            "lines": self.lines,
            "current_velocity": (None if self.current_velocity is None
                                 else list(self.current_velocity)),
            "position_m": None if self.position_m is None else list(self.position_m),
            "radius_m": self.radius_m,
            "neighbor_dist_m": self.neighbor_dist_m,
            "time_horizon_s": self.time_horizon_s,
            "time_horizon_obst_s": self.time_horizon_obst_s,
            "time_step_s": self.time_step_s,
            "neighbors": self.neighbors,
            "obstacle_edges": self.obstacle_edges,
            "stalled_steps": self.stalled_steps,
        }

    def __str__(self) -> str:
        px, py = self.preferred_velocity
        sx, sy = self.selected_velocity
        rows = [f"agent {self.agent} at t = {self.snapshot_time_s:.3f} s: {self.label}"]
        if self.current_velocity is not None:
            cx, cy = self.current_velocity
            rows.append(f"  current velocity    ({cx:+.4f}, {cy:+.4f}) m/s")
        rows += [
            f"  preferred velocity  ({px:+.4f}, {py:+.4f}) m/s",
            f"  selected velocity   ({sx:+.4f}, {sy:+.4f}) m/s   max speed {self.max_speed_mps:g}",
            f"  constraints {self.constraint_count} ({self.obstacle_constraint_count} obstacle)"
            f"  active {self.active_constraints}  conflicting {self.conflicting_constraints}",
            f"  zero velocity feasible: {self.zero_velocity_feasible}"
            f"   largest violation {self.max_violation_mps:.3g} m/s",
        ]
        if self.stalled_steps:
            rows.append(f"  stalled {self.stalled_steps} steps (Claim O8)")
        if self.time_horizon_s is not None:
            rows.append(
                f"  neighbour range {self.neighbor_dist_m:g} m, time horizon "
                f"{self.time_horizon_s:g} s (obstacles {self.time_horizon_obst_s:g} s), "
                f"step {self.time_step_s:g} s, radius {self.radius_m:g} m")
        for nb in self.neighbors:
            (rx, ry), (wx, wy) = nb["relative_position_m"], nb["relative_velocity_mps"]
            rows.append(
                f"  neighbour {nb['agent']:<4} at ({rx:+.3f}, {ry:+.3f}) m, relative velocity "
                f"({wx:+.3f}, {wy:+.3f}) m/s, radius {nb['radius_m']:g} m")
        for line in self.lines:
            source = f" {line['source']}" if line.get("source") else ""
            rows.append(
                f"  [{line['index']}] {line['kind']:<8}{source} point ({line['point'][0]:+.4f}, "
                f"{line['point'][1]:+.4f}) dir ({line['direction'][0]:+.4f}, "
                f"{line['direction'][1]:+.4f}) violation {line['violation']:+.3g}")
        return "\n".join(rows)


@dataclass(frozen=True)
class StepDiagnostics:
    """Per-agent diagnostics of one solve, as arrays over the crowd. Claim: O2, O4.

    Lines (N, K, 2) in solve order, hard obstacle lines first (``num_hard`` of them). ``active``:
    lines the selected velocity lies on; ``conflicting``: lines violated by the degraded choice
    (only when not feasible); ``max_violation``: largest line violation of the selected velocity
    (m/s, rounding-level when feasible); ``label``: "feasible" or "degraded: min-max violation".
    ``constraint_count``, ``active``, ``conflicting``, ``zero_velocity_feasible`` and
    ``max_violation`` are derived from the fields on first read (a step that nobody inspects
    does not pay for them) and kept.
    """

    snapshot_time_s: float
    preferred: np.ndarray
    selected: np.ndarray
    max_speed: np.ndarray
    line_point: np.ndarray
    line_dir: np.ndarray
    valid: np.ndarray
    num_hard: np.ndarray
    feasible: np.ndarray
    fail_line: np.ndarray
    snapshot: SolveSnapshot | None = None
    # consecutive steps each agent has made no progress towards its preferred velocity (O8),
    # filled in by Crowd.step (None for a solve that did not move the crowd)
    stalled_steps: np.ndarray | None = None

    @cached_property
    def _violation(self) -> np.ndarray:
        """Signed violation (m/s) of every line by the selected velocity, -inf where no line."""
        return line_violation(self.selected, self.line_point, self.line_dir, self.valid)

    @cached_property
    def constraint_count(self) -> np.ndarray:
        """Number of lines of each agent (obstacle lines included)."""
        return self.valid.sum(axis=1)

    @cached_property
    def _tol(self) -> np.ndarray:
        return ACTIVE_TOL_MPS * (1.0 + self.max_speed[:, None])

    @cached_property
    def active(self) -> np.ndarray:
        """Lines the selected velocity lies on (within ``ACTIVE_TOL_MPS`` per m/s of speed)."""
        return self.valid & (np.abs(self._violation) <= self._tol)

    @cached_property
    def conflicting(self) -> np.ndarray:
        """Lines violated by the degraded choice, and the line where the exact solve stopped."""
        conflicting = (~self.feasible)[:, None] & self.valid & (self._violation > self._tol)
        if self.line_point.shape[1]:
            rows = np.flatnonzero(self.fail_line >= 0)
            conflicting[rows, self.fail_line[rows]] = True
        return conflicting

    @cached_property
    def zero_velocity_feasible(self) -> np.ndarray:
        """Whether standing still satisfies every line of the agent."""
        if not self.line_point.shape[1]:
            return np.ones(self.selected.shape[0], dtype=bool)
        # violation of v = 0 is det(direction, point)
        point, direction = self.line_point, self.line_dir
        zero_viol = direction[..., 0] * point[..., 1] - direction[..., 1] * point[..., 0]
        return np.all((zero_viol <= ACTIVE_TOL_MPS) | ~self.valid, axis=1)

    @cached_property
    def max_violation(self) -> np.ndarray:
        """Largest line violation of the selected velocity (m/s), at least 0."""
        if not self.line_point.shape[1]:
            return np.zeros(self.selected.shape[0])
        return np.maximum(np.max(self._violation, axis=1), 0.0)

    def record(self, agent: int) -> AgentRecord:
        """Readable record of one agent (see :class:`AgentRecord`)."""
        n = self.selected.shape[0]
        if not 0 <= agent < n:
            raise IndexError(f"agent = {agent!r}: no such agent (0 <= agent < {n})")
        viol = line_violation(self.selected[agent:agent + 1], self.line_point[agent:agent + 1],
                              self.line_dir[agent:agent + 1], self.valid[agent:agent + 1])[0]
        snap = self.snapshot
        lines = []
        for j in np.flatnonzero(self.valid[agent]):
            hard = j < self.num_hard[agent]
            source = None
            if snap is not None and not hard:
                neighbour = int(snap.agent_neighbor_idx[agent, j - self.num_hard[agent]])
                source = f"agent {neighbour}"
            lines.append({
                "index": int(j),
                "kind": "obstacle" if hard else "agent",
                "source": source,
                "point": [float(x) for x in self.line_point[agent, j]],
                "direction": [float(x) for x in self.line_dir[agent, j]],
                "violation": float(viol[j]),
                "active": bool(self.active[agent, j]),
                "conflicting": bool(self.conflicting[agent, j]),
            })
        feasible = bool(self.feasible[agent])
        return AgentRecord(
            agent=agent,
            snapshot_time_s=self.snapshot_time_s,
            preferred_velocity=(float(self.preferred[agent, 0]), float(self.preferred[agent, 1])),
            selected_velocity=(float(self.selected[agent, 0]), float(self.selected[agent, 1])),
            max_speed_mps=float(self.max_speed[agent]),
            constraint_count=int(self.constraint_count[agent]),
            obstacle_constraint_count=int(self.num_hard[agent]),
            feasible=feasible,
            label="feasible" if feasible else "degraded: min-max violation",
            active_constraints=[int(j) for j in np.flatnonzero(self.active[agent])],
            conflicting_constraints=[int(j) for j in np.flatnonzero(self.conflicting[agent])],
            zero_velocity_feasible=bool(self.zero_velocity_feasible[agent]),
            max_violation_mps=float(self.max_violation[agent]),
            lines=lines,
            **({} if snap is None else _snapshot_items(snap, agent)),
            stalled_steps=(0 if self.stalled_steps is None
                           else int(self.stalled_steps[agent])),
        )


def _snapshot_items(snap: SolveSnapshot, agent: int) -> dict[str, Any]:
    """The record items of one agent read from the solve's snapshot."""
    return {
        "current_velocity": (float(snap.velocity_mps[agent, 0]),
                             float(snap.velocity_mps[agent, 1])),
        "position_m": (float(snap.position_m[agent, 0]), float(snap.position_m[agent, 1])),
        "radius_m": float(snap.radius_m[agent]),
        "neighbor_dist_m": float(snap.neighbor_dist_m[agent]),
        "time_horizon_s": float(snap.time_horizon_s[agent]),
        "time_horizon_obst_s": float(snap.time_horizon_obst_s[agent]),
        "time_step_s": snap.time_step_s,
        "neighbors": snap.neighbors(agent),
        "obstacle_edges": snap.obstacle_edges(agent),
    }


def build_diagnostics(snapshot_time_s: float, preferred: np.ndarray, selected: np.ndarray,
                      max_speed: np.ndarray, point: np.ndarray, direction: np.ndarray,
                      valid: np.ndarray, num_hard: np.ndarray, feasible: np.ndarray,
                      fail_line: np.ndarray, *, snapshot: SolveSnapshot | None = None,
                      stalled_steps: np.ndarray | None = None) -> StepDiagnostics:
    """Diagnostics of one solve (see :class:`StepDiagnostics`); ``snapshot`` the state it read
    (current velocities, neighbours, horizons), ``stalled_steps`` the counts after a step that
    moved the crowd. Claim: O4, O8."""
    return StepDiagnostics(
        snapshot_time_s=float(snapshot_time_s),
        preferred=preferred.copy(),
        selected=selected,
        max_speed=max_speed.copy(),
        line_point=point,
        line_dir=direction,
        valid=valid,
        num_hard=num_hard,
        feasible=feasible,
        fail_line=fail_line,
        snapshot=snapshot,
        stalled_steps=stalled_steps,
    )
