"""Bodies at a patch edge: one handoff controller per body, which owns its mover (H4).

The World hands a body to :class:`navproof.handoff.controller.HandoffController` when its
route crosses the common edge of two slope patches and it has come within the trigger distance
of that edge. From then on the controller's commands move the body (the safe-step solve skips
it; its neighbours still see it at its executed state) until the handoff ends: adopted onto
the next patch (``Following`` on Q) or ``Failure``. The few bodies in a handoff are handled per
body; the crowd stays vectorised. Claim: H1-H10, A1-A5, V1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navproof.core.tolerances import EPS
from navproof.handoff.controller import (
    Feedback,
    HandoffController,
    HandoffParams,
    HandoffTarget,
    Snapshot,
    StepReport,
    Versions,
)
from navproof.handoff.phases import Phase
from navproof.handoff.record import HandoffRecord
from navproof.world.layout import CommonEdge, Layout

VERSIONS = Versions(p=1, q=1, edge=1, support=1, nav=1)
"""The World's patches, edges and navigation never change during a run."""


@dataclass
class HandoffBody:
    """One body in a handoff: its controller and the patches it crosses between."""

    agent: int
    controller: HandoffController
    edge: CommonEdge
    p_name: str
    q_name: str


@dataclass
class HandoffOutcome:
    """How a handoff ended (or where it stands at the end of a run)."""

    agent: int
    action_id: str
    from_patch: str
    to_patch: str
    phase: str
    attempts_used: int
    fault: str | None
    events: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "action_id": self.action_id, "from": self.from_patch,
                "to": self.to_patch, "phase": self.phase, "attempts_used": self.attempts_used,
                "fault": self.fault}


def _contact(edge: CommonEdge, p_name: str, q_name: str, x_m: np.ndarray) -> str:
    signed = float(edge.normal @ x_m) - edge.offset_m
    if signed < -EPS:
        return p_name
    if signed > EPS:
        return q_name
    return f"{p_name}|{q_name}"


class Handoffs:
    """The handoff bodies of a World and their durable record."""

    def __init__(self, record: HandoffRecord, params: HandoffParams, *,
                 assertions: bool) -> None:
        self.record = record
        self.params = params
        self.assertions = assertions
        self.epoch = record.begin_run("world")
        self.active: dict[int, HandoffBody] = {}
        self.outcomes: list[HandoffOutcome] = []

    def feedback(self, body: HandoffBody, time_s: float, x_m: np.ndarray,
                 v_world_mps: np.ndarray) -> Feedback:
        return Feedback(time_s=time_s, position_xy_m=(float(x_m[0]), float(x_m[1])),
                        velocity_xy_mps=(float(v_world_mps[0]), float(v_world_mps[1])),
                        contact_patch=_contact(body.edge, body.p_name, body.q_name, x_m),
                        support_id="ground")

    def snapshot(self, body: HandoffBody, x_m: np.ndarray,
                 sweep_clear: Callable[[np.ndarray, np.ndarray], bool]) -> Snapshot:
        contact = _contact(body.edge, body.p_name, body.q_name, x_m)
        return Snapshot(obstacle_version=1, versions=VERSIONS, target_valid=True,
                        support_valid=True, q_contact_ok=contact != body.p_name,
                        sweep_clear=sweep_clear)

    def begin(self, agent: int, edge: CommonEdge, layout: Layout, *, tick: int, time_s: float,
              x_m: np.ndarray, v_world_mps: np.ndarray,
              sweep_clear: Callable[[np.ndarray, np.ndarray], bool],
              brake_budget_mps2: float | None = None) -> None:
        """Register the handoff of ``agent`` across ``edge`` (Following -> Approaching); a moving
        body brakes first, at least at ``brake_budget_mps2`` [m/s^2], its horizontal
        acceleration cap on P (Claim: H1, A4)."""
        p_name, q_name = layout.patch_names[edge.p], layout.patch_names[edge.q]
        q_patch = layout.patches[edge.q]
        p_patch = layout.patches[edge.p]
        action_id = f"agent-{agent}-{p_name}-{q_name}-t{tick}"
        target = HandoffTarget(
            action_id=action_id, p_patch=p_name, q_patch=q_name, edge_id=f"{p_name}|{q_name}",
            edge_normal_xy=(float(edge.normal[0]), float(edge.normal[1])),
            edge_offset_m=edge.offset_m, support_id="ground", q_support_id="ground",
            q_gradient_xy=(float(q_patch.gradient[0]), float(q_patch.gradient[1])),
            q_support_velocity_xy_mps=(0.0, 0.0), versions=VERSIONS,
            p_gradient_xy=(float(p_patch.gradient[0]), float(p_patch.gradient[1])))
        body = HandoffBody(agent, None, edge, p_name, q_name)  # type: ignore[arg-type]
        fb = self.feedback(body, time_s, x_m, v_world_mps)
        body.controller = HandoffController.begin(
            self.record, target, self.params, epoch=self.epoch, tick=tick, feedback=fb,
            snapshot=self.snapshot(body, x_m, sweep_clear), assert_mode=self.assertions,
            brake_budget_mps2=brake_budget_mps2)
        self.active[agent] = body

    def step(self, body: HandoffBody, *, tick: int, step_index: int, time_s: float,
             dt_s: float, x_m: np.ndarray, v_world_mps: np.ndarray,
             sweep_clear: Callable[[np.ndarray, np.ndarray], bool]
             ) -> tuple[np.ndarray, np.ndarray] | None:
        """One physics step of one handoff body: the controller's tick with the actual state,
        its command executed, the mover's report accepted. Returns the executed (position,
        world velocity), or None once the handoff has ended (the mover is released)."""
        ctrl = body.controller
        ctrl.tick(tick, self.feedback(body, time_s, x_m, v_world_mps),
                  self.snapshot(body, x_m, sweep_clear))
        if ctrl.done:
            return None
        cmd = ctrl.command(step_index, time_s, time_s + dt_s)
        if cmd is None:
            return None
        x1 = x_m + np.asarray(cmd.displacement_xy_m)
        v1 = np.asarray(cmd.end_velocity_xy_mps, dtype=float)
        report = StepReport(tags=cmd.tags, step_index=step_index, t0_s=time_s,
                            t1_s=time_s + dt_s, displacement_xy_m=cmd.displacement_xy_m,
                            feedback=self.feedback(body, time_s + dt_s, x1, v1))
        ctrl.accept(report)
        return x1, v1

    def finish(self, body: HandoffBody) -> HandoffOutcome:
        """Release a body whose handoff ended and record the outcome."""
        self.active.pop(body.agent, None)
        outcome = self.outcome(body)
        self.outcomes.append(outcome)
        return outcome

    def outcome(self, body: HandoffBody) -> HandoffOutcome:
        row = body.controller.row
        return HandoffOutcome(body.agent, row.action_id, body.p_name, body.q_name, row.phase,
                              row.attempts_used, row.fault,
                              [e.kind for e in body.controller.events])

    @staticmethod
    def adopted(outcome: HandoffOutcome) -> bool:
        return outcome.phase == Phase.FOLLOWING.value
