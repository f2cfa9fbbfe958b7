"""Two-dimensional vector helpers on numpy arrays whose last axis is (x, y)."""

from __future__ import annotations

import math

import numpy as np

from navproof.core.jit import compiled_loop


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
