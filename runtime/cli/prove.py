"""``navproof prove``: discharge every claim obligation over a profile's parameter ranges.

``navproof prove [--profile FILE] [--claims ID,...] [--json FILE] [-j N] [--rlimit N]
[--timeout S] [--cross-check] [--emit-smt2 DIR] [--no-cache | --cache FILE]``

Budgets are deterministic: each z3 query gets the resource limit ``--rlimit`` (default: the
profile's ``[proof_budgets] z3_rlimit``). Wall-clock time is reported; ``--timeout`` is an
optional safety stop, off by default.

``-j`` defaults to the machine's cores. Verdicts are cached (:mod:`navproof.proofs.cache`): an
obligation whose statement, formulas, ranges, budgets and engine versions are unchanged since a
verdict was recorded is not decided again (``--no-cache`` decides everything; ``--cache FILE``
names another cache file). ``--cross-check`` has a second engine (cvc5 or yices, chosen per
obligation by measurement) re-decide every query; ``--emit-smt2 DIR`` writes the standard
SMT-LIB text of every query, exactly as a second engine sees it.

Prints one progress line per obligation to stderr as it finishes, then the table and a summary to
stdout; ``--json`` also writes the ``navproof.prove/1`` record (see ``navproof.proofs.report``).
Exit codes: 0 every obligation as expected, 1 one failed (or the generated runtime formulas are
stale), 2 one is unknown or timed out, 3 bad input (profile, flag or claim ID).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from navproof.cli import ci_report
from navproof.core.exit_codes import EXIT_BAD_INPUT
from navproof.core.parallel import available_cpus
from navproof.proofs import report
from navproof.proofs.engine import DEFAULT_TIMEOUT_S, Result, run_obligations
from navproof.proofs.obligations import OBLIGATION_IDS, claim_of, obligations_for
from navproof.specs.errors import SpecError
from navproof.specs.profile import Profile, load_profile

if TYPE_CHECKING:
    from navproof.proofs.cache import ProofCache


class BadInput(ValueError):
    """A command-line value is invalid: names the flag, the value and the rule (exit 3)."""

    def __init__(self, flag: str, value: object, rule: str) -> None:
        self.flag, self.value, self.rule = flag, value, rule
        super().__init__(f"{flag} {value!r}: {rule}")


def check_valid_count(text: str) -> int:
    """argparse type of ``-j`` and of the resource limits: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be >= 1")
    return value


def check_valid_timeout(text: str) -> float:
    """argparse type of ``--timeout``: seconds, a finite number > 0."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"{text} must be a finite number of seconds > 0")
    return seconds


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags shared by ``prove`` and ``audit``."""
    cores = available_cpus()
    parser.add_argument(
        "--claims", metavar="ID,...", help="only these claim (or obligation) IDs, comma-separated"
    )
    parser.add_argument("--json", metavar="FILE", type=Path, help="also write a JSON record")
    parser.add_argument("--junit", metavar="FILE", type=Path,
                        help="also write a JUnit XML report (one test case per obligation)")
    parser.add_argument("--markdown", metavar="FILE", type=Path,
                        help="also write a Markdown report (a table for a pull-request comment)")
    parser.add_argument(
        "-j",
        "--jobs",
        type=check_valid_count,
        default=cores,
        metavar="N",
        help=f"run N obligations in parallel worker processes (default: the cores, {cores})",
    )
    parser.add_argument(
        "--timeout",
        type=check_valid_timeout,
        default=DEFAULT_TIMEOUT_S,
        metavar="S",
        help="optional wall-clock stop per obligation in seconds (default: none; the resource "
        "limit decides)",
    )
    parser.add_argument(
        "--cross-check",
        action="store_true",
        help="have a second engine (cvc5 or yices, per obligation) re-decide every query z3 "
        "decided; disagreement, unknown or a rejected query fails",
    )
    parser.add_argument(
        "--emit-smt2",
        metavar="DIR",
        type=Path,
        default=None,
        help="write every query as a standard SMT-LIB file in DIR (what a second engine sees)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="decide every obligation, ignoring the proof cache (new verdicts are still saved)",
    )
    parser.add_argument(
        "--cache",
        metavar="FILE",
        type=Path,
        default=None,
        help="the proof cache file (default: $NAVPROOF_CACHE_DIR/proofs.json or "
        "~/.cache/navproof/proofs.json)",
    )
    parser.add_argument(
        "--cvc5-rlimit",
        type=check_valid_count,
        default=None,
        metavar="N",
        help="cvc5 resource limit per query (default: the profile's cvc5_resource_limit)",
    )
    parser.add_argument(
        "--rlimit",
        type=check_valid_count,
        default=None,
        metavar="N",
        help="z3 resource limit per query (default: the profile's [proof_budgets] z3_rlimit)",
    )
    parser.add_argument(
        "--generated-module",
        metavar="FILE",
        type=Path,
        default=None,
        help="check the freshness of this file instead of the package's generated formulas module",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile",
        metavar="FILE",
        type=Path,
        default=None,
        help="parameter profile (TOML); default: the embedded default profile",
    )
    add_run_arguments(parser)


def select_obligations(claims: str | None) -> list[str]:
    """Obligation IDs for a ``--claims`` value; raises BadInput naming an unknown ID."""
    if claims is None:
        return list(OBLIGATION_IDS)
    from navproof.specs.claims import load_claims

    catalogue = load_claims()
    wanted = [part.strip() for part in claims.split(",") if part.strip()]
    if not wanted:
        raise BadInput("--claims", claims, "lists no claim ID")
    for claim_id in wanted:
        if claim_id in OBLIGATION_IDS:
            continue
        if claim_id not in catalogue:
            raise BadInput("--claims", claim_id, "is not a claim ID of the catalogue")
        if not obligations_for([claim_id]):
            kind = catalogue[claim_id].kind
            raise BadInput(
                "--claims",
                claim_id,
                f"has no proof obligation (kind {kind!r}: enforced at run time)",
            )
    return obligations_for(wanted)


def freshness(path: Path | None) -> report.Freshness:
    """Compare the generated runtime formulas with a fresh generation of the derivations."""
    from navproof.proofs import codegen

    target = path if path is not None else codegen.GENERATED_PATH
    return report.Freshness(str(target), codegen.stale_reason(Path(target)))


def prove(
    profile: Profile,
    ids: list[str],
    *,
    jobs: int,
    timeout_s: float | None,
    rlimit: int | None = None,
    cross_check_limit: int | None = None,
    emit_smt2_dir: Path | None = None,
    cache: ProofCache | None = None,
    label: str = "",
) -> tuple[list[Result], float]:
    """Run the obligations with stderr progress; returns results and wall time."""
    total = len(ids)
    done = 0

    def progress(result: Result) -> None:
        nonlocal done
        done += 1
        print(label + report.progress_line(result, done, total), file=sys.stderr, flush=True)

    started = time.monotonic()
    results = run_obligations(
        ids,
        profile,
        jobs=jobs,
        timeout_s=timeout_s,
        rlimit=rlimit,
        cross_check_limit=cross_check_limit,
        emit_smt2_dir=None if emit_smt2_dir is None else str(emit_smt2_dir),
        cache=cache,
        on_result=progress,
    )
    if cache is not None:
        cache.save()
    return results, time.monotonic() - started


def checked_output_folder(folder: Path | None) -> Path | None:
    """The ``--emit-smt2`` folder, created; BadInput when it cannot be a writable folder."""
    if folder is None:
        return None
    if folder.exists() and not folder.is_dir():
        raise BadInput("--emit-smt2", str(folder), "exists and is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput("--emit-smt2", str(folder), f"cannot be created: {exc.strerror}") from None
    if not os.access(folder, os.W_OK):
        raise BadInput("--emit-smt2", str(folder), "is not writable")
    return folder


def open_cache(args: argparse.Namespace) -> ProofCache | None:
    """The proof cache of this run: not read with ``--no-cache`` (new verdicts still saved)."""
    from navproof.proofs.cache import ProofCache, default_path

    path = args.cache if getattr(args, "cache", None) is not None else default_path()
    cache = ProofCache.load(path)
    cache.reuse = not getattr(args, "no_cache", False)
    return cache


def write_json(path: Path, data: dict[str, object]) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def check_report_paths(args: argparse.Namespace, inputs: list[Path | None]) -> None:
    """``--json``, ``--junit`` and ``--markdown`` checked before any proof runs (InvalidInput
    naming the option: unwritable, one of ``inputs``, or the same file twice)."""
    from navproof.cli.output import check_output_paths

    check_output_paths({"--json": args.json, "--junit": args.junit,
                        "--markdown": args.markdown},
                       inputs=[*inputs, getattr(args, "generated_module", None)])


def run(args: argparse.Namespace) -> int:
    from navproof.core.errors import InvalidInput

    try:
        check_report_paths(args, [args.profile])
        profile = load_profile(args.profile)
        ids = select_obligations(args.claims)
    except (SpecError, BadInput, InvalidInput) as exc:
        print(f"navproof prove: bad input: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    fresh = freshness(args.generated_module)
    if not fresh.fresh:
        print(f"navproof prove: STALE generated formulas: {fresh.reason}", file=sys.stderr)
    rlimit = args.rlimit if args.rlimit is not None else profile.budgets.z3_rlimit
    stop = "none" if args.timeout is None else f"{args.timeout:g} s"
    print(
        f"profile {profile.name} ({profile.source}); {len(ids)} obligations, -j {args.jobs}, "
        f"z3 rlimit {rlimit} per query, wall-clock stop {stop}",
        file=sys.stderr,
    )
    cross = None
    if getattr(args, "cross_check", False):
        from navproof.proofs import cross_check

        needed = sorted({e for oid in ids for e in cross_check.engine_order(oid)})
        missing = [e for e in needed if not cross_check.available(e)]
        if missing:
            print(
                f"navproof prove: --cross-check needs {', '.join(missing)} (install navproof"
                "[cross-check])",
                file=sys.stderr,
            )
            return EXIT_BAD_INPUT
        cross = args.cvc5_rlimit or profile.budgets.cvc5_resource_limit
        print(
            f"cross-check: {', '.join(needed)} (cvc5 resource limit {cross} per query, "
            f"{cross_check.TIME_LIMIT_S:g} s wall-clock stop per query)",
            file=sys.stderr,
        )
    try:
        emit = checked_output_folder(args.emit_smt2)
    except BadInput as exc:
        print(f"navproof prove: bad input: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    cache = open_cache(args)
    results, wall = prove(
        profile,
        ids,
        jobs=args.jobs,
        timeout_s=args.timeout,
        rlimit=rlimit,
        cross_check_limit=cross,
        emit_smt2_dir=emit,
        cache=cache,
    )
    if cache is not None:
        print(f"proof cache {cache.path}: {cache.hits} reused, {cache.misses} decided",
              file=sys.stderr)
    print(f"navproof prove — profile {profile.name} ({profile.source})")
    print(report.table(results))
    print(report.summary_line(results, wall, fresh))
    data = report.to_json(
        profile,
        results,
        fresh,
        jobs=args.jobs,
        timeout_s=args.timeout,
        wall_seconds=wall,
        rlimit=rlimit,
        cross_check_limit=cross,
    )
    if args.json is not None:
        try:
            write_json(args.json, data)
        except OSError as exc:
            print(f"navproof prove: cannot write --json {args.json}: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
    try:
        ci_report.write_reports(data, junit=args.junit, markdown=args.markdown)
    except OSError as exc:
        print(f"navproof prove: cannot write a report: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    claims = sorted({claim_of(r.id) for r in results})
    print(f"claims covered: {', '.join(claims)}", file=sys.stderr)
    return int(data["exit_code"])
