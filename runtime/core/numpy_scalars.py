"""numpy's element-wise minimum and maximum on single floats, for compiled row passes: a pass
that replaces whole-array numpy code gives the same bits only where its scalar operations follow
numpy's, NaN propagation included.

:func:`numpy_minimum` is ``np.minimum`` to the bit. :func:`smaller` and :func:`larger` differ in
one case, kept on purpose because the passes that use them were compared bit for bit with their
earlier forms under it: of two equal values (``+0.0`` and ``-0.0``) they return the first, where
``np.minimum`` and ``np.maximum`` return the second. No comparison tells them apart; only the
sign of a zero result can differ.
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


@inlined_loop
def numpy_minimum(a, b):
    """``np.minimum(a, b)`` of two floats, to the bit: ``a`` where it is below ``b`` or NaN,
    else ``b`` (of two equal zeros, ``b``'s sign)."""
    return a if a < b or a != a else b
