"""Reports of proof runs: the human table, the summary line, the exit code and the JSON record.

JSON schema ``navproof.prove/1`` (stable; new keys may be added, none removed or renamed):

- ``schema``: "navproof.prove/1"
- ``profile``: ``{"name", "source", "description"}``
- ``generated_formulas``: ``{"path", "fresh", "reason"}`` (reason is null when fresh)
- ``settings``: ``{"jobs", "timeout_s", "algebraic_digits", "z3_rlimit", "cross_check",
  "cvc5_resource_limit"}`` (``timeout_s`` null: no
  wall-clock stop; the resource limit ``z3_rlimit`` per query decides)
- ``obligations``: one record per obligation, in registry order: ``id``, ``claim``, ``title``,
  ``method`` ("z3" | "sympy"), ``expected`` ("proved" | "refuted"), ``status`` (proved, refuted,
  vacuous, unknown, failed, error), ``ok``, ``seconds``, ``witness`` and ``counterexample``
  (``{name: {"text", "float", "exact"}}`` or null), ``witness_verified``, ``witness_preferred``
  (the witness lies in the case the claim is about), ``replay_confirmed``,
  ``replay_detail``, ``checks`` (sympy identities), ``steps`` (z3 lemmas), ``solver``,
  ``message``; ``definedness`` (``{"status", "conditions", ...}``: every sqrt / Piecewise without
  a default proved defined where hypotheses and premise hold), ``endpoints`` (one record per
  covered profile range endpoint: ``variable``, ``parameter``, ``end``, ``value``, ``reachable``,
  ``witness``), ``rlimit`` and ``resources_used`` (z3 resource units), ``fingerprint``
  (``{"hypotheses", "premise", "conclusion"}`` digests), ``engines`` (``{engine: status}``: z3 or
  sympy, and with ``--cross-check`` each second engine asked: cvc5, yices), ``cross_check``
  (per re-decided query: ``query``, ``z3``, the answer of each engine asked (``cvc5``,
  ``yices``), ``decided_by`` (the engine whose answer counts, null when none decided),
  ``seconds`` (``{engine: seconds}``), ``reason``; null without ``--cross-check``),
  ``query_files`` (with ``--emit-smt2 DIR``: the standard SMT-LIB file of each query, in the
  order of ``cross_check``; else null), ``cached`` (true when the verdict came from the proof
  cache, unchanged fingerprint)
- ``totals``: ``{"obligations", "ok", "not_ok", "by_status": {status: count}}``
- ``wall_seconds``, ``exit_code``
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from navproof.core.exit_codes import EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN
from navproof.proofs.engine import ALGEBRAIC_DIGITS, UNKNOWN, ModelValue, Result
from navproof.proofs.obligations import REFUTED
from navproof.specs.profile import Profile

SCHEMA = "navproof.prove/1"

_VALUES_SHOWN = 8


@dataclass(frozen=True)
class Freshness:
    """Whether the generated runtime formulas match a fresh generation of the derivations."""

    path: str
    reason: str | None

    @property
    def fresh(self) -> bool:
        return self.reason is None


def exit_code(results: Iterable[Result], freshness: Freshness | None = None) -> int:
    """1 when a claim failed (or the formulas are stale), else 2 when one is unknown, else 0."""
    results = list(results)
    if (freshness is not None and not freshness.fresh) or any(
        not r.ok and r.status != UNKNOWN for r in results
    ):
        return EXIT_FAILED
    if any(r.status == UNKNOWN for r in results):
        return EXIT_UNKNOWN
    return EXIT_OK


def format_values(values: dict[str, ModelValue] | None, limit: int = _VALUES_SHOWN) -> str:
    """``name=value`` pairs (exact rationals, or decimals ending in ? when algebraic)."""
    if not values:
        return ""
    items = [f"{name}={_short(v)}" for name, v in values.items()]
    more = len(items) - limit
    return " ".join(items[:limit]) + (f" (+{more} more)" if more > 0 else "")


def _short(value: ModelValue) -> str:
    if value.exact and len(value.text) <= 12:
        return value.text
    return f"{value.float:.6g}" + ("" if value.exact else "?")


def evidence(result: Result) -> str:
    """The witness, counterexample or identity count that backs a result, in one line."""
    if result.method == "sympy":
        checks = result.checks or []
        verified = sum(1 for c in checks if c["ok"])
        text = f"{verified}/{len(checks)} identities simplify to 0"
        return text + (f"; {result.message}" if result.message else "")
    if result.status == REFUTED:
        confirmed = "confirmed" if result.replay_confirmed else "NOT confirmed"
        return (
            f"counterexample: {format_values(result.counterexample)}; "
            f"replay {confirmed}: {result.replay_detail}"
        )
    text = f"witness: {format_values(result.witness)}" if result.witness else ""
    second = [
        f"{name} {verdict}"
        for name, verdict in (result.engines or {}).items()
        if name not in ("z3", "sympy")
    ]
    if second:
        text = f"{', '.join(second)}; {text}"
    if result.message:
        text = f"{result.message}; {text}" if text else result.message
    return text


def table(results: Iterable[Result]) -> str:
    """A fixed-width table: ID, status, expected, time, and the evidence."""
    rows = [("ID", "status", "expected", "time", "witness / counterexample")]
    for r in results:
        mark = "" if r.ok else " !"
        rows.append((r.id, r.status + mark, r.expected, f"{r.seconds:.2f}s", evidence(r)))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    for row in rows:
        cells = [row[i].ljust(widths[i]) for i in range(4)]
        lines.append("  ".join([*cells, row[4]]).rstrip())
    return "\n".join(lines)


def summary_line(
    results: Iterable[Result], wall_seconds: float, freshness: Freshness | None
) -> str:
    results = list(results)
    statuses = Counter(r.status for r in results)
    bad = [r.id for r in results if not r.ok]
    parts = ", ".join(f"{count} {status}" for status, count in sorted(statuses.items()))
    verdict = "all as expected" if not bad else "NOT as expected: " + ", ".join(bad)
    stale = "" if freshness is None or freshness.fresh else "; generated formulas STALE"
    return f"{len(results)} obligations: {parts} — {verdict}{stale} ({wall_seconds:.1f} s)"


def totals(results: Iterable[Result]) -> dict[str, object]:
    results = list(results)
    ok = sum(1 for r in results if r.ok)
    return {
        "obligations": len(results),
        "ok": ok,
        "not_ok": len(results) - ok,
        "by_status": dict(sorted(Counter(r.status for r in results).items())),
    }


def profile_json(profile: Profile) -> dict[str, str]:
    return {"name": profile.name, "source": profile.source, "description": profile.description}


def to_json(
    profile: Profile,
    results: list[Result],
    freshness: Freshness,
    *,
    jobs: int,
    timeout_s: float | None,
    wall_seconds: float,
    rlimit: int | None = None,
    cross_check_limit: int | None = None,
) -> dict[str, object]:
    """The ``navproof.prove/1`` record of one run (see the module docstring)."""
    return {
        "schema": SCHEMA,
        "profile": profile_json(profile),
        "generated_formulas": {
            "path": freshness.path,
            "fresh": freshness.fresh,
            "reason": freshness.reason,
        },
        "settings": {
            "jobs": jobs,
            "timeout_s": timeout_s,
            "algebraic_digits": ALGEBRAIC_DIGITS,
            "z3_rlimit": rlimit,
            "cross_check": cross_check_limit is not None,
            "cvc5_resource_limit": cross_check_limit,
        },
        "obligations": [r.to_json() for r in results],
        "totals": totals(results),
        "wall_seconds": round(wall_seconds, 3),
        "exit_code": exit_code(results, freshness),
    }


def progress_line(result: Result, done: int, total: int) -> str:
    """One stderr line per finished obligation."""
    mark = "ok" if result.ok else "NOT OK"
    return (
        f"[{done:>{len(str(total))}}/{total}] {result.id}: {result.status} "
        f"(expected {result.expected}, {mark}) {result.seconds:.2f}s"
    )
