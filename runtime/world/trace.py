"""The trace of a World run: one SQLite file a user's own tools can replay, plot and check.

``navproof simulate FILE.toml --trace run.sqlite`` (or :class:`RunTrace` from the API) writes,
as the run goes (one transaction every ``BATCH_STEPS`` steps and one at the end, so a run
stopped early keeps every batch written before), the tables::

    run(schema_version INTEGER, navproof_version TEXT, scenario_name TEXT,
        scenario_path TEXT, scenario_text TEXT,        -- the scenario file as it was read
        agents INTEGER, steps_requested INTEGER, time_step_s REAL,
        steps_written INTEGER,                          -- steps after the start state so far
        started_utc TEXT, finished_utc TEXT)            -- finished_utc NULL: the run broke off
    agents(agent INTEGER PRIMARY KEY, radius_m REAL, max_speed_mps REAL,
           goal_x_m REAL, goal_y_m REAL)
    frames(step INTEGER, agent INTEGER, t_s REAL,       -- step 0: the start state
           x_m REAL, y_m REAL, vx_mps REAL, vy_mps REAL,  -- executed position, world velocity
           label INTEGER,          -- the step's label (labels table); NULL at step 0
           flags INTEGER,          -- bit set (flags table)
           agent_clearance_m REAL, wall_clearance_m REAL,   -- the World's, over the step
           check_claim TEXT,       -- the independent check: first rule failed, '' none
           check_wall_clearance_m REAL, check_obstacle_clearance_m REAL,
           check_agent_clearance_m REAL, check_speed_excess_mps REAL,
           PRIMARY KEY (step, agent))
    labels(label INTEGER PRIMARY KEY, name TEXT)         -- -1: moved by its handoff controller
    flags(bit INTEGER PRIMARY KEY, name TEXT)

A clearance column is NULL where nothing was within reach (+inf). The ``check_*`` columns are
the verdict of :mod:`navproof.world.independent_check` on that step (Claim: C4, C1, B5, W1,
O2, V1, T4); ``label = 0 AND check_claim != ''`` finds a safe label the check refutes.
Claim: T4 (the executed state of every step).
"""

from __future__ import annotations

import datetime as _dt
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from navproof.core.errors import InvalidInput

SCHEMA_VERSION = 1
BATCH_STEPS = 50
"""Steps written per transaction (and the last partial batch at the end of the run)."""

_SCHEMA = """
CREATE TABLE run(schema_version INTEGER NOT NULL, navproof_version TEXT NOT NULL,
                 scenario_name TEXT, scenario_path TEXT, scenario_text TEXT,
                 agents INTEGER NOT NULL, steps_requested INTEGER, time_step_s REAL NOT NULL,
                 steps_written INTEGER NOT NULL, started_utc TEXT NOT NULL, finished_utc TEXT);
CREATE TABLE agents(agent INTEGER PRIMARY KEY, radius_m REAL NOT NULL,
                    max_speed_mps REAL NOT NULL, goal_x_m REAL, goal_y_m REAL);
CREATE TABLE frames(step INTEGER NOT NULL, agent INTEGER NOT NULL, t_s REAL NOT NULL,
                    x_m REAL NOT NULL, y_m REAL NOT NULL, vx_mps REAL NOT NULL,
                    vy_mps REAL NOT NULL, label INTEGER, flags INTEGER,
                    agent_clearance_m REAL, wall_clearance_m REAL, check_claim TEXT,
                    check_wall_clearance_m REAL, check_obstacle_clearance_m REAL,
                    check_agent_clearance_m REAL, check_speed_excess_mps REAL,
                    PRIMARY KEY (step, agent));
CREATE TABLE labels(label INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE flags(bit INTEGER PRIMARY KEY, name TEXT NOT NULL);
"""


def _utc_now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def check_trace_path(path: str | Path, *, others: dict[str, str | None] | None = None) -> Path:
    """The trace path, checked before a run: a new file (or an existing file to replace) in an
    existing, writable folder, not a folder itself, and none of the run's other files
    (``others``: option or role -> path, e.g. the scenario file). InvalidInput naming
    ``--trace``, the value and the rule."""
    import os

    p = Path(path)
    for role, other in (others or {}).items():
        if other and Path(other).resolve() == p.resolve():
            raise InvalidInput("--trace", str(path), f"is the same file as {role}")
    if p.is_dir():
        raise InvalidInput("--trace", str(path), "is a folder; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InvalidInput("--trace", str(path), f"its folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise InvalidInput("--trace", str(path), "cannot be written (permission denied)")
    return p


def _column(values: np.ndarray) -> list[float | None]:
    """Floats with +-inf and NaN as NULL."""
    return [float(v) if np.isfinite(v) else None for v in values.tolist()]


class RunTrace:
    """A run being written to one SQLite trace file (see the module docstring). ``add`` takes
    each step right after ``world.step()``; ``close`` writes the last batch and the finish
    time. A file already at ``path`` is replaced. Claim: T4."""

    def __init__(self, path: str | Path, world: Any, *, scenario_name: str = "",
                 scenario_path: str = "", scenario_text: str = "",
                 steps_requested: int | None = None, check: bool = True) -> None:
        from navproof import __version__
        from navproof.step import FLAG_NAMES, LABEL_NAMES

        self.path = Path(path)
        self.world = world
        self.check = check
        self.steps_written = 0
        self._pending = 0
        if self.path.exists():
            self.path.unlink()
        self.db = sqlite3.connect(self.path)
        with self.db:
            self.db.executescript(_SCHEMA)
            self.db.execute(
                "INSERT INTO run VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, NULL)",
                (SCHEMA_VERSION, __version__, scenario_name, scenario_path, scenario_text,
                 world.count, steps_requested, float(world.dt_s), _utc_now()))
            self.db.executemany("INSERT INTO labels VALUES (?, ?)",
                                [(-1, "moved by its handoff controller")]
                                + list(enumerate(LABEL_NAMES)))
            self.db.executemany("INSERT INTO flags VALUES (?, ?)", list(FLAG_NAMES.items()))
            rows = np.arange(world.count)
            goal = world.route_m[rows, world.route_count - 1]
            self.db.executemany("INSERT INTO agents VALUES (?, ?, ?, ?, ?)", zip(
                rows.tolist(), world.radius_m.tolist(), world.max_speed_mps.tolist(),
                goal[:, 0].tolist(), goal[:, 1].tolist(), strict=True))
            self._frames(0, None, None)

    def _frames(self, step_index: int, step: Any, truth: Any) -> None:
        w = self.world
        n = w.count
        none: list[Any] = [None] * n
        label = none if step is None else step.label.tolist()
        flags = none if step is None else step.flags.tolist()
        agent_c = none if step is None else _column(step.agent_clearance_m)
        wall_c = none if step is None else _column(step.wall_clearance_m)
        if truth is None:
            claim = c_wall = c_obst = c_agent = c_speed = none
        else:
            claim = truth.claim.tolist()
            c_wall, c_obst = _column(truth.wall_clearance_m), _column(truth.obstacle_clearance_m)
            c_agent, c_speed = _column(truth.agent_clearance_m), _column(truth.speed_excess_mps)
        x, v = w.position_m, w.velocity_mps
        self.db.executemany(
            "INSERT INTO frames VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            zip([step_index] * n, range(n), [float(w.time_s)] * n, x[:, 0].tolist(),
                x[:, 1].tolist(), v[:, 0].tolist(), v[:, 1].tolist(), label, flags, agent_c,
                wall_c, claim, c_wall, c_obst, c_agent, c_speed, strict=True))

    def add(self, step: Any, truth: Any = None) -> None:
        """Write the World's state after ``step`` (its ``WorldStep``) and, with ``check``, the
        independent check's verdict (``truth`` when already computed)."""
        if truth is None and self.check:
            from navproof.world.independent_check import check_world_step

            truth = check_world_step(self.world, step)
        self.steps_written += 1
        self._frames(self.steps_written, step, truth)
        self._pending += 1
        if self._pending >= BATCH_STEPS:
            self.flush()

    def flush(self) -> None:
        """Commit the steps written so far (one transaction)."""
        self.db.execute("UPDATE run SET steps_written = ?", (self.steps_written,))
        self.db.commit()
        self._pending = 0

    def close(self, *, finished: bool = True) -> None:
        """Commit the last batch; ``finished`` records the finish time (a run that broke off
        keeps ``finished_utc`` NULL)."""
        if self.db is None:
            return
        if finished:
            self.db.execute("UPDATE run SET finished_utc = ?", (_utc_now(),))
        self.flush()
        self.db.close()
        self.db = None  # type: ignore[assignment]

    def __enter__(self) -> RunTrace:
        return self

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.close(finished=exc_type is None)


__all__ = ["BATCH_STEPS", "SCHEMA_VERSION", "RunTrace", "check_trace_path"]
