"""Agent-steps per second of the whole World step against the ORCA-only crowd step.

Scenario: the corridor with a conveyor of ``examples/corridor_conveyor.toml`` scaled up: two
square blocks of agents (spacing 1.2 m, radius 0.4 m, max speed 1.2 m/s, neighbour distance
5 m, 10 neighbours, horizons 3 s / 2 s) walk towards each other along a walled corridor whose
middle third is a conveyor moving at 0.3 m/s. Every World agent carries the corridor's four
walls (B4, S3, stop-from-end half-planes and whole-curve checks), its ORCA lines, both disks,
the sweep, Arrive steering, the motion controller and the clearance diagnostics.

Rows: ``orca only`` (:meth:`navproof.orca.crowd.Crowd.step` of the same agents with preferred
velocities at full speed towards the same goals) and ``world`` (:meth:`navproof.world.World.step`,
with and without assertion mode). Both start from the same state after ``--warm`` World steps.

Usage: ``python bench/world_bench.py [--sizes 1000 20000] [--steps 3] [--warm 5] [--json OUT]``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from navproof.orca.crowd import Crowd
from navproof.world import Layout, SupportSpec, World

SPACING_M = 1.2
PARAMS = dict(radius_m=0.4, max_speed_mps=1.2, max_accel_mps2=1.0, neighbor_dist_m=5.0,
              max_neighbors=10, time_horizon_s=3.0, time_horizon_obst_s=2.0)


def build(n: int, *, assertions: bool) -> World:
    """The scaled corridor of ``n`` agents (two blocks of n/2)."""
    side = int(np.ceil(np.sqrt(n / 2)))
    block_w = side * SPACING_M
    gap = 20.0
    length = 2 * block_w + gap + 10.0
    height = block_w + 4.0
    corridor = np.array([[-2.0, -2.0], [length, -2.0], [length, height], [-2.0, height]])
    third = length / 3
    belt = SupportSpec.build("belt", "conveyor",
                             [[third, -1.0], [2 * third, -1.0], [2 * third, height - 1.0],
                              [third, height - 1.0]], velocity_mps=(0.3, 0.0))
    world = World(Layout(corridor_m=corridor, supports=[belt]), assertions=assertions)
    grid = np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2)
    grid = grid[: n // 2] * SPACING_M
    left = grid + np.array([0.0, 1.0])
    right = grid + np.array([block_w + gap, 1.0])
    starts = np.concatenate([left, right])
    goals = np.concatenate([left + np.array([block_w + gap, 0.0]),
                            right - np.array([block_w + gap, 0.0])])
    world.add_agents(starts, [g[None] for g in goals], **PARAMS)
    return world


def orca_crowd(world: World) -> Crowd:
    """The ORCA-only crowd of the same agents, state and goals."""
    crowd = Crowd(world.dt_s)
    crowd.add_agents(world.position_m, velocity=world.velocity_mps, radius=world.radius_m,
                     max_speed=world.max_speed_mps, neighbor_dist=PARAMS["neighbor_dist_m"],
                     max_neighbors=PARAMS["max_neighbors"],
                     time_horizon=PARAMS["time_horizon_s"],
                     time_horizon_obst=PARAMS["time_horizon_obst_s"])
    goal = world.route_m[np.arange(world.count), world.route_count - 1]
    vec = goal - world.position_m
    dist = np.hypot(*vec.T)
    crowd.set_pref_velocities(vec / np.maximum(dist, 1e-9)[:, None]
                              * world.max_speed_mps[:, None])
    return crowd


def timed(step, steps: int) -> float:
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - start) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--warm", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    print(f"{'agents':>7} {'orca only ms':>13} {'world ms':>10} {'world+assert ms':>16} "
          f"{'world/orca':>10}")
    for n in args.sizes:
        world = build(n, assertions=False)
        for _ in range(args.warm):
            world.step()
        crowd = orca_crowd(world)
        orca_s = timed(crowd.step, args.steps)
        world_s = timed(world.step, args.steps)
        world.assertions = True
        assert_s = timed(world.step, args.steps)
        world.close()
        row = {"agents": world.count, "orca_only_ms": orca_s * 1e3, "world_ms": world_s * 1e3,
               "world_assert_ms": assert_s * 1e3, "ratio": world_s / orca_s,
               "world_agent_steps_per_s": world.count / world_s}
        rows.append(row)
        print(f"{row['agents']:>7} {row['orca_only_ms']:>13.1f} {row['world_ms']:>10.1f} "
              f"{row['world_assert_ms']:>16.1f} {row['ratio']:>10.2f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
