"""The seed's P/Q slope handoff as a runnable scenario over a persistent simulated world.

The scenario's data (patches, start, obstacle-version changes, handoff parameters) is a file,
``navproof/demos/pq_handoff/pq_handoff.toml`` by default (:mod:`.data`); this module
is the logic: the world along X (the edge is X = 0, the plane X <= 0, the slope X >= 0), the
drive loop of the controller and the report.

The world (pose, velocity, time, obstacle versions, the mover's last report and the trajectory) is
the plant: it is persisted after every physics step, in its own transaction, independently of the
controller's decisions, so a killed process resumes from the actual state, never from a saved
target. With ``--db FILE`` it is stored in that record file, in the demo's own ``world`` table
(:mod:`.world_table`; the handoff record knows nothing of it): one run is one file. A record written
by an older navproof kept the world beside it in ``FILE.world.json``; a resume reads that file once
into the record (and leaves it in place).
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.core.tolerances import EPS
from navproof.demos.pq_handoff.data import PQScenario, default_pq_scenario
from navproof.demos.pq_handoff.world_table import load_world, save_world
from navproof.handoff.controller import (
    Feedback,
    HandoffController,
    HandoffEvent,
    HandoffParams,
    MotionCommand,
    Snapshot,
    StepReport,
    Versions,
)
from navproof.handoff.phases import TERMINAL, Phase, RouteStatus
from navproof.handoff.record import HandoffRecord, MotionTags, RecordError

WORLD_SCHEMA = 1
CRASH_STAGES = ("tick", "applied", "accepted")


@dataclass
class PQWorld:
    """The simulated body and environment; persisted atomically after every change."""

    path: Path
    step_s: float
    time_s: float = 0.0
    step_index: int = 0
    position_xy_m: list[float] = field(default_factory=list)
    """Empty until set: the scenario's start position (see ``__post_init__``)."""
    velocity_xy_mps: list[float] = field(default_factory=lambda: [0.0, 0.0])
    last_report: dict[str, Any] | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    push_at_s: float | None = None
    push_velocity_xy_mps: list[float] | None = None
    scenario: PQScenario = field(default_factory=default_pq_scenario, repr=False)
    """The scenario's data; not persisted (a resumed run reads its scenario file again)."""
    record: HandoffRecord | None = field(default=None, repr=False)
    """Where the world is stored: the run's record file; without one, the JSON file ``path``."""

    def __post_init__(self) -> None:
        if not self.position_xy_m:
            self.position_xy_m = [self.scenario.start_x_m, 0.0]

    @classmethod
    def load(cls, path: Path, *, scenario: PQScenario | None = None) -> PQWorld:
        """The world persisted as JSON at ``path``; InvalidInput naming the file when it is
        missing or malformed."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InvalidInput("world", str(path), "is missing; nothing to resume") from None
        except (OSError, ValueError) as exc:
            raise InvalidInput("world", str(path), f"cannot be read: {exc}") from None
        return cls._from_data(path, data, scenario=scenario, record=None)

    @classmethod
    def from_record(cls, record: HandoffRecord, *,
                    scenario: PQScenario | None = None) -> PQWorld | None:
        """The world stored in the record, or None when the record holds none."""
        data = load_world(record)
        if data is None:
            return None
        return cls._from_data(record.path, data, scenario=scenario, record=record)

    @classmethod
    def _from_data(cls, path: Path, data: Any, *, scenario: PQScenario | None,
                   record: HandoffRecord | None) -> PQWorld:
        names = {f for f in cls.__dataclass_fields__ if f not in ("path", "scenario", "record")}
        if not isinstance(data, dict) or data.get("schema") != WORLD_SCHEMA \
                or set(data) - {"schema"} - names:
            raise InvalidInput("world", str(path), f"is not a pq-handoff world (schema "
                                                   f"{WORLD_SCHEMA})")
        data = {k: v for k, v in data.items() if k != "schema"}
        _check_finite(f"world in {path}", data)
        return cls(path=path, **data, scenario=scenario or default_pq_scenario(), record=record)

    def persist(self) -> None:
        """Store the world (one durable write); InvalidInput naming the field, with nothing
        written, when a number in it is not finite."""
        data = {k: v for k, v in self.__dict__.items()
                if k not in ("path", "scenario", "record")}
        _check_finite("world", data)
        data["schema"] = WORLD_SCHEMA
        if self.record is not None:
            save_world(self.record, self.step_index, data)
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def obstacle_state(self) -> tuple[int, bool]:
        """Obstacle version (1 + changes so far) and whether it blocks the access sweep."""
        version, blocked = 1, False
        for at_s, blocks in self.scenario.obstacle_changes:
            if self.time_s >= at_s - EPS:
                version, blocked = version + 1, blocks
        return version, blocked

    def contact_patch(self) -> str:
        x = self.position_xy_m[0]
        if x < -EPS:
            return self.scenario.plane
        if x > EPS:
            return self.scenario.slope
        return self.scenario.edge_id

    def height_m(self) -> float:
        """Foot height: 0 on the plane, gradient * X on the slope (the actual surface, never a
        remapped one)."""
        return self.scenario.slope_gradient_x * max(self.position_xy_m[0], 0.0)

    def feedback(self) -> Feedback:
        return Feedback(
            time_s=self.time_s,
            position_xy_m=(self.position_xy_m[0], self.position_xy_m[1]),
            velocity_xy_mps=(self.velocity_xy_mps[0], self.velocity_xy_mps[1]),
            contact_patch=self.contact_patch(),
            support_id=self.scenario.support_id,
            contact_stable=True,
        )

    def snapshot(self) -> Snapshot:
        version, blocked = self.obstacle_state()
        return Snapshot(
            obstacle_version=version,
            versions=Versions(p=1, q=1, edge=1, support=1, nav=1),
            target_valid=True,
            support_valid=True,
            q_contact_ok=self.contact_patch() in (self.scenario.edge_id, self.scenario.slope),
            sweep_clear=lambda start, end: not blocked,
        )

    def apply(self, cmd: MotionCommand) -> StepReport:
        """Execute one command: move by its displacement, take its end velocity, advance time;
        persist; return the mover's report under the command's tags."""
        x0 = list(self.position_xy_m)
        self.position_xy_m = [x0[0] + cmd.displacement_xy_m[0], x0[1] + cmd.displacement_xy_m[1]]
        self.velocity_xy_mps = list(cmd.end_velocity_xy_mps)
        self.step_index = cmd.step_index + 1
        self.time_s = self.step_index * self.step_s
        if self.push_at_s is not None and self.push_velocity_xy_mps is not None \
                and abs(self.time_s - self.push_at_s) <= EPS:
            self.velocity_xy_mps = list(self.push_velocity_xy_mps)
        tags = cmd.tags
        self.last_report = {
            "tags": [tags.run_epoch, tags.action_id, tags.attempt_no, tags.motion],
            "step_index": cmd.step_index, "t0_s": cmd.t0_s, "t1_s": cmd.t1_s,
            "displacement_xy_m": list(cmd.displacement_xy_m),
        }
        self.history.append({
            "step_index": cmd.step_index, "t0_s": cmd.t0_s, "t1_s": self.time_s,
            "x0_m": x0[0], "y0_m": x0[1], "x1_m": self.position_xy_m[0],
            "y1_m": self.position_xy_m[1], "dx_m": cmd.displacement_xy_m[0],
            "dy_m": cmd.displacement_xy_m[1], "vx1_mps": self.velocity_xy_mps[0],
            "epoch": tags.run_epoch, "attempt": tags.attempt_no, "motion": tags.motion,
        })
        self.persist()
        return self.report_from(self.last_report)

    def report_from(self, data: dict[str, Any]) -> StepReport:
        epoch, action_id, attempt_no, motion = data["tags"]
        return StepReport(
            tags=MotionTags(int(epoch), str(action_id), int(attempt_no), str(motion)),
            step_index=int(data["step_index"]), t0_s=float(data["t0_s"]),
            t1_s=float(data["t1_s"]),
            displacement_xy_m=tuple(data["displacement_xy_m"]), feedback=self.feedback(),
        )


def _check_finite(where: str, value: Any, key: str = "") -> None:
    """InvalidInput(field, value, rule) for the first NaN or infinite number in ``value``: a
    non-finite pose or velocity would steer the controller to a silently wrong state."""
    if isinstance(value, dict):
        for k, v in value.items():
            _check_finite(where, v, f"{key}.{k}" if key else str(k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_finite(where, v, f"{key}[{i}]")
    elif isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(f"{where}: {key}", value, "must be finite; nothing was written")


def drive(
    ctrl: HandoffController,
    world: PQWorld,
    params: HandoffParams,
    *,
    limit_tick: int,
    on_stage: Callable[[str, float], None] | None = None,
    on_step: Callable[[MotionCommand], None] | None = None,
) -> None:
    """Run the controller against the world until the handoff ends or ``limit_tick``.

    Per physics step: the controller's tick with the actual feedback and snapshot, its command,
    the world executing it (and persisting), the controller accepting the mover's report.
    ``on_stage(name, time_s)`` is called after each of "tick", "applied" and "accepted".
    """
    while True:
        tick = round(world.time_s / params.tick_s)
        ctrl.tick(tick, world.feedback(), world.snapshot())
        if on_stage:
            on_stage("tick", world.time_s)
        if ctrl.done or tick > limit_tick:
            return
        t0_s = world.step_index * params.step_s
        cmd = ctrl.command(world.step_index, t0_s, (world.step_index + 1) * params.step_s)
        if cmd is None:
            return
        report = world.apply(cmd)
        if on_stage:
            on_stage("applied", world.time_s)
        ctrl.accept(report)
        if on_step:
            on_step(cmd)
        if on_stage:
            on_stage("accepted", world.time_s)


@dataclass
class PQResult:
    """Outcome of a scenario run."""

    final_phase: str
    route_status: str
    exit_code: int
    timeline: list[dict[str, Any]]
    summary: dict[str, Any]


class _Printer:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.rows: list[dict[str, Any]] = []

    def row(self, *, time_s: float, tick: int, phase: str, x_m: float, speed_mps: float,
            kind: str, note: str) -> None:
        self.rows.append({"time_s": round(time_s, 6), "tick": tick, "phase": phase,
                          "x_m": round(x_m, 6), "speed_mps": round(speed_mps, 6),
                          "kind": kind, "note": note})
        marker = "*" if kind != "step" else " "
        # round before printing so that -1e-18 shows as +0.0000
        self.out.write(f"{time_s:7.3f} {tick:4d} {phase:<12} {round(x_m, 4) + 0.0:+.4f} "
                       f"{round(speed_mps, 4) + 0.0:8.4f} {marker} {note}\n")
        self.out.flush()

    def event(self, ev: HandoffEvent) -> None:
        """Print a controller event as it happens (so a killed run shows its last decision)."""
        self.row(time_s=ev.time_s, tick=ev.tick, phase=ev.phase, x_m=ev.position_xy_m[0],
                 speed_mps=ev.speed_mps, kind=ev.kind, note=ev.message)


def _crash(stage: str, time_s: float, crash_at_s: float | None, crash_stage: str,
           out: TextIO) -> None:
    if crash_at_s is None or stage != crash_stage or time_s < crash_at_s - EPS:
        return
    out.write(f"-- crash requested at t = {time_s:.3f} s ({stage}): SIGKILL\n")
    out.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def run_pq_handoff(
    *,
    scenario: PQScenario | None = None,
    db_path: Path | None = None,
    resume: bool = False,
    crash_at_s: float | None = None,
    crash_stage: str = "applied",
    pace_s: float = 0.0,
    params: HandoffParams | None = None,
    out: TextIO | None = None,
    push_at_s: float | None = None,
    push_velocity_xy_mps: tuple[float, float] | None = None,
    on_dispatch: Callable[[int], None] | None = None,
) -> PQResult:
    """Run (or resume) the P/Q handoff and return the timeline and the outcome.

    Claim: A1–A5, H1–H10, V1. ``scenario`` is the data (default:
    ``navproof/demos/pq_handoff/pq_handoff.toml``); ``params``, when given, replaces its handoff
    parameters. ``crash_at_s`` SIGKILLs the process at the first ``crash_stage`` point whose
    simulated time reaches it; ``resume`` continues from the record and the world.
    ``push_*`` sets the world velocity at a time (an external force, H8). ``on_dispatch`` is
    handed to the controller (called between an attempt's durable registration and its dispatch).
    """
    out = out or sys.stdout
    if crash_stage not in CRASH_STAGES:
        raise InvalidInput("crash_stage", crash_stage, f"must be one of {CRASH_STAGES}")
    if crash_at_s is not None and not (math.isfinite(crash_at_s) and crash_at_s >= 0):
        raise InvalidInput("crash_at_s", crash_at_s, "must be finite and >= 0")
    if resume and db_path is None:
        raise InvalidInput("db", None, "--resume needs --db FILE")
    if push_at_s is not None and not (math.isfinite(push_at_s) and push_at_s >= 0):
        raise InvalidInput("push_at_s", push_at_s, "must be finite and >= 0")
    if push_velocity_xy_mps is not None and not (
            len(push_velocity_xy_mps) == 2 and all(math.isfinite(v) for v in push_velocity_xy_mps)):
        raise InvalidInput("push_velocity_xy_mps", push_velocity_xy_mps,
                           "must be two finite numbers")
    scenario = scenario or default_pq_scenario()
    if params is not None:
        scenario = replace(scenario, params=params)
    args = (scenario, resume, crash_at_s, crash_stage, pace_s, out, push_at_s,
            push_velocity_xy_mps)
    if db_path is not None:
        return _run(Path(db_path), *args, keep_record=True, on_dispatch=on_dispatch)
    # No record kept: a private folder that is removed afterwards.
    with tempfile.TemporaryDirectory(prefix="navproof-pq-") as tmp:
        return _run(Path(tmp) / "pq-handoff.db", *args, keep_record=False,
                    on_dispatch=on_dispatch)


def _stored_world(record: HandoffRecord, scenario: PQScenario) -> PQWorld:
    """The world a resume continues from: the record's, else (a record of an older navproof)
    the ``FILE.world.json`` beside it, copied into the record once."""
    world = PQWorld.from_record(record, scenario=scenario)
    if world is not None:
        return world
    legacy = record.path.with_name(record.path.name + ".world.json")
    if not legacy.exists():
        raise InvalidInput("world", str(record.path), "holds no world; nothing to resume")
    world = replace(PQWorld.load(legacy, scenario=scenario), path=record.path, record=record)
    world.persist()
    return world


def _run(db: Path, scenario: PQScenario, resume: bool,
         crash_at_s: float | None, crash_stage: str, pace_s: float, out: TextIO,
         push_at_s: float | None, push_velocity: tuple[float, float] | None, *,
         keep_record: bool, on_dispatch: Callable[[int], None] | None) -> PQResult:
    target = scenario.target()
    params = scenario.params
    action_id = scenario.action_id
    if resume and not db.exists():
        raise InvalidInput("db", str(db), "does not exist; nothing to resume")
    # exclusive: a second run on the same file is refused before it writes or moves anything
    with HandoffRecord.open(db, exclusive=True) as record:
        existing = record.action_ids()
        if not resume and existing:
            raise RecordError("db", str(db), f"already holds action(s) {existing}; use --resume "
                                             "or another file (nothing was changed)")
        if resume and existing and action_id not in existing:
            record.load(action_id)
        world = _stored_world(record, scenario) if resume else None
        printer = _Printer(out)
        out.write(f"navproof simulate pq-handoff: {scenario.headline()}\n")
        out.write(f"record {db}\n" if keep_record
                  else "record: temporary (use --db FILE to keep it)\n")
        out.write("  t [s] tick phase          X [m]  v [m/s]   note (* = decision or event)\n")
        if world is not None and action_id in existing \
                and Phase(record.load(action_id).phase) in TERMINAL:
            # a finished run: report it, write nothing (no new epoch, no re-offered step)
            row = record.load(action_id)
            printer.row(time_s=world.time_s, tick=round(world.time_s / params.tick_s),
                        phase=row.phase, x_m=world.position_xy_m[0],
                        speed_mps=float(np.linalg.norm(world.velocity_xy_mps)), kind="recover",
                        note=f"action already ended in {row.phase}; nothing to resume, "
                             "nothing written")
            return _result(record, scenario, world, row, epoch=record.latest_epoch(),
                           status=(RouteStatus.FAILURE if row.phase == Phase.FAILURE.value
                                   else RouteStatus.RUNNING).value, out=out, printer=printer)
        if world is None:
            world = PQWorld(path=db, step_s=params.step_s, push_at_s=push_at_s,
                            push_velocity_xy_mps=None if push_velocity is None
                            else list(push_velocity), scenario=scenario, record=record)
            world.persist()
        epoch = record.begin_run("recover" if resume else "start")
        tick = round(world.time_s / params.tick_s)
        fb, snap = world.feedback(), world.snapshot()
        if action_id in existing:
            ctrl = HandoffController.recover(record, target, params, epoch=epoch, tick=tick,
                                             feedback=fb, snapshot=snap,
                                             listener=printer.event, on_dispatch=on_dispatch)
            if world.last_report is not None:
                ctrl.accept(world.report_from(world.last_report))
        else:
            # a run killed before it registered the action: the handoff begins from the actual
            # state of the world
            ctrl = HandoffController.begin(record, target, params, epoch=epoch, tick=tick,
                                           feedback=fb, snapshot=snap,
                                           listener=printer.event, on_dispatch=on_dispatch)
        limit_tick = record.load(action_id).deadline_tick + params.handoff_deadline_ticks

        def stage(name: str, time_s: float) -> None:
            _crash(name, time_s, crash_at_s, crash_stage, out)
            if name == "accepted" and pace_s > 0:
                time.sleep(pace_s)

        def stepped(cmd: MotionCommand) -> None:
            printer.row(time_s=world.time_s, tick=round(world.time_s / params.tick_s),
                        phase=ctrl.row.phase, x_m=world.position_xy_m[0],
                        speed_mps=float(np.linalg.norm(world.velocity_xy_mps)), kind="step",
                        note=f"step {cmd.step_index}: "
                             + {"none": "hold"}.get(cmd.tags.motion, cmd.tags.motion)
                             + (f" (attempt {cmd.tags.attempt_no})" if cmd.tags.attempt_no
                                else ""))

        drive(ctrl, world, params, limit_tick=limit_tick, on_stage=stage, on_step=stepped)
        return _result(record, scenario, world, record.load(action_id), epoch=epoch,
                       status=ctrl.route_status().value, out=out, printer=printer)


def _result(record: HandoffRecord, scenario: PQScenario, world: PQWorld, row: Any, *,
            epoch: int, status: str, out: TextIO, printer: _Printer) -> PQResult:
    """Summarise the record's action, print the final line and pick the exit code."""
    action_id = scenario.action_id
    summary = {
        "action_id": action_id,
        "final_phase": row.phase,
        "patch": row.patch,
        "attempts_used": row.attempts_used,
        "max_attempts": row.max_attempts,
        "first_approach_tick": row.first_approach_tick,
        "deadline_tick": row.deadline_tick,
        "fault": row.fault,
        "adoption": json.loads(row.adoption) if row.adoption else None,
        "attempts": [a.__dict__ for a in record.attempts(action_id)],
        "rejected_displacements": sum(
            1 for d in record.displacement_log(action_id) if not d["accepted"]),
        "run_epoch": epoch,
        "final_x_m": world.position_xy_m[0],
        "final_height_m": world.height_m(),
    }
    summary["route_status"] = status
    out.write(f"final phase {row.phase} on {row.patch}; route {status}; attempts "
              f"{row.attempts_used}/{row.max_attempts}; deadline tick {row.deadline_tick}; "
              f"rejected displacements {summary['rejected_displacements']}"
              + (f"; FAULT {row.fault}" if row.fault else "") + "\n")
    exit_code = 0 if row.phase == Phase.FOLLOWING.value and row.patch == scenario.slope else 1
    return PQResult(row.phase, status, exit_code, printer.rows, summary)
