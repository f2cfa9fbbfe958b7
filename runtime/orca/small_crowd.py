"""A small crowd's usual solve in one compiled call: grid, neighbours, lines, programs.

Below ``PARALLEL_MIN_AGENTS`` agents the crowd's passes run on the calling thread one after
the other, and at a thousand agents their dispatch and the numpy glue between them cost about
as much as the work. For the usual step (every pair split by the crowd-wide share, no
obstacles) one compiled call runs the same passes in the same order on the same inputs
(:func:`navproof.orca.neighbors.build_grid`'s sort, :func:`navproof.orca.neighbors.query_into`'s
search, :func:`navproof.orca.lines.agent_lines`, :func:`navproof.orca.halfplanes.solve_lines`),
so the answer is the same, bit for bit. :meth:`navproof.orca.crowd.Crowd.compute_lines` (the
lines the World's safe step reads) runs the grid, search and lines of that call alone
(:func:`small_crowd_lines`), the solve runs them and then the programs.
"""

from __future__ import annotations

import numpy as np

from navproof.core.jit import compiled_loop
from navproof.orca.halfplanes import solve_line_rows
from navproof.orca.lines import agent_line_rows
from navproof.orca.neighbors import CELLS_PER_RANGE, nearest_slots, sort_into_cells

SmallLines = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""``(neighbor_idx (N, k), point (N, k, 2), direction (N, k, 2), valid (N, k))``."""

SmallSolve = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                   np.ndarray]
"""``(neighbor_idx (N, k), point (N, k, 2), direction (N, k, 2), valid (N, k), velocity
(N, 2), feasible (N,), fail_line (N,))``."""


def _inputs(position: np.ndarray, velocity: np.ndarray, radius: np.ndarray,
            time_horizon: np.ndarray, neighbor_dist: np.ndarray, max_neighbors: np.ndarray,
            time_step: float, share: float) -> tuple:
    """The compiled drivers' leading arguments: float64 state, 1 / time step (1/s), the
    share as the (1, 1) table every slot reads, the grid's table bound."""
    return (*(np.asarray(a, dtype=np.float64) for a in
              (position, velocity, radius, time_horizon, neighbor_dist)),
            np.asarray(max_neighbors), 1.0 / time_step, np.full((1, 1), share),
            8 * position.shape[0] + 1024)


def small_crowd_lines(position: np.ndarray, velocity: np.ndarray, radius: np.ndarray,
                      time_horizon: np.ndarray, neighbor_dist: np.ndarray,
                      max_neighbors: np.ndarray, time_step: float,
                      share: float) -> SmallLines | None:
    """Neighbours and agent lines (m/s) of every agent, all pairs split by ``share``, no
    obstacle lines: :func:`solve_small_crowd` without the programs; None where the grid has
    no agent to answer.

    Per-agent inputs over the crowd (N,) or (N, 2), in m, m/s and s; ``time_step`` (s).
    Claim: O2, O3, O6.
    """
    out = _lines_all(*_inputs(position, velocity, radius, time_horizon, neighbor_dist,
                              max_neighbors, time_step, share))
    return None if out[0].shape[0] != position.shape[0] else out


def solve_small_crowd(position: np.ndarray, velocity: np.ndarray, radius: np.ndarray,
                      time_horizon: np.ndarray, neighbor_dist: np.ndarray,
                      max_neighbors: np.ndarray, time_step: float, share: float,
                      preferred: np.ndarray, max_speed: np.ndarray) -> SmallSolve | None:
    """Neighbours, lines and closest velocities (m/s) of every agent, all pairs split by
    ``share``, no obstacle lines; None where the grid has no agent to answer (no neighbour
    count or range above 0: the caller's general path pads the rows).

    Per-agent inputs over the crowd (N,) or (N, 2), in m, m/s and s; ``time_step`` (s).
    Claim: O1-O4, O6.
    """
    out = _solve_all(*_inputs(position, velocity, radius, time_horizon, neighbor_dist,
                              max_neighbors, time_step, share),
                     np.asarray(preferred, dtype=np.float64),
                     np.asarray(max_speed, dtype=np.float64))
    return None if out[0].shape[0] != position.shape[0] else out


@compiled_loop
def _lines_all(position, velocity, radius, time_horizon, neighbor_dist, max_neighbors, inv_dt,
               share, table_max):
    """:func:`small_crowd_lines` (a (0, 0) neighbour table where it answers None): the grid
    of every agent with the cell side ``max(range) / CELLS_PER_RANGE``, the search and the
    lines over all rows. Claim: O2, O3, O6."""
    n = position.shape[0]
    k = max_neighbors.max() if n else 0
    cell = neighbor_dist.max() / CELLS_PER_RANGE if n else 0.0
    if n == 0 or k == 0 or not cell > 0.0:
        return (np.empty((0, 0), dtype=np.int64), np.empty((0, 0, 2)), np.empty((0, 0, 2)),
                np.empty((0, 0), np.bool_))
    inv_cell = 1.0 / cell
    members = np.arange(n)
    (sorted_member, sorted_key, x_m, y_m, range_sq, max_n, _, first, column_first, nx, ny, ix0,
     iy0) = sort_into_cells(position, members, neighbor_dist, max_neighbors, inv_cell,
                            table_max)
    nb_idx = np.empty((n, k), dtype=np.int64)
    nb_d = np.empty((n, k))
    nearest_slots(x_m, y_m, sorted_key, first, column_first, nx, ny, ix0, iy0, inv_cell,
                  range_sq, max_n, sorted_member, 0, n, nb_idx, nb_d)
    point = np.empty((n, k, 2))
    direction = np.empty((n, k, 2))
    valid = np.empty((n, k), dtype=np.bool_)
    agent_line_rows(position, velocity, radius, time_horizon, inv_dt, members, nb_idx, share,
                    point, direction, valid, 0, n)
    return nb_idx, point, direction, valid


@compiled_loop
def _solve_all(position, velocity, radius, time_horizon, neighbor_dist, max_neighbors, inv_dt,
               share, table_max, preferred, max_speed):
    """:func:`solve_small_crowd` (a (0, 0) neighbour table where it answers None):
    :func:`_lines_all`, then the programs over all rows. Claim: O1-O4, O6."""
    nb_idx, point, direction, valid = _lines_all(position, velocity, radius, time_horizon,
                                                 neighbor_dist, max_neighbors, inv_dt, share,
                                                 table_max)
    n = nb_idx.shape[0]
    selected = np.empty((n, 2))
    feasible = np.empty(n, dtype=np.bool_)
    fail_line = np.empty(n, dtype=np.int64)
    solve_line_rows(preferred, max_speed, point, direction, valid, np.zeros(n, np.int64), 0, n,
                    selected, feasible, fail_line, np.empty(n))
    return nb_idx, point, direction, valid, selected, feasible, fail_line
