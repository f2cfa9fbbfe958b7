"""Draw one agent's step: velocity space (left) and its neighbourhood in position space (right).

Left: every constraint in its family's style (legend), the forbidden side hatched and an arrow
towards the allowed side, binding constraints thick and conflicting ones haloed in red, each
labelled with its neighbour or edge; the max-speed circle and the reachable disk; the feasible
region filled; current, preferred and selected velocities as arrows. Right: the agent's body,
its neighbour range, each neighbour with its relative velocity (coloured like its ORCA line),
the nearby obstacle edges. Below: which constraint stopped the agent, the time horizon and the
snapshot time. Every constraint's artist carries the id ``constraint-<family>-<n>`` (visible in
SVG), so a test can count what was drawn. Claim: O4.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from navproof.viz.backend import check_valid_image_path, pyplot, save
from navproof.viz.scene import FAMILIES, Disk, HalfPlane, VelocityScene, feasible_polygon

_STYLE: dict[str, dict[str, Any]] = {
    "orca-agent": {"linestyle": "-", "color": None},
    "orca-obstacle": {"linestyle": "-.", "color": "#3b3b3b"},
    "step-end": {"linestyle": "--", "color": "#1a3a8f"},
    "stop-envelope": {"linestyle": ":", "color": "#b0178c"},
    "stop-from-end": {"linestyle": (0, (6, 2, 1, 2, 1, 2)), "color": "#0f7f7f"},
    "speed": {"linestyle": "-", "color": "black"},
    "reach": {"linestyle": "--", "color": "#7a7a7a"},
}
"""Line style per constraint family; ORCA agent lines take one colour per neighbour."""

NEIGHBOUR_COLOURS = ("#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf",
                     "#d4a017", "#5f9ea0", "#a0522d", "#6a5acd")
"""Colours of the neighbours' ORCA lines (and of the neighbours on the right)."""

VELOCITY_STYLE = {"current": "#8a8a8a", "preferred": "#1f5fd6", "selected": "black"}
FEASIBLE_COLOUR = "#a8dca0"
CONFLICT_COLOUR = "#e0201b"


@dataclass(frozen=True)
class DrawnVelocitySpace:
    """What was drawn: the file, and the constraints per family (for checks against the data)."""

    path: Path
    halfplanes: int
    disks: int
    neighbours: int
    by_family: dict[str, int]
    feasible_region_vertices: int


def _colour(h: HalfPlane | Disk, neighbour_colour: dict[int, str]) -> str:
    if isinstance(h, HalfPlane) and h.family == "orca-agent":
        key = h.neighbour if h.neighbour is not None else h.index
        return neighbour_colour.setdefault(key, NEIGHBOUR_COLOURS[len(neighbour_colour)
                                                                  % len(NEIGHBOUR_COLOURS)])
    colour = _STYLE[h.family]["color"]
    assert isinstance(colour, str)
    return colour


def _view_half_width(scene: VelocityScene) -> float:
    reach = [abs(c) + d.radius_mps for d in scene.disks for c in d.centre]
    vectors = [abs(x) for v in (scene.current, scene.preferred, scene.selected) if v for x in v]
    return 1.25 * max([1e-3, *reach[:2], *vectors, *(d.radius_mps for d in scene.disks[:1])])


def _segment(h: HalfPlane, half: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The part of the line ``dot(n, v) = offset`` inside the square view, or None."""
    n = np.asarray(h.normal, dtype=float)
    norm = float(np.hypot(*n))
    if norm == 0.0:
        return None
    n = n / norm
    base = n * (h.offset_mps / norm)
    tangent = np.array([-n[1], n[0]])
    lo, hi = -np.inf, np.inf
    for axis in range(2):
        if abs(tangent[axis]) < 1e-12:
            if abs(base[axis]) > half:
                return None
            continue
        a = (-half - base[axis]) / tangent[axis]
        b = (half - base[axis]) / tangent[axis]
        lo, hi = max(lo, min(a, b)), min(hi, max(a, b))
    if not lo < hi:
        return None
    return base + lo * tangent, base + hi * tangent


def _draw_halfplane(ax: Any, h: HalfPlane, colour: str, half: float, slot: int) -> bool:
    """One half-plane: its line, a hatched band on the forbidden side, an arrow to the allowed
    side and its label. Returns False when the line misses the view."""
    style = _STYLE[h.family]
    seg = _segment(h, half)
    gid = f"constraint-{h.family}-{h.index}"
    if seg is None:
        # keep one (invisible) artist so that every constraint is present in the file
        ax.plot([], [], gid=gid)
        return False
    a, b = seg
    n = np.asarray(h.normal, dtype=float) / float(np.hypot(*h.normal))
    width = 0.05 * half
    if h.conflicting:
        ax.plot([a[0], b[0]], [a[1], b[1]], color=CONFLICT_COLOUR, linewidth=8, alpha=0.35,
                solid_capstyle="butt", zorder=3)
    band = np.array([a, b, b + width * n, a + width * n])
    ax.fill(band[:, 0], band[:, 1], facecolor="none", edgecolor=colour, hatch="////",
            linewidth=0.0, alpha=0.55, zorder=2)
    ax.plot([a[0], b[0]], [a[1], b[1]], color=colour, linestyle=style["linestyle"],
            linewidth=2.8 if h.active else 1.4, zorder=4, gid=gid)
    where = a + (b - a) * (0.2 + 0.6 * ((slot * 0.37) % 1.0))
    allowed = -n
    ax.annotate("", xy=where + 0.09 * half * allowed, xytext=where,
                arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 1.4}, zorder=5)
    text = h.label + (" (binding)" if h.active else "") + (" CONFLICT" if h.conflicting else "")
    # the label sits beyond the arrow's tip and extends away from the line
    ha = "left" if allowed[0] > 0.3 else ("right" if allowed[0] < -0.3 else "center")
    va = "bottom" if allowed[1] > 0.3 else ("top" if allowed[1] < -0.3 else "center")
    ax.text(*(where + 0.11 * half * allowed), text, color=colour, fontsize=7.5, ha=ha,
            va=va, fontweight="bold" if (h.active or h.conflicting) else "normal",
            bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none",
                  "alpha": 0.8}, zorder=6, clip_on=True)
    return True


def _draw_disk(ax: Any, d: Disk, colour: str) -> None:
    plt = pyplot()
    style = _STYLE[d.family]
    ax.add_patch(plt.Circle(d.centre, d.radius_mps, fill=False, edgecolor=colour,
                            linestyle=style["linestyle"], linewidth=2.4 if d.active else 1.3,
                            zorder=4, gid=f"constraint-{d.family}"))


def _arrow(ax: Any, v: tuple[float, float], colour: str, name: str, *, width: float,
           below: bool = False) -> None:
    ax.annotate("", xy=v, xytext=(0.0, 0.0), zorder=8,
                arrowprops={"arrowstyle": "-|>,head_width=0.35,head_length=0.7",
                            "color": colour, "lw": width, "shrinkA": 0, "shrinkB": 0})
    ax.plot([v[0]], [v[1]], "o", color=colour, markersize=4, zorder=9)
    ax.annotate(name, xy=v, xytext=(6, -16 if below else 6),
                textcoords="offset points", color=colour, fontsize=8.5, zorder=9,
                fontweight="bold",
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none",
                      "alpha": 0.8})


def _velocity_axes(ax: Any, scene: VelocityScene, neighbour_colour: dict[int, str]
                   ) -> tuple[dict[str, int], list[str], int]:
    plt = pyplot()
    half = _view_half_width(scene)
    poly = feasible_polygon(scene)
    if poly.shape[0] >= 3:
        ax.add_patch(plt.Polygon(poly, closed=True, facecolor=FEASIBLE_COLOUR, alpha=0.7,
                                 edgecolor="#3c8c32", linewidth=1.0, zorder=1,
                                 label="feasible region"))
    else:
        ax.text(0.5, 0.92, "feasible region EMPTY", transform=ax.transAxes, ha="center",
                color=CONFLICT_COLOUR, fontsize=11, fontweight="bold", zorder=10)
    drawn: dict[str, int] = {}
    outside: list[str] = []
    for slot, h in enumerate(scene.halfplanes):
        if not _draw_halfplane(ax, h, _colour(h, neighbour_colour), half, slot):
            outside.append(h.label)
        drawn[h.family] = drawn.get(h.family, 0) + 1
    for d in scene.disks:
        _draw_disk(ax, d, _colour(d, neighbour_colour))
        drawn[d.family] = drawn.get(d.family, 0) + 1
    if scene.current is not None:
        _arrow(ax, scene.current, VELOCITY_STYLE["current"], "current", width=1.3,
               below=True)
    _arrow(ax, scene.preferred, VELOCITY_STYLE["preferred"], "preferred", width=1.8)
    _arrow(ax, scene.selected, VELOCITY_STYLE["selected"], "selected", width=2.2)
    ax.set_xlim(-half, half)
    ax.set_ylim(-half, half)
    ax.set_aspect("equal")
    ax.axhline(0.0, color="#cccccc", linewidth=0.6, zorder=0)
    ax.axvline(0.0, color="#cccccc", linewidth=0.6, zorder=0)
    ax.set_xlabel("$v_x$ [m/s]")
    ax.set_ylabel("$v_y$ [m/s]")
    ax.set_title(f"agent {scene.agent}: {scene.frame} [m/s]", fontsize=10)
    return drawn, outside, int(poly.shape[0])


def _neighbour_axes(ax: Any, scene: VelocityScene, neighbour_colour: dict[int, str]) -> int:
    plt = pyplot()
    radius = scene.radius_m or 0.0
    # zoom on the neighbours and edges; the neighbour range is drawn when it fits
    extent = [4.0 * radius, 1.0]
    for nb in scene.neighbours:
        extent.append(float(np.hypot(*nb["relative_position_m"])) + 2.0 * nb["radius_m"])
    for a, b in scene.obstacle_edges:
        extent += [abs(x) for x in (*a, *b)]
    half = 1.25 * max(extent)
    reach = scene.neighbor_dist_m
    if reach and reach <= 1.6 * half:
        half = max(half, 1.08 * reach)
    ax.add_patch(plt.Circle((0.0, 0.0), radius, facecolor="#cfe0ff", edgecolor="#1f5fd6",
                            zorder=3))
    ax.text(0.0, 0.0, f"{scene.agent}", ha="center", va="center", fontsize=8, zorder=4)
    if reach:
        ax.add_patch(plt.Circle((0.0, 0.0), reach, fill=False, linestyle="--",
                                edgecolor="#555555", zorder=2))
        inside = reach <= half
        ax.text(0.02, 0.98, f"neighbour range {reach:g} m"
                + ("" if inside else " (circle beyond the view)"), transform=ax.transAxes,
                ha="left", va="top", fontsize=8, color="#555555")
    for a, b in scene.obstacle_edges:
        ax.plot([a[0], b[0]], [a[1], b[1]], color="#3b3b3b", linewidth=3, zorder=3)
    for nb in scene.neighbours:
        colour = neighbour_colour.setdefault(
            nb["agent"], NEIGHBOUR_COLOURS[len(neighbour_colour) % len(NEIGHBOUR_COLOURS)])
        p, w = nb["relative_position_m"], nb["relative_velocity_mps"]
        ax.add_patch(plt.Circle(p, nb["radius_m"], facecolor=colour, alpha=0.35,
                                edgecolor=colour, zorder=3))
        ax.annotate("", xy=(p[0] + w[0], p[1] + w[1]), xytext=p, zorder=5,
                    arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 1.6})
        ax.text(p[0], p[1], f"{nb['agent']}", ha="center", va="center", fontsize=8, zorder=6)
        # the label points away from the agent, outside the neighbour's body
        dist = float(np.hypot(*p)) or 1.0
        out = np.asarray(p) / dist
        ax.annotate(f"agent {nb['agent']}\nrel. v ({w[0]:+.2f}, {w[1]:+.2f}) m/s",
                    xy=(p[0] + out[0] * nb["radius_m"], p[1] + out[1] * nb["radius_m"]),
                    xytext=(out[0] * 8, out[1] * 8), textcoords="offset points",
                    ha="left" if out[0] > 0.3 else ("right" if out[0] < -0.3 else "center"),
                    va="bottom" if out[1] > 0.3 else ("top" if out[1] < -0.3 else "center"),
                    fontsize=7.5, color=colour, zorder=6,
                    bbox={"boxstyle": "round,pad=0.1", "facecolor": "white",
                          "edgecolor": "none", "alpha": 0.8})
    ax.set_xlim(-half, half)
    ax.set_ylim(-half, half)
    ax.set_aspect("equal")
    ax.set_xlabel("relative x [m]")
    ax.set_ylabel("relative y [m]")
    ax.set_title("neighbours relative to the agent (arrows: relative velocity x 1 s)",
                 fontsize=10)
    return len(scene.neighbours)


def _caption(scene: VelocityScene, outside: list[str]) -> str:
    rows = [f"{scene.verdict()}",
            f"label: {scene.label};  zero velocity feasible: "
            f"{'yes' if scene.zero_velocity_feasible else 'no'};  largest violation "
            f"{scene.max_violation_mps:.3g} m/s"]
    timing = [f"snapshot t = {scene.snapshot_time_s:g} s"]
    if scene.time_step_s is not None:
        timing.append(f"step {scene.time_step_s:g} s")
    if scene.time_horizon_s is not None:
        timing.append(f"time horizon {scene.time_horizon_s:g} s (agents)")
    if scene.time_horizon_obst_s is not None:
        timing.append(f"{scene.time_horizon_obst_s:g} s (obstacles)")
    rows.append(";  ".join(timing))
    rows += list(scene.notes)
    if outside:
        rows.append("outside the view: " + ", ".join(outside))
    return "\n".join(rows)


def _legend_handles(scene: VelocityScene) -> list[Any]:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Any] = [
        Patch(facecolor=FEASIBLE_COLOUR, edgecolor="#3c8c32", label="feasible region"),
        Patch(facecolor="none", edgecolor="#666666", hatch="////",
              label="forbidden side (arrow: allowed side)"),
    ]
    families = [h.family for h in scene.halfplanes] + [d.family for d in scene.disks]
    for family in dict.fromkeys(families):
        style = _STYLE[family]
        colour = style["color"] or NEIGHBOUR_COLOURS[0]
        handles.append(Line2D([], [], color=colour, linestyle=style["linestyle"],
                              label=FAMILIES[family] + (" (one colour per neighbour)"
                                                        if family == "orca-agent" else "")))
    handles.append(Line2D([], [], color="#444444", linewidth=2.8, label="binding (thick)"))
    handles.append(Line2D([], [], color=CONFLICT_COLOUR, linewidth=7, alpha=0.35,
                          label="conflicting (red halo)"))
    for name, colour in VELOCITY_STYLE.items():
        if name == "current" and scene.current is None:
            continue
        v = getattr(scene, name)
        handles.append(Line2D([], [], color=colour, marker=">", linewidth=2,
                              label=f"{name} velocity ({v[0]:+.3f}, {v[1]:+.3f}) m/s"))
    return handles


def draw_velocity_space(scene: VelocityScene, path: str | Path) -> DrawnVelocitySpace:
    """Write the picture of ``scene`` to ``path`` (.png, .svg or .pdf)."""
    check_valid_image_path(path)
    plt = pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(14.5, 7.6),
                                         gridspec_kw={"width_ratios": [1.25, 1.0]})
    colours: dict[int, str] = {}
    drawn, outside, vertices = _velocity_axes(left, scene, colours)
    neighbours = _neighbour_axes(right, scene, colours)
    figure.legend(handles=_legend_handles(scene), loc="lower center", ncol=4, fontsize=8.5,
                  frameon=False, bbox_to_anchor=(0.5, 0.0))
    figure.suptitle(f"navproof explain — agent {scene.agent} at t = {scene.snapshot_time_s:g} s:"
                    f" {scene.label}", fontsize=12, fontweight="bold")
    caption = _caption(scene, outside)
    figure.text(0.5, 0.955, caption, ha="center", va="top", fontsize=9,
                bbox={"boxstyle": "round", "facecolor": "#f6f6f6", "edgecolor": "#bbbbbb"})
    # the axes start below the caption, whatever its number of lines
    top = 0.9 - 0.024 * (caption.count("\n") + 1)
    figure.subplots_adjust(top=top, bottom=0.17, wspace=0.18)
    out = save(figure, path)
    return DrawnVelocitySpace(out, len(scene.halfplanes), len(scene.disks), neighbours, drawn,
                              vertices)
