"""Agent-steps per second of the combined safe step (ORCA + boundaries + stop envelopes).

Scenario: the dense disc of ``orca_bench.py`` (square lattice of spacing 5 m, every agent heading
to its antipode, RVO2 Circle parameters: neighbour distance 15 m, 10 neighbours, horizons 10 s,
radius 1.5 m, max speed 2 m/s) with the default profile's step (0.1 s) and braking budget
(1 m/s^2), built by :func:`navproof.step.step_input_from_crowd`. Every agent also walks in
its own corridor box of four walls (1 to 6 m away), one of them a platform edge co-moving with a
0.2 m/s support, so each agent carries 12 edge half-planes (B4, S3, stop-from-end) besides its
ORCA lines and both disks, plus the whole-curve and sweep verification.

Rows: ``crowd step (all)`` (the whole ORCA step of the same crowd: neighbours, lines, linear
programs, for scale), ``orca only`` (the same lines through RVO2's linear programs,
:func:`navproof.orca.halfplanes.solve_lines`) and ``combined``
(:func:`navproof.step.solve_safe_step`, with and without assertion mode). Line construction is
excluded from the last two.

Usage: ``python bench/safe_step_bench.py [--sizes 1000 20000] [--steps 3] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from navproof import boundary as b
from navproof import step as ss
from navproof.orca.crowd import Crowd
from navproof.orca.halfplanes import solve_lines
from navproof.specs.profile import load_profile

# The scenario of the ORCA benchmark beside this file (scripts run with their folder on the path).
from orca_bench import DEFAULTS, disc_positions  # noqa: E402  isort: skip

def build(n: int, dt_s: float, seed: int = 0) -> tuple[ss.StepInput, tuple, Crowd]:
    """The step input of N agents (with their ORCA lines), the raw lines and the crowd."""
    rng = np.random.default_rng(seed)
    pos = disc_positions(n)
    crowd = Crowd(dt_s, defaults=DEFAULTS)
    goals = -pos
    vec = goals - pos
    dist = np.hypot(vec[:, 0], vec[:, 1])
    pref = vec * np.where(dist > 1.0, 1.0 / np.maximum(dist, 1e-300), 1.0)[:, None]
    crowd.add_agents(pos, velocity_mps=pref * 0.5)
    crowd.set_pref_velocities(pref)
    point, direction, valid, num_hard = crowd.compute_lines()
    normals = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    normal = np.broadcast_to(normals, (n, 4, 2)).copy()
    offset = np.einsum("nkj,nj->nk", normal, pos) + rng.uniform(1.0, 6.0, (n, 4))
    u = np.zeros((n, 2))
    u[:, 0] = 0.2
    edge_v = np.zeros((n, 4, 2))
    edge_v[:, 0] = u                      # the right edge rides on the platform
    edges = b.EdgeSet.build(normal, offset, edge_velocity_mps=edge_v)
    defaults = load_profile().defaults()
    inp = ss.step_input_from_crowd(crowd, support=b.Support.translating(u), edges=edges,
                                   vh_mps=np.full(n, DEFAULTS.max_speed_mps),
                                   accel_mps2=np.full(n, defaults["brake_budget_mps2"]))
    return inp, (crowd.pref_velocity, crowd.max_speed, point, direction, valid, num_hard), crowd


def best_and_median(fn, steps: int) -> tuple[float, float, float]:
    """Median and fastest wall seconds, and fastest CPU seconds of the process, per call."""
    fn()
    times, cpus = [], []
    for _ in range(steps):
        c0 = time.process_time()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return float(np.median(times)), float(np.min(times)), float(np.min(cpus))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--json", default="safe_step_bench.json")
    args = parser.parse_args(argv)
    dt = load_profile().defaults()["step_s"]
    rows = []
    print(f"{'solve':<18} {'N':>7} {'ms/step':>10} {'(best)':>10} {'cpu ms':>8} "
          f"{'agent-steps/s':>14} {'safe':>6} {'F1':>6} {'F2':>6} {'F3':>6}")
    for n in args.sizes:
        inp, lines, crowd = build(n, dt)
        label_counts = np.bincount(ss.solve_safe_step(inp, assertions=False).label, minlength=4)
        cases = [("orca only", lambda lines=lines: solve_lines(*lines), None),
                 ("crowd step (all)", lambda crowd=crowd: crowd.compute_new_velocities(), None),
                 ("combined", lambda inp=inp: ss.solve_safe_step(inp, assertions=False),
                  label_counts),
                 ("combined+assert", lambda inp=inp: ss.solve_safe_step(inp, assertions=True),
                  label_counts)]
        for name, fn, counts in cases:
            med, best, cpu = best_and_median(fn, args.steps)
            row = {"solve": name, "n": n, "steps": args.steps, "ms_per_step": med * 1e3,
                   "ms_per_step_best": best * 1e3, "cpu_ms_best": cpu * 1e3,
                   "agent_steps_per_s": n / med}
            if counts is not None:
                row["labels"] = {ss.LABEL_NAMES[i]: int(c) for i, c in enumerate(counts)}
            rows.append(row)
            shown = counts if counts is not None else ["-"] * 4
            print(f"{name:<18} {n:>7} {med * 1e3:>10.1f} {best * 1e3:>10.1f} {cpu * 1e3:>8.1f} "
                  f"{n / med:>14.0f} "
                  f"{shown[0]:>6} {shown[1]:>6} {shown[2]:>6} {shown[3]:>6}", flush=True)
    with open(args.json, "w", encoding="utf-8") as fh:
        json.dump({"dt_s": dt, "rows": rows}, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
