"""Compiled loops: numba loads when a crowd first steps, and a read-only install still runs."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

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
