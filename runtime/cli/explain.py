"""``navproof explain``: one agent's step in velocity space as text, JSON and a picture.

Shows seed 002's debugging list — current, preferred and selected velocity, neighbour range, each
neighbour's relative position and velocity, every ORCA line with its allowed side, the max-speed
circle, the feasible region, the time horizon and the snapshot time — with the feasible flag, the
binding and the conflicting constraints, the largest violation and whether zero velocity is feasible
(Claim O4). A scenario with a ``boundary`` runs the safe step (``navproof.step``) instead of ORCA
alone and adds its constraints: per edge the step-end half-plane (B4), the stop envelope (S3) and
the stop from the step end (S1), the speed cap (V1) and the reachable disk (V2). Scenario: a JSON
file, read by :func:`navproof.scenario.load_scenario` (schema in :mod:`navproof.explain_scenario`),
or a built-in one (``--builtin``). ``-o FILE`` draws the picture (matplotlib, the ``navproof[plot]``
extra).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from navproof.core.exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
from navproof.explain_scenario import (  # re-exported: the loaders moved there
    BUILTIN,
    Boundary,
    VelocityScenario,
    builtin_velocity_scenario,
    load_boundary,
    load_scenario,
)

__all__ = ["BUILTIN", "Boundary", "add_arguments", "ascii_picture", "explain_scene",
           "load_boundary", "load_scenario", "run"]

def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``navproof explain``."""
    parser.add_argument("scenario", nargs="?", help="scenario JSON file (default: built-in)")
    parser.add_argument("--builtin", choices=sorted(BUILTIN), default="crossing",
                        help="built-in scenario when no file is given")
    parser.add_argument("--agent", type=int, default=0, help="agent to explain")
    parser.add_argument("--step", "--steps", dest="steps", type=int, default=0, metavar="K",
                        help="explain the solve of step K (K steps are run first; default 0)")
    parser.add_argument("--json", dest="json_out", metavar="FILE", help="write the record as JSON")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="draw the step to FILE (.png, .svg or .pdf; needs navproof[plot])")
    parser.add_argument("--svg", metavar="FILE", help="same as --output FILE.svg")


def _safe_step(crowd: Any, boundary: Boundary) -> tuple[Any, Any]:
    """Step input and result of the safe step on the crowd's snapshot."""
    from navproof.step.inputs import step_input_from_crowd
    from navproof.step.solve import solve_safe_step

    inp = step_input_from_crowd(crowd, support=boundary.support, edges=boundary.edges,
                                vh_mps=boundary.vh_mps, accel_mps2=boundary.accel_mps2)
    return inp, solve_safe_step(inp)


def _advance(crowd: Any, boundary: Boundary | None) -> None:
    """One step: ORCA alone, or the safe step executed for its commit time (support carry
    added back to the relative end velocity)."""
    if boundary is None:
        crowd.step()
        return
    inp, result = _safe_step(crowd, boundary)
    carry = boundary.support.carry_mps(crowd.position)
    world = result.velocity_mps + carry
    crowd.velocity = world
    crowd.position = crowd.position + world * result.commit_time_s[:, None]
    crowd.global_time += crowd.time_step


def explain_scene(crowd: Any, boundary: Boundary | None, agent: int) -> tuple[Any, Any]:
    """The agent's ORCA record and the velocity scene of the crowd's current snapshot."""
    from navproof.viz.scene import scene_from_record, scene_from_safe_step

    record = crowd.compute_new_velocities().record(agent)
    if boundary is None:
        return record, scene_from_record(record.as_dict())
    inp, result = _safe_step(crowd, boundary)
    return record, scene_from_safe_step(inp, result, agent, record=record.as_dict())


def ascii_picture(record: dict[str, Any], *, width: int = 41, height: int = 21) -> str:
    """Velocity plane of one agent as characters: feasible cells '.', max-speed circle 'o',
    current 'C', preferred 'P', selected 'V', origin '+'; the frame spans +-1.25 max speed."""
    speed = max(record["max_speed_mps"], 1e-9)
    half = 1.25 * speed
    lines = [(ln["point"], ln["direction"]) for ln in record["lines"]]
    rows = []
    for r in range(height):
        vy = half - 2.0 * half * r / (height - 1)
        row = []
        for c in range(width):
            vx = -half + 2.0 * half * c / (width - 1)
            inside = math.hypot(vx, vy) <= speed
            ok = inside and all(d[0] * (p[1] - vy) - d[1] * (p[0] - vx) <= 0.0 for p, d in lines)
            ring = abs(math.hypot(vx, vy) - speed) <= half / (height - 1)
            row.append("." if ok else ("o" if ring else " "))
        rows.append(row)

    def mark(v: list[float], ch: str) -> None:
        c = round((v[0] + half) / (2.0 * half) * (width - 1))
        r = round((half - v[1]) / (2.0 * half) * (height - 1))
        if 0 <= r < height and 0 <= c < width:
            rows[r][c] = ch

    mark([0.0, 0.0], "+")
    if record.get("current_velocity") is not None:
        mark(record["current_velocity"], "C")
    mark(record["preferred_velocity"], "P")
    mark(record["selected_velocity"], "V")
    return "\n".join("".join(r) for r in rows)


def run(args: argparse.Namespace) -> int:
    """Print the agent's step; 0 ok, 3 bad input (file, JSON, values, agent index, output)."""
    import sys

    from navproof.cli.output import check_output_paths
    from navproof.core.errors import InvalidInput, ObligationViolation
    from navproof.viz.backend import PlotUnavailable, check_valid_image_path

    outputs = [p for p in (args.output, args.svg) if p]
    try:
        check_output_paths({"--json": args.json_out, "--output": args.output, "--svg": args.svg},
                           inputs=[args.scenario])
        if args.svg and not args.svg.lower().endswith(".svg"):
            raise InvalidInput("--svg", args.svg, "must end in .svg")
        if args.output:
            check_valid_image_path(args.output, field="--output")
        if args.scenario:
            from navproof.scenario import load_scenario as load_scenario_file

            loaded = load_scenario_file(args.scenario)
            if not isinstance(loaded, VelocityScenario):
                raise InvalidInput("scenario", args.scenario, "navproof explain reads a "
                                   "velocity-space scenario file (*.json)")
        else:
            loaded = builtin_velocity_scenario(args.builtin)
        crowd, boundary = loaded.crowd, loaded.boundary
        if args.steps < 0:
            raise InvalidInput("--step", args.steps, "must be >= 0")
        for _ in range(args.steps):
            _advance(crowd, boundary)
        record, scene = explain_scene(crowd, boundary, args.agent)
    except (InvalidInput, IndexError, TypeError) as exc:
        print(f"navproof explain: bad input: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ObligationViolation as exc:
        print(f"navproof explain: {exc}", file=sys.stderr)
        return EXIT_FAILED
    data_out = record.as_dict()
    print(str(record))
    print(ascii_picture(data_out))
    print("legend: '.' feasible velocities, 'o' max-speed circle, 'C' current, 'P' preferred, "
          "'V' selected, '+' zero; each line permits the LEFT of its direction")
    if boundary is not None:
        print(f"safe step ({scene.frame}): {scene.label}")
        for h in scene.halfplanes:
            print(f"  {h.label:<28} normal ({h.normal[0]:+.3f}, {h.normal[1]:+.3f}) "
                  f"offset {h.offset_mps:+.4f} m/s  margin {h.margin_mps:+.4g} m/s")
        for d in scene.disks:
            print(f"  {d.label:<28} margin {d.margin_mps:+.4g} m/s")
        for note in scene.notes:
            print(f"  {note}")
    print(f"verdict: {scene.verdict()}")
    try:
        if args.json_out:
            with open(args.json_out, "w", encoding="utf-8") as fh:
                json.dump({**data_out, "velocity_space": scene.as_dict()}, fh, indent=2)
        if outputs:
            from navproof.viz.velocity_space import draw_velocity_space

            for path in outputs:
                drawn = draw_velocity_space(scene, path)
                print(f"picture: {drawn.path} ({drawn.halfplanes} half-planes, {drawn.disks} "
                      f"disks, {drawn.neighbours} neighbours)")
    except PlotUnavailable as exc:
        print(f"navproof explain: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        print(f"navproof explain: cannot write output: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK
