"""The ORCA crowd step beside the C++ RVO2 library (pyrvo's ``do_step``), in one run.

Scenarios (agent parameters of RVO2's Circle example: neighbour distance 15 m, 10 neighbours,
horizons 10 s / 10 s, radius 1.5 m, max speed 2 m/s, time step 0.25 s):

* circle: N agents on a ring of radius 0.8 * N m, each heading to the antipodal point;
* disc: the N points of a square lattice of spacing 5 m nearest the origin, each heading to
  the antipodal point (the dense case: about 28 agents within every neighbour range).

Both simulators start from the same agents and step side by side: the rounds alternate
navproof, pyrvo, navproof, ... so that load from other processes hits both alike. Only the
step itself is timed (``Crowd.step`` against ``RVOSimulator.do_step``); preferred velocities
are set between steps, outside the clock. Reported per row: median and fastest ms per step,
agent-steps per second (from the median), the fastest CPU time of the process (all its
threads; steadier than wall time on a loaded machine), and the ratio navproof / pyrvo of the
medians, of the minima and of the CPU minima. A second table runs navproof alone at 20k
agents with one and with ``workers`` threads, and in assertion mode.

Usage: ``python bench/orca_bench.py [--sizes 1000 5000 20000 100000] [--rounds 3]
[--json out.json]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import time

import numpy as np

from navproof.orca.crowd import AgentDefaults, Crowd

DEFAULTS = AgentDefaults(neighbor_dist=15.0, max_neighbors=10, time_horizon=10.0,
                         time_horizon_obst=10.0, radius=1.5, max_speed=2.0)
TIME_STEP_S = 0.25


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


def positions(scenario: str, n: int) -> np.ndarray:
    """Start positions of the scenario (m)."""
    return circle_positions(n) if scenario == "circle" else disc_positions(n)


def preferred(position: np.ndarray, goals: np.ndarray) -> np.ndarray:
    """RVO2 example rule: unit vector to the goal, shorter when within 1 m."""
    vec = goals - position
    dist = np.hypot(vec[:, 0], vec[:, 1])
    scale = np.where(dist > 1.0, 1.0 / np.maximum(dist, 1e-300), 1.0)
    return vec * scale[:, None]


class NavproofSide:
    """The navproof crowd of a scenario."""

    name = "navproof"

    def __init__(self, scenario: str, n: int, *, assertions: bool = False,
                 workers: int | None = None) -> None:
        pos = positions(scenario, n)
        self.goals = -pos
        self.crowd = Crowd(TIME_STEP_S, defaults=DEFAULTS, assertions=assertions,
                           workers=workers)
        self.crowd.add_agents(pos)

    def prepare(self) -> None:
        self.crowd.set_pref_velocities(preferred(self.crowd.position, self.goals))

    def step(self) -> None:
        self.crowd.step()


class PyrvoSide:
    """The same agents in the C++ library (float32 inside, one thread)."""

    name = "pyrvo"

    def __init__(self, scenario: str, n: int) -> None:
        import pyrvo

        pos = positions(scenario, n)
        self.goals = -pos
        d = DEFAULTS
        self.sim = pyrvo.RVOSimulator(TIME_STEP_S, d.neighbor_dist, d.max_neighbors,
                                      d.time_horizon, d.time_horizon_obst, d.radius,
                                      d.max_speed)
        for p in pos:
            self.sim.add_agent((float(p[0]), float(p[1])))
        self.n = n

    def prepare(self) -> None:
        sim = self.sim
        pos = np.array([sim.get_agent_position(i).to_tuple() for i in range(self.n)])
        for i, v in enumerate(preferred(pos, self.goals).tolist()):
            sim.set_agent_pref_velocity(i, (v[0], v[1]))

    def step(self) -> None:
        self.sim.do_step()


def timed_steps(side: NavproofSide | PyrvoSide, steps: int
                ) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds (all threads of the process) of each of ``steps`` steps.

    Preferred velocities are set outside the clock. On a loaded machine the wall time
    includes waiting for a core; the CPU time does not."""
    walls, cpus = [], []
    for _ in range(steps):
        side.prepare()
        c0 = time.process_time()
        t0 = time.perf_counter()
        side.step()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return walls, cpus


def _summary(walls: list[float], cpus: list[float], n: int) -> dict:
    med = float(np.median(walls))
    return {"ms_median": med * 1e3, "ms_min": float(np.min(walls)) * 1e3,
            "agent_steps_per_s": n / med, "cpu_ms_median": float(np.median(cpus)) * 1e3,
            "cpu_ms_min": float(np.min(cpus)) * 1e3}


def steps_for(n: int, requested: int) -> int:
    """Steps per round: fewer for large crowds, at least two."""
    return max(2, min(requested, int(1e5 // n)))


def side_by_side(scenario: str, n: int, *, rounds: int, steps: int, warmup: int,
                 workers: int | None) -> dict:
    """Interleaved rounds of navproof and pyrvo on the same scenario."""
    ours = NavproofSide(scenario, n, workers=workers)
    theirs = PyrvoSide(scenario, n)
    for side in (ours, theirs):
        timed_steps(side, warmup)
    walls: dict[str, list[float]] = {"navproof": [], "pyrvo": []}
    cpus: dict[str, list[float]] = {"navproof": [], "pyrvo": []}
    for _ in range(rounds):
        for side in (ours, theirs):
            wall, cpu = timed_steps(side, steps)
            walls[side.name] += wall
            cpus[side.name] += cpu
    row: dict = {"scenario": scenario, "n": n, "rounds": rounds, "steps_per_round": steps,
                 "workers": ours.crowd.workers}
    for name in walls:
        row[name] = _summary(walls[name], cpus[name], n)
    a, b = row["navproof"], row["pyrvo"]
    row["ratio_median"] = a["ms_median"] / b["ms_median"]
    row["ratio_min"] = a["ms_min"] / b["ms_min"]
    row["cpu_ratio_min"] = a["cpu_ms_min"] / b["cpu_ms_min"]
    return row


def threads_and_assertions(scenario: str, n: int, *, rounds: int, steps: int, warmup: int,
                           workers: int) -> dict:
    """navproof alone: one thread, ``workers`` threads, and assertion mode, interleaved."""
    sides = {"1 thread": NavproofSide(scenario, n, workers=1),
             f"{workers} threads": NavproofSide(scenario, n, workers=workers),
             "assert": NavproofSide(scenario, n, assertions=True, workers=workers)}
    for side in sides.values():
        timed_steps(side, warmup)
    walls: dict[str, list[float]] = {name: [] for name in sides}
    cpus: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, side in sides.items():
            wall, cpu = timed_steps(side, steps)
            walls[name] += wall
            cpus[name] += cpu
    row: dict = {"scenario": scenario, "n": n}
    for name in sides:
        row[name] = _summary(walls[name], cpus[name], n)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000, 100000])
    parser.add_argument("--scenarios", nargs="+", default=["disc", "circle"],
                        choices=["circle", "disc"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=5, help="steps per round (fewer above 20k)")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--workers", type=int, default=None,
                        help="navproof threads (default: the crowd's own choice)")
    parser.add_argument("--json", default="orca_bench.json", help="where to write the JSON")
    args = parser.parse_args(argv)
    out: dict = {"cpus": os.cpu_count(), "load_average": list(os.getloadavg()),
                 "side_by_side": [], "threads": []}
    if importlib.util.find_spec("pyrvo") is None:
        raise SystemExit("pyrvo (the C++ RVO2 library) is needed for the side-by-side table")
    print(f"load average {out['load_average'][0]:.2f} on {out['cpus']} cpus; "
          f"{args.rounds} interleaved rounds")
    print("wall ms per step: median (min); cpu: fastest CPU ms of the process (all threads); "
          "ratio = navproof / pyrvo")
    print(f"{'scenario':<7} {'N':>7} | {'navproof ms':>11} {'(min)':>7} {'cpu':>7} "
          f"{'agent-steps/s':>13} | {'pyrvo ms':>9} {'(min)':>7} {'cpu':>7} "
          f"{'agent-steps/s':>13} | {'ratio':>5} {'(min)':>5} {'(cpu)':>5}")
    for scenario in args.scenarios:
        for n in args.sizes:
            row = side_by_side(scenario, n, rounds=args.rounds,
                               steps=steps_for(n, args.steps), warmup=args.warmup,
                               workers=args.workers)
            out["side_by_side"].append(row)
            a, b = row["navproof"], row["pyrvo"]
            print(f"{scenario:<7} {n:>7} | {a['ms_median']:>11.2f} {a['ms_min']:>7.2f} "
                  f"{a['cpu_ms_min']:>7.2f} {a['agent_steps_per_s']:>13.0f} | "
                  f"{b['ms_median']:>9.2f} {b['ms_min']:>7.2f} {b['cpu_ms_min']:>7.2f} "
                  f"{b['agent_steps_per_s']:>13.0f} | {row['ratio_median']:>5.2f} "
                  f"{row['ratio_min']:>5.2f} {row['cpu_ratio_min']:>5.2f}", flush=True)
    workers = max(2, os.cpu_count() or 1)
    print(f"\nnavproof alone, wall ms per step median (min) [cpu min]: 1 thread, {workers} "
          f"threads, assertion mode ({workers} threads)")
    for scenario in args.scenarios:
        n = 20000
        row = threads_and_assertions(scenario, n, rounds=args.rounds,
                                     steps=steps_for(n, args.steps), warmup=args.warmup,
                                     workers=workers)
        out["threads"].append(row)
        cells = "  ".join(f"{name} {row[name]['ms_median']:.2f} ({row[name]['ms_min']:.2f}) "
                          f"[{row[name]['cpu_ms_min']:.2f}]"
                          for name in row if name not in ("scenario", "n"))
        base = row[f"{workers} threads"]
        print(f"{scenario:<7} {n:>7}  {cells}  assertion overhead "
              f"{(row['assert']['ms_min'] / base['ms_min'] - 1.0) * 100:.0f}% (min), "
              f"{(row['assert']['cpu_ms_min'] / base['cpu_ms_min'] - 1.0) * 100:.0f}% (cpu)",
              flush=True)
    with open(args.json, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
