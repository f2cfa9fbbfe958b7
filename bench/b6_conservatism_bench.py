"""Conservatism of the certified local-frame bound of B6 (claim B6): certified excess bound minus
the finely sampled true maximum of the local-frame excess f, over random rotating (and
optionally accelerating) cases, for the step (``rigid_curve_margin_bound_m``) and for the stop
after it (``rotating_stop_margin_bound_m``, reaction and braking).

Cases (seeded): a support turning at up to ``--omega`` rad/s about a pivot within 5 m, its pivot
moving at up to 0.3 m/s (and accelerating at up to ``--accel`` m/s^2), next to an edge that is
fixed or turns about its own pivot; the body within 5 m of the support's pivot, |v0|, |v1| up to
2 m/s, step 0.1 s, braking budget 2 m/s^2. Reported: median, 95th percentile and maximum of the
gap (m); a negative gap would be an unsound bound. Numbers only.

Usage: ``python bench/b6_conservatism_bench.py [--cases 2000] [--omega 0.3] [--accel 0]``.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from navproof import boundary as b

DT_S = 0.1
A_MPS2 = 2.0
SAMPLES = 2001


def _disk(rng: np.random.Generator, n: int, radius: float) -> np.ndarray:
    r = radius * np.sqrt(rng.uniform(0.0, 1.0, n))
    th = rng.uniform(0.0, 2.0 * np.pi, n)
    return np.stack([r * np.cos(th), r * np.sin(th)], axis=1)


def run(cases: int, omega: float, accel: float, seed: int = 7) -> dict:
    rng = np.random.default_rng(seed)
    n = cases
    cs = _disk(rng, n, 5.0)
    rates, pivot_v, pivot_a = rng.uniform(-omega, omega, n), _disk(rng, n, 0.3), \
        _disk(rng, n, accel)
    # without acceleration the Motion is built as before it had one (runs on older versions)
    extra = {"acceleration_mps2": pivot_a} if accel else {}
    support = b.Support(b.Motion.rotating(cs, rates, velocity_mps=pivot_v, **extra))
    edge_turns = rng.uniform(0.0, 1.0, n) < 0.5
    th = rng.uniform(0.0, 2.0 * np.pi, n)
    normal = np.stack([np.cos(th), np.sin(th)], axis=1)[:, None, :]
    edges = b.EdgeSet.build(normal, rng.uniform(-2.0, 6.0, (n, 1)),
                            motion=b.Motion.rotating(_disk(rng, n, 5.0)[:, None, :],
                                                     np.where(edge_turns, rng.uniform(
                                                         -omega, omega, n), 0.0)[:, None]))
    x0 = cs + _disk(rng, n, 5.0)
    v0, v1 = _disk(rng, n, 2.0), _disk(rng, n, 2.0)
    a = np.full(n, A_MPS2)
    # the step
    bound = b.rigid_curve_margin_bound_m(edges, support, x0, v0, v1, DT_S)[:, 0]
    times = np.linspace(0.0, DT_S, SAMPLES)
    f = b.local_frame_excess_m(edges, support, x0, v0, v1, DT_S, times)[:, :, 0]
    step_gap = -bound - f.max(axis=0)
    # the stop: reaction dt holding v1, braking |v1|/a, in the same sampled evaluation
    stop, _ = b.rotating_stop_margin_bound_m(edges, support, x0, v0, v1, DT_S, a)
    speed = np.hypot(v1[:, 0], v1[:, 1])
    frac = np.linspace(0.0, 1.0, SAMPLES)[:, None]
    tau = frac * (DT_S + speed / a)[None, :]
    phi = np.where(tau <= DT_S, tau, tau - a * (tau - DT_S) ** 2 / (2.0 * speed))
    y1 = x0 + (v0 + v1) * DT_S / 2.0
    y = y1[None] + v1[None] * phi[..., None]
    f_stop = b.rigid._support_point_excess_m(edges, support, y[:, :, None, :],
                                            (DT_S + tau)[:, :, None])[:, :, 0]
    stop_gap = -stop[:, 0] - f_stop.max(axis=0)

    def stats(gap: np.ndarray) -> dict:
        return {"median_m": float(np.median(gap)), "p95_m": float(np.percentile(gap, 95)),
                "max_m": float(gap.max()), "min_m": float(gap.min())}

    return {"cases": n, "omega_radps": omega, "accel_mps2": accel,
            "step": stats(step_gap), "stop": stats(stop_gap)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--omega", type=float, default=0.3)
    parser.add_argument("--accel", type=float, default=0.0)
    parser.add_argument("--json", default="b6_conservatism_bench.json")
    args = parser.parse_args(argv)
    out = run(args.cases, args.omega, args.accel)
    for phase in ("step", "stop"):
        s = out[phase]
        print(f"{phase}: gap median {s['median_m']:.3g} m, p95 {s['p95_m']:.3g} m, "
              f"max {s['max_m']:.3g} m, min {s['min_m']:.3g} m")
    with open(args.json, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
