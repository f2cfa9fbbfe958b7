"""Two-dimensional vector helpers on numpy arrays whose last axis is (x, y)."""

from __future__ import annotations

import math

import numpy as np

from navproof.core.jit import compiled_loop, inlined_loop

HYPOT_DECIDED_MIN = 1.0e-100
"""Least limit whose comparison with a hypot :func:`hypot_side` decides from the squared sum."""
HYPOT_DECIDED_MAX = 1.0e100
"""Largest such limit (its square and the squared sums near it stay normal floats)."""
HYPOT_SIDE_SLACK = 1.0e-9
"""Relative gap between x^2 + y^2 and limit^2 beyond which :func:`hypot_side` decides."""


def dot2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dot product over the last axis (x, y) of two broadcast arrays: a.x b.x + a.y b.y (the
    einsum of the same, bit for bit, without its per-call overhead)."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]


def det2(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    """2-D cross product ``a.x * b.y - a.y * b.x`` of component arrays (m^2/s^2 or unitless)."""
    return ax * by - ay * bx


@compiled_loop
def _lengths(v, out):
    for i in range(out.size):
        x, y = v[i, 0], v[i, 1]
        out[i] = math.sqrt(x * x + y * y)


def norm2(v: np.ndarray) -> np.ndarray:
    """Length over the last axis (x, y): ``sqrt(x x + y y)``, the value of
    ``np.linalg.norm(v, axis=-1)`` bit for bit, in one compiled pass (numpy reduces the short
    last axis slowly)."""
    arr = np.ascontiguousarray(v, dtype=np.float64)
    out = np.empty(arr.shape[:-1])
    _lengths(arr.reshape(-1, 2), out.reshape(-1))
    return out


@inlined_loop
def squared_side(squared, limit):
    """Which side of ``limit`` the length whose square is ``squared`` lies on, without its
    root: -1 surely below, 1 surely above, 0 undecided (then measure the length itself).
    Decided only for a limit in [HYPOT_DECIDED_MIN, HYPOT_DECIDED_MAX] and a ``squared`` further
    than HYPOT_SIDE_SLACK (relative) from ``limit limit``: limit squared is within 1 unit in the
    last place, a correctly rounded square root or hypot within 1 of the exact length, far
    inside the slack. NaN is never decided."""
    if not (limit >= HYPOT_DECIDED_MIN and limit <= HYPOT_DECIDED_MAX):
        return 0
    bound = limit * limit
    if squared < bound * (1.0 - HYPOT_SIDE_SLACK):
        return -1
    if squared > bound * (1.0 + HYPOT_SIDE_SLACK):
        return 1
    return 0


@inlined_loop
def hypot_side(x, y, limit):
    """Which side of ``limit`` ``math.hypot(x, y)`` lies on, without computing it
    (:func:`squared_side` of ``x x + y y``): the sum is within 3 units in the last place of
    x^2 + y^2 (products that underflow err by less than 1e-300, far below the slack there); a
    sum that overflows is surely above."""
    return squared_side(x * x + y * y, limit)


@inlined_loop
def hypot_at_most(x, y, limit):
    """``math.hypot(x, y) <= limit``, hypot computed only where :func:`hypot_side` does not
    decide."""
    side = hypot_side(x, y, limit)
    if side != 0:
        return side < 0
    return math.hypot(x, y) <= limit


@inlined_loop
def hypot_above(x, y, limit):
    """``math.hypot(x, y) > limit``, hypot computed only where :func:`hypot_side` does not
    decide."""
    side = hypot_side(x, y, limit)
    if side != 0:
        return side > 0
    return math.hypot(x, y) > limit


@inlined_loop
def hypot_below(x, y, limit):
    """``math.hypot(x, y) < limit``, hypot computed only where :func:`hypot_side` does not
    decide."""
    side = hypot_side(x, y, limit)
    if side != 0:
        return side < 0
    return math.hypot(x, y) < limit


@inlined_loop
def root_below(squared, limit):
    """``math.sqrt(max(squared, 0.0)) < limit``, the root taken only where
    :func:`squared_side` does not decide."""
    side = squared_side(squared, limit)
    if side != 0:
        return side < 0
    return math.sqrt(max(squared, 0.0)) < limit


@inlined_loop
def nonzero_length(x, y):
    """``math.hypot(x, y) > 0``: exactly when a finite vector is not (+-0, +-0) (hypot is at
    least the larger magnitude); hypot itself decides a non-finite one."""
    if x == 0.0 and y == 0.0:
        return False
    if x - x == 0.0 and y - y == 0.0:
        return True
    return math.hypot(x, y) > 0.0
