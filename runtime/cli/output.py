"""Report files written by the commands (``--json``, ``--svg``): an unusable path is bad input.

A path is checked before a command does its work (so a long run is not wasted on a typo) and the
write itself is guarded too (the disk can fill, permissions can change): either way the command
exits 3 with one line naming the option, the path and the reason, never a traceback. Every
command checks all its outputs at once with :func:`check_output_paths`, which also refuses an
output that is one of the command's inputs or another option's output.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TextIO

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


def _same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file: equal once resolved (symlinks, ``..``), or the
    same existing file (a hard link)."""
    pa, pb = Path(a), Path(b)
    if pa.resolve() == pb.resolve():
        return True
    try:
        return pa.exists() and pb.exists() and os.path.samefile(pa, pb)
    except OSError:
        return False


def check_output_paths(outputs: Mapping[str, str | os.PathLike[str] | None], *,
                       inputs: Iterable[str | os.PathLike[str] | None] = (),
                       folders: Iterable[str] = ()) -> None:
    """Check every output of a command before it runs; InvalidInput naming the first bad one.

    ``outputs`` maps each option (``"--json"``) to its path (None: not given); the options in
    ``folders`` name output folders (``--frames``), the others files. An output is refused when
    it cannot be written (see :func:`check_valid_output_path`), when it is one of the
    ``inputs`` (the scenario file, a profile: the run would overwrite what it reads), or when
    two options name the same path (the second write would replace the first). Nothing is
    written or created.
    """
    folder_options = set(folders)
    given = [(option, path) for option, path in outputs.items() if path is not None]
    for option, path in given:
        if option in folder_options:
            check_valid_output_dir(option, path)
        else:
            check_valid_output_path(option, path)
    read = [p for p in inputs if p is not None]
    for option, path in given:
        for source in read:
            if _same_file(path, source):
                raise InvalidInput(option, str(path),
                                   f"is an input of this run ({str(source)!r}); writing it "
                                   "would overwrite it: choose another path")
    for i, (option, path) in enumerate(given):
        for other, other_path in given[:i]:
            if _same_file(path, other_path):
                raise InvalidInput(option, str(path),
                                   f"is also the path of {other}: each output needs its own "
                                   "path")


BAR_WIDTH = 30


class ProgressBar:
    """A one-line progress bar on a text stream, redrawn at most every 1 % of the work:
    ``label [####....] done/total unit``, with the rate and the time left when ``rate`` is set
    (measured from the first call, so a resumed run counts only what it does)."""

    def __init__(self, out: TextIO, label: str, *, unit: str = "steps",
                 rate: bool = False) -> None:
        self.out = out
        self.label = label
        self.unit = unit
        self.rate = rate
        self._shown = -1
        self._first: tuple[int, float] | None = None

    def __call__(self, done: int, total: int) -> None:
        if self._first is None:
            self._first = (done, time.perf_counter())
        percent = 100 * done // max(total, 1)
        if percent == self._shown and done != total:
            return
        self._shown = percent
        filled = BAR_WIDTH * done // max(total, 1)
        text = (f"\r{self.label} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] "
                f"{done}/{total} {self.unit}")
        if self.rate:
            first_done, started = self._first
            per_s = (done - first_done) / max(time.perf_counter() - started, 1e-9)
            eta = f"{(total - done) / per_s:.0f} s" if per_s > 0 else "?"
            text += f" {per_s:.1f} {self.unit}/s ETA {eta}  "
        self.out.write(text)
        self.out.flush()

    def close(self) -> None:
        self.out.write("\n")
        self.out.flush()
