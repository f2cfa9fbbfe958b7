"""``navproof claims``: the catalogue with, per claim, where it is proved, enforced and tested.

``obligations`` are the z3/sympy obligation builders that discharge the claim in ``navproof prove``,
read from the registry's source text (``BUILDERS``/``OBLIGATIONS`` tables) so that listing the
claims never loads sympy or z3; a test checks the reading against the imported registry.
The file lists are found by reading the source: a module counts for a claim when it cites the
claim's ID (docstrings cite the claim they implement). Tests are listed only from a checkout.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import navproof
from navproof.core.exit_codes import EXIT_BAD_INPUT, EXIT_OK
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


_REGISTRY_TABLES = ("BUILDERS", "OBLIGATIONS")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(_PROOFS).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["navproof.proofs", *parts])


def _registered_builders() -> list[tuple[str, str]]:
    """``(obligation ID, module.function)`` of every obligation builder, from the source text.

    A registry table is a module-level dict literal named ``BUILDERS`` or ``OBLIGATIONS`` mapping
    obligation IDs to builder functions; a builder imported from another module is named by the
    module that defines it, as ``function.__module__`` would.
    """
    found: dict[str, str] = {}
    for path in sorted(_PROOFS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        module = _module_name(path)
        # builders are functions, or module-level names bound to a built function
        defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        defined |= {t.id for node in tree.body if isinstance(node, ast.Assign)
                    for t in node.targets if isinstance(t, ast.Name)}
        imported = {alias.asname or alias.name: f"{node.module}.{alias.name}"
                    for node in tree.body if isinstance(node, ast.ImportFrom) and node.module
                    for alias in node.names}
        for node in tree.body:
            target = (node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1
                      else node.target if isinstance(node, ast.AnnAssign) else None)
            if not (isinstance(target, ast.Name) and target.id in _REGISTRY_TABLES
                    and isinstance(node.value, ast.Dict)):
                continue
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)
                        and isinstance(value, ast.Name)):
                    continue
                if value.id in defined:
                    found[key.value] = f"{module}.{value.id}"
                elif value.id in imported:
                    found[key.value] = imported[value.id]
    return list(found.items())


def proof_locations(claim_id: str) -> list[str]:
    """Where a claim is discharged: ``module.function`` of each obligation builder of the claim
    (obligation IDs are the claim ID, or the claim ID and a ``/`` suffix)."""
    return [where for oid, where in _registered_builders()
            if oid.split("/", 1)[0] == claim_id]


def claim_locations() -> list[dict[str, Any]]:
    """One record per claim: its catalogue fields and the files that prove, enforce and test it."""
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
    """Print the listing (and write --json); 0 done, 3 bad input (catalogue, output path)."""
    from navproof.cli.output import check_output_paths, write_output
    from navproof.core.errors import InvalidInput

    try:
        check_output_paths({"--json": args.json})
        records = claim_locations()
    except (SpecError, InvalidInput) as exc:
        print(f"navproof claims: bad input: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for rec in records:
        flag = " (refutable)" if rec["refutable"] else ""
        print(f"{rec['id']:<4} {rec['kind']:<8} {rec['title']}{flag}")
        for role in _ROLES:
            files = rec[role]
            print(f"     {role:<11} {', '.join(files) if files else '-'}")
    if args.json:
        try:
            write_output("--json", args.json,
                         json.dumps(records, indent=2, ensure_ascii=False) + "\n")
        except InvalidInput as exc:
            print(f"navproof claims: bad input: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
    return EXIT_OK
