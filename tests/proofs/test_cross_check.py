"""The second engine: cvc5 re-decides every query z3 decided; disagreement or unknown fails."""

import contextlib
import io
import json

import pytest
import z3

from navproof import cli
from navproof.proofs import cross_check, engine, report
from navproof.proofs import obligations as reg
from navproof.specs.profile import load_profile

pytestmark = pytest.mark.skipif(not cross_check.available(), reason="cvc5 is not installed")


@pytest.fixture(scope="module")
def profile():
    return load_profile()


def test_cvc5_decides_sat_and_unsat_like_z3():
    x, y = z3.Reals("x_cc y_cc")
    assert cross_check.check([x * x + y * y == 1, x * y > 1], 10**6)[0] == cross_check.UNSAT
    assert cross_check.check([x * x == 2, x > 0], 10**6)[0] == cross_check.SAT


# Every obligation on which a full `navproof prove --cross-check` found cvc5 deciding each query
# within its budget (29 of 59, no disagreement). Left out: B5/stationary (cvc5 decides it, but
# one query takes about 10 s, too close to the 30 s stop on a slower machine) and the 29 whose
# queries cvc5 leaves unknown within 30 s: B4, B5/extremum, S4, S5, the five S7 obligations, A2,
# A4, V1, V1/factor, the six O3, O5/vertex, O6/apart, O6/closest, O6/bounded, the four O7
# *_at_least_one, O7/colliding_below_one and O7/left_leg_above_one.
AGREEING = [
    "B1", "B2", "B2/world", "B3", "B5/endpoints", "S1", "S2", "S2/tight", "S3", "S3/tight",
    "S4/cap", "S5/tight", "R2", "R2/report", "R3", "A1", "A2/peak", "A3", "A5",
    "O1/unconstrained", "O5/segment", "O7/cutoff_below_one", "O7/left_leg_below_one",
    "O7/cutoff_above_one", "T2", "T3/invariant", "T3/rest", "T3/progress", "T3/ramp",
    # B6: cvc5 decides these; it leaves B6/second_derivative/tight, B6/pivot, B6/accel_curve,
    # B6/accel_curve/tight and B6/stop_trajectory unknown within its budget.
    "B6/product_rule", "B6/second_derivative", "B6/interpolation", "B6/interpolation/tight",
    "B6/pivot/tight", "B6/stop_trajectory/tight", "B6/hold_drift", "B6/hold_drift/tight",
]


@pytest.mark.parametrize("obligation_id", AGREEING)
def test_both_engines_agree_on_every_query(profile, obligation_id):
    result = engine.run_one(
        obligation_id, profile, cross_check_limit=profile.budgets.cvc5_resource_limit
    )
    assert result.ok, result.message
    if result.method == "sympy":
        assert result.engines["cvc5"].startswith("not applicable")
        return
    assert result.engines == {"z3": result.status, "cvc5": result.status}
    assert result.cross_check and all(r["z3"] == r["cvc5"] for r in result.cross_check)
    queries = {r["query"] for r in result.cross_check}
    assert "definedness" in queries or not reg.build(obligation_id, profile).domain
    assert "negation" in queries or any(q.startswith("step: ") for q in queries)


def test_an_unknown_from_cvc5_fails_the_obligation(monkeypatch, profile):
    monkeypatch.setattr(cross_check, "check", lambda assertions, limit: ("unknown", "budget"))
    result = engine.run_one("B1", profile, cross_check_limit=1)
    assert result.status == "proved" and not result.ok
    assert result.engines == {"z3": "proved", "cvc5": "unknown"}
    assert "cross-check unknown" in result.message


def test_a_query_cvc5_cannot_decide_in_time_is_unknown_and_fails(monkeypatch, profile):
    # cvc5's nonlinear procedure does not honour its resource limit on A4's negation (it ran for
    # more than 20 minutes); the wall-clock stop turns that into an unknown, which fails.
    original = cross_check.check
    monkeypatch.setattr(
        cross_check, "check", lambda assertions, limit: original(assertions, limit, 1.0)
    )
    result = engine.run_one("A4", profile, cross_check_limit=profile.budgets.cvc5_resource_limit)
    assert result.engines == {"z3": "proved", "cvc5": "unknown"} and not result.ok
    undecided = [r for r in result.cross_check if r["cvc5"] == "unknown"]
    assert undecided and all("TIMEOUT" in r["reason"] for r in undecided)


def test_a_disagreement_fails_the_obligation(monkeypatch, profile):
    monkeypatch.setattr(cross_check, "check", lambda assertions, limit: ("sat", ""))
    result = engine.run_one("B2", profile, cross_check_limit=1)
    assert not result.ok and result.engines["cvc5"] == "disagree"
    assert report.exit_code([result]) == report.EXIT_FAILED


def test_prove_cross_check_reports_both_engines(tmp_path):
    path = tmp_path / "out.json"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["prove", "--claims", "B1,A5", "--cross-check", "--json", str(path)])
    assert code == 0, out.getvalue()
    data = json.loads(path.read_text())
    assert data["settings"]["cross_check"] is True
    assert data["settings"]["cvc5_resource_limit"] == load_profile().budgets.cvc5_resource_limit
    for record in data["obligations"]:
        assert record["engines"]["cvc5"] == record["engines"]["z3"] == record["status"]
    assert "cvc5 proved" in out.getvalue()


def test_cross_check_runs_inside_parallel_workers(tmp_path):
    # `-j 2` runs obligations in daemonic worker processes; cvc5 must still get its own child.
    path = tmp_path / "out.json"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["prove", "--claims", "B1,A5", "--cross-check", "-j", "2",
                         "--json", str(path)])
    assert code == 0, out.getvalue() + err.getvalue()
    records = json.loads(path.read_text())["obligations"]
    assert records and all(r["engines"]["cvc5"] == r["status"] for r in records)
