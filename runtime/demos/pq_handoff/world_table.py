"""The P/Q demo's simulated world in the run's record file: the demo's own ``world`` table (one
row, JSON of finite numbers) beside the handoff record's tables, so that ``--db FILE`` keeps one
run in one file. The handoff record (:class:`navproof.handoff.record.HandoffRecord`) only lends
its durable transaction; it never reads or writes this table. Claim: H7 (the plant is persisted
after every physics step, in its own transaction)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from navproof.core.errors import InvalidInput
from navproof.handoff.record import HandoffRecord

WORLD_SQL = """
CREATE TABLE IF NOT EXISTS world (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    step_index INTEGER NOT NULL,
    state TEXT NOT NULL
);
"""
"""The table as navproof 0.1 created it inside the record schema, so that every record file
written since reads the same."""


def save_world(record: HandoffRecord, step_index: int, state: Mapping[str, Any]) -> None:
    """Replace the stored world in one durable transaction. InvalidInput, with nothing
    written, when the state holds a non-finite number."""
    try:
        text = json.dumps(dict(state), sort_keys=True, allow_nan=False)
    except ValueError:
        raise InvalidInput("world", "NaN or inf", "every stored number must be finite; "
                           "nothing was written") from None
    with record.transaction() as conn:
        conn.execute(WORLD_SQL)
        conn.execute("INSERT OR REPLACE INTO world (id, step_index, state) VALUES (1, ?, ?)",
                     (int(step_index), text))


def load_world(record: HandoffRecord) -> dict[str, Any] | None:
    """The stored world, or None when the run has not stored one yet (or the record is of
    another application, without the table)."""
    with record.transaction() as conn:
        known = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'world'").fetchone()
        row = conn.execute("SELECT state FROM world WHERE id = 1").fetchone() if known else None
    return None if row is None else json.loads(row[0])
