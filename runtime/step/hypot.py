"""numpy's hypot of the usual vector, written out so that a compiled loop over many vectors
runs it in the processor's vector units.

``np.hypot``, and ``math.hypot`` in a compiled loop, call the C library's hypot, one call per
length, which a compiled loop cannot run side by side. :func:`usual_hypot` is the GNU C
library's hypot (2.35 on, built without fused multiply-add: the square root of the squared
sum, corrected for its rounding as in Borges, 'An Improved Algorithm for hypot(a, b)', 2019)
for the vectors that take its common path: both components finite, the larger at most
2^511, the smaller at least 2^-459 and not negligible beside the larger (above 2^-54 of it),
or exactly zero. The same operations in the same order give the same bits as the library;
every other vector (huge, tiny, not finite) is flagged for the library itself. Another C
library may compute hypot otherwise: :func:`usual_hypot_is_the_library` checks, once per
process, that this one agrees on many vectors of every kind the common path takes, and the
callers call the library for every length where it does not. A unit test compares the usual
vectors' values with ``np.hypot`` on random, near-equal, widely scaled, subnormal, zero and
not-finite components.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from navproof.core.jit import compiled_loop, inlined_loop

_LARGE = 2.0 ** 511
"""Largest component whose square the library takes without scaling."""
_TINY = 2.0 ** -459
"""Least smaller component whose square and correction terms the library takes unscaled."""
_NEGLIGIBLE = 2.0 ** -54
"""Ratio of the smaller to the larger component at or below which the length is their sum."""


@inlined_loop
def usual_hypot(x, y):
    """(``np.hypot(x, y)``, True) for the usual vector (x, y) of the module's common path;
    (a number to ignore, False) for any other. Branch-free: both of the library's corrections
    are formed and its test picks one; the division is numpy's (no zero check, which would
    stop the vector units; the divisor 2 h is positive on the common path)."""
    x, y = abs(x), abs(y)
    ax = y if x < y else x
    ay = x if x < y else y
    h = math.sqrt(ax * ax + ay * ay)
    low = h <= 2.0 * ay
    delta = h - (ay if low else ax)
    near = ax * (2.0 * delta - ax) + (delta - 2.0 * (ax - ay)) * delta
    far = 2.0 * delta * (ax - 2.0 * ay) + ((4.0 * delta - ay) * ay + delta * delta)
    corrected = h - np.divide(near if low else far, 2.0 * h)
    # the library's sum: a negligible smaller component, or an exact zero beside a finite one
    summed = ay <= ax * _NEGLIGIBLE or ay == 0.0
    usual = (ax <= _LARGE and ay >= _TINY) or (ay == 0.0 and ax < np.inf)
    return (ax + ay if summed else corrected), usual


@compiled_loop
def _usual_paths_match(xs, ys):
    """Whether :func:`usual_hypot` gives the C library's hypot (``math.hypot`` in a compiled
    loop) for every usual vector (``xs[i]``, ``ys[i]``) (lengths are never -0 or NaN there, so
    ``==`` compares their bits)."""
    for i in range(xs.size):
        value, usual = usual_hypot(xs[i], ys[i])
        if usual and not value == math.hypot(xs[i], ys[i]):
            return False
    return True


@functools.cache
def usual_hypot_is_the_library() -> bool:
    """Whether this machine's C library computes hypot as :func:`usual_hypot`'s common path
    does, checked once per process on 2^17 vectors of every kind the path takes: unit-scale,
    near-equal, one component small beside the other, and widely scaled up to the path's
    limits (a library with another algorithm rounds some of them otherwise)."""
    rng = np.random.default_rng(20261203)
    n = 1 << 15
    x, y = rng.normal(size=n), rng.normal(size=n)
    scale = 2.0 ** rng.integers(-440, 500, n)
    xs = np.concatenate([x, x, x, x * scale])
    ys = np.concatenate([y, x * (1.0 + rng.normal(size=n) * 1e-9),
                         x * 2.0 ** rng.integers(-56, -1, n),
                         y * 2.0 ** rng.integers(-440, 500, n)])
    return bool(_usual_paths_match(xs, ys))

