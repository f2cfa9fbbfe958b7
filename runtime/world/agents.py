"""Agent parameters and routes of a World, as arrays over agents (units in the names)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.core.validation import check_valid_finite, check_valid_positive
from navproof.orca.agents import AgentDefaults as CrowdAgentDefaults
from navproof.orca.agents import default_profile


def _profile_default(parameter: str) -> Callable[[], float]:
    def default() -> float:
        return float(default_profile()[parameter].default)

    return default


@dataclass(frozen=True)
class AgentDefaults(CrowdAgentDefaults):
    """Values for agents added without explicit ones (from the profile unless overridden): the
    crowd's agent parameters (:class:`navproof.orca.agents.AgentDefaults`: radius, speed,
    neighbours, horizons) and the World's kinematics, the acceleration budget [m/s^2] and the
    arrival stop range [m]."""

    max_accel_mps2: float = field(default_factory=_profile_default("brake_budget_mps2"))
    stop_range_m: float = field(default_factory=_profile_default("arrive_stop_range_m"))


def check_positive(name: str, value: object, count: int) -> np.ndarray:
    """Per-agent float64 array (M,) of a scalar or (M,) value; InvalidInput unless all > 0."""
    arr = check_valid_finite(name, value)
    try:
        arr = np.broadcast_to(arr, (count,)).astype(np.float64)
    except ValueError as exc:
        raise InvalidInput(name, value, f"must broadcast to shape ({count},)") from exc
    return check_valid_positive(name, arr)


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


def check_valid_finite_2d(name: str, value: Any) -> np.ndarray:
    """Finite float64 array (M, 2); InvalidInput naming ``name`` otherwise."""
    arr = check_valid_finite(name, value)
    if arr.ndim == 1 and arr.shape == (2,):
        arr = arr[None]
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidInput(name, np.shape(value), "must have shape (M, 2)")
    return arr


def pad_routes(route: np.ndarray, width: int) -> np.ndarray:
    """Routes (M, W, 2) padded to ``width`` waypoints by repeating the goal."""
    if route.shape[1] >= width:
        return route
    pad = np.repeat(route[:, -1:, :], width - route.shape[1], axis=1) if route.shape[0] \
        else np.zeros((0, width - route.shape[1], 2))
    return np.concatenate([route, pad], axis=1)


def rows_snapshot(snapshot: Any, rows: np.ndarray, n: int) -> Any:
    """The snapshot of agents ``rows`` (all of them when ``rows`` is every agent)."""
    if rows.size == n:
        return snapshot
    return type(snapshot)(snapshot.time_origin_s, snapshot.support_version[rows],
                          snapshot.edge_version[rows], snapshot.edge_valid[rows])
