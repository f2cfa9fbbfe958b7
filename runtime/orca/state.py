"""The state a :class:`~navproof.orca.crowd.Crowd` steps from, re-checked at every step.

A crowd's arrays are public (``crowd.position = ...``, ``crowd.velocity[3] = nan``), so a value
written into them after :meth:`~navproof.orca.crowd.Crowd.add_agents` checked it is only seen
by the next step. :func:`check_valid_crowd_state` refuses it there, with InvalidInput naming
the array and the agent, before anything is computed or moved: a NaN would otherwise spread
through the ORCA lines into every neighbour's velocity. Claim: O1, O2 (the solve's inputs are
finite numbers within their rules).

Cost: one ``min`` and one ``max`` per array (NaN propagates through both, so a clean state is
told apart with two passes and no temporary array); only a state that fails is searched for the
offending agent.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from navproof.core.errors import InvalidInput
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


def check_valid_crowd_state(crowd: Any) -> None:
    """Raise InvalidInput naming the array and agent (``velocity[3, 0]``) when the crowd's
    state arrays do not all hold one row per agent, or hold a NaN, an infinity or a value
    outside its rule (a negative radius, a zero time horizon, ...). Nothing is changed."""
    # the agent count is the crowd's own bookkeeping (rows added and removed), not a public
    # array a caller may have replaced
    n = int(np.shape(crowd.stalled_steps)[0])
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
