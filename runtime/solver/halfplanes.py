"""The solver's one constraint form: half-planes ``dot(normal, v) <= offset`` (unit normals,
m/s) and disks ``|v - centre| <= radius`` (m/s), batched over rows (Claim O2, V1, V2).

Callers with another convention convert at their own edge: RVO2's directed lines become
half-planes in :mod:`navproof.orca.halfplanes`, where ORCA lines leave the ORCA package.
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

