"""What one velocity-space picture of an agent's step shows (numpy only, no drawing).

Seed 002's debugging list: 当前速度 (current velocity), 期望速度 (preferred), 最终选择速度
(selected), 邻居范围 (neighbour range), 每个邻居的相对位置与相对速度 (each neighbour's relative
position and velocity), 每条 ORCA 约束线及允许侧 (every ORCA line and its allowed side), 最大速度圆
(max-speed circle), 最终可行域 (the feasible region), 时间窗和状态快照时点 (time horizon and the
snapshot time). With the safe step (seed 000) the boundary half-planes (B4 step end, S3 stop
envelope, S1 stop from the step end) and the reachable disk (V2) join them.

Every constraint is a half-plane ``dot(normal, v) <= offset_mps`` or a disk ``|v - centre| <=
radius_mps``; its signed margin at the selected velocity is positive inside. Claim: O4, V2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navproof.core.tolerances import MONITOR_FEASIBILITY_REL


def tolerance_mps(speed_cap_mps: float) -> float:
    """How close (m/s) the selected velocity must lie to a constraint to be drawn as binding,
    and how far outside to count as a violation: the float64 slack of the assertion mode at the
    agent's velocity scale."""
    return MONITOR_FEASIBILITY_REL * (1.0 + abs(speed_cap_mps))


FAMILIES = {
    "orca-agent": "ORCA line (neighbour agent)",
    "orca-obstacle": "ORCA line (obstacle)",
    "step-end": "boundary: step end (B4)",
    "stop-envelope": "boundary: stop envelope (S3)",
    "stop-from-end": "boundary: stop from step end (S1)",
    "speed": "max-speed circle (V1)",
    "reach": "reachable disk (V2)",
}
"""Constraint families, each drawn in its own style, with the legend text."""


@dataclass(frozen=True)
class HalfPlane:
    """An allowed side ``dot(normal, v) <= offset_mps`` (normal points to the forbidden side)."""

    index: int
    family: str
    label: str
    normal: tuple[float, float]
    offset_mps: float
    margin_mps: float
    active: bool
    conflicting: bool
    neighbour: int | None = None


@dataclass(frozen=True)
class Disk:
    """An allowed disk ``|v - centre| <= radius_mps``."""

    family: str
    label: str
    centre: tuple[float, float]
    radius_mps: float
    margin_mps: float
    active: bool


@dataclass(frozen=True)
class VelocityScene:
    """One agent's step in velocity space, with the state it was computed from.

    ``frame`` names the velocity the axes show ("world velocity", or "velocity relative to the
    support" for the safe step). ``neighbours`` hold ``agent``, ``relative_position_m``,
    ``relative_velocity_mps``, ``radius_m``; ``obstacle_edges`` segments relative to the agent.
    ``tol_mps``: the slack of "binding" and "violated" (:func:`tolerance_mps`).
    """

    agent: int
    frame: str
    label: str
    feasible: bool
    snapshot_time_s: float
    current: tuple[float, float] | None
    preferred: tuple[float, float]
    selected: tuple[float, float]
    halfplanes: tuple[HalfPlane, ...]
    disks: tuple[Disk, ...]
    time_step_s: float | None = None
    time_horizon_s: float | None = None
    time_horizon_obst_s: float | None = None
    neighbor_dist_m: float | None = None
    radius_m: float | None = None
    neighbours: tuple[dict[str, Any], ...] = ()
    obstacle_edges: tuple[Any, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    tol_mps: float = MONITOR_FEASIBILITY_REL

    @property
    def constraint_count(self) -> int:
        """Half-planes and disks, each drawn once."""
        return len(self.halfplanes) + len(self.disks)

    @property
    def zero_velocity_feasible(self) -> bool:
        """Whether standing still satisfies every constraint."""
        tol = self.tol_mps
        return (all(h.offset_mps >= -tol for h in self.halfplanes)
                and all(np.hypot(*d.centre) <= d.radius_mps + tol for d in self.disks))

    @property
    def max_violation_mps(self) -> float:
        """Largest violation of any constraint by the selected velocity (m/s), at least 0."""
        margins = [h.margin_mps for h in self.halfplanes] + [d.margin_mps for d in self.disks]
        return max([0.0] + [-m for m in margins])

    def worst(self) -> HalfPlane | Disk | None:
        """The most violated constraint when some is violated beyond the tolerance, else None."""
        items: list[HalfPlane | Disk] = [*self.halfplanes, *self.disks]
        if not items:
            return None
        worst = min(items, key=lambda c: c.margin_mps)
        return worst if worst.margin_mps < -self.tol_mps else None

    def binding(self) -> list[HalfPlane | Disk]:
        """Constraints the selected velocity lies on: what held it back from the preferred one."""
        items: list[HalfPlane | Disk] = [*self.halfplanes, *self.disks]
        return [c for c in items if c.active]

    def verdict(self) -> str:
        """One sentence: which constraint stopped the agent, and whether it is a feasible answer."""
        moved = float(np.hypot(self.preferred[0] - self.selected[0],
                               self.preferred[1] - self.selected[1]))
        worst = self.worst()
        if worst is not None:
            zero = "feasible" if self.zero_velocity_feasible else "NOT feasible either"
            return (f"infeasible: largest violation {-worst.margin_mps:.3g} m/s on "
                    f"{worst.label}; zero velocity {zero}")
        if moved <= self.tol_mps:
            return "preferred velocity taken: no constraint binds"
        names = ", ".join(c.label for c in self.binding()) or "none (solver tolerance)"
        return f"held back by {names} ({moved:.3g} m/s from preferred)"

    def as_dict(self) -> dict[str, Any]:
        """Plain-JSON form (the items the picture draws)."""
        return {
            "agent": self.agent,
            "frame": self.frame,
            "label": self.label,
            "feasible": self.feasible,
            "verdict": self.verdict(),
            "snapshot_time_s": self.snapshot_time_s,
            "time_step_s": self.time_step_s,
            "time_horizon_s": self.time_horizon_s,
            "time_horizon_obst_s": self.time_horizon_obst_s,
            "neighbor_dist_m": self.neighbor_dist_m,
            "radius_m": self.radius_m,
            "current_velocity": None if self.current is None else list(self.current),
            "preferred_velocity": list(self.preferred),
            "selected_velocity": list(self.selected),
            "zero_velocity_feasible": self.zero_velocity_feasible,
            "max_violation_mps": self.max_violation_mps,
            "halfplanes": [{**h.__dict__, "normal": list(h.normal)} for h in self.halfplanes],
            "disks": [{**d.__dict__, "centre": list(d.centre)} for d in self.disks],
            "neighbours": list(self.neighbours),
            "obstacle_edges": list(self.obstacle_edges),
            "notes": list(self.notes),
        }


def _pair(v: Any) -> tuple[float, float]:
    return float(v[0]), float(v[1])


def line_to_halfplane(point: Any, direction: Any) -> tuple[tuple[float, float], float]:
    """RVO2 line (allowed side LEFT of the direction) as ``(normal, offset)`` of
    ``dot(normal, v) <= offset``: the normal is the direction turned clockwise."""
    normal = (float(direction[1]), -float(direction[0]))
    return normal, normal[0] * float(point[0]) + normal[1] * float(point[1])


def _disk(family: str, label: str, centre: Any, radius: float, v: Any, *, tol_mps: float
          ) -> Disk:
    c = _pair(centre)
    margin = float(radius) - float(np.hypot(v[0] - c[0], v[1] - c[1]))
    return Disk(family, label, c, float(radius), margin, abs(margin) <= tol_mps)


def scene_from_record(record: dict[str, Any]) -> VelocityScene:
    """The scene of an ORCA solve from a crowd record (``AgentRecord.as_dict()``)."""
    selected = _pair(record["selected_velocity"])
    halfplanes = []
    for line in record["lines"]:
        normal, offset = line_to_halfplane(line["point"], line["direction"])
        source = line.get("source")
        neighbour = int(source.split()[-1]) if source and source.startswith("agent ") else None
        kind = "orca-obstacle" if line["kind"] == "obstacle" else "orca-agent"
        name = source if source else ("obstacle" if kind == "orca-obstacle" else "agent")
        halfplanes.append(HalfPlane(
            index=int(line["index"]), family=kind, label=f"[{line['index']}] {name}",
            normal=normal, offset_mps=offset, margin_mps=-float(line["violation"]),
            active=bool(line["active"]), conflicting=bool(line["conflicting"]),
            neighbour=neighbour))
    speed = float(record["max_speed_mps"])
    tol = tolerance_mps(speed)
    disks = (_disk("speed", f"max speed {speed:g} m/s", (0.0, 0.0), speed, selected,
                   tol_mps=tol),)
    current = record.get("current_velocity")
    return VelocityScene(
        agent=int(record["agent"]), frame="world velocity", label=record["label"],
        feasible=bool(record["feasible"]), snapshot_time_s=float(record["snapshot_time_s"]),
        current=None if current is None else _pair(current),
        preferred=_pair(record["preferred_velocity"]), selected=selected,
        halfplanes=tuple(halfplanes), disks=disks, time_step_s=record.get("time_step_s"),
        time_horizon_s=record.get("time_horizon_s"),
        time_horizon_obst_s=record.get("time_horizon_obst_s"),
        neighbor_dist_m=record.get("neighbor_dist_m"), radius_m=record.get("radius_m"),
        neighbours=tuple(record.get("neighbors", ())),
        obstacle_edges=tuple(record.get("obstacle_edges", ())), tol_mps=tol)


def clip_polygon(polygon: np.ndarray, normal: Any, offset: float) -> np.ndarray:
    """The part of a convex polygon (M, 2) with ``dot(normal, v) <= offset`` (may be empty)."""
    if polygon.shape[0] == 0:
        return polygon
    n = np.asarray(normal, dtype=float)
    side = polygon @ n - offset
    out = []
    m = polygon.shape[0]
    for i in range(m):
        a, b = polygon[i], polygon[(i + 1) % m]
        sa, sb = side[i], side[(i + 1) % m]
        if sa <= 0.0:
            out.append(a)
        if (sa < 0.0 < sb) or (sb < 0.0 < sa):
            out.append(a + (b - a) * (sa / (sa - sb)))
    return np.array(out).reshape(-1, 2)


def feasible_polygon(scene: VelocityScene, *, sides: int = 360) -> np.ndarray:
    """The feasible region (M, 2) as a polygon: each disk by its inscribed ``sides``-gon,
    clipped by every half-plane; empty (0, 2) when nothing is feasible."""
    angle = np.linspace(0.0, 2.0 * np.pi, sides, endpoint=False)
    ring = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    poly: np.ndarray | None = None
    for disk in scene.disks:
        gon = np.asarray(disk.centre) + disk.radius_mps * ring
        if poly is None:
            poly = gon
            continue
        for i in range(sides):
            a, b = gon[i], gon[(i + 1) % sides]
            normal = np.array([b[1] - a[1], a[0] - b[0]])
            poly = clip_polygon(poly, normal, float(normal @ a))
    if poly is None:
        raise ValueError("a velocity scene needs at least one disk (the max-speed circle)")
    for h in scene.halfplanes:
        poly = clip_polygon(poly, h.normal, h.offset_mps)
    return poly


_BOUNDARY_FAMILIES = (("step-end", "step end"), ("stop-envelope", "stop envelope"),
                      ("stop-from-end", "stop from end"))


def scene_from_safe_step(inp: Any, result: Any, agent: int, *, record: dict[str, Any] | None = None
                         ) -> VelocityScene:
    """The scene of a safe step (``navproof.step``): every constraint the step prepares
    (:func:`navproof.step.constraints.prepare_constraints`) in the solve variable, the end
    velocity relative to the support. ``inp`` is the :class:`StepInput`, ``result`` its
    :class:`SafeStepResult`; ``record`` (the agent's ORCA record) adds the neighbours, horizons
    and line sources. Claim: B4, S1, S3, V1, V2, O2, F1-F3.
    """
    from navproof.step.constraints import prepare_constraints
    from navproof.step.inputs import check_valid_step_input
    from navproof.step.result import FLAG_NAMES, LABEL_NAMES

    prep = prepare_constraints(check_valid_step_input(inp))
    edge_planes, orca_planes = prep.edge_planes, prep.orca_planes
    i = int(agent)
    v1 = _pair(result.velocity_mps[i])
    vh = float(np.broadcast_to(inp.vh_mps, (inp.count,))[i])
    tol = tolerance_mps(vh)
    sources = {}
    if record is not None:
        sources = {int(line["index"]): line.get("source") for line in record["lines"]}
    halfplanes: list[HalfPlane] = []
    k = edge_planes.normal.shape[1] // 3
    for j in np.flatnonzero(edge_planes.valid[i]):
        family, name = _BOUNDARY_FAMILIES[int(j) // k]
        edge = int(j) % k
        halfplanes.append(_halfplane(len(halfplanes), family, f"edge {edge} {name}",
                                     edge_planes.normal[i, j], edge_planes.offset[i, j], v1,
                                     tol_mps=tol))
    num_hard = 0 if inp.orca_num_hard is None else int(inp.orca_num_hard[i])
    for j in np.flatnonzero(orca_planes.valid[i]):
        source = sources.get(int(j))
        family = "orca-obstacle" if j < num_hard else "orca-agent"
        name = source or ("obstacle" if j < num_hard else "agent")
        neighbour = int(source.split()[-1]) if source and source.startswith("agent ") else None
        halfplanes.append(_halfplane(len(halfplanes), family, f"[{j}] {name}",
                                     orca_planes.normal[i, j], orca_planes.offset[i, j], v1,
                                     tol_mps=tol, neighbour=neighbour))
    dt = float(np.broadcast_to(inp.dt_s, (inp.count,))[i])
    accel = float(np.broadcast_to(inp.accel_mps2, (inp.count,))[i])
    disks = (_disk("speed", f"speed cap Vh {vh:g} m/s", (0.0, 0.0), vh, v1, tol_mps=tol),
             _disk("reach", f"reachable |v1 - v0| <= a dt = {accel * dt:g} m/s",
                   inp.velocity_mps[i], accel * dt, v1, tol_mps=tol))
    label = LABEL_NAMES[int(result.label[i])]
    notes = [text for bit, text in FLAG_NAMES.items() if int(result.flags[i]) & bit]
    stop = result.reference.v_stop_mps[i]
    notes.append(f"stop target vStop ({stop[0]:+.3f}, {stop[1]:+.3f}) m/s")
    rec = record or {}
    return VelocityScene(
        agent=i, frame="velocity relative to the support", label=label, feasible=label == "safe",
        snapshot_time_s=float(rec.get("snapshot_time_s", 0.0)),
        current=_pair(inp.velocity_mps[i]), preferred=_pair(inp.preferred_mps[i]), selected=v1,
        halfplanes=tuple(halfplanes), disks=disks, time_step_s=dt,
        time_horizon_s=rec.get("time_horizon_s"),
        time_horizon_obst_s=rec.get("time_horizon_obst_s"),
        neighbor_dist_m=rec.get("neighbor_dist_m"), radius_m=float(inp.radius_m[i]),
        neighbours=tuple(rec.get("neighbors", ())),
        obstacle_edges=tuple(rec.get("obstacle_edges", ())), notes=tuple(notes), tol_mps=tol)


def _halfplane(index: int, family: str, label: str, normal: Any, offset: float, v: Any, *,
               tol_mps: float, neighbour: int | None = None) -> HalfPlane:
    """A half-plane of the safe step: binding within ``tol_mps``, conflicting when violated."""
    n = _pair(normal)
    margin = float(offset) - (n[0] * v[0] + n[1] * v[1])
    return HalfPlane(index, family, label, n, float(offset), margin, abs(margin) <= tol_mps,
                     margin < -tol_mps, neighbour)

