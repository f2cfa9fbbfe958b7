"""``navproof claims``: the catalogue with, per claim, where it is proved, enforced and tested.

``obligations`` are the z3/sympy obligation builders that discharge the claim in ``navproof prove``.
The file lists are found by reading the source: a module counts for a claim when it cites the
claim's ID (docstrings cite the claim they implement). Tests are listed only from a checkout.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import navproof
from navproof.specs import SpecError, load_claims

_FOLDERS = ("proved", "enforced", "tested")
_ROLES = ("obligations", *_FOLDERS)
_RUNTIME = Path(navproof.__file__).resolve().parent
_PROOFS = Path(next(iter(importlib.util.find_spec("navproof.proofs").submodule_search_locations))
               ).resolve()


def _source_folders() -> dict[str, Path | None]:
    """Where the proofs, the runtime and (in a source checkout only) the tests live."""
    checkout = _RUNTIME.parent
    tests = checkout / "tests"
    has_tests = tests.is_dir() and (checkout / "pyproject.toml").is_file()
    return {"proved": _PROOFS, "enforced": _RUNTIME, "tested": tests if has_tests else None}


def _modules_citing(
    folder: Path | None, claim_ids: list[str], skip: set[Path]
) -> dict[str, list[str]]:
    """Claim ID -> paths (relative to the folder's parent) of Python files that cite it."""
    found: dict[str, list[str]] = {cid: [] for cid in claim_ids}
    if folder is None or not folder.is_dir():
        return found
    patterns = {cid: re.compile(rf"\b{re.escape(cid)}\b") for cid in claim_ids}
    for path in sorted(folder.rglob("*.py")):
        if any(path.is_relative_to(other) for other in skip):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for cid, pattern in patterns.items():
            if pattern.search(text):
                found[cid].append(str(path.relative_to(folder.parent)))
    return found


def claim_locations() -> list[dict[str, Any]]:
    """One record per claim: its catalogue fields and the files that prove, enforce and test it."""
    from navproof.proofs.obligations import proof_locations

    claims = load_claims()
    ids = list(claims)
    folders = _source_folders()
    # An installed wheel nests proofs/ and specs/ inside the runtime folder; count them once.
    nested = {f for f in folders.values() if f is not None and f != _RUNTIME}
    nested.add(_RUNTIME / "specs")
    where = {
        role: _modules_citing(folder, ids, nested if role == "enforced" else set())
        for role, folder in folders.items()
    }
    records = []
    for cid, claim in claims.items():
        records.append(
            {
                "id": cid,
                "title": claim.title,
                "kind": claim.kind,
                "refutable": claim.refutable,
                "seed": claim.seed,
                "obligations": proof_locations(cid),
                **{role: where[role][cid] for role in _FOLDERS},
            }
        )
    return records


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", metavar="FILE", help="also write the listing as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        records = claim_locations()
    except SpecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    for rec in records:
        flag = " (refutable)" if rec["refutable"] else ""
        print(f"{rec['id']:<4} {rec['kind']:<8} {rec['title']}{flag}")
        for role in _ROLES:
            files = rec[role]
            print(f"     {role:<11} {', '.join(files) if files else '-'}")
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=2, ensure_ascii=False) + "\n")
    return 0
