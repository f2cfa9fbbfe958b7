"""Exact decisions on the length of a 2-vector (m or m/s) without measuring it where the
decision is clear: the same answer as comparing ``hypot(x, y)``, the C library's length
(numpy's ``np.hypot``), for every input, NaN, infinities, zeros of both signs and subnormal
values included. A compiled pass that only compares lengths skips most ``hypot`` calls.
"""

from __future__ import annotations

import math

from navproof.core.jit import inlined_loop

CLEAR_REL = 1e-9
"""Relative distance of a squared length from a squared limit beyond which the sum of
squares decides a comparison as ``hypot`` does: both are within a few ulps (2e-16 relative)
of the exact length."""

LIMIT_RANGE = (2.0 ** -450, 2.0 ** 450)
"""Limits for which the sum of squares is decisive: squared limits far inside the normal
floats, so that an underflowing square is negligible and an overflowing one is far beyond
the limit."""


@inlined_loop
def moving(x, y):
    """Whether ``hypot(x, y) > 0``: exactly when a finite vector is not (+-0, +-0) (``hypot``
    is at least the larger magnitude); ``hypot`` itself decides a non-finite one."""
    if x == 0.0 and y == 0.0:
        return False
    if x - x == 0.0 and y - y == 0.0:
        return True
    return math.hypot(x, y) > 0.0


@inlined_loop
def shorter_than(x, y, limit):
    """Whether ``hypot(x, y) < limit``: decided by ``x*x + y*y`` against ``limit**2`` where
    that sum is clear of it by ``CLEAR_REL`` and the limit lies in ``LIMIT_RANGE``; by
    ``hypot`` elsewhere (a NaN sum included)."""
    if limit >= LIMIT_RANGE[0] and limit <= LIMIT_RANGE[1]:
        sq = x * x + y * y
        limit_sq = limit * limit
        if sq < limit_sq * (1.0 - CLEAR_REL):
            return True
        if sq > limit_sq * (1.0 + CLEAR_REL):
            return False
    return math.hypot(x, y) < limit


@inlined_loop
def root_below(sq, limit):
    """Whether ``math.sqrt(max(sq, 0.0)) < limit``: decided by ``sq`` against ``limit**2``
    where it is clear of it by ``CLEAR_REL`` and the limit lies in ``LIMIT_RANGE`` (the square
    root is correctly rounded, so it lands within 1e-16 relative of the exact root, on the
    same side of the limit); by the square root elsewhere (a NaN ``sq`` included)."""
    if limit >= LIMIT_RANGE[0] and limit <= LIMIT_RANGE[1]:
        limit_sq = limit * limit
        if sq < limit_sq * (1.0 - CLEAR_REL):
            return True
        if sq > limit_sq * (1.0 + CLEAR_REL):
            return False
    return math.sqrt(max(sq, 0.0)) < limit
