"""numpy's hypot of the usual vector, written out so that a compiled loop over many vectors
runs it in the processor's vector units.

``np.hypot``, and ``math.hypot`` in a compiled loop, call the C library's hypot, one call per
length, which a compiled loop cannot run side by side. :func:`usual_hypot` is the GNU C
library's hypot (2.35 on, built without fused multiply-add: the square root of the squared
sum, corrected for its rounding as in Borges, 'An Improved Algorithm for hypot(a, b)', 2019)
for the vectors that take its common path: both components finite, the larger at most
2^511, the smaller at least 2^-459 and not negligible beside the larger (above 2^-54 of it),
or exactly zero. The same operations in the same order give the same bits as the library;
every other vector (huge, tiny, not finite) is flagged for the library itself. A unit test
compares the usual vectors' values with ``np.hypot`` on random, near-equal, widely scaled,
subnormal, zero and not-finite components.
"""

from __future__ import annotations

import math

import numpy as np

from navproof.core.jit import inlined_loop

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
