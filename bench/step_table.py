"""One table of the step costs the project tracks: the World, the combined safe step and the ORCA
crowd, each with and without assertion mode, at 1k and 20k agents, plus the World's peak memory
per agent at 100k (and more, where asked).

Rows (each timing is the fastest of ``--rounds`` rounds in which the variants of the row
alternate, so that load from other processes hits them alike; a World advances one step per
call, from the same state for its two variants):

* ``world``: :meth:`navproof.world.World.step` of the corridor of ``world_bench.py`` against
  the ORCA-only :meth:`navproof.orca.crowd.Crowd.step` of the same agents (``crowd ms``), while
  the two blocks still walk towards each other (after three steps);
* ``meeting``: the same, after ``MEETING_STEPS`` World steps, when the blocks have met head-on
  (their fronts meet after about 8 s): most agents have neighbours within reach, and the
  safe step's verification rejects many closest velocities and searches further;
* ``safe step``: :func:`navproof.step.solve_safe_step` of the dense disc of
  ``safe_step_bench.py`` against that crowd's ``compute_new_velocities``;
* ``crowd``: :meth:`navproof.orca.crowd.Crowd.step` of the dense disc of ``orca_bench.py``;
* ``circle``: :meth:`navproof.orca.crowd.Crowd.step` of the circle of ``orca_bench.py``
  against the C++ RVO2 library's ``doStep`` of the same agents, built natively with -O3 and
  link-time optimisation (``rvo2_native.py``; the -O3 build is printed below the row; the
  row is left out without RVO2's sources or a C++ compiler). Only the steps are timed:
  preferred velocities are set outside the clock on both sides.

Columns: ms per step, ms with assertions, agent-steps per second (without assertions), the
reference step (``ref ms``: the row's ORCA-only crowd step, RVO2's -O3 + LTO build for the
circle row), the ratio to it and the assertion overhead. Memory: peak resident bytes per
agent of a World of N agents built and stepped twice in a fresh process, one process per
size, and the spread (largest / smallest bytes per agent) when several sizes are measured.

``--cpus K`` runs everything (RVO2's processes and the memory children too) on the first K
CPUs this process may use: with ``--cpus 1`` a step's time is the work it does on one core, so
the assertion column then gives the work assertion mode adds, which the cores of the machine can
at best share out.

Usage: ``python bench/step_table.py [--sizes 1000 20000] [--rounds 5] [--memory 100000]
[--cpus K] [--json OUT]`` (``--memory 20000 100000 1000000`` for the flatness check; the 1M
World takes minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

import orca_bench  # noqa: E402  isort: skip
import rvo2_native  # noqa: E402  isort: skip
import safe_step_bench  # noqa: E402  isort: skip
import world_bench  # noqa: E402  isort: skip


def fastest(variants: list[Callable[[], None]], rounds: int) -> list[float]:
    """Fastest wall seconds of each variant over ``rounds`` interleaved rounds (one call each
    per round, after one untimed warm-up call)."""
    for fn in variants:
        fn()
    best = [np.inf] * len(variants)
    for _ in range(rounds):
        for k, fn in enumerate(variants):
            t0 = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


MEETING_STEPS = 120
"""World steps (of 0.1 s) before the ``meeting`` row is timed: 4 s after the fronts meet."""


def world_row(n: int, rounds: int, *, warm_steps: int = 3, name: str = "world") -> dict:
    world = world_bench.build(n, assertions=False)
    for _ in range(warm_steps):
        world.step()
    crowd = world_bench.orca_crowd(world)

    def plain() -> None:
        world.assertions = False
        world.step()

    def checked() -> None:
        world.assertions = True
        world.step()

    crowd_s, plain_s, checked_s = fastest([crowd.step, plain, checked], rounds)
    count = world.count
    world.close()
    return {"row": name, "agents": count, "crowd_ms": crowd_s * 1e3, "ms": plain_s * 1e3,
            "assert_ms": checked_s * 1e3}


def meeting_row(n: int, rounds: int) -> dict:
    return world_row(n, rounds, warm_steps=MEETING_STEPS, name="meeting")


def safe_step_row(n: int, rounds: int) -> dict:
    from navproof import step as ss
    from navproof.specs.profile import load_profile

    inp, _, crowd = safe_step_bench.build(n, load_profile().defaults()["step_s"])
    crowd_s, plain_s, checked_s = fastest(
        [crowd.compute_new_velocities, lambda: ss.solve_safe_step(inp, assertions=False),
         lambda: ss.solve_safe_step(inp, assertions=True)], rounds)
    return {"row": "safe step", "agents": n, "crowd_ms": crowd_s * 1e3, "ms": plain_s * 1e3,
            "assert_ms": checked_s * 1e3}


def crowd_row(n: int, rounds: int) -> dict:
    sides = [orca_bench.NavproofSide("disc", n, assertions=a) for a in (False, True)]

    def stepper(side: orca_bench.NavproofSide) -> Callable[[], None]:
        def run() -> None:
            side.prepare()
            side.step()
        return run

    plain_s, checked_s = fastest([stepper(s) for s in sides], rounds)
    return {"row": "crowd", "agents": n, "crowd_ms": plain_s * 1e3, "ms": plain_s * 1e3,
            "assert_ms": checked_s * 1e3}


def circle_row(n: int, rounds: int) -> dict:
    sides = [orca_bench.NavproofSide("circle", n, assertions=a) for a in (False, True)]
    source = rvo2_native.bundled_source()
    assert source is not None
    natives = rvo2_native.native_sides("circle", n, source, rvo2_native.repository_build_folder())
    try:
        best = {name: np.inf for name in ("plain", "checked", *natives)}
        for k in range(rounds + 1):
            for name, side in zip(("plain", "checked"), sides, strict=True):
                side.prepare()
                t0 = time.perf_counter()
                side.step()
                if k:
                    best[name] = min(best[name], time.perf_counter() - t0)
            for name, native in natives.items():
                took = native.steps(1)
                if k:
                    best[name] = min(best[name], *took)
    finally:
        for native in natives.values():
            native.close()
    return {"row": "circle", "agents": n, "crowd_ms": best["-O3 + LTO"] * 1e3,
            "rvo2_o3_ms": best["-O3"] * 1e3, "ms": best["plain"] * 1e3,
            "assert_ms": best["checked"] * 1e3}


def memory_child(n: int) -> dict:
    """Peak resident bytes per agent of a World of ``n`` agents (this process)."""
    warm = world_bench.build(100, assertions=False)
    warm.step()
    warm.close()
    del warm
    Path("/proc/self/clear_refs").write_text("5")
    before = _status_kib("VmRSS")
    world = world_bench.build(n, assertions=False)
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        world.step()
        times.append(time.perf_counter() - t0)
    peak = _status_kib("VmHWM")
    return {"agents": world.count, "bytes_per_agent": (peak - before) * 1024.0 / world.count,
            "s_per_step": min(times)}


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


ROWS = ("world", "meeting", "safe step", "crowd", "circle")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rows", nargs="+", choices=ROWS, default=list(ROWS))
    parser.add_argument("--memory", type=int, nargs="*", default=[100000])
    parser.add_argument("--cpus", type=int)
    parser.add_argument("--json")
    parser.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cpus is not None:
        usable = sorted(os.sched_getaffinity(0))
        if not 1 <= args.cpus <= len(usable):
            parser.error(f"--cpus {args.cpus}: must be from 1 to the {len(usable)} CPUs this "
                         "process may use")
        os.sched_setaffinity(0, usable[:args.cpus])
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_child)))
        return 0
    builders = {"world": world_row, "meeting": meeting_row, "safe step": safe_step_row,
                "crowd": crowd_row, "circle": circle_row}
    if "circle" in args.rows and (rvo2_native.bundled_source() is None
                                  or rvo2_native.compiler() is None):
        print("circle row left out: it needs RVO2's sources (pyrvo) and a C++ compiler")
        args.rows = [name for name in args.rows if name != "circle"]
    rows = []
    cpus = len(os.sched_getaffinity(0))
    print(f"on {cpus} CPU{'s' if cpus > 1 else ''}", flush=True)
    print(f"{'row':<10} {'agents':>7} {'ms':>9} {'+assert ms':>11} {'agent-steps/s':>14} "
          f"{'ref ms':>9} {'/ ref':>8} {'assert +%':>10}", flush=True)
    for name in args.rows:
        for n in args.sizes:
            row = builders[name](n, args.rounds)
            row["agent_steps_per_s"] = row["agents"] / (row["ms"] * 1e-3)
            row["assert_agent_steps_per_s"] = row["agents"] / (row["assert_ms"] * 1e-3)
            row["ratio_to_crowd"] = row["ms"] / row["crowd_ms"]
            row["assert_overhead_pct"] = 100.0 * (row["assert_ms"] / row["ms"] - 1.0)
            rows.append(row)
            print(f"{name:<10} {row['agents']:>7} {row['ms']:>9.2f} {row['assert_ms']:>11.2f} "
                  f"{row['agent_steps_per_s']:>14.0f} {row['crowd_ms']:>9.2f} "
                  f"{row['ratio_to_crowd']:>8.2f} {row['assert_overhead_pct']:>10.0f}",
                  flush=True)
            if "rvo2_o3_ms" in row:
                print(f"{'':<10} {'':>7} RVO2 -O3 (no LTO): {row['rvo2_o3_ms']:.2f} ms, "
                      f"/ ref {row['ms'] / row['rvo2_o3_ms']:.2f}", flush=True)
    memory = []
    for n in args.memory:
        out = subprocess.run([sys.executable, __file__, "--memory-child", str(n)],
                             capture_output=True, text=True, check=True)
        mem = json.loads(out.stdout.splitlines()[-1])
        memory.append(mem)
        print(f"world memory at {mem['agents']} agents: {mem['bytes_per_agent']:.0f} bytes per "
              f"agent (peak resident), {mem['s_per_step']:.2f} s per step", flush=True)
    if len(memory) > 1:
        per_agent = [mem["bytes_per_agent"] for mem in memory]
        print(f"world memory per agent from {memory[0]['agents']} to {memory[-1]['agents']} "
              f"agents: largest / smallest {max(per_agent) / min(per_agent):.2f}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"cpus": cpus, "rows": rows, "memory": memory}, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
