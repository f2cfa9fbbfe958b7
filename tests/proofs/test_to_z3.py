"""Exact sympy -> z3 translation (navproof.proofs.to_z3)."""

from fractions import Fraction

import pytest
import sympy
import z3

from navproof.proofs.derivations import FORMULAS
from navproof.proofs.to_z3 import Translator, UnsupportedExpression, rational, to_z3

x = sympy.Symbol("x", real=True)
y = sympy.Symbol("y", real=True)
p = sympy.Symbol("p", positive=True)
q = sympy.Symbol("q", nonnegative=True)


def _solve(*assertions):
    solver = z3.SolverFor("QF_NRA")
    solver.set("timeout", 10_000)
    solver.add(*assertions)
    return solver.check()


def test_a_rational_stays_an_exact_rational():
    tr = to_z3(sympy.Rational(1, 10))
    assert z3.is_rational_value(tr.term)
    assert (tr.term.numerator_as_long(), tr.term.denominator_as_long()) == (1, 10)
    assert tr.side == ()
    # 1/3 is not 0.333...: three of them are exactly one.
    third = to_z3(sympy.Rational(1, 3)).term
    assert z3.simplify(3 * third == 1)


def test_rational_helper_is_exact_for_fractions_and_rejects_floats():
    value = rational(Fraction(1, 200))
    assert (value.numerator_as_long(), value.denominator_as_long()) == (1, 200)
    with pytest.raises(UnsupportedExpression):
        rational(0.1)  # type: ignore[arg-type]


def test_floats_in_expressions_are_refused():
    with pytest.raises(UnsupportedExpression, match="floating-point"):
        to_z3(sympy.Float("0.1") * x)


def test_symbol_assumptions_become_side_conditions():
    tr = to_z3(p + q + x)
    texts = {str(c) for c in tr.side}
    assert texts == {"p > 0", "q >= 0"}


def test_sqrt_becomes_a_fresh_variable_with_side_conditions():
    tr = to_z3(sympy.sqrt(x))
    root = tr.term
    assert z3.is_const(root) and root.decl().name().startswith("sqrt!")
    xs = z3.Real("x")
    assert any(c.eq(root >= 0) for c in tr.side)
    assert any(c.eq(root * root == xs) for c in tr.side)
    # sqrt(2)^2 is exactly 2, and sqrt(2) is not a rational approximation of it.
    assert _solve(*tr.side, xs == 2, root * root != 2) == z3.unsat
    assert _solve(*tr.side, xs == 2, root == z3.Q(14142, 10000)) == z3.unsat


def test_the_same_sqrt_is_one_variable_within_a_translator():
    tr = Translator()
    a = tr.term(sympy.sqrt(q) + 1)
    b = tr.term(2 * sympy.sqrt(q))
    roots = {str(c) for c in tr.fresh}
    assert len(roots) == 1
    assert _solve(*tr.side, a - 1 != b / 2) == z3.unsat


def test_reciprocal_is_guarded_so_zero_is_not_a_contradiction():
    tr = to_z3(1 / x)
    xs = z3.Real("x")
    assert _solve(*tr.side, xs == 0) == z3.sat
    assert _solve(*tr.side, xs == 4, tr.term != z3.Q(1, 4)) == z3.unsat


def test_half_integer_powers_use_the_sqrt_variable():
    tr = to_z3(q ** sympy.Rational(3, 2))
    qs = z3.Real("q")
    assert _solve(*tr.side, qs == 4, tr.term != 8) == z3.unsat
    inv = to_z3(q ** sympy.Rational(-1, 2))
    assert _solve(*inv.side, qs == 4, inv.term != z3.Q(1, 2)) == z3.unsat


def test_piecewise_min_max_abs_relations_and_connectives():
    pw = sympy.Piecewise((x, x <= 1), (2 * x, True))
    tr = Translator()
    term = tr.term(pw)
    xs = z3.Real("x")
    assert _solve(xs == 3, term != 6) == z3.unsat
    assert _solve(xs == 1, term != 1) == z3.unsat
    assert _solve(xs == -3, tr.term(sympy.Abs(x)) != 3) == z3.unsat
    assert _solve(xs == 2, tr.term(sympy.Min(x, 1)) != 1) == z3.unsat
    assert _solve(xs == 2, tr.term(sympy.Max(x, 5)) != 5) == z3.unsat
    formula = tr.formula(sympy.And(x > 1, sympy.Or(x < 0, sympy.Not(sympy.Eq(x, 2)))))
    assert _solve(xs == 2, formula) == z3.unsat
    assert _solve(xs == 3, formula) == z3.sat


def test_piecewise_without_default_states_its_domain():
    tr = to_z3(sympy.Piecewise((x, x > 0)))
    assert _solve(*tr.side, z3.Real("x") == -1) == z3.unsat


def test_environment_maps_symbols_to_z3_terms():
    nx, vx = z3.Reals("nx vx")
    tr = to_z3(2 * y + 1, {"y": nx * vx})
    assert _solve(nx == 2, vx == 3, tr.term != 13) == z3.unsat


@pytest.mark.parametrize(
    "expr",
    [sympy.sin(x), x ** sympy.Rational(1, 3), x**y, sympy.exp(x)],
    ids=["sin", "cube-root", "symbolic-exponent", "exp"],
)
def test_unsupported_nodes_raise_instead_of_approximating(expr):
    with pytest.raises(UnsupportedExpression):
        to_z3(expr)


_POINT = {
    "dt": sympy.Rational(1, 10),
    "t": sympy.Rational(1, 20),
    "t0": sympy.Rational(1, 30),
    "t1": sympy.Rational(7, 10),
    "s": sympy.Rational(3, 100),
    "n_dot_u": sympy.Rational(1, 5),
    "n_dot_e": sympy.Rational(-1, 10),
    "n_dot_v": sympy.Rational(2, 5),
    "n_dot_v0": sympy.Rational(1, 2),
    "n_dot_v1": sympy.Rational(-3, 5),
    "v0": sympy.Rational(1, 3),
    "v1": sympy.Rational(-7, 4),
    "a": sympy.Integer(2),
    "speed": sympy.Rational(3, 2),
    "n_dot_c": sympy.Rational(1, 4),
    "cmax": sympy.Integer(3),
    "vh": sympy.Integer(2),
    "carry": sympy.Rational(1, 5),
    "n_dot_r": sympy.Rational(-1, 20),
    "s_end": sympy.Rational(1, 50),
    "kfac": sympy.Rational(29, 20),
    "grad_sq": sympy.Integer(3),
    "k": sympy.Integer(2),
    "surface_cap": sympy.Integer(4),
    "d": sympy.Rational(9, 100),
    "vcap": sympy.Integer(1),
    "accel": sympy.Integer(1),
    "rel_v": sympy.Rational(-1, 2),
    "rel_p": sympy.Rational(3, 2),
    "rel_vx": sympy.Rational(1, 3),
    "rel_vy": sympy.Rational(-1, 4),
    "rel_px": sympy.Integer(3),
    "rel_py": sympy.Rational(1, 2),
    "inv_tau": sympy.Rational(1, 10),
    "comb_r": sympy.Rational(3, 2),
    "w_len": sympy.Rational(5, 4),
    "leg_len": sympy.Rational(7, 3),
    "side": sympy.Integer(-1),
    "dist_sq": sympy.Rational(37, 4),
    "v_dot_d": sympy.Rational(2, 5),
    "direction": sympy.Rational(3, 5),
    "own_v": sympy.Rational(-1, 5),
    "share": sympy.Rational(1, 3),
    "change": sympy.Rational(4, 7),
    "p_sq": sympy.Integer(9),
    "p_dot_x": sympy.Rational(-3, 2),
    "x_sq": sympy.Rational(5, 2),
    "time_s": sympy.Rational(6, 5),
    "weight_own": sympy.Integer(2),
    "weight_other": sympy.Integer(3),
    "max_speed": sympy.Integer(2),
    "max_accel": sympy.Integer(1),
    "gap": sympy.Rational(3, 10),
    "dist": sympy.Rational(7, 10),
    "stop_range": sympy.Rational(1, 10),
    "slow_radius": sympy.Integer(1),
    # the rotating-edge bound of B6
    "omega_e": sympy.Rational(1, 2),
    "d_omega": sympy.Rational(3, 4),
    "dw": sympy.Rational(1, 5),
    "d_accel": sympy.Rational(2, 5),
    "dp_max": sympy.Rational(7, 20),
    "ddp_max": sympy.Rational(2, 5),
    "p0": sympy.Integer(2),
    "p_max": sympy.Rational(5, 2),
    "q0": sympy.Rational(3, 2),
    "q_max": sympy.Integer(2),
    "dq_max": sympy.Rational(6, 5),
    "ddq_max": sympy.Integer(3),
    "v0_norm": sympy.Integer(1),
    "dv_norm": sympy.Rational(1, 2),
    "m2": sympy.Integer(7),
    "h": sympy.Rational(1, 80),
    "horizon": sympy.Rational(3, 10),
    "ulp": sympy.Rational(1, 2**52),
    "offset_abs": sympy.Integer(4),
    # the hold's pivot drift (B6, R3): a parabola opening downwards with its vertex at t > 0
    "n_dot_p": sympy.Rational(-1, 2),
    "n_dot_dw": sympy.Rational(1, 5),
    "n_dot_da": sympy.Rational(-3, 10),
}


@pytest.mark.parametrize("formula", FORMULAS, ids=lambda f: f.name)
def test_every_derived_formula_translates_to_its_exact_value(formula):
    """At a rational point the z3 term equals sympy's exact value (irrationals included)."""
    values = {s: _POINT[s.name] for s in formula.args}
    exact = sympy.nsimplify(formula.expr.subs(values))
    tr = Translator()
    term = tr.term(formula.expr)
    fixed = [z3.Real(s.name) == tr.term(v) for s, v in values.items()]
    expected = tr.term(exact)
    assert _solve(*tr.side, *fixed, term != expected) == z3.unsat
    assert _solve(*tr.side, *fixed) == z3.sat


def test_assumptions_of_environment_bound_symbols_are_listed_not_imposed():
    w = z3.Real("w")
    tr = Translator(env={"p": w})
    tr.term(p + 1)
    assert tr.side == []
    assert [str(c) for _, c in tr.bound] == ["w > 0"]
