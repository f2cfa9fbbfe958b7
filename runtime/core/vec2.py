"""Two-dimensional vector helpers on numpy arrays whose last axis is (x, y)."""

from __future__ import annotations

import numpy as np


def dot2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dot product over the last axis (x, y) of two broadcast arrays: a.x b.x + a.y b.y (the
    einsum of the same, bit for bit, without its per-call overhead)."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]
