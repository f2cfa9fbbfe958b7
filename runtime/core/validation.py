"""Input validation of the runtime, in one place: every public entry checks its arguments here.

One rule, one message: a ``check_valid_*`` function raises
:class:`~navproof.core.errors.InvalidInput` naming the field (and the first offending index), the
value and the rule, and is called before anything changes, so a rejected call leaves every object
as it was. It returns the value converted (float64 arrays, ints) for the caller to keep.

Besides the rules of each quantity (a radius is >= 0, a time horizon > 0, ...), numbers have
working bounds: the solvers square and multiply positions, lengths and speeds, and count cells of
a neighbour grid in int64, so values far outside any navigation world would overflow or lose every
digit silently. The bounds below are far beyond a game or robot world and keep float64 exact to
better than the runtime's tolerances (``navproof.core.tolerances``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.core.jit import compiled_loop, inlined_loop
from navproof.core.tolerances import ANGLE_TOL_RAD, EPS, UNIT_LENGTH_TOL

MAX_LENGTH_M = 1e6
"""Largest |coordinate| of a position or vertex and largest radius or neighbour distance (m):
1000 km. float64 still resolves 1e-10 m there, and a neighbour grid of the finest allowed cell
(``MIN_NEIGHBOR_DIST_M``) over twice this span keeps its cell keys inside int64."""

MIN_NEIGHBOR_DIST_M = 1e-3
"""Smallest positive neighbour distance (m); 0 means "no neighbours". Below it the grid's cell
count over a world of ``MAX_LENGTH_M`` would overflow int64."""

MAX_SPEED_MPS = 1e6
"""Largest |component| of a velocity or preferred velocity, and largest speed cap (m/s). Squares
stay far from overflow (a preferred velocity of 1e154 once overflowed into a (0, 0) choice)."""

MIN_DURATION_S = 1e-4
"""Shortest time step or time horizon (s): ORCA divides by both, and 1/tau times a distance
must stay finite."""

MAX_DURATION_S = 1e6
"""Longest time step or time horizon (s), about 11.6 days."""

MAX_NEIGHBORS = 1000
"""Largest neighbour count per agent: the crowd holds (agents x max_neighbors) index tables, so
3e9 once asked for 44.7 GiB. RVO2's examples use 10, the default profile at most 64."""

def _first_index(bad: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(bad)[0])


def _name(field: str, idx: tuple[int, ...]) -> str:
    return f"{field}[{', '.join(map(str, idx))}]" if idx else field


_FLOAT64 = np.dtype(np.float64)


def floats_of_shape(value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``value`` as float64 of exactly ``shape``: itself where it already has it, else numpy's
    broadcast view (ValueError where it does not broadcast; numpy's broadcast costs more than a
    small crowd's pass, so arrays already in shape skip it). An array of numpy's float64 in
    that shape is returned as numpy's conversion returns it, without the call (a step makes
    dozens of these calls)."""
    if type(value) is np.ndarray and value.dtype is _FLOAT64 and value.shape == shape:
        return value
    arr = np.asarray(value, dtype=np.float64)
    return arr if arr.shape == shape else np.broadcast_to(arr, shape)


def check_valid_finite(field: str, value: Any, *, shape: tuple[int, ...] | None = None
                       ) -> np.ndarray:
    """Return ``value`` as a float64 array; raise InvalidInput when it is not numeric, does not
    have ``shape`` (when given), or holds a NaN or an infinity (naming its first index)."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InvalidInput(field, value, "must be numeric") from exc
    if shape is not None and arr.shape != shape:
        raise InvalidInput(field, value, f"must have shape {shape}")
    # numpy's count of nonzero entries: any() of an array costs several times more (a Python
    # wrapper around the reduction) and tells the same
    bad = ~np.isfinite(arr)
    if np.count_nonzero(bad):
        if arr.ndim == 0:
            raise InvalidInput(field, float(arr), "must be finite (no NaN or inf)")
        idx = _first_index(bad)
        raise InvalidInput(_name(field, idx), float(arr[idx]), "must be finite (no NaN or inf)")
    return arr


def check_valid_range(field: str, value: Any, *, low: float | None = None,
                      high: float | None = None, low_open: bool = False,
                      high_open: bool = False, unit: str = "") -> np.ndarray:
    """Return ``value`` as a finite float64 array with every entry in the interval from ``low``
    (excluded when ``low_open``) to ``high`` (excluded when ``high_open``); else InvalidInput
    naming the first entry outside."""
    arr = check_valid_finite(field, value)
    bad = np.zeros(arr.shape, dtype=bool)
    if low is not None:
        bad |= (arr <= low) if low_open else (arr < low)
    if high is not None:
        bad |= (arr >= high) if high_open else (arr > high)
    if bad.any():
        idx = _first_index(bad) if arr.ndim else ()
        lo = "(-inf" if low is None else ("(" if low_open else "[") + f"{low:g}"
        hi = "inf)" if high is None else f"{high:g}" + (")" if high_open else "]")
        rule = (f"must be > {low:g}" if high is None and low is not None and low_open
                else f"must be >= {low:g}" if high is None and low is not None
                else f"must be in {lo}, {hi}")
        raise InvalidInput(_name(field, idx), float(arr[idx]),
                           f"{rule} {unit}".rstrip())
    return arr


def check_valid_positive(field: str, value: Any) -> np.ndarray:
    """Return ``value`` as float64; InvalidInput naming the first entry that is not > 0."""
    return check_valid_range(field, value, low=0.0, low_open=True)


def check_valid_nonnegative(field: str, value: Any) -> np.ndarray:
    """Return ``value`` as float64; InvalidInput naming the first entry that is not >= 0."""
    return check_valid_range(field, value, low=0.0)


def check_valid_integer(field: str, value: Any, *, low: int, high: int) -> np.ndarray:
    """Return ``value`` as an int64 array of whole numbers in ``[low, high]``; else InvalidInput
    (checked in float64 first, so 1e20 is refused instead of wrapping around in int64)."""
    arr = check_valid_finite(field, value)
    bad = arr != np.floor(arr)
    if bad.any():
        idx = _first_index(bad) if arr.ndim else ()
        raise InvalidInput(_name(field, idx), float(arr[idx]), "must be a whole number")
    check_valid_range(field, arr, low=low, high=high)
    return arr.astype(np.int64)


def check_valid_vector(field: str, value: Any, *, max_abs: float, unit: str) -> np.ndarray:
    """Return one finite 2-vector as float64 (2,) with both components within ``max_abs``."""
    arr = check_valid_finite(field, value)
    if arr.shape != (2,):
        raise InvalidInput(field, value, "must be a pair (x, y)")
    return check_valid_range(field, arr, low=-max_abs, high=max_abs, unit=unit)


def check_valid_scalar(field: str, value: Any, *, minimum: float | None = None,
                       strictly_positive: bool = False) -> float:
    """Return ``value`` as float; InvalidInput naming the field when it is not finite, not
    positive when required, or below ``minimum``."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidInput(field, value, "must be a number") from None
    if not math.isfinite(number):
        raise InvalidInput(field, value, "must be finite")
    if strictly_positive and number <= 0:
        raise InvalidInput(field, value, "must be > 0")
    if minimum is not None and number < minimum:
        raise InvalidInput(field, value, f"must be >= {minimum}")
    return number


def check_valid_step(dt_s: float | np.ndarray) -> float | np.ndarray:
    """Return the step length (s): a float, or a float64 array of per-agent lengths (N,) (the
    remaining time of a portal sub-step); raise InvalidInput unless finite and > 0."""
    if isinstance(dt_s, float):
        # a float's own test (numpy's ndim and isfinite of one number cost more than the
        # step's other checks): finite and > 0 is exactly 0 < dt < inf, NaN failing both
        if not 0.0 < dt_s < math.inf:
            raise InvalidInput("dt_s", dt_s, "step length must be finite and > 0 s")
        return float(dt_s)
    if np.ndim(dt_s) == 0:
        try:
            dt = float(dt_s)
        except (TypeError, ValueError):
            raise InvalidInput("dt_s", dt_s, "step length must be a number of seconds") from None
        if not np.isfinite(dt) or dt <= 0.0:
            raise InvalidInput("dt_s", dt_s, "step length must be finite and > 0 s")
        return dt
    arr = np.asarray(dt_s, dtype=np.float64)
    idx = _first_not_positive_finite(arr.reshape(-1))
    if idx >= 0:
        raise InvalidInput(f"dt_s[{idx}]", float(arr.ravel()[idx]),
                           "step length must be finite and > 0 s")
    return arr


@compiled_loop
def _first_not_positive_finite(values):
    """Index of the first of ``values`` (1-D) that is not finite and > 0 (NaN, an infinity, zero
    of either sign or negative), -1 where every one is: numpy's first of ``~isfinite(v) | (v <=
    0)``, in one pass that stops there (a step's lengths are checked at every sweep)."""
    for i in range(values.size):
        if not (values[i] > 0.0 and values[i] < np.inf):
            return i
    return -1


def check_valid_budget(field: str, a_mps2: Any, *, allow_zero: bool = False) -> np.ndarray:
    """Return the braking budget (m/s^2) as float64; InvalidInput when NaN, infinite or <= 0
    (< 0 with ``allow_zero``: the safe step holds an agent with a zero budget instead, S6).

    A zero budget would reach a division in S1-S3 and S7: it is refused here instead. Claim: S6.
    """
    arr = np.asarray(a_mps2, dtype=np.float64)
    bad = ~np.isfinite(arr) | ((arr < 0.0) if allow_zero else (arr <= 0.0))
    if np.count_nonzero(bad):
        idx = _first_index(bad) if arr.ndim else ()
        rule = ("braking budget must be finite and >= 0 m/s^2 (S6: a zero budget holds)"
                if allow_zero else
                "braking budget must be finite and > 0 m/s^2 (S6: no division by a = 0)")
        raise InvalidInput(f"{field}{list(idx)}" if idx else field, float(arr[idx]), rule)
    return arr


def check_valid_slope_factor(field: str, k: Any) -> np.ndarray:
    """Return slope factors as float64; InvalidInput when non-finite or below 1. Claim: V1."""
    arr = check_valid_finite(field, k)
    bad = arr < 1.0
    if bad.any():
        idx = _first_index(bad) if arr.ndim else ()
        raise InvalidInput(f"{field}{list(idx)}" if idx else field, float(arr[idx]),
                           "slope factor k = sqrt(1 + |grad h|^2) is >= 1")
    return arr


def check_valid_unit_where(field: str, vector: Any, valid: np.ndarray, *, what: str
                           ) -> np.ndarray:
    """Return vectors (..., 2) as float64; InvalidInput naming the first one in a ``valid`` slot
    that is not a unit vector within ``UNIT_LENGTH_TOL`` (zero and NaN included)."""
    arr = np.asarray(vector, dtype=np.float64)
    length = np.hypot(arr[..., 0], arr[..., 1])
    bad = np.asarray(valid, dtype=bool) & ~(np.abs(length - 1.0) <= UNIT_LENGTH_TOL)
    if bad.any():
        idx = _first_index(bad)
        raise InvalidInput(f"{field}{list(idx)}", arr[idx].tolist(),
                           f"{what} must be a unit vector (| | = 1 within {UNIT_LENGTH_TOL:g}); "
                           "normalise it first")
    return arr


@inlined_loop
def clearly_unit(x, y, tol):
    """True when (x, y) is a unit vector with room to spare: |x^2 + y^2 - 1| <= tol, so its
    length lies within about tol / 2 of 1, far inside the tol of
    :func:`check_valid_unit_where` (no square root). False, NaN included, sends a value to
    that exact test: compiled fast paths skip the exact test only where this holds."""
    return abs((x * x + y * y) - 1.0) <= tol


def check_valid_normals(field: str, normal: Any, valid: np.ndarray) -> np.ndarray:
    """Return normals (N, K, 2); InvalidInput for a zero or non-unit normal of a valid edge."""
    return check_valid_unit_where(field, normal, valid, what="outward normal")


def _cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Twice the signed area of (o, a, b) over the last axis (m^2): > 0 when b is left of o->a."""
    return ((a[..., 0] - o[..., 0]) * (b[..., 1] - o[..., 1])
            - (a[..., 1] - o[..., 1]) * (b[..., 0] - o[..., 0]))


def _on_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether p (collinear with a-b) lies within the bounding box of the segment a-b."""
    return ((np.minimum(a[..., 0], b[..., 0]) <= p[..., 0])
            & (p[..., 0] <= np.maximum(a[..., 0], b[..., 0]))
            & (np.minimum(a[..., 1], b[..., 1]) <= p[..., 1])
            & (p[..., 1] <= np.maximum(a[..., 1], b[..., 1])))


def _first_crossing(arr: np.ndarray) -> tuple[int, int] | None:
    """First pair (i, j) of non-adjacent edges ``i -> i+1``, ``j -> j+1`` that touch or cross."""
    v = arr.shape[0]
    a0, a1 = arr, np.roll(arr, -1, axis=0)
    i, j = np.triu_indices(v, k=2)
    keep = ~((i == 0) & (j == v - 1))      # the last edge is adjacent to the first
    i, j = i[keep], j[keep]
    p, q, r, s = a0[i], a1[i], a0[j], a1[j]
    d1, d2 = _cross(r, s, p), _cross(r, s, q)
    d3, d4 = _cross(p, q, r), _cross(p, q, s)
    proper = (np.sign(d1) * np.sign(d2) < 0) & (np.sign(d3) * np.sign(d4) < 0)
    touching = (((d1 == 0) & _on_segment(p, r, s)) | ((d2 == 0) & _on_segment(q, r, s))
                | ((d3 == 0) & _on_segment(r, p, q)) | ((d4 == 0) & _on_segment(s, p, q)))
    hit = np.flatnonzero(proper | touching)
    return None if hit.size == 0 else (int(i[hit[0]]), int(j[hit[0]]))


def check_valid_polygon(vertices: object, *, field_name: str = "vertices") -> np.ndarray:
    """The obstacle polygon as a float64 ``(V, 2)`` array, or InvalidInput naming the rule broken.

    Two vertices are a two-sided segment. Three or more must form a simple polygon (RVO2's
    obstacle model assumes one, in either orientation): no repeated consecutive vertex, no edge
    folding back onto the previous one, no two edges touching or crossing (a bow-tie), and a
    non-zero area (all vertices on one line is a segment, to be given as two vertices).
    Claim: O5.
    """
    try:
        arr = np.asarray(vertices, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InvalidInput(field_name, vertices, "must be a sequence of (x, y) pairs") from exc
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidInput(field_name, vertices, "must be a sequence of (x, y) pairs")
    if arr.shape[0] < 2:
        raise InvalidInput(field_name, arr.tolist(), "needs at least 2 vertices")
    if not np.all(np.isfinite(arr)):
        bad = int(np.flatnonzero(~np.all(np.isfinite(arr), axis=1))[0])
        raise InvalidInput(f"{field_name}[{bad}]", arr[bad].tolist(), "must be finite")
    outside = np.abs(arr) > MAX_LENGTH_M
    if outside.any():
        bad = int(np.flatnonzero(outside.any(axis=1))[0])
        raise InvalidInput(f"{field_name}[{bad}]", arr[bad].tolist(),
                           f"coordinates must be within +-{MAX_LENGTH_M:g} m")
    nxt = np.roll(arr, -1, axis=0)
    same = np.all(arr == nxt, axis=1)
    if same.any():
        bad = int(np.flatnonzero(same)[0])
        raise InvalidInput(f"{field_name}[{bad}]", arr[bad].tolist(),
                           "consecutive vertices must differ (repeated vertex)")
    if arr.shape[0] == 2:
        return arr
    prv = np.roll(arr, 1, axis=0)
    turn = _cross(prv, arr, nxt)
    back = (turn == 0) & (np.einsum("ij,ij->i", arr - prv, nxt - arr) < 0)
    if back.any():
        bad = int(np.flatnonzero(back)[0])
        raise InvalidInput(f"{field_name}[{bad}]", arr[bad].tolist(),
                           "the polygon folds back on itself at this vertex (zero-width spike)")
    crossing = _first_crossing(arr)
    if crossing is not None:
        i, j = crossing
        raise InvalidInput(field_name, arr.tolist(),
                           f"must be a simple polygon: edge {i} -> {(i + 1) % len(arr)} and "
                           f"edge {j} -> {(j + 1) % len(arr)} touch or cross (a bow-tie)")
    area2 = float(np.sum(arr[:, 0] * nxt[:, 1] - arr[:, 1] * nxt[:, 0]))
    if area2 == 0.0:
        raise InvalidInput(field_name, arr.tolist(),
                           "has zero area (all vertices on one line); give a segment as 2 vertices")
    return arr


def check_valid_convex(field: str, vertices_m: Any) -> np.ndarray:
    """Return the vertices (P, 2) of a strictly convex CCW polygon; else raise InvalidInput.

    Claim: C1 (a piece must be convex for its half-planes to describe it).
    """
    v = check_valid_finite(field, vertices_m)
    if v.ndim != 2 or v.shape[1] != 2 or v.shape[0] < 3:
        raise InvalidInput(field, v.tolist(), "needs at least 3 vertices of shape (P, 2)")
    d = np.roll(v, -1, axis=0) - v
    if np.any(np.hypot(d[:, 0], d[:, 1]) <= EPS):
        raise InvalidInput(field, v.tolist(), "has a repeated vertex (zero-length edge)")
    turn = d[:, 0] * np.roll(d, -1, axis=0)[:, 1] - d[:, 1] * np.roll(d, -1, axis=0)[:, 0]
    if np.any(turn <= EPS):
        raise InvalidInput(field, v.tolist(), "must be a strictly convex counter-clockwise polygon")
    heading = np.arctan2(d[:, 1], d[:, 0])
    winding = np.sum(np.mod(np.diff(np.append(heading, heading[0])), 2.0 * np.pi))
    if winding > 2.0 * np.pi + ANGLE_TOL_RAD:
        raise InvalidInput(field, v.tolist(), "must be simple (winds around more than once)")
    return v
