"""The picture options of ``navproof simulate FILE.toml``: ``--plot FILE`` (.png/.svg/.pdf:
trajectories, bodies at ``--times``, obstacles, corridor, supports, patches), ``--frames DIR``
(one PNG every ``--every`` recorded times) and ``--gif FILE``.

Every option is checked before the run (a long run is not wasted on a typo or a missing
matplotlib); each problem is an InvalidInput naming the option, the value and the rule.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from navproof.core.errors import InvalidInput

PICTURE_OPTIONS = ("plot", "frames", "gif", "times", "every")
"""Options that apply to World scenario files only."""
MAX_GIF_FPS = 50.0
"""GIF players do not show frames faster than this (2 centiseconds a frame)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plot", metavar="FILE",
                        help="scenario files: draw trajectories, bodies, obstacles, corridor, "
                             "supports and patches to FILE (.png, .svg or .pdf; needs "
                             "navproof[plot])")
    parser.add_argument("--frames", metavar="DIR",
                        help="scenario files: one PNG per recorded time in DIR "
                             "(frame_00000.png ...)")
    parser.add_argument("--gif", metavar="FILE", help="scenario files: an animated GIF of the run")
    parser.add_argument("--times", metavar="T,T,...",
                        help="--plot: simulated times [s] at which bodies are drawn "
                             "(default: start, middle, end)")
    parser.add_argument("--every", metavar="N",
                        help="--frames/--gif: every N-th recorded time (default 1)")


@dataclass(frozen=True)
class PictureRequest:
    """What to draw after a World run (all None: nothing)."""

    plot: Path | None = None
    frames: Path | None = None
    gif: Path | None = None
    times_s: tuple[float, ...] | None = None
    every: int = 1

    @property
    def wanted(self) -> bool:
        return any(p is not None for p in (self.plot, self.frames, self.gif))


def given_options(args: argparse.Namespace) -> list[str]:
    """The picture options present on the command line, as ``--name``."""
    return [f"--{name}" for name in PICTURE_OPTIONS if getattr(args, name, None) is not None]


def _times(text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(word) for word in text.split(","))
    except ValueError:
        raise InvalidInput("--times", text, "must be comma-separated seconds, e.g. 0,5,10"
                           ) from None
    if not all(math.isfinite(v) and v >= 0.0 for v in values):
        raise InvalidInput("--times", text, "every time must be finite and >= 0 s")
    return values


def _every(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InvalidInput("--every", text, "must be a whole number >= 1") from None
    if value < 1:
        raise InvalidInput("--every", text, "must be a whole number >= 1")
    return value


def picture_outputs(args: argparse.Namespace) -> dict[str, str | None]:
    """The picture outputs of the command line, option -> path (None: not given), for
    :func:`navproof.cli.output.check_output_paths` (``--frames`` is a folder)."""
    return {f"--{name}": getattr(args, name, None) for name in ("plot", "frames", "gif")}


def picture_request(args: argparse.Namespace) -> PictureRequest:
    """The checked picture options (InvalidInput naming the first bad one)."""
    from navproof.cli.output import check_output_paths
    from navproof.viz.backend import PlotUnavailable, check_valid_image_path, pyplot

    plot, frames, gif = (getattr(args, name, None) for name in ("plot", "frames", "gif"))
    times, every = getattr(args, "times", None), getattr(args, "every", None)
    if times is not None and plot is None:
        raise InvalidInput("--times", times, "applies to --plot only")
    if every is not None and frames is None and gif is None:
        raise InvalidInput("--every", every, "applies to --frames and --gif only")
    if plot is not None:
        check_valid_image_path(plot, field="--plot")
    if gif is not None and Path(gif).suffix.lower() != ".gif":
        raise InvalidInput("--gif", gif, "must end in .gif")
    check_output_paths(picture_outputs(args), folders=("--frames",))
    request = PictureRequest(
        plot=None if plot is None else Path(plot), frames=None if frames is None else Path(frames),
        gif=None if gif is None else Path(gif),
        times_s=None if times is None else _times(times),
        every=1 if every is None else _every(every))
    if request.wanted:
        try:
            pyplot()
        except PlotUnavailable as exc:
            option = given_options(args)[0]
            raise InvalidInput(option, getattr(args, option[2:]), str(exc)) from None
    return request


def draw_pictures(request: PictureRequest, run: Any, *, title: str) -> dict[str, Any]:
    """Draw what ``request`` asks for from the recorded run; returns what was written (for the
    JSON summary). A failed write is an InvalidInput naming the option."""
    from navproof.viz.trajectories import draw_frames, draw_trajectories, write_gif

    written: dict[str, Any] = {}
    option = ""
    try:
        if request.plot is not None:
            option = "--plot"
            draw_trajectories(run, request.plot, times_s=request.times_s, title=title)
            written["plot"] = str(request.plot)
        if request.frames is not None:
            option = "--frames"
            paths = draw_frames(run, request.frames, every=request.every, title=title)
            written["frames"] = {"directory": str(request.frames), "count": len(paths),
                                 "every": request.every}
        if request.gif is not None:
            option = "--gif"
            step_s = float(run.time_s[1] - run.time_s[0]) if len(run.time_s) > 1 else 0.1
            fps = min(MAX_GIF_FPS, 1.0 / max(step_s * request.every, 1e-9))
            write_gif(run, request.gif, every=request.every, fps=fps, title=title)
            written["gif"] = str(request.gif)
    except OSError as exc:
        path = {"--plot": request.plot, "--frames": request.frames, "--gif": request.gif}[option]
        raise InvalidInput(option, str(path), f"cannot be written: {exc.strerror or exc}"
                           ) from None
    return written
