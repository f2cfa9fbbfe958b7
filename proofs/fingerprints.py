"""The reviewed list of obligation fingerprints (``tests/golden/data/prove_fingerprints.txt``).

Each line: ``ID part digest`` for every part of ``Obligation.fingerprint()``. A changed digest
means the statement changed (a hypothesis dropped, a premise widened, a conclusion weakened): the
golden test fails until the new list is written (``NAVPROOF_UPDATE_GOLDEN=1 pytest tests/golden``
or ``python -m navproof.proofs.fingerprints``) and its diff reviewed like code: a new digest is
acceptable only when the statement became stronger or equally strong.
"""

from __future__ import annotations

from navproof.proofs import obligations
from navproof.specs.profile import Profile, load_profile


def fingerprint_lines(profile: Profile) -> list[str]:
    """``ID part digest`` for every obligation of the registry, in registry order."""
    lines: list[str] = []
    for obligation_id in obligations.OBLIGATION_IDS:
        digest = obligations.build(obligation_id, profile).fingerprint()
        lines.extend(f"{obligation_id} {part} {value}" for part, value in digest.items())
    return lines


if __name__ == "__main__":
    print("\n".join(fingerprint_lines(load_profile())))
