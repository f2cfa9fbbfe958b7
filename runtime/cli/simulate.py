"""``navproof simulate SCENARIO``: run a scenario file (``*.toml``, see
:mod:`navproof.scenario`) or a named scenario, and report.

A scenario file builds a :class:`navproof.world.World` and runs it for ``--steps`` (default: the
file's), with a progress bar on stderr, a one-screen report and, with ``--json OUT``, the JSON
summary (agents, arrivals, the reason of every agent that did not arrive, signed clearances,
label, fallback and flag counts, handoff outcomes, agent-steps per second, the pictures
written). ``--assert`` turns on assertion mode for the whole step and checks the file's
``[expect]`` table. ``--plot FILE`` (.png/.svg/.pdf), ``--frames DIR`` and ``--gif FILE`` draw
the run (see :mod:`navproof.cli.pictures`; matplotlib, the ``navproof[plot]`` extra);
``--trace FILE`` writes the run as it goes to one SQLite file (schema: :mod:`navproof.world.trace`),
its path checked before the run (exit 3 naming ``--trace``, nothing written).

Named scenarios are registered in ``SCENARIOS`` (name -> module, function, help); the function
takes the parsed arguments and returns the exit code. The scenario modules are imported only
when the command runs.

``pq-handoff --db FILE`` keeps the run in one SQLite file: the action record and the simulated world
(the demo's ``world`` table, :mod:`navproof.demos.pq_handoff.world_table`). ``--resume`` continues
it from there; a run that already ended is reported and nothing is written. One run at a time holds
the file: a second run on the same file (while the first is alive) is refused with exit code 3 and
the holder's pid; a run killed (even by SIGKILL) releases it.

Exit codes: 0 the scenario reached its goal, 1 it ended otherwise (for example in Failure, an
expectation missed or an obligation violated in assertion mode), 3 bad input (unknown
scenario, malformed file, bad option values, an unusable record file: not SQLite, corrupt
pages, read-only file or folder, newer schema, a non-finite stored world, or in use by another
run), 4 an unexpected internal error (see :mod:`navproof.cli`).
"""

from __future__ import annotations

import argparse
import importlib
import sqlite3
import sys
from dataclasses import dataclass

from navproof.cli import pictures
from navproof.core.exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILED", "EXIT_OK", "SCENARIOS", "add_arguments", "main",
           "run"]


@dataclass(frozen=True)
class Scenario:
    """A registered scenario: the module and function that run it, and a one-line help."""

    module: str
    function: str
    help: str


SCENARIOS: dict[str, Scenario] = {
    "pq-handoff": Scenario(
        "navproof.cli.pq_handoff",
        "run_cli",
        "seed 000 P/Q slope handoff: interrupted access, retry, AtBoundary, adoption of Q",
    ),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scenario", metavar="SCENARIO",
                        help="a scenario file (*.toml) or one of: "
                             + "; ".join(f"{n}: {s.help}" for n, s in SCENARIOS.items()))
    parser.add_argument("--steps", type=int, metavar="N",
                        help="scenario files: number of steps (default: the file's)")
    parser.add_argument("--assert", dest="assert_mode", action="store_true",
                        help="scenario files: assertion mode for every step, and the file's "
                             "[expect] checked at the end")
    parser.add_argument("--scenario-file", metavar="FILE",
                        help="pq-handoff: its data file "
                             "(default: the packaged navproof/demos/pq_handoff/pq_handoff.toml)")
    parser.add_argument("--db", metavar="FILE",
                        help="pq-handoff: keep the run (action record and world) in this one "
                             "SQLite file; one run at a time may use it")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run kept in --db (a finished run is only reported)")
    parser.add_argument("--crash-at", type=float, metavar="T",
                        help="stop the process hard (SIGKILL) at simulated time T [s]")
    parser.add_argument("--crash-stage", default="applied",
                        choices=("tick", "applied", "accepted"),
                        help="where in the step --crash-at strikes: after the tick's decisions, "
                             "after the world executed the step (before the record accepted "
                             "it), or after acceptance (default: applied)")
    parser.add_argument("--pace", type=float, default=0.0, metavar="S",
                        help="wall-clock seconds to wait per physics step")
    parser.add_argument("--json", metavar="FILE", help="write the timeline and outcome as JSON")
    parser.add_argument("--trace", metavar="FILE",
                        help="scenario files: write the run as it goes to this SQLite file "
                             "(every agent's executed state, label, flags and the independent "
                             "check per step, and the scenario text; see navproof.world.trace)")
    pictures.add_arguments(parser)


def _check_utf8(option: str, path: str | None) -> None:
    """InvalidInput naming ``option`` when the text file ``path`` is not UTF-8 (TOML is UTF-8
    by definition); a file that cannot be read is left to its reader's own error."""
    from navproof.core.errors import InvalidInput

    if path is None:
        return
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        return
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(option, path, f"is not UTF-8 text (byte {raw[exc.start]:#04x} at "
                                         f"offset {exc.start}); save it as UTF-8") from None


def run(args: argparse.Namespace) -> int:
    from navproof.core.errors import InvalidInput
    from navproof.specs.errors import SpecError

    if args.scenario.endswith(".toml"):
        from navproof.cli.world_run import run_file

        return run_file(args)
    scenario = SCENARIOS.get(args.scenario)
    if scenario is None:
        print(f"unknown scenario {args.scenario!r}: not a *.toml file nor one of "
              f"{sorted(SCENARIOS)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    drawn = pictures.given_options(args)
    if getattr(args, "trace", None):
        drawn = ["--trace", *drawn]
    if drawn:
        exc = InvalidInput(drawn[0], getattr(args, drawn[0][2:]),
                           f"pictures and traces apply to World scenario files (*.toml) only, "
                           f"not to the named scenario {args.scenario!r}")
        print(f"navproof simulate {args.scenario}: bad input: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        # --db is read (a resumed run) and written; --json must be neither it nor the data file
        from navproof.cli.output import check_output_paths

        check_output_paths({"--json": args.json}, inputs=[args.db, args.scenario_file])
        _check_utf8("--scenario-file", args.scenario_file)
    except InvalidInput as exc:
        print(f"navproof simulate {args.scenario}: bad input: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    runner = getattr(importlib.import_module(scenario.module), scenario.function)
    try:
        return int(runner(args))
    except (InvalidInput, SpecError) as exc:
        print(f"navproof simulate {args.scenario}: bad input: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except sqlite3.DatabaseError as exc:
        # the record file broke under the run: corrupt pages, a file made read-only, a full disk
        print(f"navproof simulate {args.scenario}: bad input: --db {args.db}: the record cannot "
              f"be used ({type(exc).__name__}: {exc}); the last committed step is kept",
              file=sys.stderr)
        return EXIT_BAD_INPUT


def main(argv: list[str] | None = None) -> int:
    """Run ``simulate`` without the rest of the command line (same options and exit codes)."""
    parser = argparse.ArgumentParser(prog="navproof simulate", description=__doc__.splitlines()[0])
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_BAD_INPUT if exc.code not in (0, None) else EXIT_OK
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
