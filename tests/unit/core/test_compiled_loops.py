"""Compiled loops: numba loads when a crowd first steps, and a read-only install still runs."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from navproof._generated.formulas import orca_line_point
from navproof.core import jit


def test_numba_is_imported_on_the_first_step_not_at_import():
    code = ("import sys, numpy as np; from navproof.orca.crowd import Crowd\n"
            "before = 'numba' in sys.modules\n"
            "c = Crowd(0.25); c.add_agents(np.array([[0.0, 0.0], [3.0, 0.0]])); c.step()\n"
            "print(before, 'numba' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.split() == ["False", "True"]


def test_without_a_writable_cache_the_loop_compiles_in_memory(monkeypatch):
    import numba

    real_njit = numba.njit
    seen = []

    def njit(*args, **options):
        if "cache" in options:
            seen.append(options["cache"])
        if options.get("cache"):
            raise RuntimeError("cannot cache function: no locator available")
        return real_njit(*args, **options)

    monkeypatch.setattr(numba, "njit", njit)

    def total(values):
        acc = 0.0
        for v in values:
            acc += v
        return acc

    loop = jit.compiled_loop(total)
    assert loop(np.arange(5.0)) == 10.0
    assert seen == [True, False]


def _no_disk_cache(monkeypatch):
    import numba

    real_njit = numba.njit

    def njit(*args, **options):
        if options.get("cache"):
            raise RuntimeError("cannot cache function: no locator available")
        return real_njit(*args, **options)

    monkeypatch.setattr(numba, "njit", njit)


def _formula_like(source: str):
    """A function that counts as a generated formula (keyword-only, in the formula module)."""
    scope: dict = {}
    exec(source, scope)
    func = scope["f"]
    func.__module__ = "navproof._generated.formulas"
    return func


def test_a_loop_evaluates_generated_formulas_called_by_keyword(monkeypatch):
    _no_disk_cache(monkeypatch)

    def point(own_v, share, change):
        return orca_line_point(own_v=own_v, share=share, change=change)

    loop = jit.compiled_loop(point)
    assert loop(1.0, 0.5, 3.0) == orca_line_point(own_v=1.0, share=0.5, change=3.0) == 2.5


def test_a_changed_formula_gives_the_loop_another_cache_name(monkeypatch):
    # the disk cache watches only the loop's own file: the name must follow its callees' code
    _no_disk_cache(monkeypatch)
    names = []
    for body in ("a + b", "a - b", "a + b"):
        f = _formula_like(f"def f(*, a, b):\n    return {body}\n")
        scope = {"f": f}
        exec("def loop_body(x, y):\n    return f(a=x, b=y)\n", scope)
        loop = jit.compiled_loop(scope["loop_body"])
        names.append((loop.compiled().py_func.__qualname__, loop(5.0, 2.0)))
    assert [value for _, value in names] == [7.0, 3.0, 7.0]
    assert names[0][0] != names[1][0]
    assert names[0][0] == names[2][0]


def test_after_the_first_call_a_loop_calls_numbas_dispatcher_directly(monkeypatch):
    _no_disk_cache(monkeypatch)

    def scaled(values, factor):
        out = np.empty_like(values)
        for i in range(values.shape[0]):
            out[i] = values[i] * factor
        return out

    loop = jit.compiled_loop(scaled)
    values = np.array([1.0, -0.0, 2.5])
    first = loop(values, 3.0)
    assert isinstance(loop, jit.CompiledLoop)
    assert loop.__name__ == "scaled" and type(loop).__name__ == "CompiledLoop"
    # no Python frame of the wrapper between the caller and the machine code
    assert type(loop).__call__ is loop.compiled()
    again = loop(values, 3.0)
    assert first.tobytes() == again.tobytes() == (values * 3.0).tobytes()

    # a second loop is compiled on its own first call, and calls the first one inside
    scope = {"scaled": loop}
    exec("def doubled(values):\n    return scaled(values, 2.0)\n", scope)
    caller = jit.compiled_loop(scope["doubled"])
    assert caller(values).tobytes() == (values * 2.0).tobytes()
    assert type(caller).__call__ is caller.compiled()


def _chain(bottom_body: str, limit: float):
    """Three compiled loops, top -> middle -> bottom, the bottom's body and a constant the
    middle reads given."""
    scope: dict = {"LIMIT": limit}
    exec(f"def bottom(x):\n    return {bottom_body}\n", scope)
    scope["bottom"] = jit.compiled_loop(scope["bottom"])
    exec("def middle(x):\n    return bottom(x) if x < LIMIT else -1.0\n", scope)
    scope["middle"] = jit.compiled_loop(scope["middle"])
    exec("def top(x):\n    return middle(x) + 1.0\n", scope)
    return jit.compiled_loop(scope["top"])


def test_a_change_below_a_callee_or_in_a_constant_gives_the_loop_another_cache_name(
        monkeypatch):
    # numba's cache watches only the loop's own file and freezes the constants it reads: a
    # loop whose callee's callee or constant changed must not load the old machine code
    _no_disk_cache(monkeypatch)
    runs = []
    for body, limit in (("x * 2.0", 10.0), ("x * 3.0", 10.0), ("x * 2.0", 1.0),
                        ("x * 2.0", 10.0)):
        top = _chain(body, limit)
        runs.append((top.compiled().py_func.__qualname__, top(2.0)))
    assert [value for _, value in runs] == [5.0, 7.0, 0.0, 5.0]
    names = [name for name, _ in runs]
    assert len({names[0], names[1], names[2]}) == 3
    assert names[0] == names[3]
