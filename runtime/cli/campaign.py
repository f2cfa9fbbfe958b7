"""``navproof campaign SPEC.toml --results FILE.sqlite``: a falsification campaign over a space
of scenario files (see :mod:`navproof.campaigns.spec`): every run simulated with the truth check
on every step, results written to one SQLite file as runs finish, lying labels shrunk to
scenario files beside it.

Options: ``--resume`` continues a killed campaign (same spec only); ``--json``/``--junit``
summaries; ``--plot`` the margin distribution; ``--workers N`` local processes (default one per
core, 0 in this process) or ``--scheduler ADDRESS`` a Dask cluster; ``--profile FILE`` the same
spec against a candidate profile; ``--runs N`` overrides the spec's run count.

Exit codes: 0 no lying label, 1 a lying label (a step labelled safe that the truth check finds
violated), 3 bad input (spec, base scenario, profile, results file of another spec, corrupt or
read-only, unreachable scheduler; nothing written), 4 a run ended in an internal error.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from navproof.cli.output import ProgressBar
from navproof.core.exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERNAL, EXIT_OK


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC.toml", help="the campaign file")
    parser.add_argument("--results", required=True, metavar="FILE.sqlite",
                        help="the campaign's results file (created; with --resume continued)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the campaign kept in --results (same spec only)")
    parser.add_argument("--json", metavar="FILE", help="write the summary as JSON")
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML summary for CI")
    parser.add_argument("--plot", metavar="FILE", help="draw the margin distribution "
                                                       "(.png/.svg/.pdf; navproof[plot])")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="local worker processes (default: one per core; 0: this process)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on the Dask cluster at ADDRESS (navproof[dask])")
    parser.add_argument("--profile", metavar="FILE",
                        help="run the spec against this candidate profile")
    parser.add_argument("--runs", type=int, metavar="N", help="override the spec's run count")
    parser.add_argument("--shrink", type=int, default=3, metavar="N",
                        help="lying runs shrunk to counterexample files (default 3)")


def _bad(message: str) -> int:
    print(f"navproof campaign: bad input: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def run(args: argparse.Namespace) -> int:
    from navproof.campaigns.driver import run_campaign, shrink_lies, validate_spec
    from navproof.campaigns.executors import ExecutorError, make_executor
    from navproof.campaigns.report import plot_margins, write_json, write_junit
    from navproof.campaigns.results import ResultsError, ResultsStore, summary
    from navproof.campaigns.spec import load_spec
    from navproof.core.errors import InvalidInput

    if args.workers is not None and args.workers < 0:
        return _bad(f"--workers = {args.workers}: must be >= 0")
    if args.scheduler and args.workers is not None:
        return _bad("--workers and --scheduler exclude each other")
    if args.shrink < 0:
        return _bad(f"--shrink = {args.shrink}: must be >= 0")
    for option in ("json", "junit", "plot"):
        value = getattr(args, option)
        if value and not Path(value).resolve().parent.is_dir():
            return _bad(f"--{option} = {value}: its folder does not exist")
    if args.plot and Path(args.plot).suffix.lower() not in (".png", ".svg", ".pdf"):
        return _bad(f"--plot = {args.plot}: must end in .png, .svg or .pdf")
    try:
        spec = load_spec(args.spec, profile_path=args.profile, runs=args.runs)
        ResultsStore.check(args.results, spec.digest, resume=args.resume)
        validate_spec(spec)
        executor = make_executor(args.workers, args.scheduler)
    except (InvalidInput, ExecutorError, ResultsError) as exc:
        return _bad(str(exc))
    start = time.perf_counter()
    try:
        store = ResultsStore.open(args.results, spec.digest,
                                  {"spec_file": spec.file, "spec_text": spec.texts["campaign"],
                                   "base_text": spec.texts["base"], "runs": str(spec.runs),
                                   "truth_check": "independent"},
                                  resume=args.resume)
    except ResultsError as exc:
        executor.close()
        return _bad(str(exc))
    bar = ProgressBar(sys.stderr, spec.name, unit="runs", rate=True)
    try:
        results = run_campaign(spec, store, executor, progress=bar)
    finally:
        bar.close()
        executor.close()
    results_path = Path(args.results)
    counterexamples = shrink_lies(spec, store, results, results_path.resolve().parent,
                                  results_path.stem, limit=args.shrink)
    out = {"campaign": spec.name, "spec_digest": spec.digest, "search": spec.search,
           "executor": executor.name, "workers": executor.workers,
           "truth_check": "independent",
           **summary(results, spec.runs), "counterexamples": counterexamples,
           "error_runs": [{"run": i, "error": r["error"]} for i, r in sorted(results.items())
                          if r["error"]][:50],
           "seconds": round(time.perf_counter() - start, 3)}
    store.close()
    if args.json:
        write_json(args.json, out)
    if args.junit:
        write_junit(args.junit, out)
    if args.plot:
        plot_margins(args.plot, results, f"{spec.name}: {out['runs']} runs")
    m = out["min_margins_m"]

    def fmt(x: float | None) -> str:
        return "n/a" if x is None else f"{x:+.4f} m"

    print(f"{spec.name}: {out['runs']} runs, {out['agent_steps']} agent-steps, "
          f"{out['lying_labels']} lying labels, {out['fallbacks']} fallbacks, "
          f"{out['errors']} errors; smallest safe margin {fmt(m['safe_margin_m'])}, wall "
          f"{fmt(m['wall_m'])}, agent {fmt(m['agent_m'])} ({out['seconds']:.1f} s)")
    for c in counterexamples:
        print(f"  counterexample run {c['run']}: {c['path']} ({c['agents']} agents, "
              f"{c['steps']} steps; simulate --assert "
              f"{'fails' if c['reproduces_with_assert'] else 'passes'})")
    if out["lying_labels"]:
        return EXIT_FAILED
    return EXIT_INTERNAL if out["errors"] else EXIT_OK
