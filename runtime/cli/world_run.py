"""``navproof simulate FILE.toml``: run a scenario file's World with a progress bar, print the
outcome and optionally write the JSON summary. Claim: T4 (the whole pipeline)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from navproof.cli.output import ProgressBar
from navproof.core.exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK


def _report(summary: dict[str, Any], out: TextIO) -> None:
    def fmt(value: float | None) -> str:
        return "n/a" if value is None else f"{value:+.4f} m"

    out.write(f"{summary['scenario']}: {summary['arrived']}/{summary['agents']} arrived after "
              f"{summary['steps']} steps ({summary['time_s']:.2f} s); min agent clearance "
              f"{fmt(summary['min_agent_clearance_m'])}, min wall clearance "
              f"{fmt(summary['min_wall_clearance_m'])}; "
              f"{summary['agent_steps_per_s']} agent-steps/s\n")
    labels = ", ".join(f"{k}: {v}" for k, v in summary["labels"].items() if v)
    out.write(f"  labels  {labels}\n")
    flags = ", ".join(f"{k}: {v}" for k, v in summary["flags"].items() if v)
    if flags:
        out.write(f"  flags   {flags}\n")
    for h in summary["handoffs"]:
        out.write(f"  handoff agent {h['agent']} {h['from']} -> {h['to']}: {h['phase']} after "
                  f"{h['attempts_used']} attempt(s)" + (f"; fault {h['fault']}" if h['fault']
                                                         else "") + "\n")
    for agent, reason in summary["not_arrived"].items():
        out.write(f"  agent {agent} not arrived: {reason}\n")
    for missed in summary["expectations"]:
        out.write(f"  EXPECTATION MISSED: {missed}\n")


def _draw(request: Any, recorder: Any, title: str, reasons: dict[int, str],
          err: TextIO) -> dict[str, Any] | None:
    """Draw the recorded run; what was written, or None after printing why it failed."""
    from navproof.cli.pictures import draw_pictures
    from navproof.core.errors import InvalidInput

    try:
        written = draw_pictures(request, recorder.run(labels=reasons), title=title)
    except InvalidInput as exc:
        print(f"navproof simulate: bad input: {exc}", file=err)
        return None
    return written


def _report_pictures(written: dict[str, Any], out: TextIO) -> None:
    for kind, what in written.items():
        where = (f"{what['count']} frames in {what['directory']}" if kind == "frames" else what)
        out.write(f"  {kind:<7} {where}\n")


def output_options(args: argparse.Namespace) -> dict[str, str | None]:
    """Every file a scenario-file run writes, option -> path (None: not given): the JSON
    summary and the pictures. All are checked before the run (exit 3, nothing written); the
    run trace has its own check (``--trace``)."""
    from navproof.cli.pictures import picture_outputs

    return {"--json": args.json, **picture_outputs(args)}


def _trace_path(args: argparse.Namespace) -> Path | None:
    """The ``--trace`` file, checked before the run (InvalidInput naming ``--trace``)."""
    if not getattr(args, "trace", None):
        return None
    from navproof.world.trace import check_trace_path

    others = {"the scenario file": args.scenario, "--json": getattr(args, "json", None),
              "--plot": getattr(args, "plot", None), "--gif": getattr(args, "gif", None)}
    return check_trace_path(args.trace, others=others)


def _open_trace(path: Path, scenario: Any, steps: int | None) -> Any:
    from navproof.world.trace import RunTrace

    return RunTrace(path, scenario.world, scenario_name=scenario.name,
                    scenario_path=scenario.source, scenario_text=scenario.text,
                    steps_requested=scenario.steps if steps is None else steps)


def run_file(args: argparse.Namespace, *, out: TextIO | None = None,
             err: TextIO | None = None) -> int:
    """Load, run and report one scenario file; returns the exit code."""
    from navproof.cli.output import check_output_paths
    from navproof.cli.pictures import picture_request
    from navproof.core.errors import InvalidInput, ObligationViolation
    from navproof.scenario import Scenario, load_scenario, run_scenario
    from navproof.specs.errors import SpecError

    out = out or sys.stdout
    err = err or sys.stderr
    for option in ("db", "resume", "crash_at"):
        if getattr(args, option, None):
            print(f"navproof simulate {args.scenario}: --{option.replace('_', '-')} applies to "
                  "the named pq-handoff scenario only", file=err)
            return EXIT_BAD_INPUT
    if args.steps is not None and args.steps <= 0:
        print(f"navproof simulate: bad input: --steps = {args.steps}: must be > 0", file=err)
        return EXIT_BAD_INPUT
    try:
        request = picture_request(args)
        # before loading (one line, nothing else printed); after it again with its profile
        check_output_paths(output_options(args), inputs=[args.scenario], folders=("--frames",))
        trace_path = _trace_path(args)
        scenario = load_scenario(Path(args.scenario),
                                 assertions=True if args.assert_mode else None,
                                 progress=lambda line: print(f"navproof simulate: {line}",
                                                             file=err, flush=True))
        if not isinstance(scenario, Scenario):
            raise InvalidInput("scenario", args.scenario, "is not a World scenario file (a P/Q "
                               "demo file runs with navproof simulate pq-handoff "
                               "--scenario-file FILE)")
        try:
            check_output_paths(output_options(args), inputs=scenario.inputs,
                               folders=("--frames",))
        except InvalidInput:
            scenario.world.close()
            raise
    except (InvalidInput, SpecError) as exc:
        print(f"navproof simulate: bad input: {exc}", file=err)
        return EXIT_BAD_INPUT
    recorder = None
    if request.wanted:
        from navproof.viz.recording import RunRecorder

        recorder = RunRecorder(scenario.world)
    trace = None if trace_path is None else _open_trace(trace_path, scenario, args.steps)
    takers = [f.add for f in (recorder, trace) if f is not None]

    def on_step(step: Any) -> None:
        for take in takers:
            take(step)

    bar = ProgressBar(err, scenario.name)
    completed = False
    try:
        summary = run_scenario(scenario, steps=args.steps, progress=bar,
                               on_step=on_step if takers else None)
        completed = True
    except ObligationViolation as exc:
        bar.close()
        print(f"navproof simulate {scenario.name}: obligation violated: {exc}", file=err)
        if recorder is not None:
            # the steps up to the violation are what one debugs; the verdict stays the violation
            written = _draw(request, recorder, scenario.name + " (up to the violation)", {},
                            err)
            _report_pictures(written or {}, out)
        return EXIT_FAILED
    finally:
        if trace is not None:
            # the steps up to a violation stay in the trace; an unfinished run has no end time
            trace.close(finished=completed)
        scenario.world.close()
    bar.close()
    summary["pictures"] = {}
    if recorder is not None:
        written = _draw(request, recorder, scenario.name,
                        {int(k): v for k, v in summary["not_arrived"].items()}, err)
        if written is None:
            _report(summary, out)
            return EXIT_BAD_INPUT
        summary["pictures"] = written
    _report(summary, out)
    _report_pictures(summary["pictures"], out)
    if args.json:
        from navproof.cli.output import write_output

        try:
            write_output("--json", args.json, json.dumps(summary, indent=2) + "\n")
        except InvalidInput as exc:
            print(f"navproof simulate: bad input: {exc}", file=err)
            return EXIT_BAD_INPUT
    if args.assert_mode and summary["expectations"]:
        return EXIT_FAILED
    return EXIT_OK
