"""What the handoff action record stores: the SQLite schema, the columns a decision may change,
the forward-only attempt states, and the rows read back (Claim: H5, H7). The file handling and
the transactions are :mod:`navproof.handoff.record`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from navproof.core.errors import InvalidInput

SCHEMA_VERSION = 2
"""2 marked the record file as one that may hold an application's own tables beside the
record's (the P/Q demo keeps its simulated world there, in a ``world`` table it creates and
owns: :mod:`navproof.demos.pq_handoff.world_table`); a schema-1 record is upgraded on open by
setting the version."""
APPLICATION_ID = 0x4E504858  # "NPHX": marks a navproof handoff record

SCHEMA_SQL = """
CREATE TABLE runs (
    run_epoch INTEGER PRIMARY KEY AUTOINCREMENT,
    pid INTEGER NOT NULL,
    purpose TEXT NOT NULL
);
CREATE TABLE actions (
    action_id TEXT PRIMARY KEY,
    created_epoch INTEGER NOT NULL,
    p_patch TEXT NOT NULL, p_version INTEGER NOT NULL,
    q_patch TEXT NOT NULL, q_version INTEGER NOT NULL,
    edge_id TEXT NOT NULL, edge_version INTEGER NOT NULL,
    support_id TEXT NOT NULL, support_version INTEGER NOT NULL,
    nav_version INTEGER NOT NULL,
    edge_normal_x REAL NOT NULL, edge_normal_y REAL NOT NULL, edge_offset_m REAL NOT NULL,
    first_approach_tick INTEGER NOT NULL,
    deadline_tick INTEGER NOT NULL,
    max_attempts INTEGER NOT NULL,
    attempts_used INTEGER NOT NULL DEFAULT 0,
    current_attempt INTEGER NOT NULL DEFAULT 0,
    current_epoch INTEGER NOT NULL,
    current_motion TEXT NOT NULL DEFAULT 'none',
    phase TEXT NOT NULL,
    patch TEXT NOT NULL,
    obstacle_version INTEGER NOT NULL,
    adoption TEXT,
    fault TEXT
);
CREATE TABLE attempts (
    action_id TEXT NOT NULL REFERENCES actions(action_id),
    attempt_no INTEGER NOT NULL,
    registered_epoch INTEGER NOT NULL,
    dispatched_epoch INTEGER,
    start_x_m REAL NOT NULL, start_y_m REAL NOT NULL,
    end_x_m REAL NOT NULL, end_y_m REAL NOT NULL,
    length_m REAL NOT NULL,
    accel_s REAL NOT NULL, cruise_s REAL NOT NULL, brake_s REAL NOT NULL, total_s REAL NOT NULL,
    dispatch_time_s REAL,
    executed_s REAL NOT NULL DEFAULT 0,
    state TEXT NOT NULL,
    PRIMARY KEY (action_id, attempt_no)
);
CREATE TABLE displacements (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    action_id TEXT NOT NULL,
    recorded_epoch INTEGER NOT NULL,
    tag_epoch INTEGER NOT NULL,
    tag_attempt INTEGER NOT NULL,
    tag_motion TEXT NOT NULL,
    step_index INTEGER NOT NULL,
    t0_s REAL NOT NULL, t1_s REAL NOT NULL,
    dx_m REAL NOT NULL, dy_m REAL NOT NULL,
    accepted INTEGER NOT NULL,
    reason TEXT NOT NULL
);
CREATE UNIQUE INDEX displacement_accepted_once
    ON displacements(action_id, step_index) WHERE accepted = 1;
CREATE TABLE feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    action_id TEXT NOT NULL,
    run_epoch INTEGER NOT NULL,
    time_s REAL NOT NULL,
    x_m REAL NOT NULL, y_m REAL NOT NULL,
    vx_mps REAL NOT NULL, vy_mps REAL NOT NULL,
    contact TEXT,
    support TEXT
);
CREATE TABLE decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    action_id TEXT NOT NULL,
    run_epoch INTEGER NOT NULL,
    tick INTEGER NOT NULL,
    time_s REAL NOT NULL,
    kind TEXT NOT NULL,
    phase TEXT NOT NULL,
    attempt_no INTEGER NOT NULL,
    attempts_used INTEGER NOT NULL,
    deadline_tick INTEGER NOT NULL,
    detail TEXT NOT NULL
);
"""

ACTION_UPDATABLE = frozenset(
    {
        "attempts_used", "current_attempt", "current_epoch", "current_motion", "phase", "patch",
        "obstacle_version", "adoption", "fault",
    }
)
# An attempt only moves forward: once interrupted, completed or void it never runs again.
ATTEMPT_NEXT: dict[str, frozenset[str]] = {
    "registered": frozenset({"dispatched", "interrupted", "void"}),
    "dispatched": frozenset({"interrupted", "completed", "void"}),
    "interrupted": frozenset(),
    "completed": frozenset(),
    "void": frozenset(),
}


class RecordError(InvalidInput):
    """The action record cannot be used as asked; names the file or field, the value and why.

    Raised before anything is written, so the file is left as it was.
    """


@dataclass(frozen=True)
class ActionSpec:
    """Identity and versions of one handoff action, fixed when it is registered (Claim: H5, H7)."""

    action_id: str
    p_patch: str
    p_version: int
    q_patch: str
    q_version: int
    edge_id: str
    edge_version: int
    support_id: str
    support_version: int
    nav_version: int
    edge_normal_xy: tuple[float, float]
    edge_offset_m: float
    first_approach_tick: int
    deadline_tick: int
    max_attempts: int


@dataclass(frozen=True)
class ActionRow(ActionSpec):
    """The stored state of one action: its registration plus what the decisions changed."""

    created_epoch: int
    attempts_used: int
    current_attempt: int
    current_epoch: int
    current_motion: str
    phase: str
    patch: str
    obstacle_version: int
    adoption: str | None
    fault: str | None

    @property
    def attempts_left(self) -> int:
        return self.max_attempts - self.attempts_used


@dataclass(frozen=True)
class AttemptRow:
    """One access attempt: identity, endpoints, piece durations, executed time and state."""

    action_id: str
    attempt_no: int
    registered_epoch: int
    dispatched_epoch: int | None
    start_x_m: float
    start_y_m: float
    end_x_m: float
    end_y_m: float
    length_m: float
    accel_s: float
    cruise_s: float
    brake_s: float
    total_s: float
    dispatch_time_s: float | None
    executed_s: float
    state: str


@dataclass(frozen=True)
class DecisionRow:
    """One entry of the decision log."""

    id: int
    action_id: str
    run_epoch: int
    tick: int
    time_s: float
    kind: str
    phase: str
    attempt_no: int
    attempts_used: int
    deadline_tick: int
    detail: dict[str, Any]


@dataclass(frozen=True)
class MotionTags:
    """Identity a displacement carries from the mover: run epoch, action, attempt, motion."""

    run_epoch: int
    action_id: str
    attempt_no: int
    motion: str
