"""Discharges proof obligations with z3 (and sympy identities), with witnesses and replays.

For each z3 obligation (see ``navproof.proofs.obligations``):

0. definedness: every sqrt and every Piecewise without a default that the translation met (in
   hypotheses, premise or conclusion) must be defined wherever hypotheses and premise hold; this is
   proved with the sqrt definitions guarded by their domains, so nothing is assumed. A point where
   one is undefined gives status ``undefined`` (a failure) with that point as the counterexample.
1. non-vacuity: hypotheses AND premise must be satisfiable; the model is kept as the witness
   (preferably one that also meets the obligation's ``witness_prefer``, the case the claim is
   about). UNSAT gives status ``vacuous``: a contradictory hypothesis set never passes as a proof.
   An obligation that names a preferred case must have a witness in it, else it fails.
   Every profile range endpoint the obligation covers must be reachable under hypotheses and
   premise (each endpoint is reported with its witness), so no stray fact narrows a range.
2. bindings: every value bound to a sympy symbol must meet the symbol's assumptions (sympy may
   have simplified with them); otherwise status ``error``.
3. proof: hypotheses AND premise AND NOT conclusion. UNSAT gives ``proved``; SAT gives
   ``refuted`` with the model as the counterexample. An obligation with lemma ``steps`` is first
   proved through them (each step from a subset of the facts, which only weakens what is
   assumed); if the chain does not close, the plain negation above decides.
4. ``unknown`` from z3 (its resource limit ``rlimit`` exhausted), an optional wall-clock timeout,
   or a worker that had to be killed gives ``unknown``, never a pass.

Budgets are deterministic: each query gets the resource limit ``rlimit`` (from the profile's
``[proof_budgets]`` or the command line), so the same proof gives the same answer on a loaded
machine. Wall-clock time is measured and reported; a wall-clock limit is optional and only a
safety stop.

Every counterexample is replayed numerically through the generated runtime module
``navproof._generated.formulas``; a refutation that the replay does not confirm is a failure.
Model values are exact rationals; an algebraic number (nlsat models of square roots) is rendered
with ``ALGEBRAIC_DIGITS`` decimal digits and its float taken from that approximation.

``run_obligations`` runs obligations in-process (``jobs == 1``) or in separate worker processes
(``jobs > 1``), each worker rebuilding its obligation by ID, because z3 contexts cannot be shared
across processes; a worker that outlives its timeout is terminated.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, fields
from fractions import Fraction
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, cast

import z3

from navproof.proofs import obligations as registry
from navproof.proofs.obligations import PROVED, REFUTED, Obligation
from navproof.proofs.z3_context import charge_resources, context_of, solver_in
from navproof.specs.profile import Profile, ProofBudgets

if TYPE_CHECKING:
    from navproof.proofs.cache import ProofCache

ALGEBRAIC_DIGITS = 20
"""Decimal digits of the rendering of an algebraic (irrational) model value."""

DEFAULT_TIMEOUT_S: float | None = None
"""Optional wall-clock stop per obligation (None: only the resource limit decides)."""

DEFAULT_RLIMIT = ProofBudgets().z3_rlimit
"""Resource limit of each z3 query when neither the profile nor the caller sets one."""

# Statuses. PROVED and REFUTED come from obligations; the others are always failures.
VACUOUS = "vacuous"
UNKNOWN = "unknown"
FAILED = "failed"  # a sympy identity did not simplify to zero
ERROR = "error"  # the obligation could not be built or translated
UNDEFINED = "undefined"  # a sqrt or Piecewise is undefined somewhere hypotheses and premise hold
STATUSES = (PROVED, REFUTED, VACUOUS, UNKNOWN, FAILED, ERROR, UNDEFINED)

# Solvers tried in order on every query: nlsat (complete for polynomial real arithmetic, the
# shape every translated obligation has), then z3's default portfolio for what nlsat leaves open.
STRATEGIES: tuple[tuple[str, Callable[[], z3.Solver]], ...] = (
    ("QF_NRA", lambda: z3.SolverFor("QF_NRA")),
    ("default", z3.Solver),
)

# A worker gets this much wall time beyond the z3 budget before it is killed.
_KILL_GRACE_S = 5.0


@dataclass
class ModelValue:
    """One variable of a witness or counterexample."""

    text: str  # "p/q" when exact, else a decimal ending in "?" (ALGEBRAIC_DIGITS digits)
    float: float
    exact: bool

    @staticmethod
    def of(value: z3.ExprRef) -> ModelValue:
        if z3.is_rational_value(value):
            q = Fraction(value.numerator_as_long(), value.denominator_as_long())
            return ModelValue(str(q), float(q), True)
        if z3.is_int_value(value):
            return ModelValue(str(value.as_long()), float(value.as_long()), True)
        if z3.is_algebraic_value(value):
            approx = value.approx(ALGEBRAIC_DIGITS)
            q = Fraction(approx.numerator_as_long(), approx.denominator_as_long())
            return ModelValue(value.as_decimal(ALGEBRAIC_DIGITS), float(q), False)
        raise ValueError(f"model value {value} is not a number")


@dataclass
class Result:
    """The outcome of one obligation, in a JSON-friendly shape."""

    id: str
    claim: str
    title: str
    method: str
    expected: str
    status: str
    ok: bool
    seconds: float
    witness: dict[str, ModelValue] | None = None
    witness_verified: bool | None = None
    witness_preferred: bool | None = None
    counterexample: dict[str, ModelValue] | None = None
    replay_confirmed: bool | None = None
    replay_detail: str | None = None
    checks: list[dict[str, object]] | None = None
    steps: list[dict[str, object]] | None = None
    solver: str | None = None
    message: str = ""
    definedness: dict[str, object] | None = None
    endpoints: list[dict[str, object]] | None = None
    rlimit: int | None = None
    resources_used: int | None = None
    fingerprint: dict[str, str] | None = None
    engines: dict[str, str] | None = None
    cross_check: list[dict[str, object]] | None = None
    query_files: list[str] | None = None
    cached: bool = False
    cache_key: str | None = None
    # In-process only (never serialised): the z3 models, for tests that evaluate them.
    models: dict[str, z3.ModelRef] = field(default_factory=dict, repr=False, compare=False)

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {}
        for f in fields(self):
            if f.name == "models":
                continue
            value = getattr(self, f.name)
            if isinstance(value, dict) and f.name in ("witness", "counterexample"):
                value = {name: asdict(v) for name, v in value.items()}
            if f.name == "endpoints" and value is not None:
                value = [
                    {
                        k: ({n: asdict(m) for n, m in v.items()} if k == "witness" and v else v)
                        for k, v in e.items()
                    }
                    for e in value
                ]
            data[f.name] = value
        return data


def _values(model: z3.ModelRef, shown: dict[str, z3.ArithRef]) -> dict[str, ModelValue]:
    return {
        name: ModelValue.of(model.eval(term, model_completion=True)) for name, term in shown.items()
    }


@dataclass
class Budget:
    """What one obligation may spend: a resource limit per query, an optional wall deadline, and
    the resources spent so far (z3's cumulative ``rlimit count``, read after each query)."""

    rlimit: int
    deadline: float | None = None
    used: int = 0
    # The decided queries that make up the verdict: (label, assertions, "sat" | "unsat").
    log: list[tuple[str, list[z3.BoolRef], str]] = field(default_factory=list)

    def account(self, solver: z3.Solver) -> None:
        self.used += charge_resources(solver)


def _check(
    assertions: list[z3.BoolRef], budget: Budget, label: str = ""
) -> tuple[z3.CheckSatResult, z3.ModelRef | None, str, str]:
    """Decide a conjunction with nlsat first, then z3's default strategy, within the budget.

    Returns (result, model, strategy, reason_unknown).
    """
    reason = ""
    ctx = context_of(assertions)
    for name, make in STRATEGIES:
        solver = solver_in(ctx, make)
        solver.set("rlimit", budget.rlimit)
        if budget.deadline is not None:
            remaining_ms = int((budget.deadline - time.monotonic()) * 1000)
            if remaining_ms <= 0:
                return z3.unknown, None, name, reason or "timeout"
            solver.set("timeout", max(1, remaining_ms))
        solver.add(*assertions)
        result = solver.check()
        budget.account(solver)
        if result == z3.sat:
            if label:
                budget.log.append((label, list(assertions), "sat"))
            return result, solver.model(), name, ""
        if result == z3.unsat:
            if label:
                budget.log.append((label, list(assertions), "unsat"))
            return result, None, name, ""
        reason = solver.reason_unknown()
    return z3.unknown, None, "+".join(n for n, _ in STRATEGIES), reason


def query_file_stem(obligation_id: str) -> str:
    """File-name stem of an obligation's queries (``B6/pivot/tight`` -> ``B6__pivot__tight``)."""
    return obligation_id.replace("/", "__")


def emit_queries(
    directory: str, obligation_id: str, log: list[tuple[str, list[z3.BoolRef], str]]
) -> list[str]:
    """Write every decided query of an obligation as standard SMT-LIB text, one file each
    (``DIR/<obligation>.<n>.smt2``, z3's answer and the query's label in its header comment);
    returns the paths written. The text is exactly what a second engine is given."""
    from pathlib import Path

    from navproof.proofs.smtlib import to_smtlib

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for n, (label, assertions, answer) in enumerate(log, start=1):
        path = folder / f"{query_file_stem(obligation_id)}.{n:03d}.smt2"
        header = f"navproof obligation {obligation_id}, query {n}: {label}\nz3 answer: {answer}"
        path.write_text(to_smtlib(assertions, comment=header), encoding="utf-8")
        written.append(str(path))
    return written


def _constants(expr: z3.ExprRef) -> set[str]:
    found: set[str] = set()
    todo = [expr]
    seen: set[int] = set()
    while todo:
        node = todo.pop()
        if node.get_id() in seen:
            continue
        seen.add(node.get_id())
        if z3.is_const(node) and node.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found.add(node.decl().name())
        else:
            todo.extend(node.children())
    return found


def _without(facts: list[z3.BoolRef], forget: tuple[str, ...]) -> list[z3.BoolRef]:
    if not forget:
        return list(facts)
    dropped = set(forget)
    return [f for f in facts if not (_constants(f) & dropped)]


def _prove_by_steps(
    ob: Obligation, assumptions: list[z3.BoolRef], budget: Budget, result: Result
) -> tuple[z3.CheckSatResult, str, str]:
    """Prove the obligation's lemmas in order, then its conclusion from them.

    Returns (unsat, solver, "") when the chain proves the conclusion; otherwise (unknown, solver,
    reason) and the caller falls back to the plain negation. Step outcomes go to ``result.steps``.
    """
    if not ob.steps and not ob.conclusion_forget:
        return z3.unknown, "", ""
    facts = list(assumptions)
    result.steps = []
    chain = [*ob.steps, None]
    for step in chain:
        name, claim, forget = (
            ("conclusion", ob.conclusion, ob.conclusion_forget)
            if step is None
            else (step.name, step.claim, step.forget)
        )
        started = time.monotonic()
        outcome, _, solver, reason = _check(
            [*_without(facts, forget), z3.Not(claim)], budget, f"step: {name}"
        )
        status = PROVED if outcome == z3.unsat else "not implied" if outcome == z3.sat else UNKNOWN
        result.steps.append(
            {"name": name, "status": status, "seconds": round(time.monotonic() - started, 4)}
        )
        if outcome != z3.unsat:
            return z3.unknown, solver, f"step '{name}' {status}{f' ({reason})' if reason else ''}"
        facts.append(claim)
    return z3.unsat, "QF_NRA steps", ""


def _sympy_result(ob: Obligation, started: float) -> Result:
    assert ob.identities is not None
    checks = [{"name": name, "ok": ok} for name, ok in ob.identities()]
    status = PROVED if checks and all(c["ok"] for c in checks) else FAILED
    failed = [c["name"] for c in checks if not c["ok"]]
    return Result(
        id=ob.id,
        claim=ob.claim,
        title=ob.title,
        method="sympy",
        expected=ob.expected,
        status=status,
        ok=status == ob.expected,
        seconds=time.monotonic() - started,
        checks=checks,
        solver="sympy.simplify",
        message="" if not failed else "not verified: " + "; ".join(failed),
    )


def _definedness(ob: Obligation, budget: Budget) -> tuple[str, dict[str, object]]:
    """Prove that every partial piece of the translation is defined where the facts hold."""
    if not ob.domain:
        return PROVED, {"status": PROVED, "conditions": 0}
    facts = [*(ob.guarded_hypotheses or ob.hypotheses), *ob.premise]
    outcome, model, solver, reason = _check(
        [*facts, z3.Not(z3.And(ob.domain))], budget, "definedness"
    )
    record: dict[str, object] = {"conditions": len(ob.domain), "solver": solver}
    if outcome == z3.unsat:
        record["status"] = PROVED
        return PROVED, record
    if outcome == z3.sat and model is not None:
        record["status"] = UNDEFINED
        undefined = [str(c) for c in ob.domain if not z3.is_true(model.eval(c, True))]
        record["undefined"] = undefined
        record["counterexample"] = {n: asdict(v) for n, v in _values(model, ob.shown).items()}
        return UNDEFINED, record
    record["status"] = UNKNOWN
    record["reason"] = reason
    return UNKNOWN, record


def _exact_values(model: z3.ModelRef, shown: dict[str, z3.ArithRef]) -> dict[str, Fraction]:
    """The witness's rational values by name (irrational ones are left out)."""
    out: dict[str, Fraction] = {}
    for name, term in shown.items():
        value = model.eval(term, model_completion=True)
        if z3.is_rational_value(value):
            out[name] = Fraction(value.numerator_as_long(), value.denominator_as_long())
    return out


def _endpoints(
    ob: Obligation, assumptions: list[z3.BoolRef], budget: Budget, witness: z3.ModelRef
) -> tuple[list[dict[str, object]], list[str], bool]:
    """Reach each covered range endpoint under hypotheses and premise (first, when the
    obligation gives a hint, at the hinted values); returns the records, the unreachable
    endpoints and whether one was undecided."""
    records: list[dict[str, object]] = []
    unreachable: list[str] = []
    undecided = False
    exact = _exact_values(witness, ob.shown) if ob.endpoint_hint else {}
    for point in ob.endpoints:
        facts = assumptions if point.outside_claim is None else ob.hypotheses
        outcome, model, reason, hinted = z3.unknown, None, "", False
        fixed = ob.endpoint_hint(point, exact, ob.endpoints) if ob.endpoint_hint else None
        if fixed:
            pins = [ob.shown[name] == z3.RealVal(str(value), ob.shown[name].ctx)
                    for name, value in fixed.items()]
            outcome, model, _, reason = _check([*facts, point.condition, *pins], budget)
            hinted = outcome == z3.sat
        if not hinted:
            outcome, model, _, reason = _check([*facts, point.condition], budget)
        record: dict[str, object] = {
            "variable": point.variable,
            "parameter": point.parameter,
            "end": point.end,
            "value": point.value,
            "reachable": outcome == z3.sat,
            "under": "hypotheses and premise" if point.outside_claim is None else "hypotheses",
            "outside_claim": point.outside_claim,
            "witness": None,
        }
        if hinted:
            record["found_by"] = "rescaled witness"
        if outcome == z3.sat and model is not None:
            record["witness"] = _values(model, ob.shown)
        elif outcome == z3.unsat:
            unreachable.append(f"{point.variable} = {point.value} ({point.parameter} {point.end})")
        else:
            undecided = True
            record["reachable"] = None
            record["reason"] = reason
        records.append(record)
    return records, unreachable, undecided


_CROSS_CHECK_SEVERITY = ("", UNKNOWN, "disagree", "error")
"""Cross-check outcomes of a query, from fine to worst."""


def _cross_check(result: Result, budget: Budget, resource_limit: int) -> None:
    """Re-decide every logged query with the second engines of this obligation, asked in their
    measured order (:func:`navproof.proofs.cross_check.engine_order`, per query where the
    measurement found another engine first) until one decides.

    A query no second engine decides is unknown; an engine deciding against z3 is a
    disagreement; text an engine rejects is an error (a defect of the query). Any of them fails
    the result, naming the query, every answer and the reason.
    """
    from navproof.proofs import cross_check

    assert result.engines is not None
    records: list[dict[str, object]] = []
    asked: dict[str, list[tuple[str, str]]] = {}
    failures: list[str] = []
    worst = ""
    for label, assertions, z3_answer in budget.log:
        record: dict[str, object] = {"query": label, "z3": z3_answer}
        seconds: dict[str, float] = {}
        reasons: list[str] = []
        decided_by = None
        order = cross_check.engine_order(result.id, label)
        for name in order:
            reply = cross_check.ask(name, assertions, resource_limit)
            record[name] = reply.answer
            seconds[name] = reply.seconds
            asked.setdefault(name, []).append((reply.answer, z3_answer))
            if reply.reason:
                reasons.append(f"{name}: {reply.reason}")
            if reply.answer in (cross_check.SAT, cross_check.UNSAT):
                decided_by = name
                break
            if reply.answer == cross_check.PARSE_ERROR:
                break
        record["decided_by"] = decided_by
        record["seconds"] = seconds
        record["reason"] = "; ".join(reasons)
        records.append(record)
        answers = {name: record[name] for name in order if name in record}
        if any(a == cross_check.PARSE_ERROR for a in answers.values()):
            status = "error"
        elif decided_by is not None and answers[decided_by] != z3_answer:
            status = "disagree"
        elif decided_by is None:
            status = UNKNOWN
        else:
            continue
        worst = max(worst, status, key=_CROSS_CHECK_SEVERITY.index)
        shown = ", ".join(f"{name} {answer}" for name, answer in answers.items())
        failures.append(f"{label}: z3 {z3_answer}, {shown}")
    for name, pairs in asked.items():
        answers = {answer for answer, _ in pairs}
        if cross_check.PARSE_ERROR in answers:
            result.engines[name] = "error"
        elif any(a in (cross_check.SAT, cross_check.UNSAT) and a != z for a, z in pairs):
            result.engines[name] = "disagree"
        elif cross_check.UNKNOWN in answers:
            result.engines[name] = UNKNOWN
        else:
            result.engines[name] = result.status
    if not records:
        result.engines[cross_check.engine_order(result.id)[0]] = "no query"
        worst = "no query"
    result.cross_check = records
    if worst:
        result.ok = False
        result.message = "; ".join(
            m for m in (result.message, f"cross-check {worst}: " + "; ".join(failures)) if m
        )


def check_obligation(
    ob: Obligation,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    *,
    rlimit: int | None = None,
    cross_check_limit: int | None = None,
    emit_smt2_dir: str | None = None,
) -> Result:
    """Discharge one obligation in this process (see the module docstring for the steps).

    ``rlimit`` is the z3 resource limit of each query (default ``DEFAULT_RLIMIT``); ``timeout_s``
    an optional wall-clock stop; ``cross_check_limit``, when given, has cvc5 re-decide every
    query of the verdict with that resource limit per query; ``emit_smt2_dir``, when given,
    receives the standard SMT-LIB text of every query of the verdict (:func:`emit_queries`).
    """
    started = time.monotonic()
    if ob.method == "sympy":
        result = _sympy_result(ob, started)
        result.fingerprint = ob.fingerprint()
        result.engines = {"sympy": result.status}
        if cross_check_limit is not None:
            result.engines["cvc5"] = "not applicable (sympy identities)"
        return result
    budget = Budget(
        rlimit=rlimit if rlimit is not None else DEFAULT_RLIMIT,
        deadline=None if timeout_s is None else started + timeout_s,
    )
    base = Result(
        id=ob.id,
        claim=ob.claim,
        title=ob.title,
        method="z3",
        expected=ob.expected,
        status=UNKNOWN,
        ok=False,
        seconds=0.0,
        rlimit=budget.rlimit,
        engines={"z3": UNKNOWN},
        fingerprint=ob.fingerprint(),
    )

    def done(result: Result) -> Result:
        assert result.engines is not None
        result.engines["z3"] = result.status
        if emit_smt2_dir is not None:
            result.query_files = emit_queries(emit_smt2_dir, ob.id, budget.log)
        if cross_check_limit is not None and result.status in (PROVED, REFUTED):
            _cross_check(result, budget, cross_check_limit)
        result.seconds = time.monotonic() - started
        result.resources_used = budget.used
        return result

    # (0) Definedness of every sqrt and Piecewise without a default, proved, never assumed.
    defined, base.definedness = _definedness(ob, budget)
    if defined != PROVED:
        base.status = defined
        undefined = cast(list[str], base.definedness.get("undefined", []))
        base.message = (
            "a sqrt or Piecewise is undefined where hypotheses and premise hold: "
            + "; ".join(undefined)
            if defined == UNDEFINED
            else f"definedness undecided ({base.definedness.get('reason', '')})"
        )
        return done(base)
    assumptions = [*ob.hypotheses, *ob.premise]

    # (1) Non-vacuity witness, in the case the claim is about when the obligation names one.
    result, model, solver, reason = z3.unknown, None, "", ""
    if ob.witness_prefer:
        result, model, solver, reason = _check([*assumptions, *ob.witness_prefer], budget)
    base.witness_preferred = result == z3.sat
    preferred_missing = bool(ob.witness_prefer) and result != z3.sat
    preferred_reason = reason
    if result != z3.sat:
        result, model, solver, reason = _check(assumptions, budget)
    base.solver = solver
    if result == z3.unsat:
        base.status = VACUOUS
        base.message = "hypotheses and premise are contradictory: nothing is proved"
        return done(base)
    if result == z3.unknown:
        base.message = f"non-vacuity check undecided ({reason})"
        return done(base)
    assert model is not None
    base.models["witness"] = model
    base.witness = _values(model, ob.shown)
    base.witness_verified = z3.is_true(model.eval(z3.And(assumptions), model_completion=True))
    # The values bound to sympy symbols must meet the symbols' assumptions.
    for name, condition in ob.bindings:
        outcome, _, _, _ = _check([*assumptions, z3.Not(condition)], budget, f"binding {name}")
        if outcome != z3.unsat:
            base.status = ERROR if outcome == z3.sat else UNKNOWN
            base.message = f"binding {name} does not meet {condition}"
            return done(base)
    base.endpoints, unreachable, undecided = _endpoints(ob, assumptions, budget, model)

    # (2) Proof by unsatisfiability of the negation, through the lemmas when there are any.
    assert ob.conclusion is not None
    negation = [*assumptions, z3.Not(ob.conclusion)]
    result, solver, reason = _prove_by_steps(ob, assumptions, budget, base)
    if result != z3.unsat:
        # Without (or past a failed) step chain: the plain negation decides, and gives a
        # genuine counterexample when one exists.
        result, model, solver, plain_reason = _check(negation, budget, "negation")
        reason = "; ".join(r for r in (reason, plain_reason) if r)
    base.solver = solver
    if result == z3.unsat:
        base.status = PROVED
    elif result == z3.unknown:
        base.message = f"proof undecided ({reason})"
    else:
        assert model is not None
        # Prefer a counterexample with a clear violation, if one exists within budget.
        for extra in ob.sharpen:
            sharper, sharp_model, _, _ = _check([*negation, extra], budget)
            if sharper == z3.sat and sharp_model is not None:
                model = sharp_model
                break
        base.status = REFUTED
        base.models["counterexample"] = model
        base.counterexample = _values(model, ob.shown)
        if ob.replay is None:
            base.replay_confirmed = False
            base.replay_detail = "no numeric replay for this obligation"
        else:
            floats = {name: v.float for name, v in base.counterexample.items()}
            try:
                replay = ob.replay(floats)
                base.replay_confirmed, base.replay_detail = replay.confirmed, replay.detail
            except Exception as exc:  # a replay that crashes confirms nothing
                base.replay_confirmed = False
                base.replay_detail = f"replay raised {type(exc).__name__}: {exc}"
    base.ok = base.status == ob.expected and (base.status != REFUTED or bool(base.replay_confirmed))
    if base.status == REFUTED and not base.replay_confirmed and ob.expected == REFUTED:
        base.message = "counterexample not confirmed by the numeric replay"
    if base.status == PROVED and base.witness_verified is False:
        base.ok = False
        base.message = "the non-vacuity witness does not satisfy the hypotheses"
    if base.status == ob.expected and preferred_missing:
        base.ok = False
        base.message = (
            "no witness in the preferred case"
            + (f" (undecided: {preferred_reason})" if preferred_reason else "")
            + ": the claim's case may be empty"
        )
    if base.status == ob.expected and unreachable:
        base.ok = False
        base.message = "range endpoints unreachable under the hypotheses: " + "; ".join(unreachable)
    if base.ok and undecided:
        base.ok = False
        base.status = UNKNOWN
        base.message = "an endpoint reachability check was undecided"
    return done(base)


def _error_result(obligation_id: str, message: str, seconds: float) -> Result:
    claim = registry.claim_of(obligation_id)
    expected = registry.expected_of(obligation_id)
    builder = registry.BUILDERS.get(obligation_id)
    doc = (builder.__doc__ or "").strip() if builder is not None else ""
    return Result(
        id=obligation_id,
        claim=claim,
        title=doc.splitlines()[0] if doc else "",
        method="z3",
        expected=expected,
        status=ERROR,
        ok=False,
        seconds=seconds,
        message=message,
    )


def run_one(
    obligation_id: str,
    profile: Profile,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    *,
    rlimit: int | None = None,
    cross_check_limit: int | None = None,
    emit_smt2_dir: str | None = None,
    cache_entries: dict[str, dict[str, object]] | None = None,
    cache_sources: str = "",
) -> Result:
    """Build the obligation by ID and discharge it; building errors become status ``error``.

    With ``cache_entries`` (see :mod:`navproof.proofs.cache`), an obligation whose cache key has
    an entry is not decided again: its recorded verdict is returned with ``cached`` set. Every
    result carries its ``cache_key`` so the caller can record a new verdict; ``cache_sources``
    is the caller's :func:`navproof.proofs.cache.prover_state_digest`.
    """
    started = time.monotonic()
    try:
        ob = registry.build(obligation_id, profile)
    except Exception as exc:
        return _error_result(
            obligation_id, f"cannot build: {type(exc).__name__}: {exc}", time.monotonic() - started
        )
    limit = rlimit if rlimit is not None else profile.budgets.z3_rlimit
    key = None
    if cache_entries is not None:
        from navproof.proofs import cache, cross_check

        key = cache.cache_key(ob, rlimit=limit, cross_check_limit=cross_check_limit,
                              engines=cross_check.engine_order(obligation_id),
                              sources=cache_sources)
        entry = cache_entries.get(key)
        if entry is not None and emit_smt2_dir is None:
            hit = cache.result_from_record(entry)
            hit.seconds = time.monotonic() - started
            hit.cache_key = key
            return cast(Result, hit)
    try:
        result = check_obligation(
            ob,
            timeout_s,
            rlimit=limit,
            cross_check_limit=cross_check_limit,
            emit_smt2_dir=emit_smt2_dir,
        )
    except z3.Z3Exception as exc:
        return _error_result(obligation_id, f"z3 error: {exc}", time.monotonic() - started)
    result.cache_key = key
    return result


def _worker(
    profile: Profile,
    timeout_s: float | None,
    rlimit: int | None,
    cross: int | None,
    emit_smt2_dir: str | None,
    cache_entries: dict[str, dict[str, object]] | None,
    cache_sources: str,
    conn,
) -> None:
    """Worker process loop: receive obligation IDs, send back results, stop on None."""
    while True:
        obligation_id = conn.recv()
        if obligation_id is None:
            break
        result = run_one(
            obligation_id,
            profile,
            timeout_s,
            rlimit=rlimit,
            cross_check_limit=cross,
            emit_smt2_dir=emit_smt2_dir,
            cache_entries=cache_entries,
            cache_sources=cache_sources,
        )
        result.models = {}
        conn.send(result)
    conn.close()


def _unknown(obligation_id: str, message: str, seconds: float) -> Result:
    result = _error_result(obligation_id, message, seconds)
    result.status = UNKNOWN
    return result


def run_obligations(
    obligation_ids: Iterable[str],
    profile: Profile,
    *,
    jobs: int = 1,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    rlimit: int | None = None,
    cross_check_limit: int | None = None,
    emit_smt2_dir: str | None = None,
    cache: ProofCache | None = None,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Discharge the obligations, in registry order in the returned list.

    ``on_result`` is called as each one finishes (completion order). ``jobs == 1`` runs in this
    process; ``jobs > 1`` runs up to ``jobs`` worker processes at once. With a ``cache``,
    obligations whose inputs are unchanged are not decided again, and every new verdict that
    passed is recorded in it (the caller saves it).
    """
    ids = list(obligation_ids)
    results: dict[str, Result] = {}
    entries = cache.lookup() if cache is not None else None
    quick: dict[str, str] = {}
    sources = ""

    def finish(result: Result) -> None:
        results[result.id] = result
        if cache is not None and result.cache_key is not None:
            if result.cached:
                cache.hits += 1
            else:
                cache.misses += 1
            if result.ok:
                record = result.to_json()
                record["cached"], record["cache_key"] = False, result.cache_key
                cache.put(result.cache_key, record, quick=quick.get(result.id))
        if on_result is not None:
            on_result(result)

    if cache is not None:
        # Verdicts whose whole input is unchanged come back without building anything.
        from navproof.proofs import cache as cache_module
        from navproof.proofs import cross_check

        limit = rlimit if rlimit is not None else profile.budgets.z3_rlimit
        sources = cache_module.prover_state_digest()
        for oid in list(ids):
            quick[oid] = cache_module.quick_key(
                oid, profile, rlimit=limit, cross_check_limit=cross_check_limit,
                engines=cross_check.engine_order(oid), sources=sources)
            entry = cache.quick_hit(quick[oid]) if emit_smt2_dir is None else None
            if entry is not None:
                hit = cast(Result, cache_module.result_from_record(entry))
                hit.seconds = 0.0
                finish(hit)
        ids_to_decide = [oid for oid in ids if oid not in results]
    else:
        ids_to_decide = ids

    if jobs <= 1:
        for oid in ids_to_decide:
            finish(
                run_one(
                    oid,
                    profile,
                    timeout_s,
                    rlimit=rlimit,
                    cross_check_limit=cross_check_limit,
                    emit_smt2_dir=emit_smt2_dir,
                    cache_entries=entries,
                    cache_sources=sources,
                )
            )
        return [results[oid] for oid in ids]

    # Workers come from a fork server (a fresh process with the proof modules preloaded), never
    # from a fork of this process, whose z3 state may include timer threads.
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["navproof.proofs.engine"])
    pending = list(ids_to_decide)
    idle: list[tuple[Connection, multiprocessing.process.BaseProcess]] = []
    busy: dict[Connection, tuple[str, multiprocessing.process.BaseProcess, float]] = {}

    def start_worker() -> tuple[Connection, multiprocessing.process.BaseProcess]:
        parent, child = ctx.Pipe()
        process = ctx.Process(
            target=_worker,
            args=(
                profile, timeout_s, rlimit, cross_check_limit, emit_smt2_dir, entries, sources,
                child,
            ),
            daemon=True,
        )
        process.start()
        child.close()
        return parent, process

    try:
        for _ in range(min(jobs, len(pending))):
            idle.append(start_worker())
        while pending or busy:
            while pending and idle:
                conn, process = idle.pop()
                oid = pending.pop(0)
                conn.send(oid)
                busy[conn] = (oid, process, time.monotonic())
            for ready in multiprocessing.connection.wait(list(busy), timeout=0.1):
                conn = cast(Connection, ready)
                oid, process, started = busy.pop(conn)
                try:
                    result = cast(Result, conn.recv())
                except EOFError:
                    result = _unknown(
                        oid,
                        f"worker died (exit code {process.exitcode})",
                        time.monotonic() - started,
                    )
                    result.status = ERROR
                    process.join()
                    if pending:
                        idle.append(start_worker())
                else:
                    idle.append((conn, process))
                finish(result)
            now = time.monotonic()
            for conn, (oid, process, started) in list(busy.items()):
                if timeout_s is not None and now - started > timeout_s + _KILL_GRACE_S:
                    # z3 ignored its own timeout: kill the worker, replace it, report unknown.
                    process.terminate()
                    process.join()
                    del busy[conn]
                    finish(
                        _unknown(
                            oid,
                            f"timeout: worker killed after {now - started:.1f} s",
                            now - started,
                        )
                    )
                    if pending:
                        idle.append(start_worker())
    finally:
        for conn, _ in idle:
            try:
                conn.send(None)
            except OSError:
                pass
        for _, process in idle:
            process.join(timeout=1)
        for _, process, _ in busy.values():
            process.terminate()
        for _, process in [*idle, *[(c, p) for c, (_, p, _) in busy.items()]]:
            if process.is_alive():
                process.terminate()
            process.join()
    return [results[oid] for oid in ids]
