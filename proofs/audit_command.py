"""`navproof audit` (placeholder while the command is assembled)."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    print("navproof audit: not implemented yet", file=sys.stderr)
    return 1
