"""Digest of every step of the shipped World scenarios, to show that a change kept behaviour.

For each scenario in ``examples/`` that is a World scenario, every step's positions, velocities,
labels, flags and clearances (the World's own, bit for bit) are hashed in order; the output is
one line per scenario, ``name steps sha256``, and optionally a JSON file of the same. Run it on
two trees and compare: identical digests mean identical labels, margins and positions.

Usage: ``python tools/step_digest.py [--steps N] [--assertions] [--json OUT] [FILE ...]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _hash_arrays(h: Any, *arrays: np.ndarray) -> None:
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())


def digest(path: Path, steps: int | None, assertions: bool) -> tuple[int, str]:
    """(steps run, sha256 of the per-step state) of one World scenario."""
    from navproof.scenario import load_scenario

    scenario = load_scenario(path, assertions=assertions)
    world = scenario.world
    total = scenario.steps if steps is None else steps
    h = hashlib.sha256()
    done = 0
    try:
        while done < total:
            result = world.step()
            done += 1
            _hash_arrays(h, world.position_m, world.velocity_mps, result.label, result.flags,
                         result.velocity_mps, result.agent_clearance_m,
                         result.wall_clearance_m, result.preferred_mps)
    finally:
        world.close()
    return done, h.hexdigest()


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
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    from navproof.scenario import other_kind

    files = args.files or sorted((ROOT / "examples").glob("*.toml"))
    out = {}
    for path in files:
        if other_kind(path) is not None or _is_campaign(path):
            continue
        steps, sha = digest(path, args.steps, args.assertions)
        out[path.name] = {"steps": steps, "sha256": sha}
        print(f"{path.name} {steps} {sha}", flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
