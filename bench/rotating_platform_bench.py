"""Share of safe labels on a rotating platform (claim B6: certified local-frame bounds).

Scenario: a square platform (half-size 5 m) turning at 0.3 rad/s about the origin, its four
edges riding on it, and a fixed world wall X <= 8 m that the platform's corners pass at 1 m.
Twelve bodies (seeded) stand on the platform and walk at 1 m/s towards goals fixed on it; one
of them re-targets when it arrives. Step 0.1 s, braking budget 2 m/s^2, cap 2 m/s, 100 steps:
1,200 agent-steps of :func:`navproof.step.solve_safe_step` (no neighbours).

Reported: safe labels, non-safe labels, and non-safe labels more than 1.5 m from every wall
(the conservative ones: nothing is near). Numbers only.

Usage: ``python bench/rotating_platform_bench.py [--steps 100] [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from navproof import boundary as b
from navproof import step as ss

HALF_M = 5.0
OMEGA_RADPS = 0.3
WALL_X_M = 8.0
AGENTS = 12
DT_S = 0.1
A_MPS2 = 2.0
VH_MPS = 2.0
PREF_MPS = 1.0
FAR_M = 1.5


def _rot(v: np.ndarray, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1]], axis=-1)


def run(steps: int, seed: int = 3) -> dict:
    rng = np.random.default_rng(seed)
    n = AGENTS
    local = rng.uniform(-3.5, 3.5, (n, 2))           # positions in the platform frame
    goal = rng.uniform(-4.0, 4.0, (n, 2))
    v_rel = np.zeros((n, 2))                          # relative velocity, world axes
    normals_p = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    counts = {"safe": 0, "not_safe": 0, "not_safe_far": 0}
    labels: dict[str, int] = {}
    solve_s = []
    for k in range(steps):
        theta = OMEGA_RADPS * DT_S * k
        x = _rot(local, theta)
        normal = np.concatenate([np.broadcast_to(_rot(normals_p, theta), (n, 4, 2)),
                                 np.broadcast_to([[1.0, 0.0]], (n, 1, 2))], axis=1)
        offset = np.concatenate([np.full((n, 4), HALF_M), np.full((n, 1), WALL_X_M)], axis=1)
        omega = np.concatenate([np.full((n, 4), OMEGA_RADPS), np.zeros((n, 1))], axis=1)
        motion = b.Motion(np.zeros((n, 5, 2)), np.zeros((n, 5, 2)), omega,
                          np.zeros((n, 5), np.int64))
        edges = b.EdgeSet.build(normal, offset, motion=motion)
        support = b.Support(b.Motion.rotating(np.zeros((n, 2)), np.full(n, OMEGA_RADPS)))
        to_goal = goal - local
        dist = np.hypot(to_goal[:, 0], to_goal[:, 1])
        arrived = dist < 0.2
        goal[arrived] = rng.uniform(-4.0, 4.0, (int(arrived.sum()), 2))
        to_goal = goal - local
        dist = np.hypot(to_goal[:, 0], to_goal[:, 1])
        pref = _rot(to_goal * (PREF_MPS / np.maximum(dist, 1e-9))[:, None], theta)
        inp = ss.StepInput(x, v_rel, pref, DT_S, support, edges, np.full(n, VH_MPS),
                           np.full(n, A_MPS2), np.full(n, 0.3))
        t0 = time.perf_counter()
        res = ss.solve_safe_step(inp, assertions=False)
        solve_s.append(time.perf_counter() - t0)
        for name in res.label_names():
            labels[name] = labels.get(name, 0) + 1
        margin = edges.initial_margin_m(x)
        far = np.all(margin > FAR_M, axis=1)
        safe = res.label == ss.SAFE
        counts["safe"] += int(safe.sum())
        counts["not_safe"] += int((~safe).sum())
        counts["not_safe_far"] += int((~safe & far).sum())
        # advance in the platform frame: the relative curve, then the platform's turn
        t = res.commit_time_s[:, None]
        v1 = res.velocity_mps
        move = t * v_rel + (v1 - v_rel) * t * t / (2.0 * DT_S)
        local = local + _rot(move, -theta)
        v_rel = _rot(v1, OMEGA_RADPS * DT_S)
    return {"agent_steps": steps * n, **counts, "labels": labels,
            "solve_ms_median": float(np.median(solve_s) * 1e3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--json", default="rotating_platform_bench.json")
    args = parser.parse_args(argv)
    out = run(args.steps)
    print(f"{out['safe']} safe of {out['agent_steps']} agent-steps; {out['not_safe']} not safe, "
          f"{out['not_safe_far']} of them more than {FAR_M} m from every wall; labels "
          f"{out['labels']}; solve {out['solve_ms_median']:.2f} ms median")
    with open(args.json, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
