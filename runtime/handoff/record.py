"""Durable action record of slope handoffs in SQLite (standard library ``sqlite3``).

One file holds, per handoff action: the P/Q, edge, support and navigation versions, the
deadline and attempt budget, every access attempt (endpoints, piece durations, executed time,
state), the last actual feedback, the run epochs, every displacement offered by the mover
(accepted or rejected with the reason) and the decision log. Every write is one transaction in
WAL mode with ``synchronous=FULL``, so a decision is durable before the controller acts on it:
the recovery decision and a new attempt's identity are committed before the attempt is
dispatched, and a displacement is accepted only with the current run epoch, action ID, attempt
number and motion (Claim: H7).

Opening never changes a file it does not recognise: a corrupt or foreign file, or a record of a
newer schema, raises RecordError and leaves the file as it was. The schema and the rows are in
:mod:`navproof.handoff.record_schema` (re-exported here).
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from navproof.core.errors import InvalidInput
from navproof.handoff.record_file import (
    check_pages,
    check_valid_location,
    lock_exclusive,
    probe,
)
from navproof.handoff.record_schema import (
    ACTION_UPDATABLE,
    APPLICATION_ID,
    ATTEMPT_NEXT,
    SCHEMA_SQL,
    SCHEMA_VERSION,
    ActionRow,
    ActionSpec,
    AttemptRow,
    DecisionRow,
    MotionTags,
    RecordError,
)


class HandoffRecord:
    """The action record file; every method is one durable transaction (Claim: H7)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, lock_fd: int | None = None) -> None:
        self._conn = conn
        self.path = path
        self._lock_fd = lock_fd

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, exclusive: bool = False) -> HandoffRecord:
        """Open or create the record at ``path``; ``exclusive`` holds it for this process alone
        until :meth:`close` (a run that moves a world, H7).

        RecordError, with nothing written, for: a folder or file that cannot be written, a file
        that is not SQLite or has corrupt pages, a SQLite file of another application, a record
        of a newer schema than this runtime knows, or (``exclusive``) a record another process
        holds. A schema-1 record is upgraded to schema 2 (only its version changes).
        """
        path = Path(path)
        check_valid_location(path)
        fresh = not path.exists() or path.stat().st_size == 0
        upgrade = False
        if not fresh:
            app_id, version, tables = probe(path)
            if app_id == 0 and not tables:
                fresh = True
            elif app_id != APPLICATION_ID:
                raise RecordError(
                    "db",
                    str(path),
                    f"is a foreign SQLite database (application_id {app_id:#x}, tables "
                    f"{sorted(tables)}), not a navproof handoff record; nothing was changed",
                )
            elif version > SCHEMA_VERSION:
                raise RecordError(
                    "db",
                    str(path),
                    f"was written with record schema {version}, newer than this runtime's "
                    f"{SCHEMA_VERSION}; upgrade navproof. Nothing was changed",
                )
            elif version < 1:
                raise RecordError("db", str(path), f"has unknown record schema {version}")
            upgrade = version < SCHEMA_VERSION
        lock_fd = lock_exclusive(path) if exclusive else None
        try:
            conn = sqlite3.connect(str(path), isolation_level=None, timeout=10.0)
        except sqlite3.Error as exc:
            if lock_fd is not None:
                os.close(lock_fd)
            raise RecordError("db", str(path), f"cannot be opened: {exc}") from exc
        try:
            if not fresh:
                check_pages(conn, path)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            if fresh:
                conn.executescript(
                    "BEGIN IMMEDIATE;"
                    + SCHEMA_SQL
                    + f"PRAGMA application_id = {APPLICATION_ID};"
                    + f"PRAGMA user_version = {SCHEMA_VERSION};"
                    + "COMMIT;"
                )
            elif upgrade:
                conn.executescript("BEGIN IMMEDIATE;"
                                   + f"PRAGMA user_version = {SCHEMA_VERSION};" + "COMMIT;")
        except (sqlite3.Error, RecordError) as exc:
            conn.close()
            if lock_fd is not None:
                os.close(lock_fd)
            if isinstance(exc, RecordError):
                raise
            raise RecordError("db", str(path), f"cannot be used: {exc}") from exc
        return cls(conn, path, lock_fd=lock_fd)

    def close(self) -> None:
        self._conn.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> HandoffRecord:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One durable transaction on the record file, for an application's own tables kept
        beside the record's so that one run is one file (the P/Q demo's world). The tables of
        the record (:data:`~navproof.handoff.record_schema.SCHEMA_SQL`) are written only by
        this class's methods; the transaction commits on leaving the block and rolls back on
        an exception."""
        with self._transaction() as conn:
            yield conn

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    # --- runs and actions -----------------------------------------------------------------

    def begin_run(self, purpose: str) -> int:
        """Start a new run epoch (one per process start or recovery) and return it (H7)."""
        with self._transaction() as conn:
            cur = conn.execute(
                "INSERT INTO runs (pid, purpose) VALUES (?, ?)", (os.getpid(), purpose)
            )
            assert cur.lastrowid is not None  # an INSERT always sets it
            return int(cur.lastrowid)

    def latest_epoch(self) -> int:
        row = self._conn.execute("SELECT MAX(run_epoch) FROM runs").fetchone()
        return int(row[0] or 0)

    def action_ids(self) -> list[str]:
        return [r[0] for r in self._conn.execute("SELECT action_id FROM actions ORDER BY rowid")]

    def create_action(
        self, spec: ActionSpec, *, epoch: int, phase: str, patch: str, obstacle_version: int,
        time_s: float, detail: Mapping[str, Any] | None = None,
    ) -> ActionRow:
        """Register a new action and log its creation; RecordError when the ID is taken."""
        if spec.action_id in self.action_ids():
            raise RecordError("action_id", spec.action_id, "already exists in the record")
        with self._transaction() as conn:
            conn.execute(
                """INSERT INTO actions (action_id, created_epoch, p_patch, p_version, q_patch,
                q_version, edge_id, edge_version, support_id, support_version, nav_version,
                edge_normal_x, edge_normal_y, edge_offset_m, first_approach_tick, deadline_tick,
                max_attempts, current_epoch, phase, patch, obstacle_version)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    spec.action_id, epoch, spec.p_patch, spec.p_version, spec.q_patch,
                    spec.q_version, spec.edge_id, spec.edge_version, spec.support_id,
                    spec.support_version, spec.nav_version, float(spec.edge_normal_xy[0]),
                    float(spec.edge_normal_xy[1]), float(spec.edge_offset_m),
                    spec.first_approach_tick, spec.deadline_tick, spec.max_attempts, epoch,
                    phase, patch, obstacle_version,
                ),
            )
            self._log(conn, spec.action_id, epoch, spec.first_approach_tick, time_s, "create",
                      dict(detail or {}))
        return self.load(spec.action_id)

    def load(self, action_id: str) -> ActionRow:
        """The stored action; RecordError naming the ID when the record has no such action."""
        cur = self._conn.execute("SELECT * FROM actions WHERE action_id = ?", (action_id,))
        row = cur.fetchone()
        if row is None:
            raise RecordError(
                "action_id", action_id, f"is not in the record {self.path} "
                f"(known: {self.action_ids()})",
            )
        values = dict(zip([c[0] for c in cur.description], row, strict=True))
        values["edge_normal_xy"] = (values.pop("edge_normal_x"), values.pop("edge_normal_y"))
        return ActionRow(**values)

    def attempts(self, action_id: str) -> list[AttemptRow]:
        cur = self._conn.execute(
            "SELECT * FROM attempts WHERE action_id = ? ORDER BY attempt_no", (action_id,)
        )
        names = [c[0] for c in cur.description]
        return [AttemptRow(**dict(zip(names, r, strict=True))) for r in cur.fetchall()]

    def decisions(self, action_id: str) -> list[DecisionRow]:
        cur = self._conn.execute(
            "SELECT * FROM decisions WHERE action_id = ? ORDER BY id", (action_id,)
        )
        names = [c[0] for c in cur.description]
        out = []
        for r in cur.fetchall():
            values = dict(zip(names, r, strict=True))
            values["detail"] = json.loads(values["detail"])
            out.append(DecisionRow(**values))
        return out

    def last_decision(self, action_id: str) -> DecisionRow | None:
        """The newest decision of the action (what a second recovery reads first, H7)."""
        self.load(action_id)
        decisions = self.decisions(action_id)
        return decisions[-1] if decisions else None

    def displacement_log(self, action_id: str) -> list[dict[str, Any]]:
        cur = self._conn.execute(
            "SELECT * FROM displacements WHERE action_id = ? ORDER BY id", (action_id,)
        )
        names = [c[0] for c in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    def last_feedback(self, action_id: str) -> dict[str, Any] | None:
        cur = self._conn.execute(
            "SELECT * FROM feedback WHERE action_id = ? ORDER BY id DESC LIMIT 1", (action_id,)
        )
        row = cur.fetchone()
        if row is None:
            return None
        return dict(zip([c[0] for c in cur.description], row, strict=True))

    # --- decisions ------------------------------------------------------------------------

    def _log(self, conn: sqlite3.Connection, action_id: str, epoch: int, tick: int,
             time_s: float, kind: str, detail: Mapping[str, Any]) -> None:
        row = conn.execute(
            "SELECT phase, current_attempt, attempts_used, deadline_tick FROM actions "
            "WHERE action_id = ?", (action_id,),
        ).fetchone()
        conn.execute(
            """INSERT INTO decisions (action_id, run_epoch, tick, time_s, kind, phase, attempt_no,
            attempts_used, deadline_tick, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (action_id, epoch, tick, time_s, kind, row[0], row[1], row[2], row[3],
             json.dumps(dict(detail), sort_keys=True, default=_json_default)),
        )

    def decide(
        self,
        action_id: str,
        *,
        epoch: int,
        tick: int,
        time_s: float,
        kind: str,
        updates: Mapping[str, Any] | None = None,
        attempt_states: Mapping[int, str] | None = None,
        new_attempt: Mapping[str, Any] | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> ActionRow:
        """Commit one decision: action updates, attempt state changes, a new attempt's identity
        and the log entry, together in one durable transaction (Claim: H7).

        The epoch must be the action's current epoch (a superseded process cannot decide);
        ``attempts_used`` and ``deadline_tick`` can never go down.
        """
        updates = dict(updates or {})
        unknown = set(updates) - ACTION_UPDATABLE
        if unknown:
            raise InvalidInput("updates", sorted(unknown), f"allowed: {sorted(ACTION_UPDATABLE)}")
        with self._transaction() as conn:
            current = self.load(action_id)
            takeover = "current_epoch" in updates
            if takeover and (updates["current_epoch"] != epoch or epoch != self.latest_epoch()
                             or epoch < current.current_epoch):
                raise RecordError(
                    "run_epoch", epoch, f"cannot take the action over: only the newest run "
                    f"({self.latest_epoch()}) can, for itself",
                )
            if not takeover and epoch != current.current_epoch:
                raise RecordError(
                    "run_epoch", epoch, f"is not the action's current epoch "
                    f"{current.current_epoch}; a superseded run cannot decide",
                )
            if updates.get("attempts_used", current.attempts_used) < current.attempts_used:
                raise RecordError("attempts_used", updates["attempts_used"], "can never decrease")
            if new_attempt is not None:
                self._insert_attempt(conn, action_id, epoch, new_attempt)
            for attempt_no, state in (attempt_states or {}).items():
                old = conn.execute(
                    "SELECT state FROM attempts WHERE action_id = ? AND attempt_no = ?",
                    (action_id, attempt_no),
                ).fetchone()
                if old is None or state not in ATTEMPT_NEXT[old[0]]:
                    raise RecordError(
                        "attempt state", state,
                        f"attempt {attempt_no} is {old[0] if old else 'unknown'}; allowed next: "
                        f"{sorted(ATTEMPT_NEXT[old[0]]) if old else []}",
                    )
                conn.execute(
                    "UPDATE attempts SET state = ? WHERE action_id = ? AND attempt_no = ?",
                    (state, action_id, attempt_no),
                )
            if updates:
                assignments = ", ".join(f"{k} = ?" for k in updates)
                conn.execute(
                    f"UPDATE actions SET {assignments} WHERE action_id = ?",
                    (*[_column_value(v) for v in updates.values()], action_id),
                )
            self._log(conn, action_id, epoch, tick, time_s, kind, dict(detail or {}))
        return self.load(action_id)

    def _insert_attempt(self, conn: sqlite3.Connection, action_id: str, epoch: int,
                        attempt: Mapping[str, Any]) -> None:
        attempt_no = int(attempt["attempt_no"])
        exists = conn.execute(
            "SELECT 1 FROM attempts WHERE action_id = ? AND attempt_no = ?",
            (action_id, attempt_no),
        ).fetchone()
        if exists:
            raise RecordError("attempt_no", attempt_no, "is already registered; never twice")
        values = [float(attempt[k]) for k in (
            "start_x_m", "start_y_m", "end_x_m", "end_y_m", "length_m", "accel_s", "cruise_s",
            "brake_s", "total_s")]
        if not all(math.isfinite(v) for v in values):
            raise InvalidInput("attempt", dict(attempt), "endpoints and durations must be finite")
        conn.execute(
            """INSERT INTO attempts (action_id, attempt_no, registered_epoch, start_x_m, start_y_m,
            end_x_m, end_y_m, length_m, accel_s, cruise_s, brake_s, total_s, state)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'registered')""",
            (action_id, attempt_no, epoch, *values),
        )

    def mark_dispatched(self, action_id: str, attempt_no: int, *, epoch: int, tick: int,
                        time_s: float) -> ActionRow:
        """Record that a registered attempt was handed to the mover (once, by its own epoch)."""
        with self._transaction() as conn:
            current = self.load(action_id)
            row = conn.execute(
                "SELECT state, registered_epoch FROM attempts WHERE action_id = ? "
                "AND attempt_no = ?", (action_id, attempt_no),
            ).fetchone()
            if row is None or row[0] != "registered" or row[1] != epoch \
                    or current.current_epoch != epoch or current.current_attempt != attempt_no:
                raise RecordError(
                    "attempt_no", attempt_no,
                    f"cannot be dispatched (state {row[0] if row else None}, registered in "
                    f"epoch {row[1] if row else None}, current epoch {current.current_epoch}, "
                    f"current attempt {current.current_attempt})",
                )
            conn.execute(
                "UPDATE attempts SET state = 'dispatched', dispatched_epoch = ?, "
                "dispatch_time_s = ? WHERE action_id = ? AND attempt_no = ?",
                (epoch, time_s, action_id, attempt_no),
            )
            conn.execute(
                "UPDATE actions SET current_motion = 'curve' WHERE action_id = ?", (action_id,)
            )
            self._log(conn, action_id, epoch, tick, time_s, "dispatch",
                      {"attempt_no": attempt_no})
        return self.load(action_id)

    # --- displacements --------------------------------------------------------------------

    def offer_displacement(
        self,
        tags: MotionTags,
        *,
        recorded_epoch: int,
        step_index: int,
        t0_s: float,
        t1_s: float,
        displacement_xy_m: tuple[float, float],
        feedback: Mapping[str, Any],
    ) -> tuple[bool, str]:
        """Accept or reject a displacement reported by the mover; log it either way (Claim: H7).

        Accepted only when its epoch is the action's current epoch and the recording run's,
        its attempt is the current attempt, its motion is the current motion (a curve only while
        the attempt is dispatched), and no displacement of that physics step was accepted yet.
        The actual feedback is stored with it.
        """
        self.load(tags.action_id)
        with self._transaction() as conn:
            action = self.load(tags.action_id)
            reason = "accepted"
            if tags.run_epoch != recorded_epoch or tags.run_epoch != action.current_epoch:
                reason = f"stale epoch {tags.run_epoch} (current {action.current_epoch})"
            elif tags.attempt_no != action.current_attempt:
                reason = f"stale attempt {tags.attempt_no} (current {action.current_attempt})"
            elif tags.motion != action.current_motion:
                reason = f"stale motion {tags.motion} (current {action.current_motion})"
            if reason == "accepted" and tags.motion == "curve":
                state = conn.execute(
                    "SELECT state FROM attempts WHERE action_id = ? AND attempt_no = ?",
                    (tags.action_id, tags.attempt_no),
                ).fetchone()
                if state is None or state[0] != "dispatched":
                    reason = f"attempt {tags.attempt_no} is {state[0] if state else 'unknown'}"
            if reason == "accepted":
                taken = conn.execute(
                    "SELECT 1 FROM displacements WHERE action_id = ? AND step_index = ? "
                    "AND accepted = 1", (tags.action_id, step_index),
                ).fetchone()
                if taken:
                    reason = f"step {step_index} already accepted"
            accepted = reason == "accepted"
            conn.execute(
                """INSERT INTO displacements (action_id, recorded_epoch, tag_epoch, tag_attempt,
                tag_motion, step_index, t0_s, t1_s, dx_m, dy_m, accepted, reason)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (tags.action_id, recorded_epoch, tags.run_epoch, tags.attempt_no, tags.motion,
                 step_index, t0_s, t1_s, float(displacement_xy_m[0]), float(displacement_xy_m[1]),
                 int(accepted), reason),
            )
            if accepted and tags.motion == "curve":
                conn.execute(
                    "UPDATE attempts SET executed_s = ? - dispatch_time_s WHERE action_id = ? "
                    "AND attempt_no = ?", (t1_s, tags.action_id, tags.attempt_no),
                )
            if accepted:
                conn.execute(
                    """INSERT INTO feedback (action_id, run_epoch, time_s, x_m, y_m, vx_mps,
                    vy_mps, contact, support) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                    (tags.action_id, recorded_epoch, float(feedback["time_s"]),
                     float(feedback["x_m"]), float(feedback["y_m"]), float(feedback["vx_mps"]),
                     float(feedback["vy_mps"]), feedback.get("contact"),
                     feedback.get("support")),
                )
        return accepted, reason


def _column_value(value: Any) -> Any:
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, sort_keys=True, default=_json_default)
    return value


def _json_default(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "value"):
        return value.value
    raise TypeError(f"not JSON serialisable: {value!r}")


__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "ActionRow",
    "ActionSpec",
    "AttemptRow",
    "DecisionRow",
    "HandoffRecord",
    "MotionTags",
    "RecordError",
]
