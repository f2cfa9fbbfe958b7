"""A World run recorded for pictures: positions per step, radii, goals, obstacles, the corridor
region, supports and slope patches as the World knows them (numpy only; nothing is drawn here).

The recorder copies the World's arrays once per step (no per-agent loop); the few platforms
are read per step because they turn (B6). Its :meth:`RunRecorder.run` is the
:class:`~navproof.viz.trajectories.RecordedRun` the drawing functions take.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from navproof.viz.trajectories import ARRIVED, RecordedRun, Region


def _support_label(spec: Any) -> str:
    accel = float(np.hypot(*np.asarray(spec.acceleration_mps2, dtype=np.float64)))
    speeding = f", accelerating {accel:g} m/s^2" if accel else ""
    if spec.kind == "platform":
        return f"{spec.name} (platform, {spec.omega_radps:g} rad/s{speeding})"
    vx, vy = (float(v) for v in spec.velocity_mps)
    return f"{spec.name} (conveyor, {np.hypot(vx, vy):g} m/s{speeding})"


class RunRecorder:
    """Records a :class:`navproof.world.World`: its state now (time 0 of the picture) and after
    every :meth:`add`. Claim: T4 (the executed state each step reads)."""

    def __init__(self, world: Any) -> None:
        self.world = world
        self._time_s: list[float] = []
        self._position_m: list[np.ndarray] = []
        self._platforms = [s for s, spec in enumerate(world.layout.supports)
                           if spec.kind == "platform"]
        self._platform_m: list[list[np.ndarray]] = [[] for _ in self._platforms]
        self._take()

    def _take(self) -> None:
        w = self.world
        self._time_s.append(float(w.time_s))
        self._position_m.append(w.position_m.copy())
        for slot, s in enumerate(self._platforms):
            self._platform_m[slot].append(w.layout.platform_vertices(s))

    def add(self, *_: object) -> None:
        """Record the World's state after a step (any arguments, e.g. the step's result, are
        ignored: the executed positions are read from the World)."""
        self._take()

    @property
    def steps(self) -> int:
        """Steps recorded after the initial state."""
        return len(self._time_s) - 1

    def regions(self) -> tuple[Region, ...]:
        """The corridor region, the slope patches and the supports (platforms with their
        polygon at every recorded time). Regions are in body-centre space (C2)."""
        layout = self.world.layout
        out: list[Region] = []
        if layout.corridor is not None:
            out.append(Region("corridor", "corridor (centre space)", layout.corridor.copy()))
        for name, patch in zip(layout.patch_names, layout.patches, strict=True):
            out.append(Region("patch", f"{name} (k = {patch.slope_factor:.3g})",
                              patch.vertices_m.copy()))
        platform_slot = {s: slot for slot, s in enumerate(self._platforms)}
        for s, spec in enumerate(layout.supports):
            moving = None
            if s in platform_slot:
                moving = np.stack(self._platform_m[platform_slot[s]])
            out.append(Region("support", _support_label(spec), spec.vertices_m.copy(),
                              polygon_at_m=moving))
        return tuple(out)

    def run(self, *, labels: dict[int, str] | None = None) -> RecordedRun:
        """The recorded run; ``labels`` maps agent index -> reason it did not arrive (the
        others are labelled "arrived" when the World says so, "on its way" otherwise)."""
        w = self.world
        rows = np.arange(w.count)
        reasons = labels or {}
        arrived = w.arrived
        names = tuple(ARRIVED if arrived[i] else reasons.get(i, "on its way")
                      for i in range(w.count))
        return RecordedRun(np.asarray(self._time_s), np.stack(self._position_m),
                           w.radius_m.copy(),
                           obstacles=tuple(np.asarray(o).copy() for o in w.layout.obstacles),
                           regions=self.regions(),
                           goals_m=w.route_m[rows, w.route_count - 1].copy(),
                           labels=names)
