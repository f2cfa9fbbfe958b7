"""One campaign run: load the sampled scenario (its TOML text), step its World, call the truth
check after every step, and return the counts and smallest margins as plain data.

The truth check is the World's independent check
(:func:`navproof.world.independent_check.check_world_step`). A *lying label* is an agent-step
labelled SAFE that it finds violated beyond the numerical tolerance; fallback labels (F1-F3,
overlap recovery, ...) are counted, never lying.

What is sent to a worker per run is a :class:`dict` task of a few kilobytes (the scenario and
profile texts, the step count, the run index and seed); what comes back is the run's row
(:func:`run_task`). Nothing else is shared, so any executor (process pool, Dask) runs it.
Claim: T4 (the whole pipeline), B5 and W1 (what the truth check measures).
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from navproof.step import LABEL_NAMES
from navproof.world.independent_check import check_world_step

HANDOFF = "handoff"
LABEL_KEYS = ("safe", "F1", "F2", "F3", "overlap", "in_violation", "out_of_range",
              "neighbour_fallback")
"""Count names of the labels 0..7 (safe, dynamic avoidance failed, no stop guarantee, solve
failed, separating an overlap, in violation at the start of the step, outside the proven
ranges, reached by a neighbour's fallback: ``navproof.step.LABEL_NAMES``); -1 (a body moved by
its handoff controller) is ``handoff``."""
MAX_LIES_KEPT = 20
"""Lying agent-steps kept in detail per run (all are counted)."""


def simulate_text(scenario_text: str, profile_text: str | None, steps: int, *,
                  with_truth: bool = True, stop_at_first_lie: bool = False) -> dict[str, Any]:
    """Run the scenario given as TOML text for up to ``steps`` steps (fewer once every agent
    arrived) and return the run's counts, smallest margins (m) and lying agent-steps."""
    if len(LABEL_KEYS) != len(LABEL_NAMES):
        raise RuntimeError(f"campaign label names {LABEL_KEYS} do not match the step's "
                           f"labels {LABEL_NAMES}")
    with tempfile.TemporaryDirectory(prefix="navproof-run-") as folder:
        from navproof.campaigns.spec import load_texts

        scenario = load_texts(scenario_text, profile_text, Path(folder))
        world = scenario.world
        try:
            return _run(world, steps, with_truth, stop_at_first_lie)
        finally:
            world.close()


def _run(world: Any, steps: int, with_truth: bool, stop_at_first_lie: bool) -> dict[str, Any]:
    counts = np.zeros(len(LABEL_KEYS) + 1, np.int64)
    lies: list[dict[str, Any]] = []
    lying_total = 0
    mins = {"wall_m": math.inf, "obstacle_m": math.inf, "agent_m": math.inf,
            "safe_margin_m": math.inf}
    step_s = truth_s = 0.0
    done = 0
    for k in range(steps):
        t0 = time.perf_counter()
        step = world.step()
        t1 = time.perf_counter()
        step_s += t1 - t0
        done += 1
        label = np.asarray(step.label)
        counts += np.bincount(label.astype(np.int64) + 1, minlength=counts.size)
        if with_truth:
            t = check_world_step(world, step)
            truth_s += time.perf_counter() - t1
            mins["wall_m"] = min(mins["wall_m"], float(np.min(t.wall_clearance_m, initial=np.inf)))
            mins["obstacle_m"] = min(mins["obstacle_m"],
                                     float(np.min(t.obstacle_clearance_m, initial=np.inf)))
            mins["agent_m"] = min(mins["agent_m"],
                                  float(np.min(t.agent_clearance_m, initial=np.inf)))
            safe = label == 0
            if safe.any():
                margin = np.minimum.reduce([t.wall_clearance_m, t.obstacle_clearance_m,
                                            t.agent_clearance_m])
                mins["safe_margin_m"] = min(mins["safe_margin_m"], float(margin[safe].min()))
            if t.lying.any():
                agents = np.flatnonzero(t.lying).tolist()
                lying_total += len(agents)
                for a in agents[:max(0, MAX_LIES_KEPT - len(lies))]:
                    lies.append({"step": k, "agent": int(a), "kind": str(t.claim[a]),
                                 "margin_m": float(t.margin[a])})
                if stop_at_first_lie:
                    break
        if bool(world.arrived.all()):
            break
    labels = {name: int(counts[i + 1]) for i, name in enumerate(LABEL_KEYS)}
    labels[HANDOFF] = int(counts[0])
    return {"agents": int(world.count), "steps": done, "agent_steps": done * int(world.count),
            "labels": labels, "lying": lying_total, "lies": lies,
            "min": {k: (None if math.isinf(v) else v) for k, v in mins.items()},
            "step_seconds": step_s, "truth_seconds": truth_s}


def run_task(task: dict[str, Any]) -> dict[str, Any]:
    """Run one campaign task (see the module docstring) and return its result row; a scenario
    that fails to load or a run that raises is returned as an ``error``, never lost."""
    from navproof.core.errors import InvalidInput
    from navproof.specs.errors import SpecError

    out = {"index": task["index"], "seed": task["seed"], "values": task["values"],
           "generation": task.get("generation", 0)}
    start = time.perf_counter()
    try:
        out.update(simulate_text(task["scenario"], task["profile"], task["steps"],
                                 with_truth=task.get("truth", True)))
        out["error"] = None
    except (InvalidInput, SpecError) as exc:
        out["error"] = f"invalid scenario: {exc}"
    except Exception as exc:  # noqa: BLE001 - a run that breaks is evidence, kept by name
        out["error"] = f"{type(exc).__name__}: {exc}"
    out["seconds"] = time.perf_counter() - start
    return out
