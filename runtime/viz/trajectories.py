"""Pictures of a run: trajectories, bodies at chosen times, obstacles, corridor regions,
supports and patches; one frame per step, or an animated GIF.

The run is given as a :class:`RecordedRun` (plain arrays), so anything that records positions
can be drawn: the World's run, a crowd stepped by hand, a scenario replay.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.viz.backend import check_valid_image_path, pyplot, save

ARRIVED = "arrived"
"""The label of an agent at its goal; any other label is drawn as a reason it is not there."""
NOTE_LINES = 8
"""Reasons listed in the picture's note (the rest are counted)."""
REGION_KINDS = ("corridor", "support", "patch")
"""Kinds of regions drawn under the run (each in its own style)."""

_REGION_STYLE: dict[str, dict[str, Any]] = {
    "corridor": {"facecolor": "#eef5ff", "edgecolor": "#6f8fbf", "linestyle": "--",
                 "hatch": None},
    "support": {"facecolor": "#fff1d6", "edgecolor": "#c8891a", "linestyle": "-",
                "hatch": ".."},
    "patch": {"facecolor": "#f0f0f0", "edgecolor": "#808080", "linestyle": ":",
              "hatch": "\\\\"},
}


@dataclass(frozen=True)
class Region:
    """A polygon drawn under the run: a corridor region, a moving support or a slope patch.
    ``polygon_at_m`` (T, V, 2), when given, is the polygon at every recorded time (a turning
    platform); ``polygon_m`` is then its initial place."""

    kind: str
    label: str
    polygon_m: np.ndarray
    polygon_at_m: np.ndarray | None = None

    def at(self, k: int | None) -> np.ndarray:
        """The polygon at recorded time ``k`` (the initial place when None or static)."""
        if self.polygon_at_m is None or k is None:
            return np.asarray(self.polygon_m)
        return np.asarray(self.polygon_at_m)[k]


@dataclass(frozen=True)
class RecordedRun:
    """Positions of N agents at T times: ``time_s`` (T,), ``position_m`` (T, N, 2),
    ``radius_m`` (N,); optional obstacles (polygons), regions, goals (N, 2) and per-agent
    ``labels`` (e.g. "arrived", "dynamic avoidance failed")."""

    time_s: np.ndarray
    position_m: np.ndarray
    radius_m: np.ndarray
    obstacles: tuple[np.ndarray, ...] = ()
    regions: tuple[Region, ...] = ()
    goals_m: np.ndarray | None = None
    labels: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        t, p = np.asarray(self.time_s), np.asarray(self.position_m)
        if p.ndim != 3 or p.shape[2] != 2 or p.shape[0] != t.shape[0] or t.shape[0] == 0:
            raise InvalidInput("position_m", p.shape, "must have shape (T, N, 2), T = len(time_s)")
        if np.asarray(self.radius_m).shape != (p.shape[1],):
            raise InvalidInput("radius_m", np.asarray(self.radius_m).shape,
                               f"must have shape ({p.shape[1]},)")
        for region in self.regions:
            if region.kind not in REGION_KINDS:
                raise InvalidInput("regions.kind", region.kind, f"must be one of {REGION_KINDS}")
            moving = region.polygon_at_m
            if moving is not None and (np.ndim(moving) != 3 or np.shape(moving)[0] != t.shape[0]):
                raise InvalidInput("regions.polygon_at_m", np.shape(moving),
                                   f"must have shape ({t.shape[0]}, V, 2), one polygon per time")

    @property
    def agents(self) -> int:
        return int(self.position_m.shape[1])


def _agent_colours(n: int) -> list[Any]:
    plt = pyplot()
    cmap = plt.get_cmap("tab10" if n <= 10 else "turbo")
    return [cmap(i if n <= 10 else i / max(n - 1, 1)) for i in range(n)]


def _extent(run: RecordedRun) -> tuple[float, float, float, float]:
    pts = [run.position_m.reshape(-1, 2)]
    pts += [np.asarray(o).reshape(-1, 2) for o in run.obstacles]
    pts += [np.asarray(r.polygon_m if r.polygon_at_m is None else r.polygon_at_m).reshape(-1, 2)
            for r in run.regions]
    if run.goals_m is not None:
        pts.append(np.asarray(run.goals_m).reshape(-1, 2))
    allpts = np.concatenate(pts)
    pad = float(np.max(run.radius_m, initial=0.0)) + 0.05 * float(np.ptp(allpts) or 1.0)
    lo, hi = allpts.min(axis=0) - pad, allpts.max(axis=0) + pad
    return float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1])


def _background(ax: Any, run: RecordedRun, k: int | None = None,
                outlines: tuple[int, ...] = ()) -> None:
    """Regions at recorded time ``k`` (moving ones also as outlines at ``outlines``), then
    the obstacles."""
    plt = pyplot()
    seen: set[str] = set()
    for region in run.regions:
        style = _REGION_STYLE[region.kind]
        polygon = region.at(k)
        ax.add_patch(plt.Polygon(polygon, closed=True, zorder=0, linewidth=1.2,
                                 label=None if region.kind in seen else region.kind, **style))
        seen.add(region.kind)
        if region.polygon_at_m is not None:
            for j in outlines:
                ax.add_patch(plt.Polygon(region.at(j), closed=True, fill=False, zorder=1,
                                         linewidth=0.8, edgecolor=style["edgecolor"],
                                         linestyle=":"))
        centre = polygon.mean(axis=0)
        ax.text(*centre, region.label, fontsize=7.5, color=style["edgecolor"], ha="center",
                va="center", zorder=1)
    for k, poly in enumerate(run.obstacles):
        ax.add_patch(plt.Polygon(np.asarray(poly), closed=True, facecolor="#5a5a5a",
                                 edgecolor="black", zorder=2,
                                 label="obstacle" if k == 0 else None))


def _frame_axes(ax: Any, run: RecordedRun) -> None:
    x0, x1, y0, y1 = _extent(run)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.grid(color="#e6e6e6", linewidth=0.5, zorder=-1)


def _times_index(run: RecordedRun, times_s: tuple[float, ...] | None) -> list[int]:
    t = np.asarray(run.time_s)
    if times_s is None:
        return sorted({0, len(t) // 2, len(t) - 1})
    return sorted({int(np.argmin(np.abs(t - s))) for s in times_s})


def draw_trajectories(run: RecordedRun, path: str | Path, *,
                      times_s: tuple[float, ...] | None = None, title: str = "") -> Path:
    """Every agent's path, its body at the chosen times (default start, middle, end), the
    regions and obstacles under it, goals as crosses; written to ``path`` (.png/.svg/.pdf)."""
    check_valid_image_path(path)
    plt = pyplot()
    figure, ax = plt.subplots(figsize=(10, 8))
    colours = _agent_colours(run.agents)
    chosen = _times_index(run, times_s)
    # a turning platform: filled where it starts, outlined at the chosen times
    _background(ax, run, 0, outlines=tuple(chosen))
    for i in range(run.agents):
        track = run.position_m[:, i]
        ax.plot(track[:, 0], track[:, 1], color=colours[i], linewidth=1.3, zorder=3,
                label="path" if i == 0 else None)
        for rank, k in enumerate(chosen):
            alpha = 0.25 + 0.6 * (rank + 1) / len(chosen)
            ax.add_patch(plt.Circle(track[k], float(run.radius_m[i]), facecolor=colours[i],
                                    alpha=alpha, edgecolor="black", linewidth=0.4, zorder=4))
        if run.agents <= 30:
            ax.text(*track[-1], str(i), fontsize=7, ha="center", va="center", zorder=5)
    if run.goals_m is not None:
        goals = np.asarray(run.goals_m)
        ax.scatter(goals[:, 0], goals[:, 1], marker="x", color="black", s=25, zorder=5,
                   label="goal")
    _not_arrived(ax, run)
    stamps = ", ".join(f"{float(run.time_s[k]):g} s" for k in chosen)
    ax.set_title((title + "\n" if title else "")
                 + f"{run.agents} agents, bodies at t = {stamps} (later = darker)", fontsize=10)
    _frame_axes(ax, run)
    ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
    return save(figure, path)


def _not_arrived(ax: Any, run: RecordedRun) -> None:
    """Agents whose label is not "arrived": a red ring at their last place and their reasons
    in a note (the summary's reasons, so the picture answers why an agent stopped)."""
    if not run.labels:
        return
    late = [i for i, label in enumerate(run.labels) if label != ARRIVED]
    if not late:
        return
    last = run.position_m[-1, late]
    radius = np.asarray(run.radius_m)[late]
    plt = pyplot()
    for k, (x, r) in enumerate(zip(last, radius, strict=True)):
        ax.add_patch(plt.Circle(x, 1.35 * float(r), fill=False, edgecolor="#d62728",
                                linewidth=1.4, zorder=6, label="not arrived" if k == 0 else None))
    lines = [f"agent {i}: {run.labels[i]}" for i in late[:NOTE_LINES]]
    if len(late) > NOTE_LINES:
        lines.append(f"... and {len(late) - NOTE_LINES} more not arrived")
    ax.text(0.01, 0.01, "\n".join(lines), transform=ax.transAxes, fontsize=7, va="bottom",
            ha="left", zorder=7, bbox={"facecolor": "white", "alpha": 0.85,
                                       "edgecolor": "#d62728"})


def _frame(run: RecordedRun, k: int, colours: list[Any], title: str) -> Any:
    plt = pyplot()
    figure, ax = plt.subplots(figsize=(7, 6))
    _background(ax, run, k)
    for i in range(run.agents):
        track = run.position_m[: k + 1, i]
        ax.plot(track[:, 0], track[:, 1], color=colours[i], linewidth=0.8, alpha=0.6, zorder=3)
        ax.add_patch(plt.Circle(track[-1], float(run.radius_m[i]), facecolor=colours[i],
                                edgecolor="black", linewidth=0.4, zorder=4))
    _frame_axes(ax, run)
    ax.set_title(f"{title + ': ' if title else ''}t = {float(run.time_s[k]):.2f} s "
                 f"(step {k})", fontsize=10)
    return figure


def draw_frames(run: RecordedRun, directory: str | Path, *, every: int = 1,
                title: str = "") -> list[Path]:
    """One PNG per recorded time (every ``every``-th), ``frame_00000.png`` ... in ``directory``
    (created if missing)."""
    if every < 1:
        raise InvalidInput("every", every, "must be >= 1")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    colours = _agent_colours(run.agents)
    paths = []
    for k in range(0, len(run.time_s), every):
        paths.append(save(_frame(run, k, colours, title), out / f"frame_{k:05d}.png"))
    return paths


def write_gif(run: RecordedRun, path: str | Path, *, every: int = 1, fps: float = 10.0,
              title: str = "") -> Path:
    """An animated GIF of the run (every ``every``-th recorded time, ``fps`` frames a second)."""
    out = Path(path)
    if out.suffix.lower() != ".gif":
        raise InvalidInput("gif", str(path), "must end in .gif")
    if every < 1:
        raise InvalidInput("every", every, "must be >= 1")
    plt = pyplot()
    from PIL import Image

    colours = _agent_colours(run.agents)
    images = []
    for k in range(0, len(run.time_s), every):
        figure = _frame(run, k, colours, title)
        figure.canvas.draw()
        images.append(Image.fromarray(np.asarray(figure.canvas.buffer_rgba())).convert("RGB"))
        plt.close(figure)
    images[0].save(out, save_all=True, append_images=images[1:], loop=0,
                   duration=int(1000.0 / fps))
    return out
