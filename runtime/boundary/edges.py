"""Boundary edges of every agent at the start of the step (seed 000).

Per-edge arrays have shape ``(N, K, ...)`` with a validity mask ``valid (N, K)``. An edge is
``dot(n, x) <= b`` with outward unit normal ``n``; its signed margin ``b - dot(n, x)`` is in
metres, positive inside. Claim: B1, B3, B6, C1, C3, R1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof.boundary.motion import Motion, take_motion
from navproof.core.errors import InvalidInput
from navproof.core.jit import compiled_loop
from navproof.core.tolerances import UNIT_LENGTH_TOL
from navproof.core.validation import check_valid_finite, check_valid_normals, clearly_unit
from navproof.core.vec2 import dot2

EDGE_WALL = 0
EDGE_PORTAL = 1
EDGE_OBSTACLE = 2
EDGE_KIND_NAMES = ("wall", "portal", "obstacle")
"""A wall must never be crossed and needs a stop envelope; a portal to the next same-gradient
region of the route only bounds the step (B4/B5: at most up to the portal per step, C3); an
obstacle side (one supporting line of a convex obstacle piece, moved out by the body's radius)
must not be crossed during the step (B4/B5/B6 over the whole curve) and carries no stop
envelope: looking further ahead around obstacles is the ORCA obstacle lines' part (O5)."""


@compiled_loop
def _cleaned_edges(normal, offset, valid, tol, out_normal, out_offset):
    """Normals and offsets of the valid edges (zero elsewhere) into ``out_normal`` (N, K, 2) and
    ``out_offset`` (N, K); True when every valid edge has a finite offset and a normal that is
    clearly a unit vector (:func:`navproof.core.validation.clearly_unit`). False sends the edges
    to the exact tests, which name the first offending one."""
    ok = True
    for i in range(offset.shape[0]):
        for j in range(offset.shape[1]):
            if valid[i, j]:
                nx, ny, b = normal[i, j, 0], normal[i, j, 1], offset[i, j]
                out_normal[i, j, 0], out_normal[i, j, 1], out_offset[i, j] = nx, ny, b
                if not (clearly_unit(nx, ny, tol) and np.isfinite(b)):
                    ok = False
            else:
                out_normal[i, j, 0], out_normal[i, j, 1], out_offset[i, j] = 0.0, 0.0, 0.0
    return ok


@dataclass(frozen=True)
class EdgeSet:
    """Per-agent boundary edges ``dot(normal, x) <= offset_m`` at time 0, shapes (N, K, ...).

    ``edge_id`` orders ties (R1); ``owner`` is the object (patch, corridor, platform) the edge
    belongs to; ``motion`` has shape (N, K); ``kind`` is EDGE_WALL, EDGE_PORTAL or EDGE_OBSTACLE
    (None: all walls). Claim: B1, B3, B6, C1, C3, R1.
    """

    normal: np.ndarray
    offset_m: np.ndarray
    valid: np.ndarray
    edge_id: np.ndarray
    owner: np.ndarray
    motion: Motion
    kind: np.ndarray | None = None

    @property
    def wall(self) -> np.ndarray:
        """(N, K) True for valid wall edges (the ones that need a stop envelope)."""
        if self.kind is None:
            return self.valid
        return self.valid & (self.kind == EDGE_WALL)

    @property
    def solid(self) -> np.ndarray:
        """(N, K) True for valid walls and obstacle sides: the edges a body must never cross
        (portals may be crossed by the sub-steps of C3)."""
        if self.kind is None:
            return self.valid
        return self.valid & (self.kind != EDGE_PORTAL)

    @staticmethod
    def build(normal: np.ndarray, offset_m: np.ndarray, *, valid: np.ndarray | None = None,
              edge_velocity_mps: np.ndarray | None = None, motion: Motion | None = None,
              edge_id: np.ndarray | None = None, owner: np.ndarray | None = None,
              kind: np.ndarray | None = None) -> EdgeSet:
        """Validated edge set; fixed edges unless ``edge_velocity_mps`` or ``motion`` is given.

        Raises InvalidInput for zero or non-unit normals, non-finite offsets or velocities.
        """
        normal = np.asarray(normal, dtype=np.float64)
        if normal.ndim != 3 or normal.shape[-1] != 2:
            raise InvalidInput("normal", normal.shape, "must have shape (N, K, 2)")
        n, k = normal.shape[:2]
        valid = np.ones((n, k), bool) if valid is None else np.asarray(valid, dtype=bool)
        offset = np.asarray(offset_m, dtype=np.float64)
        if offset.shape == valid.shape == (n, k):
            normal_kept, offset_kept = np.empty((n, k, 2)), np.empty((n, k))
            clearly_valid = _cleaned_edges(normal, offset, valid, UNIT_LENGTH_TOL, normal_kept,
                                           offset_kept)
        else:
            normal_kept, offset_kept = (np.where(valid[..., None], normal, 0.0),
                                        np.where(valid, offset, 0.0))
            clearly_valid = False
        if not clearly_valid:
            # the exact tests, which name the first offending edge
            check_valid_finite("normal", np.where(valid[..., None], normal, 0.0))
            check_valid_normals("normal", normal, valid)
            check_valid_finite("offset_m", np.where(valid, offset, 0.0))
        if motion is None:
            vel = np.zeros((n, k, 2)) if edge_velocity_mps is None else np.asarray(
                edge_velocity_mps, dtype=np.float64)
            motion = Motion.translating(np.where(valid[..., None], vel, 0.0))
        ids = np.broadcast_to(np.arange(k), (n, k)).copy() if edge_id is None else np.asarray(
            edge_id, dtype=np.int64)
        own = np.full((n, k), -1, np.int64) if owner is None else np.asarray(owner, np.int64)
        kinds = None if kind is None else np.broadcast_to(np.asarray(kind, np.int64),
                                                          (n, k)).copy()
        if kinds is not None and np.any(valid & (kinds != EDGE_WALL) & (kinds != EDGE_PORTAL)
                                        & (kinds != EDGE_OBSTACLE)):
            raise InvalidInput("kind", np.unique(kinds).tolist(),
                               "must be EDGE_WALL, EDGE_PORTAL or EDGE_OBSTACLE")
        return EdgeSet(normal_kept, offset_kept, valid, ids, own, motion, kinds)

    def initial_margin_m(self, x_m: np.ndarray) -> np.ndarray:
        """Signed margin s = b0 - dot(n, x0) (m, (N, K)), positive inside. Claim: B1."""
        return self.offset_m - dot2(self.normal, x_m[:, None, :])

    def edge_velocity_mps(self, x_m: np.ndarray) -> np.ndarray:
        """Edge velocity e (m/s, (N, K, 2)) at the body's start position (exact if translating)."""
        return self.motion.point_velocity(np.broadcast_to(x_m[:, None, :], self.normal.shape))


def take_edges(edges: EdgeSet, rows: np.ndarray | slice) -> EdgeSet:
    """The edge set of the agents ``rows`` only."""
    return EdgeSet(edges.normal[rows], edges.offset_m[rows], edges.valid[rows],
                   edges.edge_id[rows], edges.owner[rows], take_motion(edges.motion, rows),
                   None if edges.kind is None else edges.kind[rows])
