"""numpy's element-wise rules on single floats, for the World's compiled row passes: a pass that
replaces whole-array numpy code gives the same bits only where its scalar operations follow
numpy's, NaN propagation included."""

from __future__ import annotations

from navproof.core.jit import inlined_loop


@inlined_loop
def larger(a, b):
    """``np.maximum`` of two floats: NaN when either is NaN."""
    return a if a >= b or a != a else b


@inlined_loop
def smaller(a, b):
    """``np.minimum`` of two floats: NaN when either is NaN."""
    return a if a <= b or a != a else b
