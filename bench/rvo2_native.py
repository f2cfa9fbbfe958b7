"""The C++ RVO2 library built natively, twice: -O3, and -O3 with link-time optimisation.

pyrvo (the reference the parity tests use) is a wheel whose ``do_step`` is 2.2-2.5x slower
than the same sources built here with -O3 (0.72 against 0.29 ms for the 1k circle, 14.9
against 6.8 ms at 20k, one run); a speed comparison must use a release build. This module
compiles RVO2's sources (pyrvo's bundled copy, or ``--rvo2-src``) with the system's C++
compiler together with ``rvo2_native/step_server.cc``, a small driver that times each
``doStep()`` inside its own process (one thread: RVO2's OpenMP loop is not enabled), and
serves steps on request so that a benchmark can alternate rounds between navproof and RVO2.

Builds are cached under ``build/rvo2_native/<flags digest>/`` at the repository root.

Usage: ``python bench/rvo2_native.py [--sizes 1000 20000] [--scenario circle] [--rounds 5]``
prints ms per step of both builds beside navproof's crowd step, alternating rounds.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import orca_bench  # noqa: E402  isort: skip

BUILDS = {"-O3": ["-O3"], "-O3 + LTO": ["-O3", "-flto"]}
"""The two builds: their names in tables and their compiler flags."""

LIBRARY_SOURCES = ("Agent.cc", "KdTree.cc", "Line.cc", "Obstacle.cc", "RVOSimulator.cc",
                   "Vector2.cc")
"""RVO2's translation units (the export header is written here: a static build exports
nothing)."""


def bundled_source() -> Path | None:
    """The RVO2 sources pyrvo ships beside its extension, if pyrvo is installed."""
    spec = importlib.util.find_spec("pyrvo")
    if spec is None or not spec.submodule_search_locations:
        return None
    src = Path(next(iter(spec.submodule_search_locations))) / "src"
    return src if (src / "RVOSimulator.cc").is_file() else None


def compiler() -> str | None:
    """The C++ compiler on the path (``c++``, ``g++`` or ``clang++``), if any."""
    for name in ("c++", "g++", "clang++"):
        path = shutil.which(name)
        if path:
            return path
    return None


def build(flags: list[str], source: Path, out_root: Path) -> Path:
    """The step server built with ``flags`` (cached by the digest of flags and sources)."""
    cxx = compiler()
    if cxx is None:
        raise RuntimeError("no C++ compiler (c++, g++ or clang++) on the path")
    files = [source / name for name in LIBRARY_SOURCES] + [HERE / "rvo2_native" /
                                                           "step_server.cc"]
    digest = hashlib.sha256(" ".join([cxx, *flags]).encode())
    for path in files:
        digest.update(path.read_bytes())
    folder = out_root / digest.hexdigest()[:16]
    exe = folder / "step_server"
    if exe.is_file():
        return exe
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Export.h").write_text("#define RVO_EXPORT\n", encoding="utf-8")
    command = [cxx, "-std=c++11", "-DNDEBUG", *flags, f"-I{folder}", f"-I{source}",
               *map(str, files), "-o", str(exe)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"building RVO2 with {' '.join(flags)} failed:\n{done.stderr}")
    return exe


class NativeSide:
    """The agents of an ``orca_bench`` scenario in one natively built RVO2 process."""

    def __init__(self, exe: Path, scenario: str, n: int) -> None:
        d = orca_bench.DEFAULTS
        pos = orca_bench.positions(scenario, n)
        self.proc = subprocess.Popen([str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        head = (f"{orca_bench.TIME_STEP_S} {d.neighbor_dist_m} {d.max_neighbors} "
                f"{d.time_horizon_s} {d.time_horizon_obst_s} {d.radius_m} {d.max_speed_mps} "
                f"{n}\n")
        body = "\n".join(f"{x!r} {y!r}" for x, y in np.concatenate([pos, -pos]).tolist())
        self._send(head + body + "\n")

    def _send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def steps(self, count: int) -> list[float]:
        """Wall seconds of each of ``count`` steps, measured inside the process."""
        self._send(f"{count}\n")
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the RVO2 step server ended (exit {self.proc.wait()})")
        return [float(v) for v in line.split()]

    def close(self) -> None:
        self._send("0\n")
        self.proc.wait(timeout=30)


def native_sides(scenario: str, n: int, source: Path, out_root: Path) -> dict[str, NativeSide]:
    """One step server per build of :data:`BUILDS`."""
    return {name: NativeSide(build(flags, source, out_root), scenario, n)
            for name, flags in BUILDS.items()}


def compare(scenario: str, n: int, rounds: int, source: Path, out_root: Path) -> dict:
    """Fastest ms per step of navproof's crowd and of each native build, rounds alternating."""
    ours = orca_bench.NavproofSide(scenario, n)
    natives = native_sides(scenario, n, source, out_root)
    best = {"navproof": np.inf, **{name: np.inf for name in natives}}
    try:
        ours.prepare()
        ours.step()
        for side in natives.values():
            side.steps(1)
        for _ in range(rounds):
            ours.prepare()
            t0 = time.perf_counter()
            ours.step()
            best["navproof"] = min(best["navproof"], time.perf_counter() - t0)
            for name, side in natives.items():
                best[name] = min(best[name], *side.steps(1))
    finally:
        for side in natives.values():
            side.close()
    row = {"scenario": scenario, "agents": n, **{f"{k} ms": v * 1e3 for k, v in best.items()}}
    for name in natives:
        row[f"navproof / {name}"] = best["navproof"] / best[name]
    return row


def repository_build_folder() -> Path:
    """``build/rvo2_native`` at the repository root."""
    return HERE.parent / "build" / "rvo2_native"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--scenario", choices=["circle", "disc"], default="circle")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rvo2-src", type=Path, help="RVO2's src folder (default: pyrvo's)")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    source = args.rvo2_src or bundled_source()
    if source is None:
        print("no RVO2 sources: install pyrvo or give --rvo2-src", file=sys.stderr)
        return 2
    if compiler() is None:
        print("no C++ compiler (c++, g++ or clang++) on the path", file=sys.stderr)
        return 2
    rows = []
    for n in args.sizes:
        row = compare(args.scenario, n, args.rounds, source, repository_build_folder())
        rows.append(row)
        print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                       for k, v in row.items()), flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
