"""How often the safe step keeps the safe label where nothing in the world changes (claims S7,
O6, F2, S6), measured on small closed-loop runs of :func:`navproof.step.solve_safe_step`.

Rows:
- ``wall`` — a lone body walking at Vh straight at a fixed wall (nothing else in the scene), for
  the parameter sets (braking budget a, horizontal cap Vh, step dt) of issue 11: steps not
  labelled safe, the rest position's margin to the wall (>= 0: at or before it), steps to rest.
- ``overlap`` — two bodies 0.4 m apart with a combined radius of 0.6 m (ORCA lines from the
  crowd, preferred velocity zero): steps until the overlap is gone, labels seen, largest jump
  of a position in one step (no teleport).
- ``f2`` — a body on the wall (margin 0) moving out at 0.1 m/s with 1 m/s along the wall: the
  largest excursion beyond the wall of the closed loop until it is back inside and at rest.
- ``s6`` — a batch of three agents, one with a zero braking budget: error or per-agent labels.

Usage: ``python bench/safe_label_bench.py [--json out.json]``. Numbers only, no assertions.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from navproof import boundary as b
from navproof import step as ss
from navproof.core.errors import InvalidInput
from navproof.orca.crowd import Crowd

WALL_SETS = ((2.0, 1.5, 0.1), (1.0, 2.0, 0.1), (4.0, 1.0, 0.05), (1.0, 1.0, 0.2))
"""(a m/s^2, Vh m/s, dt s) of the lone-body wall approach."""
RADIUS_M = 0.3


def _one_wall(n: int, offset_m: float = 0.0) -> b.EdgeSet:
    return b.EdgeSet.build(np.tile([[[1.0, 0.0]]], (n, 1, 1)), np.full((n, 1), offset_m))


def wall_approach(a_mps2: float, vh_mps: float, dt_s: float, *, max_steps: int = 2000) -> dict:
    """Walk at Vh towards the fixed wall X <= 0 from far away until at rest."""
    x = np.array([[-(3.0 * vh_mps * vh_mps / a_mps2 + 1.0), 0.0]])
    v = np.array([[vh_mps, 0.0]])
    pref = v.copy()
    lost = 0
    steps = 0
    for steps in range(1, max_steps + 1):
        inp = ss.StepInput(x, v, pref, dt_s, b.Support.translating(np.zeros((1, 2))),
                           _one_wall(1), np.array([vh_mps]), np.array([a_mps2]),
                           np.array([RADIUS_M]))
        res = ss.solve_safe_step(inp, assertions=False)
        lost += int(res.label[0] != ss.SAFE)
        v1 = res.velocity_mps
        t = res.commit_time_s[0]
        x = x + t * v + (v1 - v) * t * t / (2.0 * dt_s)
        v = v1
        if np.hypot(*v[0]) < 1e-9 and steps > 5:
            break
    return {"a_mps2": a_mps2, "vh_mps": vh_mps, "dt_s": dt_s, "lost_safe_steps": lost,
            "rest_margin_m": float(-x[0, 0]), "steps": steps}


def overlap_pair(*, steps: int = 30, dt_s: float = 0.1, a_mps2: float = 1.0) -> dict:
    """Two bodies 0.4 m apart (combined radius 0.6 m) through the safe step."""
    crowd = Crowd(dt_s)
    crowd.add_agents(np.array([[-0.2, 0.0], [0.2, 0.0]]), radius=RADIUS_M, max_speed=2.0,
                     neighbor_dist=5.0, max_neighbors=4, time_horizon=2.0)
    crowd.set_pref_velocities(np.zeros((2, 2)))
    labels: dict[str, int] = {}
    jump = 0.0
    recovered_at = None
    dist = [float(np.hypot(*(crowd.position[1] - crowd.position[0])))]
    for k in range(1, steps + 1):
        inp = ss.step_input_from_crowd(crowd, support=b.Support.translating(np.zeros((2, 2))),
                                       edges=_one_wall(2, 50.0), vh_mps=np.full(2, 2.0),
                                       accel_mps2=np.full(2, a_mps2))
        res = ss.solve_safe_step(inp, assertions=False)
        for name in res.label_names():
            labels[name] = labels.get(name, 0) + 1
        v0, v1 = inp.velocity_mps, res.velocity_mps
        t = res.commit_time_s[:, None]
        move = t * v0 + (v1 - v0) * t * t / (2.0 * dt_s)
        jump = max(jump, float(np.max(np.hypot(move[:, 0], move[:, 1]))))
        crowd.position = crowd.position + move
        crowd.velocity = v1.copy()
        d = float(np.hypot(*(crowd.position[1] - crowd.position[0])))
        dist.append(d)
        if recovered_at is None and d >= 2 * RADIUS_M - 1e-9:
            recovered_at = k
    later = dist[1:recovered_at or len(dist)]
    shrinking = all(d1 > d0 for d0, d1 in zip(dist, later, strict=False))
    return {"start_distance_m": dist[0], "end_distance_m": dist[-1],
            "steps_to_recover": recovered_at, "overlap_shrinks_every_step": shrinking,
            "labels": labels, "largest_step_move_m": jump}


def f2_excursion(*, dt_s: float = 0.1, a_mps2: float = 1.0, max_steps: int = 200) -> dict:
    """On the wall, moving out at 0.1 m/s with 1 m/s along it: worst excursion beyond it."""
    x = np.array([[0.0, 0.0]])
    v = np.array([[0.1, 1.0]])
    pref = v.copy()
    worst = 0.0
    labels: dict[str, int] = {}
    for _ in range(max_steps):
        inp = ss.StepInput(x, v, pref, dt_s, b.Support.translating(np.zeros((1, 2))),
                           _one_wall(1), np.array([2.0]), np.array([a_mps2]),
                           np.array([RADIUS_M]))
        res = ss.solve_safe_step(inp, assertions=False)
        name = res.label_names()[0]
        labels[name] = labels.get(name, 0) + 1
        v1 = res.velocity_mps
        # the furthest point of the step's curve along the wall normal
        for frac in np.linspace(0.0, 1.0, 21):
            t = frac * dt_s
            worst = max(worst, float((x + t * v + (v1 - v) * t * t / (2.0 * dt_s))[0, 0]))
        x = x + dt_s * (v + v1) / 2.0
        v = v1
        if x[0, 0] <= 0.0 and res.label[0] == ss.SAFE:
            break
    return {"excursion_m": worst, "labels": labels}


def s6_batch() -> dict:
    """Three agents, the middle one with a zero braking budget."""
    n = 3
    inp = ss.StepInput(np.array([[-5.0, 0.0], [-5.0, 2.0], [-5.0, 4.0]]), np.zeros((n, 2)),
                       np.full((n, 2), 0.05), 0.1, b.Support.translating(np.zeros((n, 2))),
                       _one_wall(n), np.full(n, 2.0), np.array([1.0, 0.0, 1.0]),
                       np.full(n, RADIUS_M))
    try:
        res = ss.solve_safe_step(inp, assertions=True)
    except InvalidInput as err:
        return {"outcome": f"InvalidInput: {err}"}
    return {"outcome": "labels", "labels": res.label_names(),
            "flags": [int(f) for f in res.flags]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default="safe_label_bench.json")
    args = parser.parse_args(argv)
    out = {"wall": [wall_approach(*p) for p in WALL_SETS], "overlap": overlap_pair(),
           "f2": f2_excursion(), "s6": s6_batch()}
    for row in out["wall"]:
        print(f"wall a={row['a_mps2']} Vh={row['vh_mps']} dt={row['dt_s']}: "
              f"{row['lost_safe_steps']} steps not safe, rest margin {row['rest_margin_m']:.4g} m,"
              f" {row['steps']} steps")
    print("overlap:", out["overlap"])
    print("f2:", out["f2"])
    print("s6:", out["s6"])
    with open(args.json, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
