"""matplotlib, loaded only when a picture is drawn (the optional extra ``navproof[plot]``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from navproof.core.errors import InvalidInput

IMAGE_SUFFIXES = (".png", ".svg", ".pdf")
"""File types a picture can be written as (chosen by the file name)."""

INSTALL_HINT = "pictures need matplotlib: pip install navproof[plot]"


class PlotUnavailable(ImportError):
    """matplotlib is not installed; the message names the extra that brings it."""


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the non-interactive Agg backend, or :class:`PlotUnavailable`."""
    try:
        import matplotlib
    except ImportError as exc:
        raise PlotUnavailable(INSTALL_HINT) from exc
    # files only: never open a window, also on a machine with a display
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def check_valid_image_path(path: str | Path, *, field: str = "output") -> Path:
    """The path of a picture file, whose suffix picks the format (.png, .svg or .pdf)."""
    out = Path(path)
    if out.suffix.lower() not in IMAGE_SUFFIXES:
        raise InvalidInput(field, str(path), f"must end in one of {', '.join(IMAGE_SUFFIXES)}")
    return out


def save(figure: Any, path: str | Path, *, field: str = "output") -> Path:
    """Write ``figure`` to ``path`` (format from the suffix) and close it."""
    out = check_valid_image_path(path, field=field)
    plt = pyplot()
    try:
        figure.savefig(out, dpi=110, bbox_inches="tight")
    finally:
        plt.close(figure)
    return out
