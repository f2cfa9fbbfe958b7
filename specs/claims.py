"""The claim catalogue (B1…H10) loaded from ``claims.toml`` as frozen dataclasses."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from navproof.specs.errors import SpecError

CLAIMS_PATH = Path(__file__).with_name("claims.toml")
CLAIM_KINDS = ("z3", "sympy", "runtime")
SEEDS = ("000", "002")


@dataclass(frozen=True)
class Claim:
    """One catalogued claim: stable ID, statement, seed reference and how it is discharged."""

    id: str
    title: str
    statement: str
    seed: str
    section: str
    kind: str
    refutable: bool = False


def _check_claim(raw: dict, index: int, file: str) -> Claim:
    where = f"claim[{index}]"
    required = ("id", "title", "statement", "seed", "section", "kind")
    for key in required:
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise SpecError(file, f"{where}.{key}", raw.get(key), "must be a non-empty string")
    unknown = set(raw) - set(required) - {"refutable"}
    if unknown:
        raise SpecError(file, f"{where}", sorted(unknown), "unknown keys")
    if raw["kind"] not in CLAIM_KINDS:
        raise SpecError(file, f"{where}.kind", raw["kind"], f"must be one of {CLAIM_KINDS}")
    if raw["seed"] not in SEEDS:
        raise SpecError(file, f"{where}.seed", raw["seed"], f"must be one of {SEEDS}")
    refutable = raw.get("refutable", False)
    if not isinstance(refutable, bool):
        raise SpecError(file, f"{where}.refutable", refutable, "must be true or false")
    return Claim(
        id=raw["id"],
        title=raw["title"],
        statement=raw["statement"],
        seed=raw["seed"],
        section=raw["section"],
        kind=raw["kind"],
        refutable=refutable,
    )


@cache
def load_claims(path: Path = CLAIMS_PATH) -> dict[str, Claim]:
    """Load and validate the catalogue; returns claims by ID in catalogue order."""
    file = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SpecError(file, "<file>", None, f"cannot read TOML: {exc}") from exc
    claims: dict[str, Claim] = {}
    for index, raw in enumerate(data.get("claim", [])):
        claim = _check_claim(raw, index, file)
        if claim.id in claims:
            raise SpecError(file, f"claim[{index}].id", claim.id, "IDs must be unique")
        claims[claim.id] = claim
    if not claims:
        raise SpecError(file, "claim", None, "the catalogue must list at least one claim")
    return claims
