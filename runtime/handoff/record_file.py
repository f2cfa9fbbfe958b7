"""The action record's file before SQLite writes to it: where it may be written, what an existing
file is (read-only look, corrupt pages found), and exclusive use by one run (Claim: H7).

Everything here only reads, so a refused file is left exactly as it was. The exclusive use is an
advisory ``flock`` on the record file itself: the kernel releases it when its holder exits, even
by SIGKILL, so a crashed run never leaves a stale lock behind and no lock file is needed.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path

from navproof.handoff.record_schema import RecordError


def sidecars(path: Path) -> list[Path]:
    """The write-ahead log and shared-memory files SQLite keeps beside a WAL-mode database."""
    return [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]


def check_valid_location(path: Path) -> None:
    """RecordError naming the cause when the record cannot be written where it is asked for: a
    WAL-mode record writes ``FILE-wal`` and ``FILE-shm`` beside ``FILE``."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise RecordError("db", str(path), "is a directory, not a record file")
    if not folder.is_dir():
        raise RecordError("db", str(path), f"its folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise RecordError("db", str(path), f"its folder {str(folder)!r} is read-only; the record "
                                           "writes FILE-wal and FILE-shm beside FILE")
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise RecordError("db", str(path), "is read-only (or unreadable); the record is "
                                           "written after every step")


def probe(path: Path) -> tuple[int, int, list[str]]:
    """Application ID, schema version and table names of an existing file, read-only.

    A read-only look at a WAL-mode file can create an empty ``-wal`` and a ``-shm`` (the index
    of that WAL) beside it; when neither existed before and the WAL holds nothing, both are
    removed again, so a refused file is left exactly as it was (with its folder)."""
    wal, shm = sidecars(path)
    created = not wal.exists() and not shm.exists()
    try:
        return _probe_open(path)
    finally:
        if created and (not wal.exists() or wal.stat().st_size == 0):
            for extra in (wal, shm):
                extra.unlink(missing_ok=True)


def _probe_open(path: Path) -> tuple[int, int, list[str]]:
    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise RecordError("db", str(path), f"cannot be opened: {exc}; nothing was changed") from exc
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = [
            row[0]
            for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        return int(app_id), int(version), tables
    except sqlite3.DatabaseError as exc:
        what = "is corrupt" if "malformed" in str(exc) else "is not a SQLite database"
        raise RecordError("db", str(path), f"{what} ({exc}); nothing was changed") from exc
    finally:
        conn.close()



def lock_exclusive(path: Path) -> int:
    """Take the record for this process alone and return the lock's file descriptor (closing it
    releases the lock). RecordError naming the running holder when another run has it: two runs
    moving one world would each act on a state the other changes."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise RecordError(
            "db", str(path), f"is in use by another run{_holder(path)}; only one run may move "
            "its world at a time. Wait for it to end (or stop it), then --resume; nothing was "
            "changed",
        ) from None
    except OSError as exc:
        os.close(fd)
        raise RecordError("db", str(path), f"cannot be locked for this run: {exc}") from None
    return fd


def _holder(path: Path) -> str:
    """`` (pid N)`` of the newest run in the record, when it can be read."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=1.0)
        try:
            row = conn.execute("SELECT pid FROM runs ORDER BY run_epoch DESC LIMIT 1").fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return ""
    return f" (pid {row[0]})" if row else ""


def check_pages(conn: sqlite3.Connection, path: Path) -> None:
    """RecordError when SQLite's quick check finds corrupt pages: found before the run writes,
    not in the middle of it."""
    try:
        problems = [str(row[0]) for row in conn.execute("PRAGMA quick_check(3)")]
    except sqlite3.DatabaseError as exc:
        problems = [str(exc)]
    if problems != ["ok"]:
        found = "; ".join(" ".join(p.split()) for p in problems)
        raise RecordError("db", str(path), f"is corrupt (--db record; SQLite quick_check: "
                                           f"{found}); nothing was changed")
