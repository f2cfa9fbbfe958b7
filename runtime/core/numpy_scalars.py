"""numpy's element-wise minimum and maximum on single floats, for compiled row passes: a pass
that replaces whole-array numpy code gives the same bits only where its scalar operations follow
numpy's, NaN propagation included.

One difference is kept on purpose, because the passes that use these were compared bit for bit
with their earlier forms under it: of two equal values (``+0.0`` and ``-0.0``) these return the
first, where ``np.minimum`` and ``np.maximum`` return the second. No comparison tells them
apart; only the sign of a zero result can differ.
"""

from __future__ import annotations

from navproof.core.jit import inlined_loop


@inlined_loop
def larger(a, b):
    """``np.maximum`` of two floats: NaN when either is NaN (the first of two equal values)."""
    return a if a >= b or a != a else b


@inlined_loop
def smaller(a, b):
    """``np.minimum`` of two floats: NaN when either is NaN (the first of two equal values)."""
    return a if a <= b or a != a else b
