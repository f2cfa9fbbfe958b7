"""The z3 context each obligation lives in.

z3's term ids, variable order and search heuristics depend on everything created earlier in a
context. With one shared context for a whole process, the same obligation could take seconds
right after start-up and minutes after a few dozen others had been decided in the same process.
Every obligation is therefore built in a fresh context (:func:`fresh_context`), and its queries
are solved in the context of their own terms (:func:`solver_in`), so its verdict and its resource
use do not depend on what ran before it.

z3's Python API has no public way to replace the default context that term constructors use,
so :func:`fresh_context` replaces the module's ``_main_ctx``; a test checks that this still
yields distinct contexts with the installed z3.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import z3


def fresh_context() -> z3.Context:
    """Make a new, empty z3 context the default one for term constructors, and return it.

    Terms of earlier contexts stay valid in their own context; they must not be mixed with the
    new one (each obligation's terms are all built after this call)."""
    z3.z3._main_ctx = None
    return z3.main_ctx()


@contextmanager
def _default_context(ctx: z3.Context) -> Iterator[None]:
    previous = z3.z3._main_ctx
    z3.z3._main_ctx = ctx
    try:
        yield
    finally:
        z3.z3._main_ctx = previous


def solver_in(ctx: z3.Context, make: Callable[[], z3.Solver]) -> z3.Solver:
    """A solver made by ``make`` (which uses the default context) in the context ``ctx``."""
    with _default_context(ctx):
        return make()


def context_of(terms: list[z3.ExprRef]) -> z3.Context:
    """The context of a list of terms (the default context for an empty list)."""
    return terms[0].ctx if terms else z3.main_ctx()


def charge_resources(solver: z3.Solver) -> int:
    """Resources spent by the last query of ``solver``: the increase of its context's cumulative
    ``rlimit count`` since the previous query in that context."""
    stats = solver.statistics()
    count = int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0
    ctx = solver.ctx
    seen = getattr(ctx, "_navproof_rlimit_seen", 0)
    ctx._navproof_rlimit_seen = max(count, seen)
    return max(0, count - seen)
