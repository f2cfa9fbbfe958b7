"""The results of one campaign in one SQLite file: the spec digest and text, each run's
parameters, seed, label counts, smallest margins and lying agent-steps, written (and
committed) as each run finishes, and the counterexample files written beside it.

A run is recorded once: its index is the primary key and a second result for it (a run retried
after its worker died, a resumed campaign) is ignored. A killed campaign loses at most the runs
in flight; ``--resume`` runs exactly the indices that are missing.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from pathlib import Path
from typing import Any

from navproof.core.errors import InvalidInput

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_index INTEGER PRIMARY KEY, seed INTEGER NOT NULL, generation INTEGER NOT NULL,
    params TEXT NOT NULL, agents INTEGER, steps INTEGER, agent_steps INTEGER, labels TEXT,
    lying INTEGER NOT NULL, min_wall_m REAL, min_obstacle_m REAL, min_agent_m REAL,
    min_safe_margin_m REAL, seconds REAL, step_seconds REAL, truth_seconds REAL, error TEXT);
CREATE TABLE IF NOT EXISTS lies (
    run_index INTEGER NOT NULL, step INTEGER NOT NULL, agent INTEGER NOT NULL, kind TEXT,
    margin_m REAL, PRIMARY KEY (run_index, step, agent));
CREATE TABLE IF NOT EXISTS counterexamples (
    run_index INTEGER PRIMARY KEY, path TEXT NOT NULL, agents INTEGER, steps INTEGER,
    reproduces_with_assert INTEGER);
"""


class ResultsError(InvalidInput):
    """The results file cannot be used (another spec, corrupt, read-only, exists)."""


class ResultsStore:
    """The campaign's SQLite file (open with :meth:`open`)."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn

    @classmethod
    def check(cls, path: str | Path, digest: str, *, resume: bool) -> None:
        """Refuse an unusable file before anything is written: not writable, not SQLite,
        corrupt, of another spec, or existing without ``resume``."""
        path = Path(path)
        where = "--results"
        folder = path.parent if str(path.parent) else Path(".")
        if not folder.is_dir():
            raise ResultsError(where, str(path), "its folder does not exist")
        if not path.exists():
            if not os.access(folder, os.W_OK):
                raise ResultsError(where, str(path), "its folder is not writable")
            return
        if not os.access(path, os.R_OK | os.W_OK) or not os.access(folder, os.W_OK):
            raise ResultsError(where, str(path), "is read-only (file or folder)")
        try:
            # read-write, never created: a campaign killed inside a transaction leaves a hot
            # journal, which SQLite rolls back on this first open (a read-only connection
            # cannot, and would call a sound file unusable)
            conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True)
            try:
                ok = conn.execute("PRAGMA quick_check").fetchall()
                rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            finally:
                conn.close()
        except sqlite3.DatabaseError as exc:
            raise ResultsError(where, str(path), f"is not a usable campaign results file "
                                                 f"({exc})") from None
        if ok != [("ok",)]:
            raise ResultsError(where, str(path), f"is corrupt (quick_check: {ok[:3]})")
        if rows.get("schema_version") != str(SCHEMA_VERSION):
            raise ResultsError(where, str(path), f"has schema {rows.get('schema_version')!r}, "
                                                 f"this navproof writes {SCHEMA_VERSION}")
        if rows.get("spec_digest") != digest:
            raise ResultsError(where, str(path), "holds the results of another campaign spec "
                                                 f"(digest {rows.get('spec_digest', '?')[:12]}, "
                                                 f"this spec {digest[:12]}); not mixed")
        if not resume:
            raise ResultsError(where, str(path), "already holds this campaign; pass --resume "
                                                 "to continue it or choose another file")

    @classmethod
    def open(cls, path: str | Path, digest: str, meta: dict[str, str], *,
             resume: bool) -> ResultsStore:
        """Check (see :meth:`check`), then open or create the file."""
        cls.check(path, digest, resume=resume)
        path = Path(path)
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA synchronous=FULL")
        conn.executescript(_SCHEMA)
        with conn:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT OR IGNORE INTO meta VALUES (?, ?)",
                             [("schema_version", str(SCHEMA_VERSION)), ("spec_digest", digest),
                              *meta.items()])
        return cls(path, conn)

    def done(self) -> set[int]:
        """Indices of the runs recorded."""
        return {r[0] for r in self.conn.execute("SELECT run_index FROM runs")}

    def add(self, result: dict[str, Any]) -> bool:
        """Record one finished run (one transaction); False when it was already recorded."""
        mins = result.get("min") or {}
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            cur = conn.execute(
                "INSERT OR IGNORE INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (result["index"], result["seed"], result.get("generation", 0),
                 json.dumps(result["values"], sort_keys=True), result.get("agents"),
                 result.get("steps"), result.get("agent_steps"),
                 json.dumps(result.get("labels"), sort_keys=True), int(result.get("lying", 0)),
                 mins.get("wall_m"), mins.get("obstacle_m"), mins.get("agent_m"),
                 mins.get("safe_margin_m"), result.get("seconds"), result.get("step_seconds"),
                 result.get("truth_seconds"), result.get("error")))
            added = cur.rowcount == 1
            if added:
                conn.executemany("INSERT OR IGNORE INTO lies VALUES (?,?,?,?,?)",
                                 [(result["index"], x["step"], x["agent"], x["kind"],
                                   x["margin_m"]) for x in result.get("lies", [])])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return added

    def add_counterexample(self, index: int, path: str, agents: int, steps: int,
                           reproduces: bool | None) -> None:
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO counterexamples VALUES (?,?,?,?,?)",
                              (index, path, agents, steps,
                               None if reproduces is None else int(reproduces)))

    def results(self) -> dict[int, dict[str, Any]]:
        """Every recorded run as the worker's result dict (without the timings' precision)."""
        out = {}
        lies: dict[int, list[dict[str, Any]]] = {}
        for i, step, agent, kind, margin in self.conn.execute(
                "SELECT * FROM lies ORDER BY run_index, step, agent"):
            lies.setdefault(i, []).append({"step": step, "agent": agent, "kind": kind,
                                           "margin_m": margin})
        for row in self.conn.execute("SELECT * FROM runs ORDER BY run_index"):
            (i, seed, gen, params, agents, steps, agent_steps, labels, lying, wall, obstacle,
             agent, safe, seconds, step_s, truth_s, error) = row
            out[i] = {"index": i, "seed": seed, "generation": gen, "values": json.loads(params),
                      "agents": agents, "steps": steps, "agent_steps": agent_steps,
                      "labels": json.loads(labels) if labels else None, "lying": lying,
                      "lies": lies.get(i, []),
                      "min": {"wall_m": wall, "obstacle_m": obstacle, "agent_m": agent,
                              "safe_margin_m": safe},
                      "seconds": seconds, "step_seconds": step_s, "truth_seconds": truth_s,
                      "error": error}
        return out

    def counterexamples(self) -> list[dict[str, Any]]:
        return [{"run": i, "path": p, "agents": a, "steps": s,
                 "reproduces_with_assert": None if r is None else bool(r)}
                for i, p, a, s, r in self.conn.execute(
                    "SELECT * FROM counterexamples ORDER BY run_index")]

    def close(self) -> None:
        self.conn.close()


def summary(results: dict[int, dict[str, Any]], runs_planned: int) -> dict[str, Any]:
    """The campaign summary: runs, agent-steps, label counts, lying labels, smallest margins."""
    labels: dict[str, int] = {}
    lying = 0
    agent_steps = 0
    errors = 0
    mins: dict[str, float] = {}
    lying_runs = []
    for r in results.values():
        if r["error"]:
            errors += 1
            continue
        agent_steps += r["agent_steps"] or 0
        for k, v in (r["labels"] or {}).items():
            labels[k] = labels.get(k, 0) + v
        lying += r["lying"]
        if r["lying"]:
            lying_runs.append(r["index"])
        for k, v in r["min"].items():
            if v is not None:
                mins[k] = min(mins.get(k, math.inf), v)
    fallbacks = sum(labels.get(k, 0) for k in ("F1", "F2", "F3"))
    return {"runs": len(results), "runs_planned": runs_planned, "errors": errors,
            "agent_steps": agent_steps, "labels": labels, "fallbacks": fallbacks,
            "lying_labels": lying, "lying_runs": sorted(lying_runs),
            "min_margins_m": {k: mins.get(k) for k in ("wall_m", "obstacle_m", "agent_m",
                                                       "safe_margin_m")}}
