"""Boundaries on moving supports (seed 000): rigid motions of supports and edges, edges and
convex patches, the step's edge margins and half-planes, and the certified bounds next to
rotating motion; the reference velocity, stop envelopes and slope budgets build on them.

Modules: ``motion`` (Motion, Support), ``edges`` (EdgeSet), ``patches`` (Patch), ``step_length``
(dt validation), ``margins`` (B1-B5 half-planes and whole-step margins), ``rigid`` (B6 bounds),
``reference`` (R1-R3), ``stop_envelope`` (S1-S5), ``slope`` (V1, V2).
"""

from navproof.boundary.edges import (
    EDGE_KIND_NAMES,
    EDGE_OBSTACLE,
    EDGE_PORTAL,
    EDGE_WALL,
    EdgeSet,
    check_valid_normals,
    take_edges,
)
from navproof.boundary.margins import (
    accel_end_margin_m,
    accel_extremum_time_s,
    accel_halfplane_offset_mps,
    accel_margin_at_time_offset_mps,
    affine_root,
    curve_min_margin_m,
    end_margin_m,
    step_halfplane_offset_mps,
    translating_curve_margins_from_state,
    translating_curve_margins_m,
)
from navproof.boundary.motion import (
    MOTION_FIXED,
    MOTION_NAMES,
    MOTION_RIGID,
    MOTION_TRANSLATING,
    Motion,
    Support,
    take_motion,
    take_support,
)
from navproof.boundary.patches import Patch, make_patch, polygon_halfplanes
from navproof.boundary.rigid import (
    local_frame_excess_m,
    moving_frame_pairs,
    rigid_curve_margin_bound_m,
    rotating_stop_margin_bound_m,
    rotating_stop_pairs,
)
from navproof.boundary.step_length import per_agent, per_edge
from navproof.core.validation import check_valid_convex, check_valid_step

__all__ = [
    "EDGE_KIND_NAMES", "EDGE_OBSTACLE", "EDGE_PORTAL", "EDGE_WALL", "MOTION_FIXED",
    "MOTION_NAMES", "MOTION_RIGID",
    "MOTION_TRANSLATING", "EdgeSet", "Motion", "Patch", "Support", "accel_end_margin_m",
    "accel_extremum_time_s", "accel_halfplane_offset_mps", "accel_margin_at_time_offset_mps",
    "affine_root", "check_valid_convex", "check_valid_normals", "check_valid_step",
    "curve_min_margin_m", "end_margin_m", "local_frame_excess_m", "make_patch",
    "moving_frame_pairs", "per_agent", "per_edge", "polygon_halfplanes",
    "rigid_curve_margin_bound_m", "rotating_stop_margin_bound_m", "rotating_stop_pairs",
    "step_halfplane_offset_mps", "take_edges", "take_motion",
    "take_support", "translating_curve_margins_from_state", "translating_curve_margins_m",
]
