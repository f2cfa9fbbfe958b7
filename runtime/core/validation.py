"""Input validation shared by every runtime module: numbers must be numeric and finite.

One rule, one message: the error names the field (and the first offending index), the value and
the rule, and is raised before anything changes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from navproof.core.errors import InvalidInput


def check_valid_finite(field: str, value: Any, *, shape: tuple[int, ...] | None = None
                       ) -> np.ndarray:
    """Return ``value`` as a float64 array; raise InvalidInput when it is not numeric, does not
    have ``shape`` (when given), or holds a NaN or an infinity (naming its first index)."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(field, value, "must be numeric") from exc
    if shape is not None and arr.shape != shape:
        raise InvalidInput(field, value, f"must have shape {shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        if arr.ndim == 0:
            raise InvalidInput(field, float(arr), "must be finite (no NaN or inf)")
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidInput(f"{field}[{', '.join(map(str, idx))}]", float(arr[idx]),
                           "must be finite (no NaN or inf)")
    return arr


def check_valid_positive(field: str, value: np.ndarray) -> np.ndarray:
    """Return ``value`` as float64; raise InvalidInput naming the first entry that is not > 0."""
    arr = check_valid_finite(field, value)
    bad = arr <= 0.0
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidInput(f"{field}{list(idx)}", float(arr[idx]), "must be > 0")
    return arr
