"""Agent-steps per second of the ORCA crowd on the circle and the dense disc.

Scenarios (agent parameters of RVO2's Circle example: neighbour distance 15 m, 10 neighbours,
horizons 10 s / 10 s, radius 1.5 m, max speed 2 m/s, time step 0.25 s):

* circle: N agents on a ring of radius 0.8 * N m, each heading to the antipodal point;
* disc: the N points of a square lattice of spacing 5 m nearest the origin, each heading to
  the antipodal point (the dense case: about 28 agents within every neighbour range).

Usage: ``python bench/orca_bench.py [--sizes 1000 5000 20000 100000] [--json out.json]``.
Prints a table (median and best ms per step, agent-steps per second from the median, assertion
overhead from the best times) and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

from navproof.orca.crowd import AgentDefaults, Crowd

DEFAULTS = AgentDefaults(neighbor_dist=15.0, max_neighbors=10, time_horizon=10.0,
                         time_horizon_obst=10.0, radius=1.5, max_speed=2.0)


def circle_positions(n: int) -> np.ndarray:
    """N points on the ring of radius 0.8 N (m)."""
    angle = 2.0 * np.pi * np.arange(n) / n
    return 0.8 * n * np.stack([np.cos(angle), np.sin(angle)], axis=1)


def disc_positions(n: int, spacing: float = 5.0) -> np.ndarray:
    """The N points of a square lattice (spacing m) nearest the origin."""
    half = int(math.ceil(math.sqrt(n / math.pi))) + 2
    g = np.arange(-half, half + 1) * spacing
    xx, yy = np.meshgrid(g, g)
    pts = np.stack([xx.ravel(), yy.ravel()], axis=1)
    order = np.lexsort((pts[:, 1], pts[:, 0], np.einsum("ij,ij->i", pts, pts)))
    return pts[order[:n]]


def build(scenario: str, n: int, assertions: bool) -> tuple[Crowd, np.ndarray]:
    """A crowd of the scenario with preferred velocities towards the antipodes."""
    pos = circle_positions(n) if scenario == "circle" else disc_positions(n)
    crowd = Crowd(0.25, defaults=DEFAULTS, assertions=assertions)
    crowd.add_agents(pos)
    return crowd, -pos


def set_preferred(crowd: Crowd, goals: np.ndarray) -> None:
    """RVO2 example rule: unit vector to the goal, shorter when within 1 m."""
    vec = goals - crowd.position
    dist = np.hypot(vec[:, 0], vec[:, 1])
    scale = np.where(dist > 1.0, 1.0 / np.maximum(dist, 1e-300), 1.0)
    crowd.set_pref_velocities(vec * scale[:, None])


def time_steps(scenario: str, n: int, assertions: bool, steps: int, warmup: int = 1
               ) -> tuple[float, float]:
    """Median and fastest seconds per step over ``steps`` steps after ``warmup`` steps.

    The fastest is the least disturbed by other load on the machine."""
    crowd, goals = build(scenario, n, assertions)
    for _ in range(warmup):
        set_preferred(crowd, goals)
        crowd.step()
    times = []
    for _ in range(steps):
        set_preferred(crowd, goals)
        t0 = time.perf_counter()
        crowd.step()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), float(np.min(times))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000, 100000])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1,
                        help="steps before timing (large values measure the congested crowd)")
    parser.add_argument("--scenarios", nargs="+", default=["circle", "disc"],
                        choices=["circle", "disc"])
    parser.add_argument("--json", default="orca_bench.json", help="where to write the JSON")
    args = parser.parse_args(argv)
    rows = []
    print(f"{'scenario':<8} {'N':>7} {'ms/step':>9} {'(best)':>8} {'ms/step+assert':>15} "
          f"{'(best)':>8} {'overhead':>9} {'agent-steps/s':>14} {'us/agent':>9}")
    for scenario in args.scenarios:
        for n in args.sizes:
            steps = max(2, min(args.steps, int(2e5 // n)))
            off, off_best = time_steps(scenario, n, False, steps, args.warmup)
            on, on_best = time_steps(scenario, n, True, steps, args.warmup)
            row = {"scenario": scenario, "n": n, "steps": steps, "warmup": args.warmup,
                   "ms_per_step": off * 1e3,
                   "ms_per_step_best": off_best * 1e3, "ms_per_step_assert": on * 1e3,
                   "ms_per_step_assert_best": on_best * 1e3,
                   "assert_overhead": on_best / off_best - 1.0,
                   "agent_steps_per_s": n / off, "us_per_agent": off / n * 1e6}
            rows.append(row)
            print(f"{scenario:<8} {n:>7} {off * 1e3:>9.2f} {off_best * 1e3:>8.2f} "
                  f"{on * 1e3:>15.2f} {on_best * 1e3:>8.2f} "
                  f"{(on_best / off_best - 1.0) * 100:>8.1f}% {n / off:>14.0f} "
                  f"{off / n * 1e6:>9.2f}", flush=True)
    with open(args.json, "w", encoding="utf-8") as fh:
        json.dump({"rows": rows}, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
