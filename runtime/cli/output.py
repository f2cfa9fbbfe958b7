"""Report files written by the commands (``--json``, ``--svg``): an unusable path is bad input.

A path is checked before a command does its work (so a long run is not wasted on a typo) and the
write itself is guarded too (the disk can fill, permissions can change): either way the command
exits 3 with one line naming the option, the path and the reason, never a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path

from navproof.core.errors import InvalidInput


def check_valid_output_path(option: str, path: str | os.PathLike[str] | None) -> None:
    """Raise InvalidInput when ``path`` (given to ``option``) clearly cannot be written."""
    if path is None:
        return
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise InvalidInput(option, str(path), "is a directory, not a file")
    if not parent.is_dir():
        raise InvalidInput(option, str(path), f"its folder {str(parent)!r} does not exist")
    if target.exists() and not os.access(target, os.W_OK):
        raise InvalidInput(option, str(path), "exists and is not writable")
    if not target.exists() and not os.access(parent, os.W_OK | os.X_OK):
        raise InvalidInput(option, str(path), f"its folder {str(parent)!r} is not writable")


def write_output(option: str, path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path``; InvalidInput naming ``option`` when that fails."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(option, str(path), f"cannot be written: {exc.strerror or exc}"
                           ) from None


def check_valid_output_dir(option: str, path: str | os.PathLike[str] | None) -> None:
    """Raise InvalidInput when folder ``path`` (given to ``option``) cannot be used for output:
    it is a file, or it does not exist and its nearest existing parent is not writable."""
    if path is None:
        return
    target = Path(path)
    if target.exists():
        if not target.is_dir():
            raise InvalidInput(option, str(path), "exists and is not a folder")
        if not os.access(target, os.W_OK | os.X_OK):
            raise InvalidInput(option, str(path), "is not writable")
        return
    parent = target.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise InvalidInput(option, str(path), f"cannot be created: {str(parent)!r} is not a "
                                              "writable folder")
