"""The diagnostics of a World run: label and flag counts, clearances over every step, stalls,
handoff outcomes, arrivals and the reason of every agent that did not arrive."""

from __future__ import annotations

from typing import Any

import numpy as np

from navproof.step import FLAG_NAMES, LABEL_NAMES
from navproof.world.world import STALL_STEPS, World, WorldStep

HANDOFF_LABEL = "moved by its handoff controller"


class RunSummary:
    """Accumulates :class:`WorldStep` diagnostics over a run (arrays, no per-agent loop)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.steps = 0
        self.label_counts = np.zeros(len(LABEL_NAMES) + 1, np.int64)
        self.flag_counts = {bit: 0 for bit in FLAG_NAMES}
        self.min_agent_clearance_m = np.inf
        self.min_wall_clearance_m = np.inf
        self.last_label = np.zeros(world.count, np.int8)
        self.step_seconds = 0.0
        self._last_position_m = world.position_m.copy()
        self.travelled_m = np.zeros(world.count)
        self.planned_m = _planned_length_m(world)

    def add(self, step: WorldStep, seconds: float) -> None:
        """Take one step's diagnostics (and the wall-clock seconds it took)."""
        self.steps += 1
        self.step_seconds += seconds
        self.label_counts += np.bincount(step.label.astype(np.int64) + 1,
                                         minlength=self.label_counts.size)
        for bit in self.flag_counts:
            self.flag_counts[bit] += int(np.count_nonzero(step.flags & bit))
        self.min_agent_clearance_m = min(self.min_agent_clearance_m,
                                         float(np.min(step.agent_clearance_m, initial=np.inf)))
        self.min_wall_clearance_m = min(self.min_wall_clearance_m,
                                        float(np.min(step.wall_clearance_m, initial=np.inf)))
        self.last_label = step.label
        now = self.world.position_m
        self.travelled_m += np.hypot(*(now - self._last_position_m).T)
        self._last_position_m = now.copy()

    def not_arrived(self) -> dict[str, str]:
        """Reason label of every agent not at its goal, by agent index."""
        w = self.world
        out: dict[str, str] = {}
        active = w.handoffs.active if w.handoffs is not None else {}
        failures = {o.agent: o for o in w.handoffs.outcomes} if w.handoffs is not None else {}
        rows = np.arange(w.count)
        goal = w.route_m[rows, w.route_count - 1]
        left_m = np.hypot(*(goal - w.position_m).T)
        for i in np.flatnonzero(~w.arrived).tolist():
            if i in active:
                out[str(i)] = f"in handoff ({active[i].controller.phase.value})"
            elif w.handoff_failed[i]:
                o = failures.get(i)
                out[str(i)] = f"handoff failed ({o.phase if o else '?'}" + (
                    f": {o.fault})" if o and o.fault else ")")
            elif w.stall_steps[i] >= STALL_STEPS:
                out[str(i)] = "stalled (O8): not moving for " \
                              f"{int(w.stall_steps[i])} steps, {left_m[i]:.2f} m from the goal"
            elif self.last_label[i] > 0:
                out[str(i)] = f"last step labelled '{LABEL_NAMES[int(self.last_label[i])]}'"
            else:
                out[str(i)] = f"on its way: {left_m[i]:.2f} m from the goal when the run ended"
        return out

    def per_agent(self) -> list[dict[str, Any]]:
        """One entry per agent: index, arrived, arrival time (s), distance travelled (m, the
        committed end points joined), planned route length (m) and the reason when not
        arrived."""
        w = self.world
        reasons = self.not_arrived()
        if w.navigation is not None:
            # a plan made during the run (set_goal, a replan) is the one that counts
            self.planned_m = w.navigation.planned_length_m()
        out = []
        for i in range(w.count):
            t = w.arrived_at_s[i]
            out.append({"index": i, "arrived": bool(np.isfinite(t)),
                        "arrival_time_s": round(float(t), 9) if np.isfinite(t) else None,
                        "distance_travelled_m": round(float(self.travelled_m[i]), 6),
                        "planned_route_length_m": round(float(self.planned_m[i]), 6),
                        "reason": reasons.get(str(i))})
        return out

    def as_dict(self) -> dict[str, Any]:
        """The JSON summary of the run."""
        w = self.world
        labels = {name: int(self.label_counts[i + 1]) for i, name in enumerate(LABEL_NAMES)}
        labels[HANDOFF_LABEL] = int(self.label_counts[0])
        outcomes = []
        if w.handoffs is not None:
            outcomes = [o.as_dict() for o in w.handoffs.outcomes]
            outcomes += [w.handoffs.outcome(b).as_dict() for b in w.handoffs.active.values()]
        agent_steps = self.steps * w.count
        return {
            "agents": w.count,
            "steps": self.steps,
            "time_s": round(w.time_s, 9),
            "arrived": int(np.count_nonzero(w.arrived)),
            "not_arrived": self.not_arrived(),
            "min_agent_clearance_m": _finite(self.min_agent_clearance_m),
            "min_wall_clearance_m": _finite(self.min_wall_clearance_m),
            "labels": labels,
            "fallbacks": {name: labels[name] for name in LABEL_NAMES[1:]},
            "flags": {FLAG_NAMES[bit]: n for bit, n in self.flag_counts.items()},
            "stalls_reported": int(np.count_nonzero(w.stalled)),
            "handoffs": outcomes,
            "agent_steps_per_s": round(agent_steps / self.step_seconds, 1)
            if self.step_seconds > 0 else None,
            "per_agent": self.per_agent(),
        }


def _planned_length_m(world: World) -> np.ndarray:
    """Planned route length (m) of every agent: its mesh route, else its waypoint polyline
    from where it starts."""
    if world.navigation is not None:
        return world.navigation.planned_length_m()
    rows = np.arange(world.count)
    out = np.zeros(world.count)
    prev = world.position_m.copy()
    for k in range(world.route_m.shape[1]):
        on = k < world.route_count
        here = world.route_m[rows, k]
        out += np.where(on, np.hypot(*(here - prev).T), 0.0)
        prev = np.where(on[:, None], here, prev)
    return out


def _finite(value: float) -> float | None:
    """A JSON number, or None when nothing was measured (no neighbour, no wall)."""
    return float(value) if np.isfinite(value) else None
