"""The solver's one constraint form: half-planes ``dot(normal, v) <= offset`` (unit normals,
m/s) and disks ``|v - centre| <= radius`` (m/s), batched over rows (Claim O2, V1, V2).

RVO2 describes a half-plane as a directed line (``point``, unit ``direction``) whose permitted
side lies LEFT of the direction, ``det(direction, point - v) <= 0``; :func:`from_rvo_lines` turns
that into this form once, where ORCA lines enter the solver.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class HalfPlanes:
    """``dot(normal, v) <= offset`` per row and slot: normal (M, K, 2), offset (M, K) m/s,
    valid (M, K). Slot order matters to the incremental solve (earlier slots first)."""

    normal: np.ndarray
    offset: np.ndarray
    valid: np.ndarray

    def take(self, rows: np.ndarray | slice) -> HalfPlanes:
        return HalfPlanes(self.normal[rows], self.offset[rows], self.valid[rows])

    @staticmethod
    def join(*parts: HalfPlanes) -> HalfPlanes:
        """The slots of ``parts`` side by side, in order."""
        return HalfPlanes(np.concatenate([p.normal for p in parts], axis=1),
                          np.concatenate([p.offset for p in parts], axis=1),
                          np.concatenate([p.valid for p in parts], axis=1))


@dataclass(frozen=True)
class Disks:
    """``|v - centre| <= radius`` per row and slot: centre (M, D, 2), radius (M, D) m/s,
    valid (M, D)."""

    centre: np.ndarray
    radius: np.ndarray
    valid: np.ndarray

    def take(self, rows: np.ndarray | slice) -> Disks:
        return Disks(self.centre[rows], self.radius[rows], self.valid[rows])


def from_rvo_lines(point: np.ndarray, direction: np.ndarray, valid: np.ndarray,
                   shift_mps: np.ndarray | None = None) -> HalfPlanes:
    """Half-planes of RVO2 lines (``point``, unit ``direction``, each (M, K, 2)):
    ``det(d, p - w) <= 0`` is ``dot(n, w) <= dot(n, p)`` with ``n = (d.y, -d.x)``. With
    ``shift_mps`` (M, 2) the half-planes constrain ``v = w - shift`` instead of ``w``."""
    normal = np.stack([direction[..., 1], -direction[..., 0]], axis=-1)
    offset = normal[..., 0] * point[..., 0] + normal[..., 1] * point[..., 1]
    if shift_mps is not None:
        offset = offset - (normal[..., 0] * shift_mps[:, None, 0]
                           + normal[..., 1] * shift_mps[:, None, 1])
    return HalfPlanes(normal, offset, valid)
