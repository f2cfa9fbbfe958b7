"""The ``navproof`` command line: prove, claims, generate, audit, simulate, explain.

Each sub-command lives in its own module exposing ``add_arguments(parser)`` and ``run(args)``;
this file only dispatches. It imports the module of the one command being run and nothing else,
so ``navproof --help``, ``simulate``, ``explain`` and ``claims`` never load sympy or z3.

Exit codes (every command; the table is :mod:`navproof.core.exit_codes`):

* 0 every claim as expected;
* 1 a claim failed (a refuted proof obligation, a violated run-time obligation, a scenario that
  ended outside its claim) -- and nothing else ever exits 1;
* 2 a proof was unknown or out of its budget;
* 3 bad input (usage, files, values): one line on stderr naming what was wrong;
* 4 an unexpected internal error: one line on stderr, the traceback only with ``--debug``.

A reader that goes away (``navproof simulate FILE --assert | head -1``) or a stdout closed before
the start (``>&-``) is not an error: the rest of the output goes nowhere, the command runs to its
end and exits with its verdict.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
import traceback
from typing import Any

from navproof.core.exit_codes import (  # the one table (re-exported: navproof.cli.EXIT_*)
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNKNOWN,
)

__all__ = ["COMMANDS", "EXIT_BAD_INPUT", "EXIT_FAILED", "EXIT_INTERNAL", "EXIT_INTERRUPTED",
           "EXIT_OK", "EXIT_UNKNOWN", "build_parser", "main"]

# command name -> (module implementing it, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "claims": ("navproof.cli.claims", "list the claims: where proved, enforced, tested"),
    "generate": ("navproof.proofs.codegen", "regenerate (or --check) the runtime formulas"),
    "simulate": ("navproof.cli.simulate", "run a named scenario and print its timeline"),
    "explain": ("navproof.cli.explain", "show one agent's ORCA velocity space (text/JSON/SVG)"),
    "prove": ("navproof.cli.prove", "prove the claims over a profile's ranges"),
    "audit": ("navproof.cli.audit", "re-prove a candidate profile against a base"),
    "campaign": ("navproof.cli.campaign", "search many scenarios for a safe label that lies"),
}

_EPILOG = ("exit codes: 0 every claim as expected, 1 a claim failed, 2 a proof unknown or out of "
           "budget, 3 bad input, 4 internal error (rerun with --debug for the traceback)")


def _command_of(argv: list[str]) -> str | None:
    """The sub-command named on the command line (the first word that is not an option)."""
    for word in argv:
        if not word.startswith("-"):
            return word
    return None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; only ``command``'s module is imported to declare its options."""
    parser = argparse.ArgumentParser(prog="navproof", description=__doc__.splitlines()[0],
                                     epilog=_EPILOG)
    parser.add_argument("--debug", action="store_true",
                        help="print the traceback of an internal error (exit code 4)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text, description=help_text,
                                        epilog=_EPILOG)
        if name == command:
            module = importlib.import_module(module_name)
            module.add_arguments(command_parser)
            command_parser.set_defaults(_run=module.run)
    return parser


def _quiet_broken_pipe(stream: Any = None) -> None:
    """The reader went away (``navproof claims | head``): stop writing, say nothing."""
    try:
        # further writes (and the interpreter's final flush) go nowhere instead of raising
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, (stream if stream is not None else sys.stdout).fileno())
    except (OSError, ValueError, AttributeError):
        pass


class _ReaderSafeStream:
    """A text stream whose writes stop quietly once its reader went away (a closed pipe): the
    command runs to its end and its exit code stays its verdict (``simulate --assert | head``
    still exits 1 on a missed expectation), instead of a traceback or a verdict lost."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.reader_gone = False

    def _gone_or_raise(self, exc: OSError) -> None:
        # the reader went away (EPIPE) or the descriptor was closed (EBADF); else a real error
        if exc.errno not in (errno.EPIPE, errno.EBADF):
            raise exc
        self.reader_gone = True
        _quiet_broken_pipe(self._stream)

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                return int(self._stream.write(text))
            except OSError as exc:
                self._gone_or_raise(exc)
        return len(text)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self._stream.flush()
            except OSError as exc:
                self._gone_or_raise(exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _guarded_streams() -> tuple[Any, Any]:
    """Install reader-safe stdout and stderr (a stream closed before the start, ``>&-``,
    writes to the null device); returns the streams they replace, to put back."""
    saved = (sys.stdout, sys.stderr)
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            stream = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as sys.*
        setattr(sys, name, _ReaderSafeStream(stream))
    return saved


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns its exit code (see the module docstring)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # --debug is accepted anywhere on the line, before or after the command's own options
    debug = "--debug" in argv
    argv = [word for word in argv if word != "--debug"]
    # a NUL byte names no file and no value (the system refuses such a path): bad input, named
    nul = next((word for word in argv if "\x00" in word), None)
    if nul is not None:
        print(f"navproof: bad input: argument {nul!r} contains a NUL byte, which no file name "
              "or value may hold", file=sys.stderr)
        return EXIT_BAD_INPUT
    parser = build_parser(_command_of(argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage; bad input is 3 here
        return EXIT_BAD_INPUT if exc.code not in (0, None) else EXIT_OK
    saved = _guarded_streams()
    try:
        code = int(args._run(args))
        # flushed here, not at interpreter exit, so that a closed pipe is handled here
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # a write the guard did not see (a stream held from before it was installed)
        _quiet_broken_pipe()
        return EXIT_OK
    except KeyboardInterrupt:
        print("navproof: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - the one place that turns a crash into exit 4
        if debug:
            traceback.print_exc()
        where = f"navproof {args.command}"
        print(f"{where}: internal error: {type(exc).__name__}: {exc} "
              f"(exit {EXIT_INTERNAL}; rerun with --debug for the traceback)", file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        sys.stdout, sys.stderr = saved


if __name__ == "__main__":
    sys.exit(main())
