"""Digest of every step of the shipped World scenarios, to show that a change kept behaviour.

For each scenario in ``examples/`` that is a World scenario, every step's positions, velocities,
labels, flags and clearances (the World's own, bit for bit) are hashed in order; the output is
one line per scenario, ``name steps sha256``, and optionally a JSON file of the same. Run it on
two trees and compare: identical digests mean identical labels, margins and positions.

``--truth`` (with ``--assertions``) hashes the independent check's verdict of every step too
(every array of its ``StepTruth``). ``--bench-worlds N ...`` adds the corridor World of
``bench/world_bench.py`` at those sizes (``bench-world-N``, 5 steps); ``--safe-step N ...``
adds every array of :func:`navproof.step.solve_safe_step`'s result on the dense disc of
``bench/safe_step_bench.py`` (``safe-step-N``, one call).

Usage: ``python tools/step_digest.py [--steps N] [--assertions [--truth]]
[--bench-worlds N ...] [--safe-step N ...] [--json OUT] [FILE ...]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BENCH_WORLD_STEPS = 5


def _hash_arrays(h: Any, *arrays: np.ndarray) -> None:
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())


def _hash_fields(h: Any, value: Any) -> None:
    """Every array (and scalar) of a result dataclass, nested ones included, in field order."""
    if dataclasses.is_dataclass(value):
        for field in dataclasses.fields(value):
            _hash_fields(h, getattr(value, field.name))
    elif isinstance(value, np.ndarray):
        _hash_arrays(h, value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _hash_fields(h, item)
    else:
        h.update(repr(value).encode())


def _run(world: Any, total: int, truth: bool) -> tuple[int, str]:
    """(steps run, sha256 of the per-step state) of ``world``, closed afterwards."""
    h = hashlib.sha256()
    done = 0
    try:
        while done < total:
            result = world.step()
            done += 1
            _hash_arrays(h, world.position_m, world.velocity_mps, result.label, result.flags,
                         result.velocity_mps, result.agent_clearance_m,
                         result.wall_clearance_m, result.preferred_mps)
            if truth:
                _hash_fields(h, result.truth)
    finally:
        world.close()
    return done, h.hexdigest()


def digest(path: Path, steps: int | None, assertions: bool, truth: bool = False
           ) -> tuple[int, str]:
    """(steps run, sha256 of the per-step state) of one World scenario."""
    from navproof.scenario import load_scenario

    scenario = load_scenario(path, assertions=assertions)
    total = scenario.steps if steps is None else steps
    return _run(scenario.world, total, truth)


def _bench_module(name: str) -> Any:
    sys.path.insert(0, str(ROOT / "bench"))
    return __import__(name)


def bench_world_digest(n: int, assertions: bool, truth: bool) -> tuple[int, str]:
    """(steps, sha256) of the corridor World of ``bench/world_bench.py`` with ``n`` agents."""
    world = _bench_module("world_bench").build(n, assertions=assertions)
    return _run(world, BENCH_WORLD_STEPS, truth)


def safe_step_digest(n: int, assertions: bool) -> tuple[int, str]:
    """(1, sha256 of every result array) of the safe step of ``bench/safe_step_bench.py``."""
    from navproof.specs.profile import load_profile
    from navproof.step import solve_safe_step

    bench = _bench_module("safe_step_bench")
    inp, _, _ = bench.build(n, load_profile().defaults()["step_s"])
    h = hashlib.sha256()
    _hash_fields(h, solve_safe_step(inp, assertions=assertions))
    return 1, h.hexdigest()


def _is_campaign(path: Path) -> bool:
    """A campaign spec (``[campaign]`` table) is not a World scenario."""
    import tomllib

    return "campaign" in tomllib.loads(path.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--steps", type=int, default=None, help="steps per scenario "
                        "(default: the file's)")
    parser.add_argument("--assertions", action="store_true", help="run with assertion mode on")
    parser.add_argument("--truth", action="store_true", help="hash the independent check's "
                        "verdicts too (needs --assertions)")
    parser.add_argument("--bench-worlds", type=int, nargs="+", default=[], metavar="N",
                        help="also the corridor World of bench/world_bench.py at these sizes")
    parser.add_argument("--safe-step", type=int, nargs="+", default=[], metavar="N",
                        help="also the safe step of bench/safe_step_bench.py at these sizes")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.truth and not args.assertions:
        parser.error("--truth needs --assertions (the check runs in assertion mode)")
    from navproof.scenario import other_kind

    files = args.files or sorted((ROOT / "examples").glob("*.toml"))
    out = {}

    def report(name: str, steps: int, sha: str) -> None:
        out[name] = {"steps": steps, "sha256": sha}
        print(f"{name} {steps} {sha}", flush=True)

    for path in files:
        if other_kind(path) is not None or _is_campaign(path):
            continue
        report(path.name, *digest(path, args.steps, args.assertions, args.truth))
    for n in args.bench_worlds:
        report(f"bench-world-{n}", *bench_world_digest(n, args.assertions, args.truth))
    for n in args.safe_step:
        report(f"safe-step-{n}", *safe_step_digest(n, args.assertions))
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
