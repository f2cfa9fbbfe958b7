"""Print the derived closed forms into the runtime's one generated module.

``navproof generate`` rewrites ``runtime/_generated/formulas.py``; ``navproof generate --check``
(and ``navproof prove``) fail when the committed module differs from a fresh generation, so a
formula edited by hand, or a derivation changed without regenerating, never goes unnoticed.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from sympy import srepr
from sympy.printing.numpy import NumPyPrinter

import navproof._generated
from navproof.core.exit_codes import EXIT_FAILED, EXIT_OK
from navproof.proofs.derivations import FORMULAS
from navproof.proofs.formula import Formula

# Located through the package, so it is right for an editable checkout and an installed wheel.
GENERATED_PATH = Path(navproof._generated.__file__).resolve().parent / "formulas.py"
REGENERATE_COMMAND = "navproof generate"


def _printer() -> NumPyPrinter:
    return NumPyPrinter({"fully_qualified_modules": True, "allow_unknown_functions": False})


def _render_function(formula: Formula) -> str:
    args = ", ".join(sym.name for sym in formula.args)
    body = _printer().doprint(formula.expr)
    claims = ", ".join(formula.claims)
    return (
        f"def {formula.name}(*, {args}):\n"
        f'    """{formula.summary} [{formula.unit}].\n\n'
        f"    Claim: {claims}. Derived in navproof.proofs as ``{formula.expr}``.\n"
        f'    """\n'
        f"    return {body}\n"
    )


def expressions_digest() -> str:
    """SHA-256 of the exact sympy trees (names, arguments and expressions) of every formula."""
    digest = hashlib.sha256()
    for formula in FORMULAS:
        digest.update(formula.name.encode())
        digest.update(repr([s.name for s in formula.args]).encode())
        digest.update(srepr(formula.expr).encode())
    return digest.hexdigest()


def render() -> str:
    """The full text of the generated module, deterministic for a given set of derivations."""
    functions = "\n\n".join(_render_function(f) for f in FORMULAS)
    names = ",\n".join(f'    "{f.name}"' for f in FORMULAS)
    # the numpy printer folds Min and Max with functools.reduce
    imports = ("import functools\n\nimport numpy\n" if "functools." in functions
               else "import numpy\n")
    return (
        "# DO NOT EDIT: generated from the sympy derivations in navproof.proofs.\n"
        f"# Regenerate with `{REGENERATE_COMMAND}` (or `make generate`); a test and\n"
        "# `navproof prove` fail when this file differs from a fresh generation.\n"
        f"# expressions-sha256: {expressions_digest()}\n"
        '"""Closed-form navigation formulas generated from the proofs (vectorised, numpy)."""\n'
        "\n"
        f"{imports}"
        "\n"
        f"__all__ = [\n{names},\n]\n"
        "\n\n"
        f"{functions}"
    )


def stale_reason(path: Path = GENERATED_PATH) -> str | None:
    """None when ``path`` equals a fresh generation, else a one-line reason."""
    try:
        committed = path.read_text(encoding="utf-8")
    except OSError as exc:
        return f"{path}: cannot read the generated module ({exc.strerror or exc})"
    if committed == render():
        return None
    return f"{path} differs from a fresh generation of the derivations; run `{REGENERATE_COMMAND}`"


def write(path: Path = GENERATED_PATH) -> bool:
    """Write a fresh generation; True when the file changed."""
    text = render()
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 when the committed module is stale",
    )


def run(args: argparse.Namespace) -> int:
    if args.check:
        reason = stale_reason()
        if reason:
            print(f"STALE: {reason}", file=sys.stderr)
            return EXIT_FAILED
        print(f"fresh: {GENERATED_PATH}")
        return EXIT_OK
    changed = write()
    print(f"{'wrote' if changed else 'unchanged'}: {GENERATED_PATH}")
    return EXIT_OK
