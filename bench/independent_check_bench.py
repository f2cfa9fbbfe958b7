"""Cost of the independent check of every committed World step (claims C4, C1, B5, W1, O2, V1,
T4) relative to the step itself, on the shipped examples and on a larger ring crowd.

For every scenario: the run's wall-clock seconds in ``World.step`` (assertions off) and in
``check_world_step`` after each step (CPU time of this process, ``time.process_time``, so other
load on the machine counts less), the overhead in percent, and the steps the check refuted a
safe label on. Numbers only; nothing is asserted.

Usage: ``python bench/independent_check_bench.py [--steps 300] [--ring 200]``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from navproof.scenario import load_scenario
from navproof.world.independent_check import check_world_step

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
RING = """
[scenario]
name = "ring-{n}"
[agent_defaults]
radius_m = 0.4
max_speed_mps = 1.5
neighbor_dist_m = 4.0
[[rings]]
count = {n}
center = [0.0, 0.0]
ring_radius_m = {r}
"""


def measure(path: Path, steps: int) -> dict[str, object]:
    scenario = load_scenario(path, assertions=False)
    world = scenario.world
    step_s = check_s = 0.0
    lies = 0
    done = 0
    with world:
        for _ in range(min(steps, scenario.steps)):
            t0 = time.process_time()
            step = world.step()
            t1 = time.process_time()
            truth = check_world_step(world, step)
            t2 = time.process_time()
            step_s += t1 - t0
            check_s += t2 - t1
            lies += int(np.count_nonzero(truth.lying))
            done += 1
    return {"scenario": scenario.name, "agents": world.count, "steps": done,
            "step_ms": round(1e3 * step_s / done, 3), "check_ms": round(1e3 * check_s / done, 3),
            "overhead_percent": round(100.0 * check_s / step_s, 1), "lying_agent_steps": lies}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--ring", type=int, default=200, help="agents of the ring crowd (0: none)")
    args = parser.parse_args()
    rows = [measure(p, args.steps) for p in sorted(EXAMPLES.glob("*.toml"))]
    if args.ring:
        with tempfile.TemporaryDirectory() as tmp:
            ring = Path(tmp) / "ring.toml"
            ring.write_text(RING.format(n=args.ring, r=max(10.0, 0.25 * args.ring)))
            rows.append(measure(ring, args.steps))
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
