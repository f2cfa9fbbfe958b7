"""``navproof audit``: what a candidate profile changes in the proofs, against a base profile.

``navproof audit [--base FILE] --candidate FILE [--claims ID,...] [--json FILE] [--junit FILE]
[--markdown FILE] [-j N] [--timeout S]``, or ``navproof audit --against GIT_REV [PROFILE]``
(the profile file, default the embedded default, against its version at a git revision).

Lists the parameter changes (old -> new range and default), the signed margin of every
profile-level claim under both profiles (``navproof.cli.claim_margins``: how much room the
parameters leave before R2, H5, A4/A5 and the ORCA horizon break), proves every obligation under
both profiles and reports each obligation whose outcome changes, with the candidate's
counterexample. ``--junit`` writes one test case per candidate obligation and per margin,
``--markdown`` a pull-request comment (``navproof.cli.ci_report``).
Exit codes: 1 when the candidate breaks an obligation that holds as expected under the base, or
a margin that is not negative under the base (or the generated formulas are stale), 2 when it
only makes an obligation unknown, 0 otherwise, 3 on bad input.

JSON schema ``navproof.audit/1``: ``schema``; ``base`` and ``candidate`` (each a
``navproof.prove/1`` record); ``parameter_changes``, a list of ``{"name", "unit", "old", "new"}``
with ``old`` / ``new`` = ``{"min", "max", "default"}`` as exact rational strings; ``changes``, a
list of ``{"id", "base_status", "candidate_status", "base_ok", "candidate_ok", "regression",
"counterexample", "replay_detail", "message"}``; ``margins``, a list of ``{"id", "claims",
"title", "unit", "basis", "formula", "base", "candidate", "regression"}`` with ``base`` /
``candidate`` = ``{"value", "at", "ok"}``; ``exit_code``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from navproof.cli import ci_report
from navproof.cli.claim_margins import ClaimMargin, claim_margins, format_at, format_value
from navproof.cli.prove import (
    BadInput,
    add_run_arguments,
    check_report_paths,
    freshness,
    open_cache,
    prove,
    select_obligations,
    write_json,
)
from navproof.core.exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN
from navproof.proofs import report
from navproof.proofs.engine import UNKNOWN, Result
from navproof.specs.errors import SpecError
from navproof.specs.profile import DEFAULT_PROFILE_PATH, Parameter, Profile, load_profile

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
        "--candidate", metavar="FILE", type=Path, default=None, help="candidate profile to audit"
    )
    parser.add_argument(
        "--against",
        nargs="+",
        metavar=("GIT_REV", "PROFILE"),
        default=None,
        help="audit PROFILE (default: the embedded default profile) against its version at "
        "the git revision GIT_REV",
    )
    add_run_arguments(parser)


def profile_at_revision(path: Path, revision: str) -> Profile:
    """The profile file ``path`` as it was at git ``revision`` (validated like any profile).

    Raises BadInput when git cannot show it (no repository, unknown revision, file absent)."""
    path = path.resolve()
    try:
        shown = subprocess.run(
            ["git", "-C", str(path.parent), "show", f"{revision}:./{path.name}"],
            capture_output=True, check=False, timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BadInput("--against", revision, f"cannot run git: {exc}") from exc
    if shown.returncode != 0:
        reason = shown.stderr.decode("utf-8", "replace").strip().splitlines()
        raise BadInput("--against", revision,
                       f"git cannot show {path.name} there: {reason[-1] if reason else '?'}")
    handle, temp = tempfile.mkstemp(suffix=".toml")
    try:
        with os.fdopen(handle, "wb") as fh:
            fh.write(shown.stdout)
        profile = load_profile(temp)
    except SpecError as exc:
        raise SpecError(f"{path}@{revision}", exc.key, exc.value, exc.rule) from None
    finally:
        os.unlink(temp)
    return dataclasses.replace(profile, source=f"{path}@{revision}")


def load_profiles(args: argparse.Namespace) -> tuple[Profile, Profile]:
    """Base and candidate profiles of the command line (bad combinations are BadInput)."""
    if args.against is None:
        if args.candidate is None:
            raise BadInput("--candidate", None, "is required (or --against GIT_REV [PROFILE])")
        return load_profile(args.base), load_profile(args.candidate)
    if len(args.against) > 2:
        raise BadInput("--against", args.against, "takes GIT_REV and at most one PROFILE")
    if args.base is not None:
        raise BadInput("--base", str(args.base), "cannot be combined with --against")
    if len(args.against) == 2 and args.candidate is not None:
        raise BadInput("--candidate", str(args.candidate), "given twice (also after --against)")
    revision = args.against[0]
    path = Path(args.against[1]) if len(args.against) == 2 else args.candidate
    candidate = load_profile(path)
    return profile_at_revision(Path(path or DEFAULT_PROFILE_PATH), revision), candidate


def margin_changes(base: list[ClaimMargin], candidate: list[ClaimMargin]
                   ) -> list[dict[str, object]]:
    """Every margin under both profiles; a regression when the candidate breaks one that the
    base keeps."""
    by_id = {m.id: m for m in base}
    rows = []
    for new in candidate:
        old = by_id[new.id]
        rows.append({
            "id": new.id, "claims": new.claims, "title": new.title, "unit": new.unit,
            "basis": new.basis, "formula": new.formula,
            "base": {"value": old.value, "at": old.at, "ok": old.ok},
            "candidate": {"value": new.value, "at": new.at, "ok": new.ok},
            "regression": old.ok is True and new.ok is False,
        })
    return rows


def _margin_case(row: dict[str, object]) -> ci_report.ExtraCase:
    """The JUnit case of one margin: fails when the candidate breaks the claim."""
    b, c = row["base"], row["candidate"]
    assert isinstance(b, dict) and isinstance(c, dict)
    return ci_report.ExtraCase(
        f"navproof.margin.{row['id']}", f"margin {row['id']}: {row['title']}",
        ok=c["ok"] is not False,
        message=(f"{format_value(c['value'])} {row['unit']} (base {format_value(b['value'])}"
                 f"{'; REGRESSION' if row['regression'] else ''})"),
        detail=f"{row['formula']} at {format_at(c['at'])}",
    )


def _verdict(ok: object) -> str:
    return {True: "holds", False: "BROKEN", None: "info"}[ok]  # type: ignore[index]


def margins_table(rows: list[dict[str, object]]) -> str:
    """Fixed-width text table of the margins."""
    out = [f"  {'claim':<10} {'basis':<8} {'base':>12} {'candidate':>12}  unit  verdict  what"]
    for row in rows:
        b, c = row["base"], row["candidate"]
        assert isinstance(b, dict) and isinstance(c, dict)
        flag = "REGRESSION" if row["regression"] else _verdict(c["ok"])
        out.append(f"  {row['id']:<10} {row['basis']:<8} {format_value(b['value']):>12} "
                   f"{format_value(c['value']):>12}  {row['unit']:<4}  {flag:<7}  "
                   f"{row['title']} ({row['formula']}; at {format_at(c['at'])})")
    return "\n".join(out)


def markdown_sections(params: list[dict[str, object]], margins: list[dict[str, object]],
                      changes: list[dict[str, object]], verdict: str) -> list[str]:
    """The audit's own Markdown tables: parameter changes, margins, obligation changes."""
    sections = [f"**verdict: {verdict}**"]
    rows: list[tuple[object, ...]] = []
    for change in params:
        old, new = change["old"], change["new"]
        assert isinstance(old, dict) and isinstance(new, dict)
        rows.append((f"`{change['name']}`", change["unit"], f"[{old['min']}, {old['max']}]",
                     f"[{new['min']}, {new['max']}]", old["default"], new["default"]))
    sections.append("#### Parameter changes\n\n" + (ci_report.table(
        ("parameter", "unit", "old range", "new range", "old default", "new default"), rows)
        if rows else "none"))
    rows.clear()
    for row in margins:
        b, c = row["base"], row["candidate"]
        assert isinstance(b, dict) and isinstance(c, dict)
        flag = "❌ REGRESSION" if row["regression"] else {
            True: "✅ holds", False: "❌ broken", None: "ℹ️ info"}[c["ok"]]
        rows.append((f"`{row['id']}`", row["title"], row["basis"],
                     f"{format_value(b['value'])} {row['unit']}",
                     f"{format_value(c['value'])} {row['unit']}",
                     f"{format_value(c['value'] - b['value'])}", flag,
                     f"{row['formula']} at {format_at(c['at'])}"))
    sections.append("#### Signed margins of the profile-level claims\n\n" + ci_report.table(
        ("claim", "what", "basis", "base", "candidate", "change", "verdict", "evaluated"), rows))
    rows.clear()
    for change in changes:
        rows.append((f"`{change['id']}`", change["base_status"], change["candidate_status"],
                     "❌ REGRESSION" if change["regression"] else "change"))
    sections.append("#### Obligation changes\n\n" + (ci_report.table(
        ("obligation", "base", "candidate", ""), rows) if rows else "none"))
    return sections


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
        return EXIT_FAILED
    by_id = {r.id: r for r in candidate}
    regressions = [c for c in changes if c["regression"]]
    if any(by_id[str(c["id"])].status != UNKNOWN for c in regressions):
        return EXIT_FAILED
    if regressions:
        return EXIT_UNKNOWN
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from navproof.core.errors import InvalidInput

    try:
        against = args.against[1:] if args.against else []
        check_report_paths(args, [args.base, args.candidate, *map(Path, against)])
        base, candidate = load_profiles(args)
        ids = select_obligations(args.claims)
    except (SpecError, BadInput, InvalidInput) as exc:
        print(f"navproof audit: bad input: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    fresh = freshness(args.generated_module)
    if not fresh.fresh:
        print(f"navproof audit: STALE generated formulas: {fresh.reason}", file=sys.stderr)

    params = parameter_changes(base, candidate)
    # one proof cache for both: the candidate re-proves only what its ranges change
    cache = open_cache(args)
    base_results, base_wall = prove(
        base, ids, jobs=args.jobs, timeout_s=args.timeout, cache=cache, label="base: "
    )
    base_hits, base_misses = cache.hits, cache.misses
    cand_results, cand_wall = prove(
        candidate, ids, jobs=args.jobs, timeout_s=args.timeout, cache=cache,
        label="candidate: "
    )
    print(f"proof cache {cache.path}: base {base_hits} reused, {base_misses} decided; "
          f"candidate {cache.hits - base_hits} reused, {cache.misses - base_misses} decided",
          file=sys.stderr)
    changes = outcome_changes(base_results, cand_results)
    code = audit_exit_code(changes, cand_results, fresh)
    margins = margin_changes(claim_margins(base), claim_margins(candidate))
    if any(row["regression"] for row in margins):
        code = EXIT_FAILED

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
    print(f"claim margins ({len(margins)}):")
    print(margins_table(margins))
    print("candidate:")
    print(report.table(cand_results))
    print("base:     " + report.summary_line(base_results, base_wall, fresh))
    print("candidate: " + report.summary_line(cand_results, cand_wall, fresh))
    verdict = {
        0: "no regression",
        1: "the candidate BREAKS claims the base keeps",
        2: "the candidate leaves obligations undecided",
    }[code]
    print(f"verdict: {verdict}")

    cand_record = report.to_json(
        candidate, cand_results, fresh, jobs=args.jobs, timeout_s=args.timeout,
        wall_seconds=cand_wall,
    )
    try:
        if args.junit is not None:
            extra = [_margin_case(row) for row in margins]
            ci_report.write_text(args.junit, ci_report.junit_xml(
                cand_record, suite_name="navproof audit", extra=extra))
        if args.markdown is not None:
            title = f"navproof audit: `{base.name}` -> `{candidate.name}`"
            ci_report.write_text(args.markdown, ci_report.markdown_report(
                cand_record, title=title,
                sections=markdown_sections(params, margins, changes, verdict)))
    except OSError as exc:
        print(f"navproof audit: cannot write a report: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT

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
            "candidate": cand_record,
            "parameter_changes": params,
            "changes": changes,
            "margins": margins,
            "exit_code": code,
        }
        try:
            write_json(args.json, data)
        except OSError as exc:
            print(f"navproof audit: cannot write --json {args.json}: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
    return code
