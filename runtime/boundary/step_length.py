"""The step length dt (s): validation and broadcasting against per-agent and per-edge arrays.
Claim: B1 (dt > 0)."""

from __future__ import annotations

import numpy as np

from navproof.core.filled import filled


def per_edge(dt_s: float | np.ndarray) -> float | np.ndarray:
    """A step length broadcastable against (N, K) arrays: scalars unchanged, (N,) -> (N, 1)."""
    return dt_s if np.ndim(dt_s) == 0 else np.asarray(dt_s)[:, None]


def per_agent(dt_s: float | np.ndarray, n: int) -> np.ndarray:
    """A step length as a float64 array (N,): a copy, filled by broadcasting only where its
    shape differs (numpy's broadcast view costs more than the copy of a thousand values); a
    float by :func:`navproof.core.filled.filled`."""
    if isinstance(dt_s, float):
        return filled(n, dt_s)
    arr = np.asarray(dt_s, dtype=np.float64)
    return arr.copy() if arr.shape == (n,) else np.full((n,), arr, dtype=np.float64)
