"""``navproof explain``: one agent's ORCA velocity space as text, JSON and optionally SVG.

Shows the preferred and selected velocities, each constraint line with its permitted side, the
max-speed circle, the feasible flag, the active and the conflicting constraints (Claim O4), on a
small scenario: a JSON file or a built-in one. Scenario file format::

    {"time_step": 0.25,
     "defaults": {"neighbor_dist": 15, "max_neighbors": 10, "time_horizon": 10,
                  "time_horizon_obst": 10, "radius": 1.5, "max_speed": 2},
     "agents": [{"position": [0, 0], "velocity": [0, 0], "pref_velocity": [1, 0]}, ...],
     "obstacles": [[[x, y], [x, y], ...], ...]}

Any agent key of the defaults may be given per agent.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

BUILTIN: dict[str, dict[str, Any]] = {
    "crossing": {
        "time_step": 0.25,
        "agents": [
            {"position": [0.0, 0.0], "velocity": [1.0, 0.0], "pref_velocity": [1.0, 0.0]},
            {"position": [8.0, 0.5], "velocity": [-1.0, 0.0], "pref_velocity": [-1.0, 0.0]},
            {"position": [4.0, -5.0], "velocity": [0.0, 1.0], "pref_velocity": [0.0, 1.0]},
        ],
        "obstacles": [],
    },
    "wall": {
        "time_step": 0.25,
        "defaults": {"time_horizon_obst": 5.0},
        "agents": [
            {"position": [0.0, 0.0], "velocity": [1.5, 0.0], "pref_velocity": [2.0, 0.0]},
            {"position": [3.0, 2.5], "velocity": [0.0, -1.0], "pref_velocity": [0.0, -1.0]},
        ],
        "obstacles": [[[4.0, -3.0], [6.0, -3.0], [6.0, 3.0], [4.0, 3.0]]],
    },
    "squeeze": {
        "time_step": 0.25,
        "defaults": {"radius": 1.0, "max_speed": 1.0, "time_horizon": 2.0},
        "agents": [
            {"position": [0.0, 0.0], "velocity": [0.0, 0.0], "pref_velocity": [1.0, 0.0]},
            {"position": [2.1, 0.0], "velocity": [-1.0, 0.0], "pref_velocity": [-1.0, 0.0]},
            {"position": [-2.1, 0.0], "velocity": [1.0, 0.0], "pref_velocity": [1.0, 0.0]},
            {"position": [0.0, 2.1], "velocity": [0.0, -1.0], "pref_velocity": [0.0, -1.0]},
            {"position": [0.0, -2.1], "velocity": [0.0, 1.0], "pref_velocity": [0.0, 1.0]},
        ],
        "obstacles": [],
    },
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Command-line options of ``navproof explain``."""
    parser.add_argument("scenario", nargs="?", help="scenario JSON file (default: built-in)")
    parser.add_argument("--builtin", choices=sorted(BUILTIN), default="crossing",
                        help="built-in scenario when no file is given")
    parser.add_argument("--agent", type=int, default=0, help="agent to explain")
    parser.add_argument("--steps", type=int, default=0, help="steps to run before explaining")
    parser.add_argument("--json", dest="json_out", metavar="FILE", help="write the record as JSON")
    parser.add_argument("--svg", metavar="FILE", help="write the velocity-space picture as SVG")


def load_scenario(data: dict[str, Any]) -> Any:
    """A :class:`~navproof.orca.crowd.Crowd` built from a scenario dictionary (validated)."""
    from navproof.core.errors import InvalidInput
    from navproof.orca.crowd import AgentDefaults, Crowd

    if not isinstance(data, dict):
        raise InvalidInput("scenario", type(data).__name__, "must be a JSON object")
    known = set(AgentDefaults.__dataclass_fields__)
    defaults_raw = data.get("defaults", {})
    if not isinstance(defaults_raw, dict) or set(defaults_raw) - known:
        raise InvalidInput("defaults", defaults_raw, f"keys must be among {sorted(known)}")
    fields: dict[str, Any] = {k: (tuple(v) if k == "velocity" else v)
                              for k, v in defaults_raw.items()}
    defaults = AgentDefaults(**fields)
    crowd = Crowd(data.get("time_step", 0.25), defaults=defaults)
    agents = data.get("agents", [])
    if not isinstance(agents, list):
        raise InvalidInput("agents", agents, "must be a list")
    for i, agent in enumerate(agents):
        if not isinstance(agent, dict) or "position" not in agent:
            raise InvalidInput(f"agents[{i}]", agent, "must be an object with a position")
        extra = set(agent) - known - {"position", "pref_velocity"}
        if extra:
            raise InvalidInput(f"agents[{i}]", sorted(extra), "unknown keys")
        params = {k: v for k, v in agent.items() if k != "position"}
        crowd.add_agent(agent["position"], **params)
    for j, poly in enumerate(data.get("obstacles", [])):
        try:
            crowd.add_obstacle(poly)
        except InvalidInput as exc:
            raise InvalidInput(f"obstacles[{j}].{exc.field}", exc.value, exc.rule) from exc
    return crowd


def ascii_picture(record: dict[str, Any], *, width: int = 41, height: int = 21) -> str:
    """Velocity plane of one agent as characters: feasible cells '.', max-speed circle 'o',
    preferred 'P', selected 'V', origin '+'; the frame spans +-1.25 max speed."""
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
    mark(record["preferred_velocity"], "P")
    mark(record["selected_velocity"], "V")
    return "\n".join("".join(r) for r in rows)


def svg_picture(record: dict[str, Any], *, size: int = 400) -> str:
    """Velocity plane as SVG: circle, each line with a shaded forbidden side, P and V arrows."""
    speed = max(record["max_speed_mps"], 1e-9)
    half = 1.25 * speed
    scale = size / (2.0 * half)

    def xy(v: list[float]) -> tuple[float, float]:
        return (v[0] + half) * scale, (half - v[1]) * scale

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}">',
             f'<rect width="{size}" height="{size}" fill="white"/>']
    for ln in record["lines"]:
        p, d = ln["point"], ln["direction"]
        a = xy([p[0] - 4 * half * d[0], p[1] - 4 * half * d[1]])
        b = xy([p[0] + 4 * half * d[0], p[1] + 4 * half * d[1]])
        # the forbidden side is to the right of the direction: shade a band there
        q = xy([p[0] + 4 * half * d[0] + 4 * half * d[1], p[1] + 4 * half * d[1] - 4 * half * d[0]])
        r = xy([p[0] - 4 * half * d[0] + 4 * half * d[1], p[1] - 4 * half * d[1] - 4 * half * d[0]])
        colour = "red" if ln["conflicting"] else ("blue" if ln["active"] else "gray")
        parts.append(f'<polygon points="{a[0]:.1f},{a[1]:.1f} {b[0]:.1f},{b[1]:.1f} '
                     f'{q[0]:.1f},{q[1]:.1f} {r[0]:.1f},{r[1]:.1f}" fill="{colour}" '
                     'fill-opacity="0.12"/>')
        parts.append(f'<line x1="{a[0]:.1f}" y1="{a[1]:.1f}" x2="{b[0]:.1f}" y2="{b[1]:.1f}" '
                     f'stroke="{colour}"><title>line {ln["index"]} ({ln["kind"]})</title></line>')
    cx, cy = xy([0.0, 0.0])
    parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{speed * scale:.1f}" fill="none" '
                 'stroke="black"/>')
    for key, colour in (("preferred_velocity", "green"), ("selected_velocity", "black")):
        x, y = xy(record[key])
        parts.append(f'<line x1="{cx:.1f}" y1="{cy:.1f}" x2="{x:.1f}" y2="{y:.1f}" '
                     f'stroke="{colour}" stroke-width="2"><title>{key}</title></line>')
    parts.append(f'<text x="5" y="15" font-size="12">agent {record["agent"]}: '
                 f'{record["label"]}</text></svg>')
    return "\n".join(parts)


def run(args: argparse.Namespace) -> int:
    """Print the agent's velocity space; 0 ok, 3 bad input (file, JSON, values, agent index)."""
    import sys

    from navproof.core.errors import InvalidInput, ObligationViolation

    try:
        if args.scenario:
            with open(args.scenario, encoding="utf-8") as fh:
                data = json.load(fh)
        else:
            data = BUILTIN[args.builtin]
        crowd = load_scenario(data)
        if args.steps < 0:
            raise InvalidInput("--steps", args.steps, "must be >= 0")
        for _ in range(args.steps):
            crowd.step()
        diag = crowd.compute_new_velocities()
        record = diag.record(args.agent).as_dict()
    except (OSError, json.JSONDecodeError, InvalidInput, IndexError, TypeError) as exc:
        print(f"navproof explain: bad input: {exc}", file=sys.stderr)
        return 3
    except ObligationViolation as exc:
        print(f"navproof explain: {exc}", file=sys.stderr)
        return 1
    print(str(diag.record(args.agent)))
    print(ascii_picture(record))
    print("legend: '.' feasible velocities, 'o' max-speed circle, 'P' preferred, 'V' selected, "
          "'+' zero; each line permits the LEFT of its direction")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=2)
    if args.svg:
        with open(args.svg, "w", encoding="utf-8") as fh:
            fh.write(svg_picture(record))
    return 0
