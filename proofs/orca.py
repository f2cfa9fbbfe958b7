"""Derivation of the ORCA half-plane geometry (seed 002, claims O3, O5, O6, O7).

Relative quantities of agent A against neighbour B: position ``p = pB - pA`` (m), velocity
``v = vA - vB`` (m/s), combined radius ``R = rA + rB`` (m), horizon ``tau`` (s, given as its
reciprocal ``inv_tau``). A relative velocity ``x`` leads to a collision within the horizon when
``|p - x t| < R`` for some ``t`` in ``(0, tau]``: the truncated velocity obstacle, a cone from the
origin tangent to the disk ``(p, R)``, cut off by the disk ``(p/tau, R/tau)``.

The smallest change ``u`` that takes ``v`` to the obstacle's boundary, by case (RVO2's
Agent::computeNewVelocity, names kept):

* cut-off circle: ``w = v - p/tau``; ``u = (R/tau - |w|) w/|w|``, the line's normal is ``w/|w|``;
* left and right legs: the leg direction ``d`` (unit, tangent from the origin to the disk, disk on
  its right); ``u = (v.d) d - v`` (the projection of ``v`` on the leg line minus ``v``);
* already colliding: the cut-off circle of one step ``dt`` (``inv_tau = 1/dt``).

Agent A's half-plane passes through ``vA + alpha u`` (``alpha`` its share of the pair); the
allowed side is left of the line direction (the convention of ``navproof.orca.halfplanes``): the
cut-off direction is ``(n_y, -n_x)`` for the normal ``n``, the leg direction is ``d`` itself. The
pair share of a cooperative agent is ``weight_own / (weight_own + weight_other)``, so the shares
of a pair add up to 1, the only split that is reciprocal in every case (see the O7 obligations).

The runtime evaluates the pieces below (generated into ``navproof._generated.formulas``); the
proofs use the compositions ``CUTOFF_CHANGE``, ``LEG_DIRECTION``, ``LEG_CHANGE`` built from the
same pieces.
"""

from __future__ import annotations

import sympy
from sympy import simplify, sqrt

from navproof.proofs.formula import Formula

# Components of relative vectors (one axis: the same function serves x and y).
rel_p = sympy.Symbol("rel_p", real=True)  # relative position component, m
rel_v = sympy.Symbol("rel_v", real=True)  # relative velocity component, m/s
rel_px = sympy.Symbol("rel_px", real=True)
rel_py = sympy.Symbol("rel_py", real=True)
rel_vx = sympy.Symbol("rel_vx", real=True)
rel_vy = sympy.Symbol("rel_vy", real=True)
comb_r = sympy.Symbol("comb_r", positive=True)  # combined radius, m
inv_tau = sympy.Symbol("inv_tau", positive=True)  # reciprocal horizon (or step), 1/s
w_len = sympy.Symbol("w_len", nonnegative=True)  # |v - p/tau|, m/s
dist_sq = sympy.Symbol("dist_sq", positive=True)  # |p|^2, m^2
leg_len = sympy.Symbol("leg_len", nonnegative=True)  # sqrt(|p|^2 - R^2), m
side = sympy.Symbol("side", real=True)  # +1 left leg, -1 right leg
v_dot_d = sympy.Symbol("v_dot_d", real=True)  # projection of v on the leg direction, m/s
direction = sympy.Symbol("direction", real=True)  # leg direction component, 1
own_v = sympy.Symbol("own_v", real=True)  # the agent's own velocity component, m/s
change = sympy.Symbol("change", real=True)  # component of the smallest change u, m/s
share = sympy.Symbol("share", nonnegative=True)  # the agent's share alpha of the pair, 1
weight_own = sympy.Symbol("weight_own", positive=True)  # responsibility weight of the agent
weight_other = sympy.Symbol("weight_other", positive=True)  # ... and of its neighbour

# --- pieces (generated) ---------------------------------------------------------------------

# Cut-off centre offset: w = v - p/tau, the velocity seen from the cut-off disk's centre.
CUTOFF_OFFSET = rel_v - inv_tau * rel_p
# Signed length of u along w/|w|: the cut-off disk has radius R/tau.
CUTOFF_CHANGE_SCALE = comb_r * inv_tau - w_len
# Leg length: tangent length from the origin to the disk (p, R); real only outside the disk, so
# the runtime takes the square root of its own (positive) clearance there, not a generated one.
LEG_LENGTH = sqrt(dist_sq - comb_r**2)
# Unit leg direction: p rotated by the tangent angle (cos = leg/|p|, sin = side R/|p|), over |p|.
LEG_DIRECTION_X = (side * rel_px * leg_len - rel_py * comb_r) / dist_sq
LEG_DIRECTION_Y = (rel_px * comb_r + side * rel_py * leg_len) / dist_sq
# Projection on the leg line minus v.
LEG_CHANGE = v_dot_d * direction - rel_v
# The agent's line passes through its own velocity plus its share of u.
LINE_POINT = own_v + share * change
# Share of a cooperative pair from the two responsibility weights (the shares add up to 1).
PAIR_SHARE = weight_own / (weight_own + weight_other)

# Relative motion p - x t of a pair with relative velocity x: squared distance and the time of
# closest approach (its stationary point; clamp to the horizon for the minimum over it).
p_sq = sympy.Symbol("p_sq", nonnegative=True)  # |p|^2, m^2
p_dot_x = sympy.Symbol("p_dot_x", real=True)  # p . x, m^2/s
x_sq = sympy.Symbol("x_sq", positive=True)  # |x|^2, m^2/s^2
time_s = sympy.Symbol("time_s", nonnegative=True)  # time since the snapshot, s
RELATIVE_DISTANCE_SQ = p_sq - 2 * time_s * p_dot_x + time_s**2 * x_sq
(CLOSEST_APPROACH_TIME,) = sympy.solve(sympy.diff(RELATIVE_DISTANCE_SQ, time_s), time_s)

assert simplify(PAIR_SHARE + PAIR_SHARE.subs({weight_own: weight_other, weight_other: weight_own},
                                             simultaneous=True) - 1) == 0

# --- compositions over the relative vectors (what the proofs use) ----------------------------

W_X = CUTOFF_OFFSET.subs({rel_v: rel_vx, rel_p: rel_px})
W_Y = CUTOFF_OFFSET.subs({rel_v: rel_vy, rel_p: rel_py})
_W_LEN = sqrt(W_X**2 + W_Y**2)
CUTOFF_NORMAL = (W_X / _W_LEN, W_Y / _W_LEN)
CUTOFF_CHANGE = tuple(CUTOFF_CHANGE_SCALE.subs(w_len, _W_LEN) * c for c in CUTOFF_NORMAL)
CUTOFF_DIRECTION = (CUTOFF_NORMAL[1], -CUTOFF_NORMAL[0])

_leg_subs = {leg_len: LEG_LENGTH.subs(dist_sq, rel_px**2 + rel_py**2),
             dist_sq: rel_px**2 + rel_py**2}


def leg_direction(side_value: int) -> tuple[sympy.Expr, sympy.Expr]:
    """Unit direction of the left (+1) or right (-1) leg as expressions of p and R."""
    subs = {**_leg_subs, side: side_value}
    return (LEG_DIRECTION_X.subs(subs, simultaneous=True),
            LEG_DIRECTION_Y.subs(subs, simultaneous=True))


def leg_change(side_value: int) -> tuple[sympy.Expr, sympy.Expr]:
    """The smallest change u onto the left (+1) or right (-1) leg, expressions of p, v, R."""
    dx, dy = leg_direction(side_value)
    proj = rel_vx * dx + rel_vy * dy
    return (LEG_CHANGE.subs({v_dot_d: proj, direction: dx, rel_v: rel_vx}, simultaneous=True),
            LEG_CHANGE.subs({v_dot_d: proj, direction: dy, rel_v: rel_vy}, simultaneous=True))


# Derivation checks: the leg direction is a unit vector with the disk (p, R) at distance R on its
# right (det(d, p) = -R) for both legs, and the cut-off change is perpendicular to the line.
for _s in (1, -1):
    _dx, _dy = leg_direction(_s)
    _norm_sq = simplify((_dx**2 + _dy**2).subs(rel_px**2 + rel_py**2, dist_sq))
    assert simplify(_norm_sq.subs(dist_sq, rel_px**2 + rel_py**2) - 1) == 0
    assert simplify(_dx * rel_py - _dy * rel_px + comb_r) == 0
assert simplify(
    CUTOFF_CHANGE[0] * CUTOFF_DIRECTION[0] + CUTOFF_CHANGE[1] * CUTOFF_DIRECTION[1]
) == 0

FORMULAS = (
    Formula(
        "orca_cutoff_offset",
        CUTOFF_OFFSET,
        (rel_v, rel_p, inv_tau),
        ("O3", "O6"),
        "One component of w = v - p/tau, the relative velocity seen from the cut-off centre",
        "m/s",
    ),
    Formula(
        "orca_cutoff_change_scale",
        CUTOFF_CHANGE_SCALE,
        (comb_r, inv_tau, w_len),
        ("O3", "O6"),
        "Signed length of the smallest change u = scale * w/|w| onto the cut-off circle",
        "m/s",
    ),
    Formula(
        "orca_leg_direction_x",
        LEG_DIRECTION_X,
        (rel_px, rel_py, comb_r, leg_len, side, dist_sq),
        ("O3",),
        "x of the unit leg direction (side +1 left, -1 right; disk on its right)",
        "1",
    ),
    Formula(
        "orca_leg_direction_y",
        LEG_DIRECTION_Y,
        (rel_px, rel_py, comb_r, leg_len, side, dist_sq),
        ("O3",),
        "y of the unit leg direction (side +1 left, -1 right; disk on its right)",
        "1",
    ),
    Formula(
        "orca_leg_change",
        LEG_CHANGE,
        (v_dot_d, direction, rel_v),
        ("O3",),
        "One component of the smallest change u = (v.d) d - v onto a leg",
        "m/s",
    ),
    Formula(
        "orca_line_point",
        LINE_POINT,
        (own_v, share, change),
        ("O3", "O7"),
        "One component of the ORCA line point v_own + share * u",
        "m/s",
    ),
    Formula(
        "orca_relative_distance_sq",
        RELATIVE_DISTANCE_SQ,
        (p_sq, p_dot_x, x_sq, time_s),
        ("O3", "O6"),
        "Squared distance |p - x t|^2 of a pair at time t of constant relative motion",
        "m^2",
    ),
    Formula(
        "orca_closest_approach_time",
        CLOSEST_APPROACH_TIME,
        (p_dot_x, x_sq),
        ("O3",),
        "Time (p.x)/|x|^2 where the pair's distance is stationary (clamp to the horizon)",
        "s",
    ),
    Formula(
        "orca_pair_share",
        PAIR_SHARE,
        (weight_own, weight_other),
        ("O7",),
        "Share of a cooperative pair's correction from the two responsibility weights",
        "1",
    ),
)
