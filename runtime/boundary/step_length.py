"""The step length dt (s): validation and broadcasting against per-agent and per-edge arrays.
Claim: B1 (dt > 0)."""

from __future__ import annotations

import numpy as np

from navproof.core.errors import InvalidInput


def check_valid_step(dt_s: float | np.ndarray) -> float | np.ndarray:
    """Return the step length (s): a float, or a float64 array of per-agent lengths (N,) (the
    remaining time of a portal sub-step); raise InvalidInput unless finite and > 0."""
    if np.ndim(dt_s) == 0:
        dt = float(dt_s)
        if not np.isfinite(dt) or dt <= 0.0:
            raise InvalidInput("dt_s", dt_s, "step length must be finite and > 0 s")
        return dt
    arr = np.asarray(dt_s, dtype=np.float64)
    bad = ~np.isfinite(arr) | (arr <= 0.0)
    if bad.any():
        idx = int(np.flatnonzero(bad.ravel())[0])
        raise InvalidInput(f"dt_s[{idx}]", float(arr.ravel()[idx]),
                           "step length must be finite and > 0 s")
    return arr


def per_edge(dt_s: float | np.ndarray) -> float | np.ndarray:
    """A step length broadcastable against (N, K) arrays: scalars unchanged, (N,) -> (N, 1)."""
    return dt_s if np.ndim(dt_s) == 0 else np.asarray(dt_s)[:, None]


def per_agent(dt_s: float | np.ndarray, n: int) -> np.ndarray:
    """A step length as a float64 array (N,)."""
    return np.broadcast_to(np.asarray(dt_s, dtype=np.float64), (n,)).copy()
