"""Negative controls: a deliberately wrong derivation (a constant doubled or halved, a sign
flipped, a term dropped) must make the obligation built from it fail, and `navproof prove` must
name that obligation. The mutation is made in memory on the sympy expression the obligation is
built from, which is what a wrong derivation regenerated into the runtime looks like to `prove`.
"""

import contextlib
import io
import random

import pytest
import sympy

from navproof import cli
from navproof.proofs import access_curve, boundary, engine, orca, slope, steering, stop_envelope
from navproof.proofs import obligations as reg
from navproof.proofs import symbols as sym
from navproof.specs.profile import load_profile


def _doubled(expr):
    return 2 * expr


def _halved(expr):
    return expr / 2


def _flip(symbol):
    return lambda expr: expr.subs(symbol, -symbol)


def _drop(symbol):
    return lambda expr: expr.subs(symbol, 0)


# (obligation, derivation module, expression name, mutation, label): every proved obligation
# whose statement pins a derived expression has at least one control.
CONTROLS = [
    ("B1", boundary, "STEP_HALFPLANE_OFFSET", _doubled, "offset doubled"),
    ("B1", boundary, "STEP_HALFPLANE_OFFSET", _flip(sym.n_dot_u), "support carry sign flipped"),
    ("B2", boundary, "CONSTANT_VELOCITY_MARGIN", _flip(sym.n_dot_u), "carry sign flipped"),
    ("B2/world", boundary, "STEP_HALFPLANE_OFFSET", _halved, "offset halved"),
    ("B2/world", boundary, "CONSTANT_VELOCITY_MARGIN", _drop(sym.n_dot_e), "edge term dropped"),
    ("B3", boundary, "STEP_HALFPLANE_OFFSET", _flip(sym.n_dot_e), "edge sign flipped"),
    ("B4", boundary, "ACCEL_STEP_V1_BOUND", _drop(sym.n_dot_v0), "v0 term dropped"),
    ("B4", boundary, "ACCEL_MARGIN", _doubled, "margin doubled"),
    ("B5/extremum", boundary, "ACCEL_EXTREMUM_TIME", _halved, "t* halved"),
    ("B5/stationary", boundary, "ACCEL_EXTREMUM_TIME", _doubled, "t* doubled"),
    ("S2", stop_envelope, "NECESSARY_NORMAL_BOUND", _halved, "bound halved"),
    ("S2/tight", stop_envelope, "NECESSARY_NORMAL_BOUND", _doubled, "bound doubled"),
    ("S2/tight", stop_envelope, "NECESSARY_NORMAL_BOUND", _halved, "bound halved"),
    ("S3", stop_envelope, "LINEAR_ENVELOPE_BOUND", _doubled, "bound doubled"),
    ("S3/tight", stop_envelope, "LINEAR_ENVELOPE_BOUND", _halved, "bound halved"),
    ("S4", stop_envelope, "ENVELOPE_SPEED_CAP", _halved, "Cmax halved"),
    ("S4/cap", stop_envelope, "ENVELOPE_SPEED_CAP", _doubled, "Cmax doubled"),
    ("S4/cap", stop_envelope, "ENVELOPE_SPEED_CAP", _drop(sym.carry), "carry dropped"),
    ("S5", stop_envelope, "LINEAR_ENVELOPE_BOUND", _doubled, "linear bound doubled"),
    ("S5/tight", stop_envelope, "LINEAR_ENVELOPE_BOUND", _halved, "linear bound halved"),
    ("R2/report", stop_envelope, "STOP_TARGET_MARGIN", _drop(sym.carry), "carry dropped"),
    ("R2/report", stop_envelope, "STOP_TARGET_MARGIN", lambda e: e.subs(sym.vh, 2 * sym.vh),
     "cap doubled"),
    ("R3", boundary, "CONSTANT_VELOCITY_MARGIN", _flip(sym.n_dot_e), "edge sign flipped"),
    ("A2", access_curve, "ACCESS_POSITION", _doubled, "position doubled"),
    ("A2/peak", access_curve, "PEAK_SPEED", _halved, "peak halved"),
    (
        "A4",
        access_curve,
        "INTERRUPTED_STOP_POINT",
        lambda e: e.subs(sym.accel, 2 * sym.accel),
        "braking at 2a",
    ),
    ("S7/reach", stop_envelope, "BRAKED_SPEED", _doubled, "braked speed doubled"),
    ("S7/boundary", stop_envelope, "BRAKE_ENVELOPE_FACTOR", _halved, "envelope factor halved"),
    ("S7/envelope", stop_envelope, "BRAKED_SPEED", _doubled, "braked speed doubled"),
    ("S7/halfplane", stop_envelope, "BRAKE_ENVELOPE_OFFSET", _halved, "offset halved"),
    ("S7/halfplane", stop_envelope, "BRAKE_ENVELOPE_OFFSET", _drop(sym.n_dot_r), "reference term dropped"),
    ("S7/stop_after_step", boundary, "ACCEL_STEP_V1_BOUND", _doubled, "B4 bound doubled"),
    ("T2", steering, "STEERING_CHANGE", _doubled, "step change doubled"),
    ("T3/invariant", steering, "ARRIVE_SPEED", _doubled, "arrive speed doubled"),
    ("T3/rest", steering, "ARRIVE_SPEED", _flip(sym.stop_range), "stop range sign flipped"),
    ("T3/progress", steering, "ARRIVE_SPEED", _halved, "arrive speed halved"),
    ("V1", slope, "HORIZONTAL_CAP", _doubled, "cap doubled"),
    ("V1/factor", slope, "HORIZONTAL_CAP", _halved, "cap halved"),
    ("V1/factor", slope, "SLOPE_FACTOR", _halved, "k halved"),
    ("O3/cutoff", orca, "LINE_POINT", lambda e: e.subs(orca.share, orca.share / 2), "share of the change halved"),
    ("O3/left_leg", orca, "LINE_POINT", lambda e: e.subs(orca.share, orca.share / 2), "share of the change halved"),
    ("O3/right_leg", orca, "LINE_POINT", lambda e: e.subs(orca.share, orca.share / 2), "share of the change halved"),
    ("O6/apart", orca, "LINE_POINT", lambda e: e.subs(orca.share, orca.share / 2), "share of the change halved"),
    ("O7/cutoff_at_least_one", orca, "LINE_POINT", lambda e: e.subs(orca.share, orca.share / 2), "share of the change halved"),
    ("O7/left_leg_at_least_one", orca, "LINE_POINT", lambda e: e.subs(orca.share, orca.share / 2), "share of the change halved"),
    ("O7/right_leg_at_least_one", orca, "LINE_POINT", lambda e: e.subs(orca.share, orca.share / 2), "share of the change halved"),
    ("O7/colliding_at_least_one", orca, "LINE_POINT", lambda e: e.subs(orca.share, orca.share / 2), "share of the change halved"),
    ("O3/closest_cutoff", orca, "CUTOFF_CHANGE_SCALE", _doubled, "change doubled"),
    ("O6/closest", orca, "CUTOFF_CHANGE_SCALE", _doubled, "change doubled"),
    ("O3/closest_left_leg", orca, "LEG_CHANGE", _doubled, "change doubled"),
    ("O3/closest_right_leg", orca, "LEG_CHANGE", _doubled, "change doubled"),
]


def _differs_somewhere(left, right, points=24):
    """True when the two expressions differ at one of a few random positive points (a numeric
    probe: sympy.simplify of a piecewise difference with square roots can take minutes)."""
    rng = random.Random(7)
    symbols = sorted(left.free_symbols | right.free_symbols, key=str)
    for _ in range(points):
        point = {s: sympy.Rational(rng.randint(1, 400), 100) for s in symbols}
        difference = (left.subs(point) - right.subs(point)).evalf(30)
        if difference.is_number and abs(difference) > 1e-12:
            return True
    return False


@pytest.fixture(scope="module")
def profile():
    return load_profile()


def test_every_pinning_obligation_has_a_control():
    controlled = {oid for oid, *_ in CONTROLS}
    z3_proved = {
        oid
        for oid in reg.OBLIGATION_IDS
        if reg.expected_of(oid) == "proved" and reg.build(oid, load_profile()).method == "z3"
    }
    # R2 is a profile-consistency check (its control is a faster support range, in
    # test_obligations.py); O1, O5 and O6/bounded state the runtime's rules in z3 directly (no
    # derived expression to mutate; their replays run the runtime's line construction).
    assert z3_proved - controlled == {"R2", "O1/unconstrained", "O5/segment", "O5/vertex",
                                      "O6/bounded"}


@pytest.mark.parametrize(
    ("obligation_id", "module", "name", "mutate", "label"),
    CONTROLS,
    ids=[f"{c[0]}-{c[4]}" for c in CONTROLS],
)
def test_a_wrong_formula_is_refuted_by_the_same_obligation(
    monkeypatch, profile, obligation_id, module, name, mutate, label
):
    wrong = mutate(getattr(module, name))
    assert _differs_somewhere(wrong, getattr(module, name)), "the mutation changes nothing"
    monkeypatch.setattr(module, name, wrong)
    result = engine.check_obligation(reg.build(obligation_id, profile))
    assert not result.ok, f"{obligation_id} still passes with {name} {label}"
    # A refutation comes with a counterexample that the independent replay evaluates.
    if result.status == "refuted":
        assert result.counterexample
        assert result.replay_detail


def _prove_in_process(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["prove", *argv])
    return code, out.getvalue()


# One wrong-but-consistent derivation per family, through `navproof prove` itself.
FAMILY_MUTATIONS = [
    ("boundary", boundary, "STEP_HALFPLANE_OFFSET", _halved, "B1,B2", {"B1", "B2/world"}),
    ("stop_envelope", stop_envelope, "NECESSARY_NORMAL_BOUND", _halved, "S2", {"S2", "S2/tight"}),
    ("reference", boundary, "CONSTANT_VELOCITY_MARGIN", _flip(sym.n_dot_e), "R3", {"R3"}),
    (
        "access_curve",
        access_curve,
        "INTERRUPTED_STOP_POINT",
        lambda e: e.subs(sym.accel, 2 * sym.accel),
        "A4",
        {"A4"},
    ),
    ("slope", slope, "HORIZONTAL_CAP", _halved, "V1", {"V1/factor"}),
    ("invariance", stop_envelope, "BRAKE_ENVELOPE_OFFSET", _halved, "S7/halfplane",
     {"S7/halfplane"}),
    ("orca", orca, "LINE_POINT", lambda e: e.subs(orca.share, orca.share / 2), "O3/cutoff",
     {"O3/cutoff"}),
    ("steering", steering, "STEERING_CHANGE", _doubled, "T2", {"T2"}),
]


def test_every_family_has_a_wrong_derivation_that_prove_names():
    assert {m[0] for m in FAMILY_MUTATIONS} == set(reg.FAMILIES)


@pytest.mark.parametrize(
    ("family", "module", "name", "mutate", "claims", "failing"),
    FAMILY_MUTATIONS,
    ids=[m[0] for m in FAMILY_MUTATIONS],
)
def test_prove_fails_naming_the_obligation_for_a_wrong_derivation_of_each_family(
    monkeypatch, family, module, name, mutate, claims, failing
):
    assert family in reg.FAMILIES
    monkeypatch.setattr(module, name, mutate(getattr(module, name)))
    code, out = _prove_in_process("--claims", claims, "-j", "1")
    assert code == 1
    summary = out.strip().splitlines()[-1]
    named = set(summary.split("NOT as expected: ", 1)[1].split(" (")[0].split(", "))
    assert failing <= named, summary
