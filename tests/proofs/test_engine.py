"""The proof engine: vacuity, undefinedness, unknown and exhausted budgets are failures, replays
gate refutations, parallel runs agree with in-process runs. Budgets are resource limits (rlimit):
no test here depends on the clock except the wall-clock safety stop's own test."""

import pytest
import z3

from navproof.core import exit_codes
from navproof.proofs import engine, report
from navproof.proofs import obligations as reg
from navproof.proofs.obligations import PROVED, REFUTED, Obligation, Replay, Step
from navproof.specs.profile import load_profile


@pytest.fixture(scope="module")
def profile():
    return load_profile()


def _obligation(**kwargs) -> Obligation:
    x = z3.Real("x_engine")
    defaults = dict(
        id="T1",
        claim="T1",
        title="test",
        expected=PROVED,
        hypotheses=[x >= 0, x <= 1],
        premise=[],
        conclusion=x <= 2,
        shown={"x": x},
    )
    defaults.update(kwargs)
    return Obligation(**defaults)


def test_a_true_implication_is_proved_with_a_witness():
    result = engine.check_obligation(_obligation())
    assert result.status == PROVED and result.ok
    assert result.witness_verified
    assert 0 <= result.witness["x"].float <= 1


def test_contradictory_hypotheses_are_vacuous_not_proved():
    x = z3.Real("x_engine")
    result = engine.check_obligation(_obligation(hypotheses=[x >= 1, x <= 0]))
    assert result.status == engine.VACUOUS
    assert not result.ok
    assert report.exit_code([result]) == exit_codes.EXIT_FAILED


def test_a_contradictory_premise_is_vacuous_too():
    x = z3.Real("x_engine")
    result = engine.check_obligation(_obligation(premise=[x > 5]))
    assert result.status == engine.VACUOUS and not result.ok


def test_an_undecided_query_is_unknown_and_exit_2(monkeypatch):
    # A solver that never decides anything (the "skip" tactic) stands in for a hard query.
    monkeypatch.setattr(engine, "STRATEGIES", (("skip", lambda: z3.Tactic("skip").solver()),))
    x = z3.Real("x_engine")
    result = engine.check_obligation(_obligation(conclusion=x * x * x <= 2))
    assert result.status == engine.UNKNOWN and not result.ok
    assert "undecided" in result.message
    assert report.exit_code([result]) == exit_codes.EXIT_UNKNOWN


def test_a_tiny_resource_limit_is_unknown_never_proved(profile):
    result = engine.run_one("S5", profile, rlimit=1)
    assert result.status == engine.UNKNOWN and not result.ok
    assert result.rlimit == 1


def test_an_obligation_does_not_depend_on_what_was_decided_before_it(profile):
    # Each obligation is built in a fresh z3 context: deciding others first changes neither
    # its answer nor (beyond a few units of z3's internal counters) the resources it spends.
    alone = engine.run_one("S7/boundary", profile)
    for other in ("S5", "O6/closest", "A2", "B3"):
        engine.run_one(other, profile)
    after = engine.run_one("S7/boundary", profile)
    assert alone.status == after.status == PROVED
    assert alone.fingerprint == after.fingerprint
    assert abs(after.resources_used - alone.resources_used) <= 0.01 * alone.resources_used


def test_each_build_gets_its_own_z3_context(profile):
    first = reg.build("B4", profile)
    second = reg.build("B4", profile)
    assert first.conclusion.ctx is not second.conclusion.ctx
    # the first obligation is still decided in its own context after the second was built
    assert engine.check_obligation(first).status == PROVED


def test_the_same_budget_gives_the_same_answer_and_the_same_statement(profile):
    first = engine.run_one("B4", profile)
    second = engine.run_one("B4", profile)
    assert first.status == second.status == PROVED
    assert first.rlimit == profile.budgets.z3_rlimit
    # z3's work varies with its process-wide state, but never the answer within the budget.
    assert first.resources_used > 0 and second.resources_used > 0
    assert first.fingerprint == second.fingerprint


def test_an_undefined_sqrt_in_the_conclusion_is_a_failure_not_a_smaller_domain():
    # "s >= 1" with sqrt(s - 1) in it must not be proved over s in [0, 10] by assuming s >= 1.
    import sympy

    from navproof.proofs.to_z3 import Translator

    s = z3.Real("s_engine")
    tr = Translator(env={"s": s})
    root = tr.term(sympy.sqrt(sympy.Symbol("s", real=True) - 1))
    ob = _obligation(
        hypotheses=[s >= 0, s <= 10, *tr.side],
        guarded_hypotheses=[s >= 0, s <= 10, *tr.definitions],
        domain=list(tr.domain),
        conclusion=z3.And(s >= 1, root >= 0),
        shown={"s": s},
    )
    result = engine.check_obligation(ob)
    assert result.status == engine.UNDEFINED and not result.ok
    assert result.definedness["counterexample"]["s"]["float"] < 1
    assert report.exit_code([result]) == exit_codes.EXIT_FAILED
    # With the domain in the premise the same statement is proved, definedness included.
    ob.premise.append(s >= 1)
    proved = engine.check_obligation(ob)
    assert proved.status == PROVED and proved.ok
    assert proved.definedness["status"] == PROVED


def test_a_piecewise_without_default_must_be_defined_where_the_facts_hold():
    import sympy

    from navproof.proofs.to_z3 import Translator

    x = z3.Real("x_pw")
    tr = Translator(env={"x": x})
    xs = sympy.Symbol("x", real=True)
    value = tr.term(sympy.Piecewise((xs, xs > 0)))
    ob = _obligation(
        hypotheses=[x >= -1, x <= 1, *tr.side],
        guarded_hypotheses=[x >= -1, x <= 1, *tr.definitions],
        domain=list(tr.domain),
        conclusion=value <= 1,
        shown={"x": x},
    )
    assert engine.check_obligation(ob).status == engine.UNDEFINED


def test_a_missing_preferred_witness_fails():
    x = z3.Real("x_engine")
    result = engine.check_obligation(_obligation(witness_prefer=[x > 1]))
    assert result.status == PROVED and not result.ok
    assert "preferred case" in result.message
    assert report.exit_code([result]) == exit_codes.EXIT_FAILED
    assert engine.check_obligation(_obligation(witness_prefer=[x > z3.Q(1, 2)])).ok


def test_a_range_endpoint_narrowed_by_a_stray_fact_fails(profile):
    bb = reg.common.Builder(profile)
    s = bb.param("s", "initial_margin_m")
    bb.hypotheses.append(s >= z3.Q(1, 10))  # a stray fact: the range no longer starts at 0
    ob = bb.obligation(id="T4", claim="T4", title="t", expected=PROVED, conclusion=s >= 0)
    result = engine.check_obligation(ob)
    assert result.status == PROVED and not result.ok
    assert "s = 0 (initial_margin_m min)" in result.message
    ends = {(e["variable"], e["end"]): e["reachable"] for e in result.endpoints}
    assert ends == {("s", "min"): False, ("s", "max"): True}
    reached = [e for e in result.endpoints if e["reachable"]][0]
    assert reached["witness"]["s"].text == str(profile["initial_margin_m"].max)


def test_a_false_claim_gives_a_counterexample():
    x = z3.Real("x_engine")
    result = engine.check_obligation(_obligation(conclusion=x <= z3.Q(1, 2)))
    assert result.status == REFUTED and not result.ok
    assert result.counterexample["x"].float > 0.5
    assert report.exit_code([result]) == exit_codes.EXIT_FAILED


def test_an_unconfirmed_replay_fails_an_expected_refutation():
    x = z3.Real("x_engine")
    ob = _obligation(
        expected=REFUTED,
        conclusion=x <= z3.Q(1, 2),
        replay=lambda values: Replay(False, "not reproduced"),
    )
    result = engine.check_obligation(ob)
    assert result.status == REFUTED and result.replay_confirmed is False
    assert not result.ok
    confirmed = engine.check_obligation(
        _obligation(
            expected=REFUTED,
            conclusion=x <= z3.Q(1, 2),
            replay=lambda values: Replay(values["x"] > 0.5, "crosses"),
        )
    )
    assert confirmed.ok


def test_a_failed_step_falls_back_to_the_plain_check():
    x = z3.Real("x_engine")
    ob = _obligation(steps=[Step("useless and false", x >= 5)])
    result = engine.check_obligation(ob)
    assert result.status == PROVED and result.ok
    assert result.steps[0]["status"] == "not implied"


def test_steps_are_reported():
    x = z3.Real("x_engine")
    result = engine.check_obligation(_obligation(steps=[Step("x <= 3/2", x <= z3.Q(3, 2))]))
    assert [s["name"] for s in result.steps] == ["x <= 3/2", "conclusion"]
    assert all(s["status"] == PROVED for s in result.steps)


def test_a_sympy_identity_that_does_not_simplify_to_zero_fails():
    ob = Obligation(
        id="T2",
        claim="T2",
        title="t",
        expected=PROVED,
        method="sympy",
        identities=lambda: [("holds", True), ("does not", False)],
    )
    result = engine.check_obligation(ob)
    assert result.status == engine.FAILED and not result.ok
    assert "does not" in result.message


def test_algebraic_model_values_are_rendered_with_a_stated_precision():
    x = z3.Real("x_alg")
    solver = z3.Solver()
    solver.add(x * x == 2, x > 0)
    assert solver.check() == z3.sat
    value = engine.ModelValue.of(solver.model()[x])
    assert not value.exact and value.text.endswith("?")
    assert abs(value.float - 2**0.5) < 1e-15
    assert len(value.text.split(".")[1].rstrip("?")) == engine.ALGEBRAIC_DIGITS


def test_a_build_error_is_reported_not_raised(monkeypatch, profile):
    def broken(_profile):
        raise RuntimeError("boom")

    monkeypatch.setitem(reg.BUILDERS, "B1", broken)
    result = engine.run_one("B1", profile)
    assert result.status == engine.ERROR and "boom" in result.message


def test_parallel_workers_agree_with_the_in_process_run(profile):
    ids = ["B1", "B5/endpoints", "S1", "A5"]
    seen = []
    parallel = engine.run_obligations(ids, profile, jobs=2, on_result=seen.append)
    serial = engine.run_obligations(ids, profile, jobs=1)
    assert [r.id for r in parallel] == ids
    assert sorted(r.id for r in seen) == sorted(ids)
    assert [(r.status, r.ok) for r in parallel] == [(r.status, r.ok) for r in serial]
    assert all(r.ok for r in parallel)
    assert parallel[1].counterexample == serial[1].counterexample


def test_a_bound_value_must_meet_the_symbol_assumptions(profile):
    from navproof.proofs import stop_envelope

    bb = reg.common.Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    speed = bb.var("free_speed")  # may be negative, but the symbol ``speed`` is nonnegative
    distance = bb.term(stop_envelope.STOP_DISTANCE, speed=speed, dt=dt, a=a)
    ob = bb.obligation(id="T3", claim="T3", title="t", expected=PROVED, conclusion=distance >= 0)
    result = engine.check_obligation(ob)
    assert result.status == engine.ERROR and not result.ok
    assert "speed := free_speed" in result.message
    ob.premise.append(speed >= 0)
    assert engine.check_obligation(ob).status == PROVED


def test_a_worker_past_its_wall_clock_stop_is_killed_and_reported_unknown(monkeypatch, profile):
    # The optional wall-clock safety stop (the one clock-based test): with no grace at all the
    # worker is killed at its first poll, long before S5 (seconds of solving) can finish.
    monkeypatch.setattr(engine, "_KILL_GRACE_S", -0.5)
    (result,) = engine.run_obligations(["S5"], profile, jobs=2, timeout_s=0.5)
    assert result.status == engine.UNKNOWN and not result.ok
    assert "killed" in result.message
    assert result.title.startswith("S5")
