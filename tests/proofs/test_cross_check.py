"""The second engines: cvc5 and yices re-decide every query z3 decided; a disagreement, an
unknown from every engine asked, or a query an engine rejects fails."""

import contextlib
import io
import json

import pytest
import z3

from navproof import cli
from navproof.core import exit_codes
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


def _measured():
    import tomllib
    from pathlib import Path

    path = Path(cross_check.__file__).with_name("engine_order.toml")
    return tomllib.loads(path.read_text())


def _decided_by_either(entry) -> int:
    """Queries of an entry decided by yices or cvc5 (``either``; an entry measured before that
    count was written: the larger engine's count, a lower bound)."""
    return entry.get("either", max(entry["yices"]["decided"], entry["cvc5"]["decided"]))


# Every obligation whose every query a second engine decided in the measurement of
# `proofs/engine_order.toml` (`make cross-check`, which CI runs, checks all of them).
DECIDED = [
    oid for oid, entry in _measured().items() if _decided_by_either(entry) == entry["queries"]
]

# Every obligation on which a full cross-check found cvc5 deciding each query within its budget:
# cvc5 alone must still agree on them (the engine order asks yices first where it is faster).
CVC5_AGREEING = [
    "B1", "B2", "B2/world", "B3", "B5/endpoints", "S1", "S2", "S2/tight", "S3", "S3/tight",
    "S4/cap", "S5/tight", "R2", "R2/report", "R3", "A1", "A2/peak", "A3", "A5",
    "O1/unconstrained", "O5/segment", "O7/cutoff_below_one", "O7/left_leg_below_one",
    "O7/cutoff_above_one", "T2", "T3/invariant", "T3/rest", "T3/progress", "T3/ramp",
    "B6/product_rule", "B6/second_derivative", "B6/interpolation", "B6/interpolation/tight",
    "B6/pivot/tight", "B6/stop_trajectory/tight", "B6/hold_drift", "B6/hold_drift/tight",
]


def _only(monkeypatch, obligation_id, *engines):
    monkeypatch.setitem(cross_check.ENGINE_ORDER, obligation_id, engines)


@pytest.mark.parametrize("obligation_id", DECIDED)
def test_a_second_engine_decides_every_query_alike(profile, obligation_id):
    result = engine.run_one(
        obligation_id, profile, cross_check_limit=profile.budgets.cvc5_resource_limit
    )
    assert result.ok, result.message
    assert result.cross_check
    for record in result.cross_check:
        assert record["decided_by"] in cross_check.ENGINES, record
        assert record[record["decided_by"]] == record["z3"], record
    first = cross_check.engine_order(obligation_id)[0]
    assert result.engines["z3"] == result.status
    assert result.engines[first] in (result.status, "unknown")
    queries = {r["query"] for r in result.cross_check}
    assert "definedness" in queries or not reg.build(obligation_id, profile).domain
    assert "negation" in queries or any(q.startswith("step: ") for q in queries)


@pytest.mark.parametrize("obligation_id", CVC5_AGREEING)
def test_both_engines_agree_on_every_query(monkeypatch, profile, obligation_id):
    _only(monkeypatch, obligation_id, "cvc5")
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
    _only(monkeypatch, "B1", "cvc5")
    monkeypatch.setattr(cross_check, "check", lambda assertions, limit: ("unknown", "budget"))
    result = engine.run_one("B1", profile, cross_check_limit=1)
    assert result.status == "proved" and not result.ok
    assert result.engines == {"z3": "proved", "cvc5": "unknown"}
    assert "cross-check unknown" in result.message


def test_a_query_cvc5_cannot_decide_in_time_is_unknown_and_fails(monkeypatch, profile):
    # cvc5's nonlinear procedure does not honour its resource limit on A4's negation (it ran for
    # more than 20 minutes); the wall-clock stop turns that into an unknown, which fails.
    _only(monkeypatch, "A4", "cvc5")
    original = cross_check.check
    monkeypatch.setattr(
        cross_check, "check", lambda assertions, limit: original(assertions, limit, 1.0)
    )
    result = engine.run_one("A4", profile, cross_check_limit=profile.budgets.cvc5_resource_limit)
    assert result.engines == {"z3": "proved", "cvc5": "unknown"} and not result.ok
    undecided = [r for r in result.cross_check if r["cvc5"] == "unknown"]
    assert undecided and all("TIMEOUT" in r["reason"] for r in undecided)


def test_a_disagreement_fails_the_obligation(monkeypatch, profile):
    _only(monkeypatch, "B2", "cvc5")
    monkeypatch.setattr(cross_check, "check", lambda assertions, limit: ("sat", ""))
    result = engine.run_one("B2", profile, cross_check_limit=1)
    assert not result.ok and result.engines["cvc5"] == "disagree"
    assert report.exit_code([result]) == exit_codes.EXIT_FAILED


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
        first = cross_check.engine_order(record["id"])[0]
        assert record["engines"][first] == record["engines"]["z3"] == record["status"]
        assert all(q["decided_by"] == first for q in record["cross_check"])
    assert "yices proved" in out.getvalue()


def test_cross_check_runs_inside_parallel_workers(tmp_path):
    # `-j 2` runs obligations in daemonic worker processes; cvc5 must still get its own child.
    path = tmp_path / "out.json"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["prove", "--claims", "B1,A5", "--cross-check", "-j", "2",
                         "--json", str(path)])
    assert code == 0, out.getvalue() + err.getvalue()
    records = json.loads(path.read_text())["obligations"]
    assert records and all(
        r["engines"][cross_check.engine_order(r["id"])[0]] == r["status"] for r in records
    )


def test_no_engine_deciding_a_query_fails_the_obligation(monkeypatch, profile):
    monkeypatch.setattr(cross_check, "check", lambda assertions, limit: ("unknown", "budget"))
    monkeypatch.setattr(cross_check, "check_yices", lambda assertions: ("unknown", "timeout"))
    result = engine.run_one("B1", profile, cross_check_limit=1)
    assert result.status == "proved" and not result.ok
    assert result.engines == {"z3": "proved", "yices": "unknown", "cvc5": "unknown"}
    assert all(r["decided_by"] is None for r in result.cross_check)
    assert "cross-check unknown" in result.message


def test_a_fallback_engine_decides_what_the_first_leaves_open(monkeypatch, profile):
    monkeypatch.setattr(cross_check, "check_yices", lambda assertions: ("unknown", "timeout"))
    result = engine.run_one("B1", profile, cross_check_limit=profile.budgets.cvc5_resource_limit)
    assert result.ok, result.message
    assert result.engines == {"z3": "proved", "yices": "unknown", "cvc5": "proved"}
    assert all(r["decided_by"] == "cvc5" for r in result.cross_check)


def test_a_query_an_engine_rejects_is_an_error_not_an_unknown(monkeypatch, profile):
    monkeypatch.setattr(cross_check, "check_yices",
                        lambda assertions: ("error", "yices rejected the query: (error ...)"))
    result = engine.run_one("B1", profile, cross_check_limit=1)
    assert not result.ok and result.engines["yices"] == "error"
    assert "cross-check error" in result.message and "rejected" in result.cross_check[0]["reason"]


def test_a_disagreement_of_the_second_engine_names_both_answers(monkeypatch, profile):
    monkeypatch.setattr(cross_check, "check_yices", lambda assertions: ("sat", ""))
    result = engine.run_one("B2", profile, cross_check_limit=1)
    assert not result.ok and result.engines["yices"] == "disagree"
    assert "z3 unsat, yices sat" in result.message
    assert report.exit_code([result]) == exit_codes.EXIT_FAILED


def test_a_query_with_its_own_measured_order_is_asked_of_that_engine_first(monkeypatch, profile):
    # engine_order.toml's `query_engines`: a query the obligation's first engine leaves undecided
    # goes to the engine the measurement found deciding it, without waiting for a time-out.
    _only(monkeypatch, "B1", "yices", "cvc5")
    asked: list[tuple[str, str]] = []
    original = cross_check.ask

    def ask(name, assertions, limit):
        asked.append((name, len(asked)))
        return original(name, assertions, limit)

    monkeypatch.setattr(cross_check, "ask", ask)
    first = engine.run_one("B1", profile, cross_check_limit=profile.budgets.cvc5_resource_limit)
    label = first.cross_check[0]["query"]
    monkeypatch.setitem(cross_check.QUERY_ENGINE_ORDER, ("B1", label), ("cvc5", "yices"))
    assert cross_check.engine_order("B1", label) == ("cvc5", "yices")
    assert cross_check.engine_order("B1", "another query") == ("yices", "cvc5")
    asked.clear()
    result = engine.run_one("B1", profile, cross_check_limit=profile.budgets.cvc5_resource_limit)
    assert result.ok, result.message
    by_query = {r["query"]: r for r in result.cross_check}
    assert by_query[label]["decided_by"] == "cvc5"
    assert all(r["decided_by"] == "yices" for q, r in by_query.items() if q != label)
