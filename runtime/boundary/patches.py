"""Convex planar pieces of walking surface and their edge half-planes (seed 000). Claim: C1, V1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navproof._generated import formulas
from navproof.core.validation import check_valid_convex, check_valid_finite


@dataclass(frozen=True)
class Patch:
    """A convex planar piece of walking surface: CCW vertices (m), height gradient, slope factor.

    Claim: C1 (convex pieces), V1 (k = sqrt(1 + |grad h|^2)).
    """

    patch_id: int
    vertices_m: np.ndarray
    gradient: np.ndarray
    slope_factor: float

    def halfplanes(self) -> tuple[np.ndarray, np.ndarray]:
        """Outward unit normals (P, 2) and offsets (P,) m of the piece's edges."""
        return polygon_halfplanes(self.vertices_m)


def polygon_halfplanes(vertices_m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Outward unit normals (P, 2) and offsets (P,) (m) of a CCW convex polygon's edges.

    Claim: C1."""
    v = np.asarray(vertices_m, dtype=np.float64)
    d = np.roll(v, -1, axis=0) - v
    length = np.hypot(d[:, 0], d[:, 1])
    normal = np.stack([d[:, 1], -d[:, 0]], axis=1) / length[:, None]
    return normal, np.einsum("ij,ij->i", normal, v)


def make_patch(patch_id: int, vertices_m: np.ndarray, gradient: np.ndarray) -> Patch:
    """Validated convex patch; its slope factor comes from the generated V1 formula."""
    v = check_valid_convex("vertices_m", vertices_m)
    g = check_valid_finite("gradient", gradient)
    k = float(formulas.slope_factor(grad_sq=float(g @ g)))
    return Patch(int(patch_id), v, g, k)
