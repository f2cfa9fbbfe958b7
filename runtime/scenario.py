"""Scenario files (TOML) -> a :class:`navproof.world.World`, and a run of one to its summary.

Schema (every table optional except at least one agent; lengths in m, speeds in m/s)::

    [scenario]
    name = "corridor"            # shown in reports
    description = "..."
    steps = 600                  # default run length (``--steps`` overrides)
    time_step_s = 0.1            # default: the profile's step_s
    profile = "my_profile.toml"  # default: the embedded profile; relative to this file
    responsibility = 0.5         # ORCA's share of each avoidance, in (0, 1]

    [agent_defaults]             # any per-agent key below, for every agent
    radius_m = 0.4

    [[agents]]                   # one agent
    position = [0.0, 0.0]
    goal = [10.0, 0.0]           # or route = [[5.0, 2.0], [10.0, 0.0]] (the last is the goal)
    velocity_mps = [0.0, 0.0]    # optional, like every key below
    radius_m = 0.4
    max_speed_mps = 1.5          # the surface speed cap V (Vh = V / k on a slope)
    max_accel_mps2 = 1.0         # the braking budget a (also bounds steering)
    stop_range_m = 0.1           # Arrive's stop range
    neighbor_dist_m = 5.0
    max_neighbors = 10
    time_horizon_s = 2.0
    time_horizon_obst_s = 2.0

    [[rings]]                    # count agents on a circle, each going to the far side
    count = 12
    center = [0.0, 0.0]
    ring_radius_m = 10.0
    goal_turn_rad = 0.1          # the goal is the antipode turned by this angle
    # (+ any per-agent key)

    [[blocks]]                   # rows x cols agents on a grid, each going start + goal_offset
    rows = 4
    cols = 5
    origin = [0.0, 0.0]
    spacing_m = 1.2
    goal_offset = [20.0, 0.0]
    # (+ any per-agent key)

    [[obstacles]]                # static polygons for ORCA (O5): CCW solid, 2 vertices a segment
    vertices = [[1.0, 1.0], [2.0, 1.0], [2.0, 2.0]]

    [corridor]                   # one convex walkable region (centre space, eroded: C2)
    vertices = [[-1.0, -2.0], [30.0, -2.0], [30.0, 2.0], [-1.0, 2.0]]

    [[patches]]                  # convex planar slope patches; a shared edge is a handoff edge
    name = "P"
    vertices = [[-5.0, -5.0], [0.0, -5.0], [0.0, 5.0], [-5.0, 5.0]]
    gradient = [0.0, 0.0]

    [[supports]]                 # moving supports
    name = "belt"
    kind = "conveyor"            # a fixed area whose surface moves at velocity_mps
    vertices = [[0.0, -1.0], [20.0, -1.0], [20.0, 1.0], [0.0, 1.0]]
    velocity_mps = [0.3, 0.0]    # at the start of the run
    acceleration_mps2 = [0.0, 0.0]  # constant; the velocity changes by it every step
    # kind = "platform": a convex piece turning at omega_radps about pivot; its edges are walls
    # moving with it for the bodies it carries; the pivot moves at velocity_mps, which changes
    # at acceleration_mps2

    [expect]                     # checked by ``navproof simulate --assert``
    arrived = "all"              # or a least count
    min_wall_clearance_m = 0.0   # the signed wall clearance never below this
    min_agent_clearance_m = 0.0  # the signed clearance between bodies never below this, as
                                 # measured by the independent check of every step (default:
                                 # not checked; no pair ever within the band: it holds)

Errors raise :class:`ScenarioError` naming the file, the key (``agents[2].goal``), the value
and the rule; nothing is built from a bad file.
"""

from __future__ import annotations

import math
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from navproof.core.errors import EPS, InvalidInput

AGENT_KEYS = ("velocity_mps", "radius_m", "max_speed_mps", "max_accel_mps2", "stop_range_m",
              "neighbor_dist_m", "max_neighbors", "time_horizon_s", "time_horizon_obst_s")
TOP_KEYS = ("scenario", "agent_defaults", "agents", "rings", "blocks", "obstacles", "corridor",
            "patches", "supports", "expect")


class ScenarioError(InvalidInput):
    """A scenario file is malformed: names the file, the key, the value and the rule."""

    def __init__(self, file: str, key: str, value: object, rule: str) -> None:
        self.file = file
        self.key = key
        super().__init__(f"{file}: {key}", value, rule)


@dataclass(frozen=True)
class Expectations:
    """What ``--assert`` checks at the end of a run: arrivals ("all" or a least count) and the
    lowest admissible signed wall and agent clearances (m)."""

    arrived: str | int = "all"
    min_wall_clearance_m: float = 0.0
    min_agent_clearance_m: float | None = None
    """The lowest admissible signed clearance (m) between any two bodies over the run; None:
    not checked (bodies may start overlapping, O6). Claim: W1."""


@dataclass
class Scenario:
    """A loaded scenario: its name, the World, the default run length and the expectations."""

    name: str
    description: str
    world: Any
    steps: int
    expect: Expectations
    source: str
    text: str = ""
    """The scenario file's text as it was read (for the run trace)."""


class _Reader:
    """Typed access to the TOML data with errors naming file and key."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, key: str, value: object, rule: str) -> ScenarioError:
        return ScenarioError(self.file, key, value, rule)

    def table(self, data: dict[str, Any], key: str, name: str, *,
              allowed: tuple[str, ...]) -> dict[str, Any]:
        value = data.get(name, {})
        if not isinstance(value, dict):
            raise self.fail(key, value, "must be a table")
        unknown = sorted(set(value) - set(allowed))
        if unknown:
            raise self.fail(f"{key}.{unknown[0]}", value[unknown[0]],
                            f"unknown key; allowed: {list(allowed)}")
        return value

    def tables(self, data: dict[str, Any], name: str) -> list[dict[str, Any]]:
        value = data.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(name, value, f"must be an array of tables ([[{name}]])")
        return value

    def number(self, key: str, value: object, *, positive: bool = False,
               integer: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(key, value, "must be a number")
        if not math.isfinite(float(value)):
            raise self.fail(key, value, "must be finite")
        if integer and float(value) != int(value):
            raise self.fail(key, value, "must be a whole number")
        if positive and value <= 0:
            raise self.fail(key, value, "must be > 0")
        return float(value)

    def point(self, key: str, value: object) -> np.ndarray:
        if (not isinstance(value, list) or len(value) != 2
                or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in value)):
            raise self.fail(key, value, "must be a pair of numbers [x, y]")
        arr = np.asarray(value, dtype=np.float64)
        if not np.all(np.isfinite(arr)):
            raise self.fail(key, value, "must be finite")
        return arr

    def points(self, key: str, value: object, *, at_least: int) -> np.ndarray:
        if not isinstance(value, list) or len(value) < at_least:
            raise self.fail(key, value, f"must be a list of at least {at_least} points [x, y]")
        return np.stack([self.point(f"{key}[{i}]", v) for i, v in enumerate(value)])

    def agent_params(self, key: str, spec: dict[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {}
        for name in AGENT_KEYS:
            if name not in spec:
                continue
            if name == "velocity_mps":
                params[name] = self.point(f"{key}.{name}", spec[name])
            else:
                params[name] = self.number(f"{key}.{name}", spec[name],
                                           positive=name != "max_neighbors",
                                           integer=name == "max_neighbors")
        return params


def _agents(r: _Reader, data: dict[str, Any]) -> list[tuple[str, np.ndarray, list[np.ndarray],
                                                           dict[str, Any]]]:
    """Every agent as (key, position, route, parameters), in file order of the tables."""
    defaults = r.agent_params("agent_defaults", r.table(data, "agent_defaults", "agent_defaults",
                                                        allowed=AGENT_KEYS))
    out = []
    for i, spec in enumerate(r.tables(data, "agents")):
        key = f"agents[{i}]"
        unknown = sorted(set(spec) - {"position", "goal", "route", *AGENT_KEYS})
        if unknown:
            raise r.fail(f"{key}.{unknown[0]}", spec[unknown[0]], "unknown key")
        if "position" not in spec:
            raise r.fail(f"{key}.position", None, "is required")
        if ("goal" in spec) == ("route" in spec):
            raise r.fail(f"{key}.goal", spec.get("goal"), "give exactly one of goal or route")
        route = ([r.point(f"{key}.goal", spec["goal"])] if "goal" in spec
                 else list(r.points(f"{key}.route", spec["route"], at_least=1)))
        out.append((key, r.point(f"{key}.position", spec["position"]), route,
                    {**defaults, **r.agent_params(key, spec)}))
    for i, spec in enumerate(r.tables(data, "rings")):
        key = f"rings[{i}]"
        unknown = sorted(set(spec) - {"count", "center", "ring_radius_m", "goal_turn_rad",
                                      *AGENT_KEYS})
        if unknown:
            raise r.fail(f"{key}.{unknown[0]}", spec[unknown[0]], "unknown key")
        count = int(r.number(f"{key}.count", spec.get("count"), positive=True, integer=True))
        centre = r.point(f"{key}.center", spec.get("center", [0.0, 0.0]))
        ring = r.number(f"{key}.ring_radius_m", spec.get("ring_radius_m"), positive=True)
        turn = r.number(f"{key}.goal_turn_rad", spec.get("goal_turn_rad", 0.0))
        params = {**defaults, **r.agent_params(key, spec)}
        for j in range(count):
            angle = 2.0 * math.pi * j / count
            start = centre + ring * np.array([math.cos(angle), math.sin(angle)])
            goal = centre - ring * np.array([math.cos(angle + turn), math.sin(angle + turn)])
            out.append((f"{key}#{j}", start, [goal], params))
    for i, spec in enumerate(r.tables(data, "blocks")):
        key = f"blocks[{i}]"
        unknown = sorted(set(spec) - {"rows", "cols", "origin", "spacing_m", "goal_offset",
                                      *AGENT_KEYS})
        if unknown:
            raise r.fail(f"{key}.{unknown[0]}", spec[unknown[0]], "unknown key")
        rows = int(r.number(f"{key}.rows", spec.get("rows"), positive=True, integer=True))
        cols = int(r.number(f"{key}.cols", spec.get("cols"), positive=True, integer=True))
        origin = r.point(f"{key}.origin", spec.get("origin", [0.0, 0.0]))
        spacing = r.number(f"{key}.spacing_m", spec.get("spacing_m"), positive=True)
        offset = r.point(f"{key}.goal_offset", spec.get("goal_offset"))
        params = {**defaults, **r.agent_params(key, spec)}
        for row in range(rows):
            for col in range(cols):
                start = origin + spacing * np.array([col, row], dtype=np.float64)
                out.append((f"{key}#{row * cols + col}", start, [start + offset], params))
    if not out:
        raise r.fail("agents", [], "the scenario needs at least one agent (agents, rings or "
                                   "blocks)")
    return out


def _layout(r: _Reader, data: dict[str, Any]) -> Any:
    from navproof.world.layout import Layout, SupportSpec

    obstacles = []
    for i, spec in enumerate(r.tables(data, "obstacles")):
        obstacles.append(r.points(f"obstacles[{i}].vertices", spec.get("vertices"), at_least=2))
    corridor = None
    if "corridor" in data:
        spec = r.table(data, "corridor", "corridor", allowed=("vertices",))
        corridor = r.points("corridor.vertices", spec.get("vertices"), at_least=3)
    patches = []
    for i, spec in enumerate(r.tables(data, "patches")):
        key = f"patches[{i}]"
        name = spec.get("name")
        if not isinstance(name, str) or not name or "|" in name:
            raise r.fail(f"{key}.name", name, "must be a non-empty name without '|'")
        patches.append((name, r.points(f"{key}.vertices", spec.get("vertices"), at_least=3),
                        r.point(f"{key}.gradient", spec.get("gradient", [0.0, 0.0]))))
    supports = []
    for i, spec in enumerate(r.tables(data, "supports")):
        key = f"supports[{i}]"
        try:
            supports.append(SupportSpec.build(
                str(spec.get("name", key)), str(spec.get("kind")),
                r.points(f"{key}.vertices", spec.get("vertices"), at_least=3),
                velocity_mps=r.point(f"{key}.velocity_mps", spec.get("velocity_mps", [0, 0])),
                pivot_m=r.point(f"{key}.pivot", spec.get("pivot", [0.0, 0.0])),
                omega_radps=r.number(f"{key}.omega_radps", spec.get("omega_radps", 0.0)),
                acceleration_mps2=r.point(f"{key}.acceleration_mps2",
                                          spec.get("acceleration_mps2", [0.0, 0.0]))))
        except ScenarioError:
            raise
        except InvalidInput as exc:
            raise r.fail(f"{key}.{exc.field}", exc.value, exc.rule) from None
    try:
        return Layout(obstacles=obstacles, corridor_m=corridor, patches=patches,
                      supports=supports)
    except InvalidInput as exc:
        raise r.fail(_layout_key(exc.field), exc.value, exc.rule) from None


def _layout_key(field: str) -> str:
    """The scenario key of a layout field (``vertices_m`` of a patch is ``patches[].vertices``)."""
    return {"corridor": "corridor.vertices", "vertices_m": "patches[].vertices",
            "gradient": "patches[].gradient"}.get(field, field)


def load_scenario(path: str | Path, *, assertions: bool | None = None) -> Scenario:
    """Read and validate a scenario file and build its World. Raises :class:`ScenarioError`
    (naming file and key) on any defect; a bad profile raises the profile's SpecError."""
    from navproof.specs.profile import load_profile
    from navproof.world import World

    path = Path(path)
    file = str(path)
    r = _Reader(file)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise r.fail("<file>", file, f"cannot be read: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise r.fail("<file>", file, f"is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise r.fail(unknown[0], data[unknown[0]], f"unknown table; allowed: {list(TOP_KEYS)}")
    meta = r.table(data, "scenario", "scenario", allowed=(
        "name", "description", "steps", "time_step_s", "profile", "responsibility"))
    steps = int(r.number("scenario.steps", meta.get("steps", 600), positive=True, integer=True))
    profile = load_profile(path.parent / meta["profile"] if "profile" in meta else None)
    responsibility = r.number("scenario.responsibility", meta.get("responsibility", 0.5),
                              positive=True)
    expect_raw = r.table(data, "expect", "expect", allowed=("arrived", "min_wall_clearance_m",
                                                             "min_agent_clearance_m"))
    arrived = expect_raw.get("arrived", "all")
    if arrived != "all":
        arrived = int(r.number("expect.arrived", arrived, integer=True))
    agent_clear = expect_raw.get("min_agent_clearance_m")
    expect = Expectations(arrived, r.number("expect.min_wall_clearance_m",
                                            expect_raw.get("min_wall_clearance_m", 0.0)),
                          None if agent_clear is None
                          else r.number("expect.min_agent_clearance_m", agent_clear))
    agents = _agents(r, data)
    layout = _layout(r, data)
    try:
        world = World(layout, time_step_s=meta.get("time_step_s"), profile=profile,
                      assertions=assertions, responsibility=responsibility)
    except InvalidInput as exc:
        # layout values checked against the profile keep their own table's key
        layout_key = exc.field.split("[", 1)[0] in ("patches", "supports", "obstacles")
        raise r.fail(exc.field if layout_key else f"scenario.{exc.field}", exc.value,
                     exc.rule) from None
    for key, position, route, params in agents:
        try:
            world.add_agents(position[None], [np.stack(route)], **params)
        except InvalidInput as exc:
            field = exc.field.split("[", 1)[0]
            raise r.fail(f"{key}.{field}", exc.value, exc.rule) from None
    return Scenario(str(meta.get("name", path.stem)), str(meta.get("description", "")), world,
                    steps, expect, file, text)


def run_scenario(scenario: Scenario, *, steps: int | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 stop_when_arrived: bool = True,
                 on_step: Callable[[Any], None] | None = None) -> dict[str, Any]:
    """Run the scenario's World for ``steps`` (default: the file's) and return the JSON summary.

    Stops early once every agent has arrived (``stop_when_arrived``). ``progress(done, total)``
    is called after every step, ``on_step(world_step)`` too (e.g. a recorder for pictures).
    """
    from navproof.world.summary import RunSummary

    world = scenario.world
    total = scenario.steps if steps is None else int(steps)
    if total <= 0:
        raise InvalidInput("steps", total, "must be > 0")
    summary = RunSummary(world)
    wanted_agent = scenario.expect.min_agent_clearance_m
    checked_agent_m = math.inf
    for done in range(1, total + 1):
        start = time.perf_counter()
        result = world.step()
        summary.add(result, time.perf_counter() - start)
        if wanted_agent is not None:
            # the expectation is measured by the independent check, every pair that can come
            # within the expected clearance included (the World reports pairs within reach)
            from navproof.world.independent_check import REPORT_BAND_M, check_world_step

            band = max(REPORT_BAND_M, 2.0 * wanted_agent)
            truth = check_world_step(world, result, report_band_m=band)
            checked_agent_m = min(checked_agent_m,
                                  float(np.min(truth.agent_clearance_m, initial=math.inf)))
        if on_step is not None:
            on_step(result)
        if progress is not None:
            progress(done, total)
        if stop_when_arrived and bool(world.arrived.all()):
            break
    out = {"scenario": scenario.name, "source": scenario.source, **summary.as_dict()}
    if wanted_agent is not None:
        out["checked_min_agent_clearance_m"] = (checked_agent_m if math.isfinite(checked_agent_m)
                                                else None)
    out["expectations"] = check_expectations(scenario.expect, out)
    return out


def check_expectations(expect: Expectations, summary: dict[str, Any]) -> list[str]:
    """The expectations the summary misses (empty when all hold)."""
    missed = []
    wanted = summary["agents"] if expect.arrived == "all" else int(expect.arrived)
    if summary["arrived"] < wanted:
        missed.append(f"arrived {summary['arrived']} < expected {wanted}")
    wall = summary["min_wall_clearance_m"]
    if wall is not None and wall < expect.min_wall_clearance_m - EPS:
        missed.append(f"min wall clearance {wall:.6g} m < {expect.min_wall_clearance_m} m")
    agent = summary.get("checked_min_agent_clearance_m", summary["min_agent_clearance_m"])
    wanted_agent = expect.min_agent_clearance_m
    if wanted_agent is not None and agent is not None and agent < wanted_agent - EPS:
        missed.append(f"min agent clearance {agent:.6g} m < {wanted_agent} m")
    return missed
