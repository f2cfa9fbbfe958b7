"""The one exit-code table of every ``navproof`` command (and of :func:`navproof.cli.main`).

* 0 every claim as expected;
* 1 a claim failed (a refuted proof obligation, a violated run-time obligation, a scenario that
  ended outside its claim) -- and nothing else ever exits 1;
* 2 a proof was unknown or out of its budget;
* 3 bad input (usage, files, values): one line on stderr naming what was wrong;
* 4 an unexpected internal error: one line on stderr, the traceback only with ``--debug``;
* 130 interrupted (Ctrl-C).

It lives in the library because the proof report (:mod:`navproof.proofs.report`) maps its
verdicts onto it; the command line only re-exports it.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit status of a ``navproof`` command."""

    OK = 0
    FAILED = 1
    UNKNOWN = 2
    BAD_INPUT = 3
    INTERNAL = 4
    INTERRUPTED = 130
    """Ctrl-C: the shell's convention (128 + SIGINT), never mistaken for a verdict."""


EXIT_OK = int(ExitCode.OK)
EXIT_FAILED = int(ExitCode.FAILED)
EXIT_UNKNOWN = int(ExitCode.UNKNOWN)
EXIT_BAD_INPUT = int(ExitCode.BAD_INPUT)
EXIT_INTERNAL = int(ExitCode.INTERNAL)
EXIT_INTERRUPTED = int(ExitCode.INTERRUPTED)

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILED", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_OK",
           "EXIT_UNKNOWN", "ExitCode"]
