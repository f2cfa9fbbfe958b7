"""Cold start: seconds from a fresh interpreter to the end of the first crowd step.

Three cases, each in fresh processes (fastest of ``--repeat``, wall and CPU seconds: on a
loaded machine the CPU seconds are the steadier measure): ``import navproof`` alone;
import plus a first step of 1000 agents with the compiled loops loaded from the on-disk cache
(the usual case after the first run); and the same with an empty cache folder
(``NUMBA_CACHE_DIR``), i.e. compiling the loops, as on the very first run of an install. pyrvo
(import plus its first step of the same crowd) is shown beside them.

Usage: ``python bench/cold_start_bench.py [--repeat 3] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

FIRST_STEP = (
    "import sys; sys.path.insert(0, {here!r})\n"
    "from orca_bench import {side}\n"
    "s = {side}('disc', 1000); s.prepare(); s.step()\n"
)


def _run(code: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one fresh process running ``code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", default="cold_start_bench.json")
    args = parser.parse_args(argv)
    base = dict(os.environ)
    base.pop("NUMBA_CACHE_DIR", None)
    ours = FIRST_STEP.format(here=str(HERE), side="NavproofSide")
    theirs = FIRST_STEP.format(here=str(HERE), side="PyrvoSide")
    _run(ours, base)  # fills the on-disk cache
    rows = {}
    cases = {"import navproof": ("import navproof", False),
             "first step, cached loops": (ours, False),
             "first step, compiling loops": (ours, True),
             "pyrvo first step": (theirs, False)}
    for name, (code, cold) in cases.items():
        walls, cpus = [], []
        for _ in range(args.repeat):
            env = dict(base)
            with tempfile.TemporaryDirectory() as empty:
                if cold:
                    env["NUMBA_CACHE_DIR"] = empty
                wall, cpu = _run(code, env)
            walls.append(wall)
            cpus.append(cpu)
        rows[name] = {"wall_s": min(walls), "cpu_s": min(cpus)}
        print(f"{name:<30} {min(walls):7.2f} s wall {min(cpus):7.2f} s cpu", flush=True)
    with open(args.json, "w", encoding="utf-8") as fh:
        json.dump(rows, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
