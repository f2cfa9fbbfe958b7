"""Exact translation of sympy expressions into z3 real arithmetic.

Numbers stay exact: an Integer or Rational becomes a z3 rational built from its numerator and
denominator, never from a float; a Float anywhere in an expression is refused. Non-polynomial
pieces are replaced by fresh variables tied down by side conditions, so the z3 term is a
polynomial the nlsat procedure decides:

- ``sqrt(x)`` (``x**(1/2)``) becomes a fresh ``y`` with ``y >= 0`` and ``y*y == x`` (which also
  states that ``x`` lies in sqrt's real domain);
- ``1/x`` (``x**-1``) becomes a fresh ``w`` with ``x != 0 -> w*x == 1``; where ``x == 0`` the
  expression is undefined and ``w`` is left free, like z3's own total division, so nothing is
  ever proved from a division by zero that would not hold for every value of the quotient;
- ``x**(p/2)`` is ``sqrt(x)**p``; other integer powers are products.

Definedness is kept apart so that it can be proved rather than assumed: ``domain`` lists the
condition under which each partial piece is defined (``x >= 0`` for ``sqrt(x)``, the disjunction of
the conditions of a Piecewise without a default), and ``definitions`` lists the side conditions
with every sqrt definition guarded by its domain (``x >= 0 -> (y >= 0 and y*y == x)``), so that
hypotheses plus ``definitions`` do not exclude the points where a piece is undefined. ``side`` is
``definitions`` with the domains assumed: use it only once the domains are proved.

Symbols become z3 Reals by name, and their sympy assumptions become side conditions
(``positive`` gives ``> 0``, ``nonnegative`` gives ``>= 0``, ...). An environment can map a symbol
name to any z3 term instead (e.g. ``n_dot_v`` to ``nx*vx + ny*vy``); the assumptions of such a
symbol are then listed in ``Translator.bound`` for the caller to discharge, since sympy may have
simplified with them. Piecewise, ITE, Min, Max and
Abs become ``If``; relations and boolean connectives become z3 formulas. Anything else raises
``UnsupportedExpression``: there is no silent approximation.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import sympy
import z3

# Fresh-variable names are unique per process: z3 identifies constants by name, so two
# translators must never hand out the same name for different quantities.
_FRESH_IDS = itertools.count(1)


class UnsupportedExpression(ValueError):
    """A sympy node without an exact z3 counterpart here (floats, transcendental functions, ...)."""

    def __init__(self, expr: object, reason: str) -> None:
        self.expr = expr
        self.reason = reason
        super().__init__(f"cannot translate {expr!r} to z3: {reason}")


def rational(value: Fraction | int | sympy.Rational) -> z3.RatNumRef:
    """The exact z3 rational of an int, Fraction or sympy Rational (never via a float)."""
    if isinstance(value, bool):
        raise UnsupportedExpression(value, "booleans are not numbers")
    if isinstance(value, int):
        return z3.RealVal(value)
    if isinstance(value, Fraction):
        return z3.Q(value.numerator, value.denominator)
    if isinstance(value, sympy.Rational):
        return z3.Q(int(value.p), int(value.q))
    raise UnsupportedExpression(value, "only int, Fraction and sympy Rational are exact numbers")


def symbol_conditions(sym: sympy.Symbol, term: z3.ArithRef) -> list[z3.BoolRef]:
    """Side conditions on ``term`` stated by the sympy assumptions of ``sym``."""
    conditions = []
    if sym.is_positive:
        conditions.append(term > 0)
    elif sym.is_nonnegative:
        conditions.append(term >= 0)
    if sym.is_negative:
        conditions.append(term < 0)
    elif sym.is_nonpositive:
        conditions.append(term <= 0)
    if sym.is_zero:
        conditions.append(term == 0)
    if sym.is_integer:
        conditions.append(z3.IsInt(term))
    return conditions


@dataclass
class Translator:
    """Translates several expressions into one shared set of z3 variables and side conditions.

    Variables created for symbols and fresh sqrt / reciprocal variables are shared by every
    expression translated by the same translator (the same ``sqrt(d)`` is one variable), so a
    premise and a conclusion talk about the same quantities.
    """

    env: Mapping[str, z3.ArithRef] = field(default_factory=dict)
    prefix: str = ""
    ctx: z3.Context | None = None
    side: list[z3.BoolRef] = field(default_factory=list)
    variables: dict[str, z3.ArithRef] = field(default_factory=dict)
    fresh: dict[str, z3.ArithRef] = field(default_factory=dict)
    # Assumptions of symbols taken from ``env``: not imposed (the caller's hypotheses define the
    # bound term), but listed so that the caller can check that they follow.
    bound: list[tuple[str, z3.BoolRef]] = field(default_factory=list)
    # Where each partial piece is defined, and the side conditions guarded by those domains.
    domain: list[z3.BoolRef] = field(default_factory=list)
    definitions: list[z3.BoolRef] = field(default_factory=list)
    _memo: dict[sympy.Basic, z3.ExprRef] = field(default_factory=dict)

    # -- public -----------------------------------------------------------------------------

    def term(self, expr: sympy.Basic) -> z3.ArithRef:
        """The z3 real term of a sympy expression (side conditions accumulate in ``side``)."""
        result = self._translate(sympy.sympify(expr))
        if not z3.is_arith(result):
            raise UnsupportedExpression(expr, "expected a numeric expression, got a formula")
        return result

    def formula(self, expr: sympy.Basic | bool) -> z3.BoolRef:
        """The z3 formula of a sympy relation or boolean expression."""
        result = self._translate(sympy.sympify(expr))
        if not z3.is_bool(result):
            raise UnsupportedExpression(expr, "expected a relation or boolean, got a number")
        return result

    # -- helpers ----------------------------------------------------------------------------

    def _fresh(self, base: str) -> z3.ArithRef:
        name = f"{self.prefix}{base}!{next(_FRESH_IDS)}"
        var = z3.Real(name, self.ctx)
        self.fresh[name] = var
        return var

    def _val(self, value: Fraction | int | sympy.Rational) -> z3.RatNumRef:
        if isinstance(value, sympy.Rational):
            return z3.RealVal(f"{int(value.p)}/{int(value.q)}", self.ctx)
        value = Fraction(value)
        return z3.RealVal(f"{value.numerator}/{value.denominator}", self.ctx)

    def _symbol(self, sym: sympy.Symbol) -> z3.ArithRef:
        if sym.name in self.env:
            term = self.env[sym.name]
            for condition in symbol_conditions(sym, term):
                entry = (f"{sym.name.split('@')[0]} := {term}", condition)
                if not any(c.eq(condition) for _, c in self.bound):
                    self.bound.append(entry)
            return term
        if sym.name not in self.variables:
            var = z3.Real(self.prefix + sym.name, self.ctx)
            self.variables[sym.name] = var
            conditions = symbol_conditions(sym, var)
            self.side.extend(conditions)
            self.definitions.extend(conditions)
        return self.variables[sym.name]

    def _sqrt(self, base: sympy.Basic) -> z3.ArithRef:
        key = sympy.sqrt(base, evaluate=False)
        if key not in self._memo:
            inner = self.term(base)
            root = self._fresh("sqrt")
            self.side.extend([root >= 0, root * root == inner])
            self.domain.append(inner >= 0)
            self.definitions.append(z3.Implies(inner >= 0, z3.And(root >= 0, root * root == inner)))
            self._memo[key] = root
        return self._memo[key]

    def _reciprocal(self, base: sympy.Basic, inner: z3.ArithRef | None = None) -> z3.ArithRef:
        key = sympy.Pow(base, -1, evaluate=False)
        if key not in self._memo:
            denominator = self.term(base) if inner is None else inner
            inverse = self._fresh("inv")
            definition = z3.Implies(denominator != 0, inverse * denominator == 1)
            self.side.append(definition)
            self.definitions.append(definition)
            self._memo[key] = inverse
        return self._memo[key]

    def _power(self, base: z3.ArithRef, exponent: int) -> z3.ArithRef:
        result = base
        for _ in range(exponent - 1):
            result = result * base
        return result

    def _pow(self, expr: sympy.Pow) -> z3.ArithRef:
        base, exponent = expr.args
        if not isinstance(exponent, sympy.Rational):
            raise UnsupportedExpression(expr, "only rational constant exponents are supported")
        if exponent.q not in (1, 2):
            raise UnsupportedExpression(expr, "only integer and half-integer exponents are exact")
        magnitude = abs(int(exponent.p))
        if exponent.q == 2:
            root = self._sqrt(base)
            positive = self._power(root, magnitude)
            if exponent.p > 0:
                return positive
            inverse = self._reciprocal(sympy.sqrt(base, evaluate=False), root)
            return self._power(inverse, magnitude)
        if exponent == 0:
            return self._val(1)
        if exponent.p > 0:
            return self._power(self.term(base), magnitude)
        return self._power(self._reciprocal(base), magnitude)

    def _piecewise(self, expr: sympy.Piecewise) -> z3.ExprRef:
        pieces = [(self._translate(e), self._translate(c)) for e, c in expr.args]
        last_value, last_condition = pieces[-1]
        if not z3.is_true(last_condition):
            # No default branch: the expression is only defined where some condition holds.
            self.side.append(z3.Or([c for _, c in pieces]))
            self.domain.append(z3.Or([c for _, c in pieces]))
        result = last_value
        for value, condition in reversed(pieces[:-1]):
            result = z3.If(condition, value, result)
        return result

    def _translate(self, expr: sympy.Basic) -> z3.ExprRef:
        if expr in self._memo:
            return self._memo[expr]
        result = self._dispatch(expr)
        self._memo[expr] = result
        return result

    def _dispatch(self, expr: sympy.Basic) -> z3.ExprRef:
        if expr is sympy.true or expr is sympy.S.true:
            return z3.BoolVal(True, self.ctx)
        if expr is sympy.false or expr is sympy.S.false:
            return z3.BoolVal(False, self.ctx)
        if isinstance(expr, sympy.Float):
            raise UnsupportedExpression(expr, "floating-point constants are not exact")
        if isinstance(expr, sympy.Rational):  # Integer is a Rational
            return self._val(expr)
        if isinstance(expr, sympy.Symbol):
            return self._symbol(expr)
        if isinstance(expr, sympy.Add):
            return z3.Sum([self.term(arg) for arg in expr.args])
        if isinstance(expr, sympy.Mul):
            return z3.Product([self.term(arg) for arg in expr.args])
        if isinstance(expr, sympy.Pow):
            return self._pow(expr)
        if isinstance(expr, sympy.Piecewise):
            return self._piecewise(expr)
        if isinstance(expr, (sympy.Min, sympy.Max)):
            values = [self.term(arg) for arg in expr.args]
            result = values[0]
            for value in values[1:]:
                if isinstance(expr, sympy.Min):
                    result = z3.If(value < result, value, result)
                else:
                    result = z3.If(value > result, value, result)
            return result
        if isinstance(expr, sympy.Abs):
            inner = self.term(expr.args[0])
            return z3.If(inner >= 0, inner, -inner)
        if isinstance(expr, sympy.core.relational.Relational):
            lhs, rhs = self.term(expr.lhs), self.term(expr.rhs)
            relations = {
                sympy.Eq: lambda: lhs == rhs,
                sympy.Ne: lambda: lhs != rhs,
                sympy.Lt: lambda: lhs < rhs,
                sympy.Le: lambda: lhs <= rhs,
                sympy.Gt: lambda: lhs > rhs,
                sympy.Ge: lambda: lhs >= rhs,
            }
            for kind, build in relations.items():
                if isinstance(expr, kind):
                    return build()
            raise UnsupportedExpression(expr, "unknown relation")
        if isinstance(expr, sympy.ITE):
            return z3.If(
                self.formula(expr.args[0]), self.formula(expr.args[1]), self.formula(expr.args[2])
            )
        if isinstance(expr, sympy.And):
            return z3.And([self.formula(arg) for arg in expr.args])
        if isinstance(expr, sympy.Or):
            return z3.Or([self.formula(arg) for arg in expr.args])
        if isinstance(expr, sympy.Not):
            return z3.Not(self.formula(expr.args[0]))
        if isinstance(expr, sympy.Implies):
            return z3.Implies(self.formula(expr.args[0]), self.formula(expr.args[1]))
        raise UnsupportedExpression(expr, f"no exact z3 translation for {type(expr).__name__}")


@dataclass(frozen=True)
class Translation:
    """A z3 term (or formula) and the side conditions it needs to mean the sympy expression."""

    term: z3.ExprRef
    side: tuple[z3.BoolRef, ...]


def to_z3(
    expr: sympy.Basic | bool,
    env: Mapping[str, z3.ArithRef] | None = None,
    *,
    ctx: z3.Context | None = None,
) -> Translation:
    """Translate one sympy expression or relation exactly; returns the term and its side conditions.

    ``env`` maps symbol names to z3 terms; unmapped symbols become z3 Reals of the same name,
    constrained by their sympy assumptions.
    """
    translator = Translator(env=dict(env or {}), ctx=ctx)
    expr = sympy.sympify(expr)
    if isinstance(expr, (sympy.core.relational.Relational, sympy.logic.boolalg.Boolean)):
        term: z3.ExprRef = translator.formula(expr)
    else:
        term = translator.term(expr)
    return Translation(term, tuple(translator.side))
