"""Two-dimensional vector helpers on numpy arrays whose last axis is (x, y)."""

from __future__ import annotations

import numpy as np


def dot2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dot product over the last axis (x, y) of two broadcast arrays: a.x b.x + a.y b.y (the
    einsum of the same, bit for bit, without its per-call overhead)."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]


def det2(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    """2-D cross product ``a.x * b.y - a.y * b.x`` of component arrays (m^2/s^2 or unitless)."""
    return ax * by - ay * bx
