"""Every required obligation on the default profile: expected status, real witness, real
counterexamples (checked here through the generated runtime formulas), and proofs that fail when
a derived formula is wrong."""

import importlib
import types
from fractions import Fraction

import pytest
import sympy
import z3

from navproof._generated import formulas
from navproof.proofs import engine, stop_envelope
from navproof.proofs import obligations as reg
from navproof.proofs.obligations import PROVED, REFUTED
from navproof.specs.claims import load_claims
from navproof.specs.profile import load_profile

REQUIRED = {
    "B1": PROVED,
    "B2": PROVED,
    "B3": PROVED,
    "B4": PROVED,
    "B5/endpoints": REFUTED,
    "B5/extremum": PROVED,
    "S1": PROVED,
    "S2": PROVED,
    "S3": PROVED,
    "S4": PROVED,
    "S5": PROVED,
    "S7/reach": PROVED,
    "S7/boundary": PROVED,
    "S7/envelope": PROVED,
    # Compositions: the runtime's accelerating step with its end-stop half-plane and the brake.
    "S7/halfplane": PROVED,
    "S7/stop_after_step": PROVED,
    "R2": PROVED,
    "R2/report": PROVED,
    "R3": PROVED,
    "A1": PROVED,
    "A2": PROVED,
    "A3": PROVED,
    "A4": PROVED,
    "A5": REFUTED,
    "V1": PROVED,
    "O1/unconstrained": PROVED,
    "O3/cutoff": PROVED,
    "O3/left_leg": PROVED,
    "O3/right_leg": PROVED,
    "O3/closest_cutoff": PROVED,
    "O3/closest_left_leg": PROVED,
    "O3/closest_right_leg": PROVED,
    "O5/segment": PROVED,
    "O5/vertex": PROVED,
    "O6/apart": PROVED,
    "O6/closest": PROVED,
    "O6/bounded": PROVED,
    "O7/cutoff_at_least_one": PROVED,
    "O7/left_leg_at_least_one": PROVED,
    "O7/right_leg_at_least_one": PROVED,
    "O7/colliding_at_least_one": PROVED,
    "O7/cutoff_below_one": REFUTED,
    "O7/left_leg_below_one": REFUTED,
    "O7/colliding_below_one": REFUTED,
    "O7/cutoff_above_one": REFUTED,
    "O7/left_leg_above_one": REFUTED,
    "T2": PROVED,
    "T3/invariant": PROVED,
    "T3/rest": PROVED,
    "T3/progress": PROVED,
    "T3/ramp": REFUTED,
    # Statements that pin the formulas (equalities and tightness against the catalogue's forms).
    "B2/world": PROVED,
    "B5/stationary": PROVED,
    "S2/tight": PROVED,
    "S3/tight": PROVED,
    "S4/cap": PROVED,
    "S5/tight": PROVED,
    "A2/peak": PROVED,
    "V1/factor": PROVED,
    # B6 is checked at run time; these pin the formulas of its certified bound, with the stop
    # after the step as a composition.
    "B6/product_rule": PROVED,
    "B6/second_derivative": PROVED,
    "B6/second_derivative/tight": PROVED,
    "B6/interpolation": PROVED,
    "B6/interpolation/tight": PROVED,
    "B6/pivot": PROVED,
    "B6/pivot/tight": PROVED,
    "B6/accel_curve": PROVED,
    "B6/accel_curve/tight": PROVED,
    "B6/stop_trajectory": PROVED,
    "B6/stop_trajectory/tight": PROVED,
    "B6/hold_drift": PROVED,
    "B6/hold_drift/tight": PROVED,
}

RUNTIME_RULES_WITH_FORMULA_OBLIGATIONS = {"B6"}
"""Runtime claims (decided by a check at run time) whose check evaluates derived formulas that
obligations pin; the claim's kind stays "runtime" because the check itself runs per step."""


@pytest.fixture(scope="module")
def profile():
    return load_profile()


@pytest.fixture(scope="module")
def proved(profile):
    """Each obligation built and discharged once, in this process (models kept)."""
    out = {}
    for oid in reg.OBLIGATION_IDS:
        ob = reg.build(oid, profile)
        out[oid] = (ob, engine.check_obligation(ob))
    return out


def _exact(value: engine.ModelValue) -> Fraction:
    assert value.exact, value
    return Fraction(value.text)


def test_registry_covers_the_required_obligations_with_their_expectations(profile):
    assert set(REQUIRED) <= set(reg.OBLIGATION_IDS)
    for oid, expected in REQUIRED.items():
        assert reg.expected_of(oid) == expected
        assert reg.build(oid, profile).expected == expected


def test_obligations_match_the_catalogue_kinds(profile):
    claims = load_claims()
    for oid in reg.OBLIGATION_IDS:
        ob = reg.build(oid, profile)
        claim = claims[ob.claim]
        if claim.kind == "runtime":
            assert ob.claim in RUNTIME_RULES_WITH_FORMULA_OBLIGATIONS, oid
            assert ob.expected == PROVED, oid
        else:
            assert claim.kind == ob.method, oid
        if ob.expected == REFUTED:
            assert claim.refutable, oid


@pytest.mark.parametrize("oid", sorted(REQUIRED))
def test_expected_status_on_the_default_profile(proved, oid):
    ob, result = proved[oid]
    assert result.status == REQUIRED[oid], result.message
    assert result.ok, result.message
    if ob.method == "z3":
        # The witness satisfies hypotheses and premise, checked by evaluating them in its model.
        witness = result.models["witness"]
        assert z3.is_true(
            witness.eval(z3.And([*ob.hypotheses, *ob.premise]), model_completion=True)
        )
        assert result.witness_verified
        # ... and lies in the case the claim is about (braking phase, interior extremum, ...).
        assert result.witness_preferred is (True if ob.witness_prefer else False)
    else:
        assert result.checks and all(c["ok"] for c in result.checks)


def test_range_hypotheses_are_exact_profile_bounds(profile, proved):
    ob, result = proved["S3"]
    texts = {str(h) for h in ob.hypotheses}
    assert "1/200 <= dt" in texts and "1/10 >= dt" in texts
    assert "1/2 <= a" in texts and "20 >= a" in texts
    step = profile["step_s"]
    dt = _exact(result.witness["dt"])
    assert step.min <= dt <= step.max


def _floats(values):
    return {k: v.float for k, v in values.items()}


def test_b5_endpoint_counterexample_is_a_real_mid_step_excursion(proved):
    _, result = proved["B5/endpoints"]
    x = _floats(result.counterexample)
    args = dict(
        s=x["s"],
        dt=x["dt"],
        n_dot_e=x["n_dot_e"],
        n_dot_u=x["n_dot_u"],
        n_dot_v0=x["n_dot_v0"],
        n_dot_v1=x["n_dot_v1"],
    )
    assert formulas.accel_margin(t=0.0, **args) >= 0
    assert formulas.accel_margin(t=x["dt"], **args) >= 0
    assert 0 <= x["t"] <= x["dt"]
    assert formulas.accel_margin(t=x["t"], **args) < 0
    assert result.replay_confirmed


def test_a5_counterexample_crosses_the_edge(proved):
    _, result = proved["A5"]
    x = _floats(result.counterexample)
    stop = formulas.interrupted_stop_point(
        t=x["t"], dt=x["dt"], d=x["d"], vcap=x["vcap"], accel=x["accel"]
    )
    total = formulas.access_total_time(d=x["d"], vcap=x["vcap"], accel=x["accel"])
    assert 0 <= x["t"] <= total
    assert stop > x["d"]
    assert result.replay_confirmed


def test_seed_worked_example_a4_a5_with_the_generated_formulas():
    # Seed 000: foot 0.09 m from the edge, a = vCap = 1; interrupted at 0.2 s.
    curve = dict(d=0.09, vcap=1.0, accel=1.0)
    assert formulas.access_peak_speed(**curve) == pytest.approx(0.3)
    assert formulas.interrupted_stop_point(t=0.2, dt=0.0, **curve) == pytest.approx(0.04)
    assert formulas.interrupted_stop_point(t=0.2, dt=0.1, **curve) == pytest.approx(0.06)


def test_s3_fails_when_the_linear_envelope_is_too_generous(monkeypatch, profile):
    monkeypatch.setattr(
        stop_envelope, "LINEAR_ENVELOPE_BOUND", 2 * stop_envelope.LINEAR_ENVELOPE_BOUND
    )
    result = engine.check_obligation(reg.build("S3", profile))
    assert result.status == REFUTED and not result.ok


def test_s2_fails_when_the_necessary_bound_is_too_strict(monkeypatch, profile):
    monkeypatch.setattr(
        stop_envelope, "NECESSARY_NORMAL_BOUND", stop_envelope.NECESSARY_NORMAL_BOUND / 2
    )
    result = engine.check_obligation(reg.build("S2", profile))
    assert result.status == REFUTED and not result.ok


def test_s1_identity_fails_when_the_stop_distance_is_wrong(monkeypatch, profile):
    monkeypatch.setattr(
        stop_envelope, "STOP_DISTANCE", stop_envelope.STOP_DISTANCE + sympy.Rational(1, 100)
    )
    result = engine.check_obligation(reg.build("S1", profile))
    assert result.status == engine.FAILED and not result.ok


def test_r2_is_refuted_when_the_support_can_outrun_the_cap(profile):
    from dataclasses import replace

    support = replace(profile["support_speed_mps"], max=Fraction(1, 2))
    faster = replace(profile, parameters={**profile.parameters, "support_speed_mps": support})
    result = engine.check_obligation(reg.build("R2", faster))
    assert result.status == REFUTED and result.replay_confirmed
    x = _floats(result.counterexample)
    assert (x["u_x"] ** 2 + x["u_y"] ** 2) ** 0.5 > formulas.horizontal_cap(
        surface_cap=x["V"], k=x["k"]
    )


def test_claim_selection():
    assert reg.obligations_for(["B5"]) == ["B5/endpoints", "B5/extremum", "B5/stationary"]
    assert reg.obligations_for(["A5", "B1"]) == ["B1", "A5"]
    assert reg.claim_of("B5/extremum") == "B5"


def test_proof_locations_name_the_builders():
    assert reg.proof_locations("B5") == [
        "navproof.proofs.obligations.boundary.b5_endpoints",
        "navproof.proofs.obligations.boundary.b5_extremum",
        "navproof.proofs.obligations.boundary.b5_stationary",
    ]
    assert reg.proof_locations("S1") == ["navproof.proofs.obligations.stop_envelope.s1"]
    assert reg.proof_locations("O1") == ["navproof.proofs.obligations.orca.o1_unconstrained"]
    assert reg.proof_locations("O4") == []


def test_every_family_module_declares_its_obligations_under_their_ids(profile):
    for family in reg.FAMILIES:
        module = importlib.import_module(f"navproof.proofs.obligations.{family}")
        for obligation_id, builder in module.OBLIGATIONS.items():
            assert reg.BUILDERS[obligation_id] is builder
            assert builder.__module__ == module.__name__
    for obligation_id in reg.OBLIGATION_IDS:
        assert reg.build(obligation_id, profile).id == obligation_id


def test_the_registry_rejects_an_id_declared_by_two_families():
    first = types.SimpleNamespace(__name__="first", OBLIGATIONS={"X1": object()})
    second = types.SimpleNamespace(__name__="second", OBLIGATIONS={"X1": object()})
    with pytest.raises(ValueError, match="X1 is declared twice"):
        reg.collect([first, second])
    wrong = types.SimpleNamespace(__name__="w", OBLIGATIONS={"X1": object()}, REFUTABLE={"X2"})
    with pytest.raises(ValueError, match="unknown"):
        reg.collect([wrong])
    builders, refutable = reg.collect([types.SimpleNamespace(__name__="ok", OBLIGATIONS={})])
    assert builders == {} and refutable == frozenset()


def test_t3_ramp_counterexample_is_a_replayed_overshoot(proved):
    _, result = proved["T3/ramp"]
    x = _floats(result.counterexample)
    assert 2 * x["R"] * x["max_accel"] < x["max_speed"] ** 2  # the catalogue's condition
    brake = formulas.discrete_brake_distance(speed=x["w"], max_accel=x["max_accel"], dt=x["dt"])
    assert brake > x["x"] + x["r"]
    assert result.replay_confirmed
