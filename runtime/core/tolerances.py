"""Every numeric tolerance of the runtime, one named constant per purpose, with its unit.

The proofs are exact; the runtime computes in float64. A tolerance is the only place where the two
meet, so each one is listed here with what it compares and why it has its size. No module writes a
bare ``1e-9`` of its own: it imports the constant for its purpose.
"""

from __future__ import annotations

EPS = 1e-9
"""Comparison slack of a proven margin evaluated in float64 (metres, metres per second or seconds,
whichever the margin is in): a margin ``>= -EPS`` counts as respected. About 1e6 units in the last
place at the scales of a game or robot world (metres to kilometres), far below any physical
significance."""

UNIT_LENGTH_TOL = 1e-6
"""Largest accepted deviation of an edge normal or portal direction from unit length (unitless).
Inputs are normalised by the caller; this only rejects vectors that were never normalised."""

ANGLE_TOL_RAD = 1e-6
"""Slack on a polygon's total turning angle (radians) when it is checked for convexity."""

FLAT_SLOPE_TOL = 1e-15
"""Slope (unitless) below which an affine margin is treated as constant (no root to find)."""

PARALLEL_DET = 1e-12
"""Determinant (m^2/s^2) below which two half-plane boundaries of the safe-step solver are
parallel: their intersection point would be farther than any reachable velocity."""

RVO_EPSILON = 1e-5
"""RVO2's own ``RVO_EPSILON`` (m^2/s^2 for line determinants, m for obstacle side tests). Kept at
RVO2's value on purpose: the ORCA crowd reproduces the C++ reference's case decisions."""

ORCA_COVERED_TOL_M = 1e-5
"""Slack (m) of RVO2's "obstacle already covered by an earlier line" test, as in RVO2."""

ACTIVE_TOL_MPS = 1e-7
"""An ORCA line is active when the chosen velocity lies within this many m/s of it, per m/s of
the agent's speed cap (Claim O4 diagnostics)."""

MONITOR_FEASIBILITY_REL = 1e-6
"""Assertion-mode slack of a line or speed-cap violation, relative to the agent's velocity scale
(1 + speed cap + preferred speed): float64 solvers land within it, a real violation does not."""

MONITOR_KKT_REL = 1e-6
"""Assertion-mode slack of the optimality (KKT) certificate of Claim O2, relative as above."""

MONITOR_ANGLE_TOL_RAD = 1e-9
"""Angle (radians) within which two constraint normals count as the same direction in the
optimality certificate."""

RANGE_BOUND_REL = 1e-12
"""Relative slack that lets a run-time value which rounds onto a profile range bound through."""

SPEED_MATCH_TOL_MPS = 1e-6
"""Speed (m/s) within which a measured speed follows a scheduled access-curve speed (Claim H4)."""

AREA_REL_TOL = 1e-9
"""Relative slack (of the squared size of the pieces) when two corridor pieces are merged only if
their union is convex (Claim C1)."""

BISECTION_STEPS = 60
"""Halvings of every bisection of the runtime (a first contact time, a portal time): 60 halvings
shrink any step of at most 2^10 s below float64 resolution."""

STEERING_REACHED_REL = 1e-12
"""Fraction of one step's velocity change (unitless) within which clamped steering counts the
desired velocity as reached and takes it as it is (Claim T2): no rounding residue keeps a body
creeping after Arrive has asked it to stop."""

STEERING_CHECK_REL = 1e-9
"""Assertion-mode slack of the T2 bounds (m/s per m/s of the speed cap)."""

SEARCH_REACH_REL = 1e-12
"""Relative slack (unitless) on a neighbour or obstacle-edge search radius, so that rounding never
drops a candidate within reach."""
