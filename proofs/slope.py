"""Derivation of the slope factor and per-patch budgets (seed 000, claim V1).

On a planar patch with height h(x) = dot(g, x) a horizontal velocity v moves along the surface at
sqrt(|v|^2 + dot(g, v)^2), which is at most |v| sqrt(1 + |g|^2) with equality along the gradient.
"""

from __future__ import annotations

import sympy
from sympy import simplify, sqrt

from navproof.proofs.formula import Formula
from navproof.proofs.symbols import grad_sq, k, surface_cap

_g = sympy.Symbol("g", nonnegative=True)  # |grad h|
# Surface length of a unit horizontal step taken along the gradient (the worst direction).
_surface_per_horizontal = sqrt(1 + _g**2)
SLOPE_FACTOR = _surface_per_horizontal.subs(_g, sqrt(grad_sq))
HORIZONTAL_CAP = simplify(surface_cap / k)

FORMULAS = (
    Formula(
        "slope_factor",
        SLOPE_FACTOR,
        (grad_sq,),
        ("V1",),
        "Slope factor k = sqrt(1 + |grad h|^2) of a planar patch",
        "1",
    ),
    Formula(
        "horizontal_cap",
        HORIZONTAL_CAP,
        (surface_cap, k),
        ("V1",),
        "Horizontal cap (speed or acceleration) Vh = V / k of a surface cap on a patch",
        "m/s or m/s^2",
    ),
)
