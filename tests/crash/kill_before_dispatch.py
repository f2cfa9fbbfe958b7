"""Run the pq-handoff scenario and SIGKILL this process between the durable registration of
its N-th access attempt and that attempt's dispatch (H7).

The kill is injected through the controller's ``on_dispatch`` callback; the count is kept here,
per process, so the runtime carries no test hook. Usage:
``python kill_before_dispatch.py --db FILE --nth N [--resume]``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from navproof.demos.pq_handoff.run import run_pq_handoff


def kill_on_nth_dispatch(nth: int):
    """A callback that SIGKILLs its own process on its ``nth`` call (1-based)."""
    calls = 0

    def on_dispatch(attempt_no: int) -> None:
        nonlocal calls
        calls += 1
        if calls == nth:
            sys.stdout.write(f"-- kill before dispatching attempt {attempt_no}: SIGKILL\n")
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGKILL)

    return on_dispatch


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--nth", type=int, default=1)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args(argv)
    result = run_pq_handoff(db_path=Path(args.db), resume=args.resume,
                            on_dispatch=kill_on_nth_dispatch(args.nth))
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
