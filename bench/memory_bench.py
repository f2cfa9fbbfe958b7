"""Peak resident memory per agent of a crowd step, navproof beside pyrvo, 20k to 1M agents.

Each (simulator, N) runs in a fresh process: imports and a 100-agent warm-up step (which
compiles or loads the compiled loops) come first; then the peak-resident counter of Linux is
reset (``/proc/self/clear_refs``), the crowd of the disc scenario of ``orca_bench.py`` is built
and stepped twice. Reported: (peak resident - resident before building) / N, in bytes per
agent, and the seconds per step of that run (one run: a memory row, not a timing row).

Usage: ``python bench/memory_bench.py [--sizes 20000 100000 1000000] [--json out.json]``.
Linux only (reads ``/proc/self/status``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def child(side_name: str, n: int) -> dict:
    """Build and step one crowd in this process; returns the measurements."""
    sys.path.insert(0, str(HERE))
    from orca_bench import NavproofSide, PyrvoSide

    make = NavproofSide if side_name == "navproof" else PyrvoSide
    warm = make("disc", 100)
    warm.prepare()
    warm.step()
    del warm
    Path("/proc/self/clear_refs").write_text("5")
    before = _status_kib("VmRSS")
    side = make("disc", n)
    times = []
    for _ in range(2):
        side.prepare()
        t0 = time.perf_counter()
        side.step()
        times.append(time.perf_counter() - t0)
    peak = _status_kib("VmHWM")
    return {"side": side_name, "n": n, "rss_before_kib": before, "peak_kib": peak,
            "bytes_per_agent": (peak - before) * 1024.0 / n, "s_per_step": min(times)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20000, 100000, 1000000])
    parser.add_argument("--sides", nargs="+", default=["navproof", "pyrvo"])
    parser.add_argument("--json", default="memory_bench.json")
    parser.add_argument("--child", nargs=2, metavar=("SIDE", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]))))
        return 0
    rows = []
    print(f"{'simulator':<9} {'N':>8} {'peak MiB':>9} {'bytes/agent':>12} {'s/step':>8}")
    for n in args.sizes:
        for side in args.sides:
            out = subprocess.run([sys.executable, __file__, "--child", side, str(n)],
                                 capture_output=True, text=True, check=True)
            row = json.loads(out.stdout.splitlines()[-1])
            rows.append(row)
            print(f"{side:<9} {n:>8} {row['peak_kib'] / 1024:>9.0f} "
                  f"{row['bytes_per_agent']:>12.0f} {row['s_per_step']:>8.3f}", flush=True)
    with open(args.json, "w", encoding="utf-8") as fh:
        json.dump({"rows": rows}, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
