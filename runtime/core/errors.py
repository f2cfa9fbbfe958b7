"""Typed errors of the runtime: bad input, and a proof obligation violated at run time."""

from __future__ import annotations

import os
from typing import Any

__all__ = ["InvalidInput", "ObligationViolation", "ScenarioError", "assertions_enabled"]


def assertions_enabled(flag: bool | None = None) -> bool:
    """Assertion mode: an explicit flag wins, else the ``NAVPROOF_ASSERT`` environment variable."""
    if flag is not None:
        return flag
    return os.environ.get("NAVPROOF_ASSERT", "").strip().lower() in {"1", "true", "yes", "on"}


class InvalidInput(ValueError):
    """An input is outside its rule; names the field, the value and the rule. Nothing changed."""

    def __init__(self, field: str, value: Any, rule: str) -> None:
        self.field = field
        self.value = value
        self.rule = rule
        super().__init__(f"{field} = {value!r}: {rule}")


class ScenarioError(InvalidInput):
    """A scenario file is malformed: names the file, the key, the value and the rule. The one
    error of every scenario loader (:func:`navproof.scenario.load_scenario`: World scenarios,
    the P/Q demo's data, ``navproof explain``'s JSON); nothing is built from a bad file."""

    def __init__(self, file: str, key: str, value: object, rule: str) -> None:
        self.file = file
        self.key = key
        super().__init__(f"{file}: {key}", value, rule)


class ObligationViolation(AssertionError):
    """A proof obligation failed on live data (assertion mode).

    Carries the claim ID, the observed value, the limit it had to respect, the signed margin
    (negative: how far outside) and the offending data.
    """

    def __init__(
        self,
        claim_id: str,
        message: str,
        *,
        observed: Any = None,
        limit: Any = None,
        margin: float | None = None,
        agent: int | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        self.claim_id = claim_id
        self.observed = observed
        self.limit = limit
        self.margin = margin
        self.agent = agent
        self.data = dict(data or {})
        parts = [f"[{claim_id}] {message}"]
        if agent is not None:
            parts.append(f"agent={agent}")
        if observed is not None:
            parts.append(f"observed={observed!r}")
        if limit is not None:
            parts.append(f"limit={limit!r}")
        if margin is not None:
            parts.append(f"margin={margin:.6g}")
        if self.data:
            parts.append(f"data={self.data!r}")
        super().__init__("; ".join(parts))
