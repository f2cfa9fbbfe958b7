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
from typing import Any

from sympy import srepr, true
from sympy.printing.numpy import NumPyPrinter

import navproof._generated
from navproof.core.exit_codes import EXIT_FAILED, EXIT_OK
from navproof.proofs.derivations import FORMULAS
from navproof.proofs.formula import Formula

# Located through the package, so it is right for an editable checkout and an installed wheel.
GENERATED_PATH = Path(navproof._generated.__file__).resolve().parent / "formulas.py"
REGENERATE_COMMAND = "navproof generate"


SCALAR_FORMS = ("arrive_speed", "steering_change", "brake_envelope_factor")
"""Formulas also printed as a function of single floats (``<name>_scalar``) for compiled loops,
which cannot call ``numpy.select`` or ``functools.reduce``: the same expression, its arithmetic
printed by the same printer, only its Piecewise, Min and Max as conditionals and numpy's
element-wise minimum and maximum on two floats (the first NaN kept, the second of two equal
values, as numpy)."""

_SCALAR_HELPERS = '''def _numpy_minimum(a, b):
    """numpy.minimum of two floats, to the bit (compiled loops)."""
    return a if a < b or a != a else b


def _numpy_maximum(a, b):
    """numpy.maximum of two floats, to the bit (compiled loops)."""
    return a if a > b or a != a else b
'''


def _printer() -> NumPyPrinter:
    return NumPyPrinter({"fully_qualified_modules": True, "allow_unknown_functions": False})


class _ScalarPrinter(NumPyPrinter):
    """The numpy printer with Piecewise as nested conditionals, relations as Python's operators
    and Min / Max as left folds of :data:`_SCALAR_HELPERS` (numpy's ``functools.reduce``
    order); everything else is printed as for the numpy form."""

    def _print_Piecewise(self, expr: Any) -> str:
        out: str | None = None
        for value, cond in reversed(expr.args):
            printed = self._print(value)
            if cond == true and out is None:
                out = f"({printed})"
            else:
                # numpy.select's default for no true condition
                otherwise = "numpy.nan" if out is None else out
                out = f"(({printed}) if {self._print(cond)} else {otherwise})"
        assert out is not None
        return out

    def _print_Relational(self, expr: Any) -> str:
        return f"({self._print(expr.lhs)} {expr.rel_op} {self._print(expr.rhs)})"

    def _fold(self, helper: str, expr: Any) -> str:
        args = [self._print(arg) for arg in expr.args]
        out = args[0]
        for arg in args[1:]:
            out = f"{helper}({out}, {arg})"
        return out

    def _print_Min(self, expr: Any) -> str:
        return self._fold("_numpy_minimum", expr)

    def _print_Max(self, expr: Any) -> str:
        return self._fold("_numpy_maximum", expr)


def _render_scalar(formula: Formula) -> str:
    args = ", ".join(sym.name for sym in formula.args)
    printer = _ScalarPrinter({"fully_qualified_modules": True,
                              "allow_unknown_functions": False})
    body = printer.doprint(formula.expr)
    claims = ", ".join(formula.claims)
    return (
        f"def {formula.name}_scalar(*, {args}):\n"
        f'    """:func:`{formula.name}` of single floats, for compiled loops [{formula.unit}].\n\n'
        f"    Claim: {claims}. The same expression with its conditions and numpy's minimum and\n"
        f"    maximum written out.\n"
        f'    """\n'
        f"    return {body}\n"
    )


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
    scalar = [f for f in FORMULAS if f.name in SCALAR_FORMS]
    functions = "\n\n".join([_render_function(f) for f in FORMULAS]
                             + [_render_scalar(f) for f in scalar]
                             + ([_SCALAR_HELPERS] if scalar else []))
    names = ",\n".join([f'    "{f.name}"' for f in FORMULAS]
                       + [f'    "{f.name}_scalar"' for f in scalar])
    # the numpy printer folds Min and Max with functools.reduce
    imports = ("import functools\n\nimport numpy\n" if "functools." in functions
               else "import numpy\n")
    return (
        "# DO NOT EDIT: generated from the sympy derivations in navproof.proofs.\n"
        f"# Regenerate with `{REGENERATE_COMMAND}` (or `make generate`); a test and\n"
        "# `navproof prove` fail when this file differs from a fresh generation.\n"
        f"# expressions-sha256: {expressions_digest()}\n"
        '"""Closed-form navigation formulas generated from the proofs (vectorised, numpy; a few '
        'also of single floats for compiled loops)."""\n'
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
