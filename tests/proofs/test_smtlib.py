"""The standard SMT-LIB text of a query: every engine reads it, and it says what z3 was asked."""

import re

import pytest
import z3

from navproof.proofs import cross_check, engine
from navproof.proofs.smtlib import NotStandard, to_smtlib
from navproof.specs.profile import load_profile

Z3_ONLY = [
    (re.compile(r"\(\^ "), "z3's power operator"),
    (re.compile(r"\(\+ [^()\s]+\)"), "a one-argument sum"),
    (re.compile(r"\|[^|]*\\\|"), "an escaped bar inside a quoted name"),
]


def _declared(text: str) -> list[str]:
    return re.findall(r"\(declare-fun (\S+|\|[^|]*\|) \(\) (?:Real|Int|Bool)\)", text)


def test_z3_only_syntax_becomes_standard():
    g = z3.Real("|g|^2")
    p = z3.Real("u.P''")
    x = z3.Real("x")
    text = to_smtlib([g == x ** 2, z3.Sum([p]) > z3.RealVal("-3/7"), x ** 3 <= 1, x ** 0 == 1])
    for pattern, what in Z3_ONLY:
        assert not pattern.search(text), f"{what} in:\n{text}"
    assert "(* x x)" in text and "(* x x x)" in text
    assert "(- (/ 3.0 7.0))" in text
    names = _declared(text)
    assert len(names) == len(set(names)) == 3
    assert "; |!g!^2| is |g|^2" in text
    # the standard names declared are the ones used, and z3 reads the text back
    assert len(z3.parse_smt2_string(text)) == 4


def test_names_that_collide_after_quoting_stay_apart():
    a, b = z3.Reals("a|b a\\b")
    text = to_smtlib([a > 0, b < 0, a + b == 1])
    assert len(set(_declared(text))) == 2


def test_what_standard_text_cannot_say_is_a_defect_not_an_unknown():
    x = z3.Real("x")
    f = z3.Function("f", z3.RealSort(), z3.RealSort())
    with pytest.raises(NotStandard, match="uninterpreted function"):
        to_smtlib([f(x) > 0])
    with pytest.raises(NotStandard, match="quantifier"):
        to_smtlib([z3.ForAll([x], x * x >= 0)])
    with pytest.raises(NotStandard, match="not a polynomial"):
        to_smtlib([x ** z3.RealVal("1/2") == 2])
    assert cross_check.check([f(x) > 0], 10**6)[0] == cross_check.PARSE_ERROR


def _decided_queries(obligation_id):
    profile = load_profile()
    budget = engine.Budget(rlimit=profile.budgets.z3_rlimit)
    ob = engine.registry.build(obligation_id, profile)
    # the same queries the engine logs for the cross-check: run the obligation and keep its log
    captured = []
    original = engine._check

    def logging_check(assertions, budget_, label=""):
        outcome = original(assertions, budget_, label)
        if label and outcome[0] in (z3.sat, z3.unsat):
            captured.append((label, assertions, str(outcome[0])))
        return outcome

    engine._check = logging_check
    try:
        engine.check_obligation(ob, rlimit=budget.rlimit)
    finally:
        engine._check = original
    return captured


@pytest.mark.parametrize("obligation_id", ["B1", "S3", "O5/segment", "T2", "V1/factor", "A5"])
def test_every_query_text_is_read_and_decided_alike_by_z3(obligation_id):
    queries = _decided_queries(obligation_id)
    assert queries
    for label, assertions, answer in queries:
        text = to_smtlib(assertions)
        for pattern, what in Z3_ONLY:
            assert not pattern.search(text), f"{obligation_id} {label}: {what}"
        solver = z3.SolverFor("QF_NRA")
        solver.from_string(text)
        assert str(solver.check()) == answer, f"{obligation_id} {label}"


@pytest.mark.skipif(not cross_check.available("yices"), reason="yices-smt2 is not installed")
def test_yices_decides_sat_and_unsat_like_z3():
    x, y = z3.Reals("x_y y_y")
    assert cross_check.check_yices([x * x + y * y == 1, x * y > 1])[0] == cross_check.UNSAT
    assert cross_check.check_yices([x * x == 2, x > 0])[0] == cross_check.SAT


def test_emit_smt2_writes_every_query_of_the_verdict(tmp_path):
    result = engine.run_one("B1", load_profile(), emit_smt2_dir=str(tmp_path))
    assert result.ok and result.query_files
    files = sorted(tmp_path.glob("B1.*.smt2"))
    assert [str(f) for f in files] == sorted(result.query_files)
    for path in files:
        text = path.read_text()
        assert text.startswith("; navproof obligation B1, query ")
        answer = re.search(r"z3 answer: (sat|unsat)", text).group(1)
        solver = z3.SolverFor("QF_NRA")
        solver.from_string(text)
        assert str(solver.check()) == answer
