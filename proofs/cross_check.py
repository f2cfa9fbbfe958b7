"""A second engine: cvc5 re-decides the queries z3 decided (``navproof prove --cross-check``).

Each query is a conjunction of z3 assertions; it goes to cvc5 as SMT-LIB 2 text (z3's own
printer, exact rationals) under the logic QF_NRA with the resource limit ``rlimit-per`` (the
profile's ``[proof_budgets] cvc5_resource_limit`` or ``--cvc5-rlimit``), so the answer does not
depend on the machine's load. cvc5's nonlinear procedure does not always honour that limit
(the negation of A4 ran for more than 20 minutes under it), so each query also has a wall-clock
stop, ``tlimit-per`` = ``TIME_LIMIT_S`` (and a kill ``GRACE_S`` later); reaching it is an
unknown, never a pass. The engine compares each answer with z3's: a disagreement, or an unknown
from cvc5, fails the obligation.

cvc5 is imported only here, and only when a cross-check is asked for.
"""

from __future__ import annotations

import json
import subprocess
import sys

import z3

from navproof.proofs.z3_context import context_of, solver_in

SAT = "sat"
UNSAT = "unsat"
UNKNOWN = "unknown"

# Wall-clock stop of one cvc5 query (seconds): a backstop for the resource limit, see above.
TIME_LIMIT_S = 30.0
# How long past its own stop a cvc5 query may run before its process is killed (seconds).
GRACE_S = 5.0


def available() -> bool:
    """True when the cvc5 Python bindings can be imported."""
    try:
        import cvc5  # noqa: F401
    except ImportError:
        return False
    return True


def check(
    assertions: list[z3.BoolRef], resource_limit: int, time_limit_s: float = TIME_LIMIT_S
) -> tuple[str, str]:
    """cvc5's answer (sat, unsat or unknown) for the conjunction, and the reason when unknown.

    cvc5 runs in a child process: when it outlives its own time limit by ``GRACE_S`` (its
    nonlinear procedure does not always look at the clock either), the child is killed and the
    answer is unknown.
    """
    printer = solver_in(context_of(assertions), z3.Solver)
    printer.add(*assertions)
    text = printer.to_smt2().replace("(check-sat)", "")
    request = json.dumps({"text": text, "rlimit": resource_limit, "tlimit_s": time_limit_s})
    # A plain child process (not multiprocessing): `prove -j N` workers are daemonic and may not
    # have multiprocessing children of their own.
    code = "from navproof.proofs.cross_check import decide_from_stdin; decide_from_stdin()"
    try:
        done = subprocess.run(
            [sys.executable, "-c", code],
            input=request,
            capture_output=True,
            text=True,
            timeout=time_limit_s + GRACE_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return UNKNOWN, f"killed after {time_limit_s + GRACE_S:g} s of wall-clock time"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return UNKNOWN, f"cvc5 ended without an answer (exit code {done.returncode}: {last})"
    answer, reason = json.loads(done.stdout)
    return str(answer), str(reason)


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
    solver.setLogic("QF_NRA")
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "query")
    symbols = parser.getSymbolManager()
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        command.invoke(solver, symbols)
    result = solver.checkSat()
    if result.isSat():
        return SAT, ""
    if result.isUnsat():
        return UNSAT, ""
    return UNKNOWN, str(result.getUnknownExplanation())
