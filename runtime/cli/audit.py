"""``navproof audit``: what a candidate profile changes in the proofs, against a base profile.

``navproof audit [--base FILE] --candidate FILE [--claims ID,...] [--json FILE] [-j N]
[--timeout S]``

Lists the parameter changes (old -> new range and default), proves every obligation under both
profiles and reports each obligation whose outcome changes, with the candidate's counterexample.
Exit codes: 1 when the candidate breaks an obligation that holds as expected under the base (or
the generated formulas are stale), 2 when it only makes one unknown, 0 otherwise, 3 on bad input.

JSON schema ``navproof.audit/1``: ``schema``; ``base`` and ``candidate`` (each a
``navproof.prove/1`` record); ``parameter_changes``, a list of ``{"name", "unit", "old", "new"}``
with ``old`` / ``new`` = ``{"min", "max", "default"}`` as exact rational strings; ``changes``, a
list of ``{"id", "base_status", "candidate_status", "base_ok", "candidate_ok", "regression",
"counterexample", "replay_detail", "message"}``; ``exit_code``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from navproof.cli.prove import (
    BadInput,
    add_run_arguments,
    freshness,
    prove,
    select_obligations,
    write_json,
)
from navproof.proofs import report
from navproof.proofs.engine import UNKNOWN, Result
from navproof.specs.errors import SpecError
from navproof.specs.profile import Parameter, Profile, load_profile

SCHEMA = "navproof.audit/1"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base",
        metavar="FILE",
        type=Path,
        default=None,
        help="base profile (default: the embedded default profile)",
    )
    parser.add_argument(
        "--candidate", metavar="FILE", type=Path, required=True, help="candidate profile to audit"
    )
    add_run_arguments(parser)


def _range(p: Parameter) -> dict[str, str]:
    return {"min": str(p.min), "max": str(p.max), "default": str(p.default)}


def parameter_changes(base: Profile, candidate: Profile) -> list[dict[str, object]]:
    """Parameters whose range or default differ (exact comparison of the rationals)."""
    changes = []
    for name, old in base.parameters.items():
        new = candidate.parameters[name]
        if (old.min, old.max, old.default) != (new.min, new.max, new.default):
            changes.append({"name": name, "unit": old.unit, "old": _range(old), "new": _range(new)})
    return changes


def _describe(change: dict[str, object]) -> str:
    old, new = change["old"], change["new"]
    assert isinstance(old, dict) and isinstance(new, dict)
    return (
        f"{change['name']} [{change['unit']}]: range [{old['min']}, {old['max']}] -> "
        f"[{new['min']}, {new['max']}], default {old['default']} -> {new['default']}"
    )


def outcome_changes(base: list[Result], candidate: list[Result]) -> list[dict[str, object]]:
    """Obligations whose status or verdict differs between the two runs."""
    by_id = {r.id: r for r in base}
    changes = []
    for new in candidate:
        old = by_id[new.id]
        if (old.status, old.ok) == (new.status, new.ok):
            continue
        changes.append(
            {
                "id": new.id,
                "base_status": old.status,
                "candidate_status": new.status,
                "base_ok": old.ok,
                "candidate_ok": new.ok,
                "regression": old.ok and not new.ok,
                "counterexample": (
                    {k: v.text for k, v in new.counterexample.items()}
                    if new.counterexample
                    else None
                ),
                "replay_detail": new.replay_detail,
                "message": new.message,
            }
        )
    return changes


def audit_exit_code(
    changes: list[dict[str, object]], candidate: list[Result], fresh: report.Freshness
) -> int:
    if not fresh.fresh:
        return report.EXIT_FAILED
    by_id = {r.id: r for r in candidate}
    regressions = [c for c in changes if c["regression"]]
    if any(by_id[str(c["id"])].status != UNKNOWN for c in regressions):
        return report.EXIT_FAILED
    if regressions:
        return report.EXIT_UNKNOWN
    return report.EXIT_OK


def run(args: argparse.Namespace) -> int:
    try:
        base = load_profile(args.base)
        candidate = load_profile(args.candidate)
        ids = select_obligations(args.claims)
    except (SpecError, BadInput) as exc:
        print(f"navproof audit: bad input: {exc}", file=sys.stderr)
        return report.EXIT_BAD_INPUT
    fresh = freshness(args.generated_module)
    if not fresh.fresh:
        print(f"navproof audit: STALE generated formulas: {fresh.reason}", file=sys.stderr)

    params = parameter_changes(base, candidate)
    base_results, base_wall = prove(
        base, ids, jobs=args.jobs, timeout_s=args.timeout, label="base: "
    )
    cand_results, cand_wall = prove(
        candidate, ids, jobs=args.jobs, timeout_s=args.timeout, label="candidate: "
    )
    changes = outcome_changes(base_results, cand_results)
    code = audit_exit_code(changes, cand_results, fresh)

    print(
        f"navproof audit — base {base.name} ({base.source}) vs candidate {candidate.name} "
        f"({candidate.source})"
    )
    print(f"parameter changes ({len(params)}):")
    for change in params:
        print(f"  {_describe(change)}")
    if not params:
        print("  none")
    print(f"obligation changes ({len(changes)}):")
    by_id = {r.id: r for r in cand_results}
    for change in changes:
        flag = "REGRESSION" if change["regression"] else "change"
        line = f"  {flag} {change['id']}: {change['base_status']} -> {change['candidate_status']}"
        evidence = report.evidence(by_id[str(change["id"])])
        print(line + (f"; {evidence}" if evidence else ""))
    if not changes:
        print("  none")
    print("candidate:")
    print(report.table(cand_results))
    print("base:     " + report.summary_line(base_results, base_wall, fresh))
    print("candidate: " + report.summary_line(cand_results, cand_wall, fresh))
    verdict = {
        0: "no regression",
        1: "the candidate BREAKS obligations the base proves",
        2: "the candidate leaves obligations undecided",
    }[code]
    print(f"verdict: {verdict}")

    if args.json is not None:
        data = {
            "schema": SCHEMA,
            "base": report.to_json(
                base,
                base_results,
                fresh,
                jobs=args.jobs,
                timeout_s=args.timeout,
                wall_seconds=base_wall,
            ),
            "candidate": report.to_json(
                candidate,
                cand_results,
                fresh,
                jobs=args.jobs,
                timeout_s=args.timeout,
                wall_seconds=cand_wall,
            ),
            "parameter_changes": params,
            "changes": changes,
            "exit_code": code,
        }
        try:
            write_json(args.json, data)
        except OSError as exc:
            print(f"navproof audit: cannot write --json {args.json}: {exc}", file=sys.stderr)
            return report.EXIT_BAD_INPUT
    return code
