"""The ``navproof`` command line: prove, claims, generate, audit, simulate, explain.

Each sub-command lives in its own module exposing ``add_arguments(parser)`` and ``run(args)``;
this file only dispatches, importing the heavy proof chain only when a command needs it.

Exit codes: 0 as expected, 1 a claim failed, 2 unknown/timeout, 3 bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_UNKNOWN = 2
EXIT_BAD_INPUT = 3

# command name -> (module implementing it, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "claims": ("navproof.cli.claims", "list the claims: where proved, enforced, tested"),
    "generate": ("navproof.proofs.codegen", "regenerate (or --check) the runtime formulas"),
    "simulate": ("navproof.cli.simulate", "run a named scenario and print its timeline"),
    "explain": ("navproof.cli.explain", "show one agent's ORCA velocity space (text/JSON/SVG)"),
    "prove": ("navproof.cli.prove", "prove the claims over a profile's ranges"),
    "audit": ("navproof.cli.audit", "re-prove a candidate profile against a base"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="navproof", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(command_parser)
        command_parser.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage; bad input is 3 here
        return EXIT_BAD_INPUT if exc.code not in (0, None) else EXIT_OK
    return int(args._run(args))


if __name__ == "__main__":
    sys.exit(main())
