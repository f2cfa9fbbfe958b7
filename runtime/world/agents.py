"""Agent parameters and routes of a World, as arrays over agents (units in the names)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.core.validation import check_valid_finite


@dataclass(frozen=True)
class AgentDefaults:
    """Values for agents added without explicit ones (from the profile unless overridden)."""

    radius_m: float
    max_speed_mps: float
    max_accel_mps2: float
    stop_range_m: float
    neighbor_dist_m: float
    max_neighbors: int
    time_horizon_s: float
    time_horizon_obst_s: float


def check_positive(name: str, value: object, count: int) -> np.ndarray:
    """Per-agent float64 array (M,) of a scalar or (M,) value; InvalidInput unless all > 0."""
    arr = check_valid_finite(name, value)
    try:
        arr = np.broadcast_to(arr, (count,)).astype(np.float64)
    except ValueError as exc:
        raise InvalidInput(name, value, f"must broadcast to shape ({count},)") from exc
    bad = np.flatnonzero(arr <= 0.0)
    if bad.size:
        raise InvalidInput(f"{name}[{int(bad[0])}]", float(arr[bad[0]]), "must be > 0")
    return arr


def pack_routes(routes: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Waypoint lists -> padded array (M, W, 2) and counts (M,); each route has >= 1 point."""
    width = max((r.shape[0] for r in routes), default=1)
    out = np.zeros((len(routes), max(width, 1), 2))
    count = np.zeros(len(routes), np.int64)
    for i, route in enumerate(routes):
        r = check_valid_finite(f"route[{i}]", route)
        if r.ndim != 2 or r.shape[1] != 2 or r.shape[0] == 0:
            raise InvalidInput(f"route[{i}]", r.tolist(), "must be a non-empty list of (x, y)")
        out[i, :r.shape[0]] = r
        out[i, r.shape[0]:] = r[-1]
        count[i] = r.shape[0]
    return out, count
