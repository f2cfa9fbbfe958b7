"""numpy's ``full`` without its Python frames, for arrays made on every step.

``np.full(shape, value, dtype)`` makes an empty array and copies the value into it through two
Python-level calls; a step makes several such arrays, and at a few agents those frames cost more
than the filling. :func:`filled` does the same in one call (the same values, bit for bit, for
the numbers the runtime fills in: floats into float64, integers into integer arrays)."""

from __future__ import annotations

from typing import Any

import numpy as np


def filled(shape: int | tuple[int, ...], value: Any,
           dtype: Any = np.float64) -> np.ndarray[Any, np.dtype[Any]]:
    """A new array of ``shape`` and ``dtype`` holding ``value`` everywhere: ``np.full``."""
    out = np.empty(shape, dtype)
    out.fill(value)
    return out


__all__ = ["filled"]
