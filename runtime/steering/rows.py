"""Per-agent inputs of the steering's one-pass forms: a pass gives numpy's bits only on the
values numpy's whole-array evaluation computes with, float64 with one value per agent."""

from __future__ import annotations

from typing import Any

import numpy as np


def float_rows(value: Any, n: int, width: int = 0) -> np.ndarray | None:
    """``value`` with one float64 per row ((n,), or (n, width)): a float64 array of that shape
    as it is, a Python float broadcast; None for anything else (another type, whose numpy
    arithmetic may round otherwise)."""
    shape = (n, width) if width else (n,)
    if isinstance(value, np.ndarray):
        return value if value.dtype == np.float64 and value.shape == shape else None
    if isinstance(value, float) and not width:
        return np.broadcast_to(np.float64(value), shape)
    return None
