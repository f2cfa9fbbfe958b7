"""Standard SMT-LIB 2.6 text of a proof query, readable by every engine (not only z3).

z3's own printer writes z3-only syntax into its SMT-LIB output: its power operator
``(^ X 2.0)``, quoted names with escaped bars (``|\\|g\\|^2|``), names with primes and
one-argument sums ``(+ X)``. A second engine rejects such text, and a rejected query must never
look like an undecided one. :func:`to_smtlib` prints the same conjunction in the standard
language instead:

- every constant is declared once, under a standard name (a simple symbol where the original
  is one, else a quoted symbol; the characters the standard forbids inside quotes, ``\\``
  and ``|``, become ``/`` and ``!``, and a numbered suffix keeps names apart); a comment maps
  each standard name back to the original;
- a power with a natural-number exponent becomes a product, a one-argument sum or product its
  argument; rational constants are exact decimals or ``(/ p q)``, negative ones ``(- ...)``;
- anything outside quantifier-free real/integer arithmetic (a quantifier, an uninterpreted
  function, a real exponent) raises :class:`NotStandard`: a defect of the query, reported as
  such, never an unknown.

The logic is ``QF_NRA`` for real-only queries and ``QF_NIRA`` when an integer constant occurs.
"""

from __future__ import annotations

import re

import z3

SIMPLE_SYMBOL = re.compile(r"^[A-Za-z~!@$%^&*_+=<>.?/-][A-Za-z0-9~!@$%^&*_+=<>.?/-]*$")
"""A simple symbol of SMT-LIB 2.6 (a non-empty sequence of letters, digits and the punctuation
the standard allows, not starting with a digit)."""

RESERVED = frozenset({
    "_", "!", "as", "let", "exists", "forall", "match", "par", "BINARY", "DECIMAL", "HEXADECIMAL",
    "NUMERAL", "STRING", "true", "false", "not", "and", "or", "xor", "ite", "distinct",
})
"""Words the standard reserves, or core-theory names a constant must not shadow."""

_NARY = {
    z3.Z3_OP_AND: "and",
    z3.Z3_OP_OR: "or",
    z3.Z3_OP_ADD: "+",
    z3.Z3_OP_MUL: "*",
    z3.Z3_OP_SUB: "-",
    z3.Z3_OP_LE: "<=",
    z3.Z3_OP_LT: "<",
    z3.Z3_OP_GE: ">=",
    z3.Z3_OP_GT: ">",
    z3.Z3_OP_EQ: "=",
    z3.Z3_OP_DISTINCT: "distinct",
    z3.Z3_OP_IMPLIES: "=>",
    z3.Z3_OP_ITE: "ite",
    z3.Z3_OP_NOT: "not",
    z3.Z3_OP_UMINUS: "-",
    z3.Z3_OP_DIV: "/",
    z3.Z3_OP_IDIV: "div",
    z3.Z3_OP_MOD: "mod",
    z3.Z3_OP_TO_REAL: "to_real",
    z3.Z3_OP_TO_INT: "to_int",
    z3.Z3_OP_IS_INT: "is_int",
    z3.Z3_OP_XOR: "xor",
}
# A one-argument application of these is its argument (z3 prints `(+ X)`).
_IDENTITY_WHEN_UNARY = {z3.Z3_OP_ADD, z3.Z3_OP_MUL, z3.Z3_OP_AND, z3.Z3_OP_OR}


class NotStandard(ValueError):
    """The query uses something standard QF_NRA/QF_NIRA text cannot express."""


def _quoted(name: str) -> str:
    spelled = name.replace("\\", "/").replace("|", "!")
    return f"|{spelled}|"


class _Names:
    """Standard names of the constants, unique, in order of first appearance."""

    def __init__(self) -> None:
        self.of: dict[str, str] = {}
        self.sort: dict[str, str] = {}
        self._taken: set[str] = set()

    def name(self, original: str, sort: str) -> str:
        if original in self.of:
            return self.of[original]
        base = original if SIMPLE_SYMBOL.match(original) and original not in RESERVED \
            else _quoted(original)
        candidate, n = base, 1
        while candidate in self._taken:
            n += 1
            candidate = f"{base}_{n}" if not base.startswith("|") else f"{base[:-1]}_{n}|"
        self._taken.add(candidate)
        self.of[original] = candidate
        self.sort[candidate] = sort
        return candidate


def _numeral(expr: z3.ExprRef) -> str:
    """An exact numeral of the expression's sort: decimals for reals, integers for ints."""
    if z3.is_int_value(expr):
        value = expr.as_long()
        return str(value) if value >= 0 else f"(- {-value})"
    if z3.is_rational_value(expr):
        num = expr.numerator_as_long()
        den = expr.denominator_as_long()
        magnitude = f"{abs(num)}.0" if den == 1 else f"(/ {abs(num)}.0 {den}.0)"
        return magnitude if num >= 0 else f"(- {magnitude})"
    if z3.is_algebraic_value(expr):
        raise NotStandard(f"an algebraic number has no exact SMT-LIB numeral: {expr}")
    raise NotStandard(f"not a numeral: {expr}")


def _sort_name(sort: z3.SortRef) -> str:
    if sort.kind() == z3.Z3_REAL_SORT:
        return "Real"
    if sort.kind() == z3.Z3_INT_SORT:
        return "Int"
    if sort.kind() == z3.Z3_BOOL_SORT:
        return "Bool"
    raise NotStandard(f"sort {sort} is outside arithmetic")


def _term(expr: z3.ExprRef, names: _Names, memo: dict[int, str]) -> str:
    key = expr.get_id()
    if key in memo:
        return memo[key]
    if z3.is_quantifier(expr):
        raise NotStandard(f"a quantifier is outside QF_NRA: {expr}")
    kind = expr.decl().kind()
    args = expr.children()
    if kind == z3.Z3_OP_TRUE:
        text = "true"
    elif kind == z3.Z3_OP_FALSE:
        text = "false"
    elif kind in (z3.Z3_OP_ANUM, z3.Z3_OP_AGNUM):
        text = _numeral(expr)
    elif kind == z3.Z3_OP_UNINTERPRETED:
        if args:
            raise NotStandard(f"an uninterpreted function is outside QF_NRA: {expr.decl()}")
        text = names.name(expr.decl().name(), _sort_name(expr.sort()))
    elif kind == z3.Z3_OP_POWER:
        base, exponent = args
        if not (z3.is_rational_value(exponent) and exponent.denominator_as_long() == 1
                and exponent.numerator_as_long() >= 0):
            raise NotStandard(f"power with exponent {exponent} is not a polynomial: {expr}")
        k = exponent.numerator_as_long()
        inner = _term(base, names, memo)
        one = "1" if base.sort().kind() == z3.Z3_INT_SORT else "1.0"
        text = one if k == 0 else inner if k == 1 else f"(* {' '.join([inner] * k)})"
    elif kind in _NARY:
        parts = [_term(a, names, memo) for a in args]
        if len(parts) == 1 and kind in _IDENTITY_WHEN_UNARY:
            text = parts[0]
        else:
            text = f"({_NARY[kind]} {' '.join(parts)})"
    else:
        raise NotStandard(f"operator {expr.decl()} has no standard QF_NRA spelling: {expr}")
    memo[key] = text
    return text


def to_smtlib(assertions: list[z3.BoolRef], *, comment: str = "") -> str:
    """Standard SMT-LIB 2.6 script asserting the conjunction and asking ``(check-sat)``.

    Raises :class:`NotStandard` when an assertion cannot be written in standard QF_NRA/QF_NIRA.
    """
    names = _Names()
    memo: dict[int, str] = {}
    body = [f"(assert {_term(a, names, memo)})" for a in assertions]
    logic = "QF_NIRA" if "Int" in names.sort.values() else "QF_NRA"
    lines = [f"; {line}" for line in comment.splitlines()]
    lines.append(f"(set-logic {logic})")
    for original, name in names.of.items():
        if name != original:
            lines.append(f"; {name} is {original}")
        lines.append(f"(declare-fun {name} () {names.sort[name]})")
    lines.extend(body)
    lines.append("(check-sat)")
    lines.append("(exit)")
    return "\n".join(lines) + "\n"
