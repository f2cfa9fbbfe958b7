"""``navproof simulate pq-handoff``: the command-line entry of the P/Q handoff demo
(:mod:`navproof.demos.pq_handoff`): run or resume it, print its timeline, optionally write the
JSON, and return the exit code (0 the handoff adopted Q, 1 it ended otherwise). Claim: A1-A5,
H1-H10, V1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from navproof.cli.output import check_valid_output_path, write_output
from navproof.demos.pq_handoff.data import load_pq_scenario
from navproof.demos.pq_handoff.run import run_pq_handoff


def run_cli(args: Any) -> int:
    """``navproof simulate pq-handoff`` entry: run, print, optionally write JSON; exit code."""
    check_valid_output_path("--json", args.json)
    scenario_file = getattr(args, "scenario_file", None)
    result = run_pq_handoff(
        scenario=load_pq_scenario(scenario_file) if scenario_file else None,
        db_path=Path(args.db) if args.db else None,
        resume=bool(args.resume),
        crash_at_s=args.crash_at,
        crash_stage=args.crash_stage,
        pace_s=float(args.pace or 0.0),
    )
    if args.json:
        write_output("--json", args.json,
                     json.dumps({"scenario": "pq-handoff", **result.summary,
                                 "timeline": result.timeline}, indent=2, default=str) + "\n")
    return result.exit_code
