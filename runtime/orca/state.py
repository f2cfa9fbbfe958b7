"""The state a :class:`~navproof.orca.crowd.Crowd` steps from, re-checked at every step.

A crowd's arrays are public (``crowd.position = ...``, ``crowd.velocity[3] = nan``), so a value
written into them after :meth:`~navproof.orca.crowd.Crowd.add_agents` checked it is only seen
by the next step. :func:`check_valid_crowd_state` refuses it there, with InvalidInput naming
the array and the agent, before anything is computed or moved: a NaN would otherwise spread
through the ORCA lines into every neighbour's velocity. Claim: O1, O2 (the solve's inputs are
finite numbers within their rules).

Cost: one compiled pass over the numeric arrays (:func:`_first_outside`: a NaN fails every
comparison, so a clean state is told apart with no temporary array); only a state that fails is
searched, by the checkers, for the offending array and agent.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.core.jit import compiled_loop
from navproof.core.validation import MAX_NEIGHBORS, check_valid_integer
from navproof.orca.agents import (
    FLOAT_FIELDS,
    SCALAR_RULES,
    VECTOR_BOUNDS,
    check_valid_agent_scalar,
    check_valid_agent_vectors,
)

WRITTEN = "written into the crowd's state; refused at the next step"


def _refused(exc: InvalidInput) -> InvalidInput:
    """The checker's error, saying which agent and that the value was written afterwards."""
    match = re.search(r"\[(\d+)", exc.field)
    who = f"agent {match.group(1)}: " if match else ""
    return InvalidInput(exc.field, exc.value, f"{who}{exc.rule} ({WRITTEN})")


def _within(arr: np.ndarray, low: float, high: float, low_open: bool) -> bool:
    """Whether every entry lies in [low, high] (low excluded when ``low_open``); False for a
    NaN or an empty-range miss. An empty array holds."""
    if arr.size == 0:
        return True
    lo, hi = arr.min(), arr.max()
    return bool((lo > low if low_open else lo >= low) and hi <= high)


_VECTOR_NAMES = tuple(VECTOR_BOUNDS)
_VECTOR_BOUND = np.array([VECTOR_BOUNDS[name][0] for name in _VECTOR_NAMES])
_SCALAR_LOW = np.array([SCALAR_RULES[name][0] for name in FLOAT_FIELDS])
_SCALAR_HIGH = np.array([SCALAR_RULES[name][1] for name in FLOAT_FIELDS])
_SCALAR_LOW_OPEN = np.array([SCALAR_RULES[name][2] for name in FLOAT_FIELDS])


_BLOCK_ROWS = 256
"""Rows tested between two looks at the verdict: a block's comparisons have no branch, so
they run as vector instructions, and a miss still stops the pass within a block."""


@compiled_loop
def _vectors_inside(arr, bound):
    """Whether every entry of ``arr (N, 2)`` lies in [-bound, bound] (False for a NaN)."""
    n = arr.shape[0]
    low = -bound
    for lo in range(0, n, _BLOCK_ROWS):
        inside = True
        for i in range(lo, min(lo + _BLOCK_ROWS, n)):
            x, y = arr[i, 0], arr[i, 1]
            inside &= (x >= low) & (x <= bound) & (y >= low) & (y <= bound)
        if not inside:
            return False
    return True


@compiled_loop
def _values_inside(arr, low, high, low_open):
    """Whether every entry of ``arr (N,)`` lies in [low, high], ``low`` excluded when
    ``low_open`` (False for a NaN)."""
    n = arr.shape[0]
    for lo in range(0, n, _BLOCK_ROWS):
        inside = True
        if low_open:
            for i in range(lo, min(lo + _BLOCK_ROWS, n)):
                inside &= (arr[i] > low) & (arr[i] <= high)
        else:
            for i in range(lo, min(lo + _BLOCK_ROWS, n)):
                inside &= (arr[i] >= low) & (arr[i] <= high)
        if not inside:
            return False
    return True


@compiled_loop
def _first_outside(position, velocity, pref_velocity, radius, max_speed, neighbor_dist,
                   time_horizon, time_horizon_obst, weight, priority, max_neighbors,
                   vector_bound, low, high, low_open, max_neighbor_count):
    """Whether the state's numeric arrays all lie within their rules: the vectors (in the
    order of ``VECTOR_BOUNDS``), the scalars (in the order of ``FLOAT_FIELDS``) and
    ``max_neighbors`` in [0, ``max_neighbor_count``]; the same tests as :func:`_within`."""
    if not (_vectors_inside(position, vector_bound[0])
            and _vectors_inside(velocity, vector_bound[1])
            and _vectors_inside(pref_velocity, vector_bound[2])):
        return False
    return (_values_inside(radius, low[0], high[0], low_open[0])
            and _values_inside(max_speed, low[1], high[1], low_open[1])
            and _values_inside(neighbor_dist, low[2], high[2], low_open[2])
            and _values_inside(time_horizon, low[3], high[3], low_open[3])
            and _values_inside(time_horizon_obst, low[4], high[4], low_open[4])
            and _values_inside(weight, low[5], high[5], low_open[5])
            and _values_inside(priority, low[6], high[6], low_open[6])
            and _values_inside(max_neighbors, 0, max_neighbor_count, False))


def _state_within_rules(crowd: Any, n: int) -> bool:
    """Whether every state array has its shape, a numeric dtype and values within its rule
    (one compiled pass); False sends the caller to the checkers that name the offence."""
    vectors = [getattr(crowd, name) for name in _VECTOR_NAMES]
    scalars = [getattr(crowd, name) for name in FLOAT_FIELDS]
    neighbors, cooperative = crowd.max_neighbors, crowd.cooperative
    for arr, shape in [(a, (n, 2)) for a in vectors] + [(a, (n,)) for a in scalars]:
        if not isinstance(arr, np.ndarray) or arr.shape != shape or arr.dtype.kind not in "fiu":
            return False
    if not (isinstance(neighbors, np.ndarray) and neighbors.shape == (n,)
            and neighbors.dtype.kind in "iu" and isinstance(cooperative, np.ndarray)
            and cooperative.shape == (n,) and cooperative.dtype == bool):
        return False
    return bool(_first_outside(*vectors, *scalars, neighbors, _VECTOR_BOUND, _SCALAR_LOW,
                               _SCALAR_HIGH, _SCALAR_LOW_OPEN, MAX_NEIGHBORS))


def check_valid_crowd_state(crowd: Any) -> None:
    """Raise InvalidInput naming the array and agent (``velocity[3, 0]``) when the crowd's
    state arrays do not all hold one row per agent, or hold a NaN, an infinity or a value
    outside its rule (a negative radius, a zero time horizon, ...). Nothing is changed."""
    # the agent count is the crowd's own bookkeeping (rows added and removed), not a public
    # array a caller may have replaced
    stalled = crowd.stalled_steps
    n = int(stalled.shape[0] if isinstance(stalled, np.ndarray) else np.shape(stalled)[0])
    if _state_within_rules(crowd, n):
        return
    for name, (bound, _unit) in VECTOR_BOUNDS.items():
        arr = np.asarray(getattr(crowd, name))
        if arr.shape != (n, 2):
            raise InvalidInput(name, arr.shape, f"must have shape (N, 2), one row per agent "
                                                f"({WRITTEN})")
        if arr.dtype.kind not in "fiu" or not _within(arr, -bound, bound, False):
            try:
                check_valid_agent_vectors(name, arr)
            except InvalidInput as exc:
                raise _refused(exc) from None
    for name in FLOAT_FIELDS:
        arr = np.asarray(getattr(crowd, name))
        if arr.shape != (n,):
            raise InvalidInput(name, arr.shape, f"must have shape (N,), one value per agent "
                                                f"({WRITTEN})")
        low, high, low_open, _ = SCALAR_RULES[name]
        if arr.dtype.kind not in "fiu" or not _within(arr, low, high, low_open):
            try:
                check_valid_agent_scalar(name, arr)
            except InvalidInput as exc:
                raise _refused(exc) from None
    neighbors = np.asarray(crowd.max_neighbors)
    if neighbors.shape != (n,):
        raise InvalidInput("max_neighbors", neighbors.shape,
                           f"must have shape (N,), one value per agent ({WRITTEN})")
    if neighbors.dtype.kind not in "iu" or not _within(neighbors, 0, MAX_NEIGHBORS, False):
        try:
            check_valid_integer("max_neighbors", neighbors, low=0, high=MAX_NEIGHBORS)
        except InvalidInput as exc:
            raise _refused(exc) from None
        raise InvalidInput("max_neighbors", str(neighbors.dtype),
                           f"must be an integer array ({WRITTEN})")
    cooperative = np.asarray(crowd.cooperative)
    if cooperative.shape != (n,) or cooperative.dtype != bool:
        raise InvalidInput("cooperative", f"{cooperative.dtype}{cooperative.shape}",
                           f"must be a boolean array of shape (N,) ({WRITTEN})")
