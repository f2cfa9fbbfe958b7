"""The reviewed fingerprints of every obligation's hypotheses, premise and conclusion.

An obligation whose statement changes (silently weaker, or on purpose) fails here until the
golden list is regenerated with ``NAVPROOF_UPDATE_GOLDEN=1 pytest tests/golden`` and reviewed.
"""

import os
from pathlib import Path

import sympy

from navproof.proofs import obligations, stop_envelope
from navproof.proofs.fingerprints import fingerprint_lines
from navproof.specs.profile import load_profile

GOLDEN = Path(__file__).with_name("data") / "prove_fingerprints.txt"


def test_obligation_fingerprints_match_the_reviewed_list():
    text = "\n".join(fingerprint_lines(load_profile())) + "\n"
    if os.environ.get("NAVPROOF_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text)
    assert GOLDEN.exists(), f"missing {GOLDEN}; run with NAVPROOF_UPDATE_GOLDEN=1"
    assert text == GOLDEN.read_text()


def test_every_obligation_has_a_reviewed_fingerprint():
    listed = {line.split()[0] for line in GOLDEN.read_text().splitlines()}
    assert listed == set(obligations.OBLIGATION_IDS)


def test_a_weakened_conclusion_changes_the_fingerprint(monkeypatch):
    profile = load_profile()
    before = obligations.build("S2", profile).fingerprint()
    monkeypatch.setattr(
        stop_envelope,
        "NORMAL_STOP_DISPLACEMENT",
        stop_envelope.NORMAL_STOP_DISPLACEMENT + sympy.Rational(1, 10),
    )
    after = obligations.build("S2", profile).fingerprint()
    assert after["hypotheses"] == before["hypotheses"]
    assert after["premise"] == before["premise"]
    assert after["conclusion"] != before["conclusion"]


def test_fingerprints_do_not_depend_on_what_was_built_before():
    profile = load_profile()
    first = obligations.build("S5", profile).fingerprint()
    for oid in obligations.OBLIGATION_IDS:
        obligations.build(oid, profile)
    assert obligations.build("S5", profile).fingerprint() == first
