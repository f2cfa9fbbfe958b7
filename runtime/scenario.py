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
    # kind = "platform": a convex piece turning at omega_radps (rad/s) about pivot = [x, y];
    # its edges are walls moving with it for the bodies it carries; the pivot moves at
    # velocity_mps, which changes at acceleration_mps2

    [navmesh]                    # a navigation mesh: goals are routed on it (C1-C5)
    walkable = [[-2.0, -6.0], [12.0, -6.0], [12.0, 6.0], [-2.0, 6.0]]   # outer boundary
    holes = [[[1.0, 2.0], [3.4, 2.0], [3.4, 2.4], [1.0, 2.4]]]         # obstacles
    # holes may touch the boundary and overlap each other: the walkable area is the outer
    # polygon minus their union; each distinct agent radius gets its own eroded mesh (C2)
    # or: obj = "level.obj" (relative to this file), up_axis = "z" (or "y")

    [expect]                     # checked by ``navproof simulate --assert``
    arrived = "all"              # or a least count, a whole number in [0, number of agents]
    min_wall_clearance_m = 0.0   # the signed wall clearance never below this
    min_agent_clearance_m = 0.0  # the signed clearance between bodies never below this, as
                                 # measured by the independent check of every step (default:
                                 # not checked; no pair ever within the band: it holds)

Errors raise :class:`ScenarioError` naming the file, the key as the schema spells it with its
index (``agents[2].goal``, ``obstacles[0].vertices[3]``, ``rings[1].radius_m``), the value and
the rule; nothing is built from a bad file. Every table refuses a key it does not have (a typo
such as ``gradiant`` would else leave the slope flat); numbers must be TOML numbers (not
strings, lists or booleans); the file must be UTF-8. The agents of all tables are added to the
World in one call; the memory they need (``world_memory_bytes``) must fit in half of what the
machine has (``machine_memory_bytes``), else the table that overflows is named before its
agents are generated.

:func:`load_scenario` is the one entry point of every scenario file: a World scenario (above),
the P/Q handoff demo's data (``[scenario] kind = "pq-handoff"``, schema in
:mod:`navproof.demos.pq_handoff.data`) and ``navproof explain``'s velocity-space scenarios
(``*.json``, schema in :mod:`navproof.explain_scenario`), all with the one
:class:`ScenarioError`.
"""

from __future__ import annotations

import math
import os
import re
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from navproof.core.errors import InvalidInput, ScenarioError
from navproof.core.tolerances import EPS

if TYPE_CHECKING:
    from navproof.demos.pq_handoff.data import PQScenario
    from navproof.explain_scenario import VelocityScenario

AGENT_KEYS = ("velocity_mps", "radius_m", "max_speed_mps", "max_accel_mps2", "stop_range_m",
              "neighbor_dist_m", "max_neighbors", "time_horizon_s", "time_horizon_obst_s")
TOP_KEYS = ("scenario", "agent_defaults", "agents", "rings", "blocks", "obstacles", "corridor",
            "patches", "supports", "navmesh", "expect")
NAVMESH_KEYS = ("walkable", "holes", "obj", "up_axis")
SCENARIO_KEYS = ("name", "description", "steps", "time_step_s", "profile", "responsibility")
AGENT_TABLE_KEYS = ("position", "goal", "route", *AGENT_KEYS)
RING_KEYS = ("count", "center", "ring_radius_m", "goal_turn_rad", *AGENT_KEYS)
BLOCK_KEYS = ("rows", "cols", "origin", "spacing_m", "goal_offset", *AGENT_KEYS)
OBSTACLE_KEYS = ("vertices",)
CORRIDOR_KEYS = ("vertices",)
PATCH_KEYS = ("name", "vertices", "gradient")
SUPPORT_KEYS = ("name", "kind", "vertices", "velocity_mps", "pivot", "omega_radps",
                "acceleration_mps2")
EXPECT_KEYS = ("arrived", "min_wall_clearance_m", "min_agent_clearance_m")

_WORLD_FIELDS = {
    # what World.add_agents and Crowd.add_agents call a parameter -> its key in the file
    "position_m": "position", "position": "position", "velocity_mps": "velocity_mps",
    "velocity": "velocity_mps", "radius_m": "radius_m", "radius": "radius_m",
    "max_speed_mps": "max_speed_mps", "max_speed": "max_speed_mps",
    "max_accel_mps2": "max_accel_mps2", "stop_range_m": "stop_range_m",
    "neighbor_dist_m": "neighbor_dist_m", "neighbor_dist": "neighbor_dist_m",
    "max_neighbors": "max_neighbors", "time_horizon_s": "time_horizon_s",
    "time_horizon": "time_horizon_s", "time_horizon_obst_s": "time_horizon_obst_s",
    "time_horizon_obst": "time_horizon_obst_s",
}

WORLD_BYTES_PER_AGENT = 4096
"""Memory (bytes) a World needs per agent besides its neighbour slots: the agent's state and
route in the World and its crowd, and the per-step working arrays of steering, the safe step,
the sweep and the clearances. Measured as the slope of the peak traced allocation
(``tracemalloc``, numpy arrays included) of loading a dense block of 2,000 and of 8,000 agents
and running two steps: 3.3 kB per agent with 10 neighbour slots, 7.4 kB with 40 (so about
1.9 kB plus 140 B per slot). This constant and ``WORLD_BYTES_PER_NEIGHBOR`` are about twice
those, a margin for obstacles, supports and handoffs."""
WORLD_BYTES_PER_NEIGHBOR = 256
"""Memory (bytes) per agent and neighbour slot (``max_neighbors``): the neighbour tables, the
ORCA lines and the sweep's neighbour predictions, (N, K, ...) arrays; measured as above."""
MEMORY_SHARE = 0.5
"""Share of the machine's memory one scenario may plan to use: the rest is left to the
operating system and to the numbers of a step that are not per agent."""
PROGRESS_MIN_AGENTS = 20000
"""Scenarios with at least this many agents report their loading on ``progress``."""


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
    inputs: tuple[str, ...] = ()
    """Every file the scenario was read from (the scenario file, its profile): a run must not
    write over them."""
    text: str = ""
    """The scenario file's text as it was read (for the run trace)."""


def machine_memory_bytes() -> int | None:
    """The memory this process may use (bytes): the machine's physical memory from the
    operating system, or a smaller control-group limit; None where neither can be read."""
    found: list[int] = []
    try:
        found.append(int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES")))
    except (AttributeError, ValueError, OSError):
        pass
    for limit in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(limit).read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if text.isdigit() and 0 < int(text) < 1 << 60:
            found.append(int(text))
    found = [b for b in found if b > 0]
    return min(found) if found else None


def world_memory_bytes(agents: int, max_neighbors: int) -> int:
    """Estimated memory (bytes) of a World of ``agents`` agents with ``max_neighbors``
    neighbour slots each (see ``WORLD_BYTES_PER_AGENT``)."""
    return int(agents) * (WORLD_BYTES_PER_AGENT + WORLD_BYTES_PER_NEIGHBOR * max(0, max_neighbors))


class _Reader:
    """Typed access to the TOML data with errors naming file and key."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, key: str, value: object, rule: str) -> ScenarioError:
        return ScenarioError(self.file, key, value, rule)

    def known(self, key: str, spec: dict[str, Any], allowed: tuple[str, ...]) -> None:
        """Refuse a key of table ``key`` that the schema does not have (a typo would else be
        ignored and change the physics silently)."""
        unknown = sorted(set(spec) - set(allowed))
        if unknown:
            raise self.fail(f"{key}.{unknown[0]}", spec[unknown[0]],
                            f"unknown key; allowed: {list(allowed)}")

    def table(self, data: dict[str, Any], key: str, name: str, *,
              allowed: tuple[str, ...]) -> dict[str, Any]:
        value = data.get(name, {})
        if not isinstance(value, dict):
            raise self.fail(key, value, "must be a table")
        self.known(key, value, allowed)
        return value

    def tables(self, data: dict[str, Any], name: str, *,
               allowed: tuple[str, ...]) -> list[tuple[str, dict[str, Any]]]:
        """The array of tables ``[[name]]`` as (key, table) pairs, unknown keys refused."""
        value = data.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(name, value, f"must be an array of tables ([[{name}]])")
        out = []
        for i, spec in enumerate(value):
            self.known(f"{name}[{i}]", spec, allowed)
            out.append((f"{name}[{i}]", spec))
        return out

    def number(self, key: str, value: object, *, positive: bool = False,
               integer: bool = False, at_least: float | None = None) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(key, value, "must be a number")
        if not math.isfinite(float(value)):
            raise self.fail(key, value, "must be finite")
        if integer and float(value) != int(value):
            raise self.fail(key, value, "must be a whole number")
        if positive and value <= 0:
            raise self.fail(key, value, "must be > 0")
        if at_least is not None and value < at_least:
            raise self.fail(key, value, f"must be >= {at_least:g}")
        return float(value)

    def string(self, key: str, value: object, *, non_empty: bool = False) -> str:
        if not isinstance(value, str) or (non_empty and not value):
            raise self.fail(key, value, "must be a non-empty string" if non_empty
                            else "must be a string")
        return value

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
                                           integer=name == "max_neighbors",
                                           at_least=0.0 if name == "max_neighbors" else None)
        return params


@dataclass
class _Group:
    """Agents of one table: ``agents[i]`` (one agent) or ``rings[i]``/``blocks[i]`` (many),
    with their start positions (M, 2), routes (M, W, 2) and the parameters they share."""

    key: str
    position_m: np.ndarray
    route_m: np.ndarray
    params: dict[str, Any]
    position_key: str

    @property
    def count(self) -> int:
        return int(self.position_m.shape[0])


class _AgentBudget:
    """The agents a file asks for, against the machine's memory (see ``world_memory_bytes``):
    the table whose agents would not fit is named before they are generated."""

    def __init__(self, r: _Reader, default_neighbors: int) -> None:
        self.r = r
        self.total = 0
        self.need = 0
        self.default_neighbors = default_neighbors
        self.available = machine_memory_bytes()

    def add(self, key: str, count: int, params: dict[str, Any], *,
            value: object = None) -> None:
        neighbors = int(params.get("max_neighbors", self.default_neighbors))
        self.total += count
        self.need += world_memory_bytes(count, neighbors)
        if self.available is None:
            return
        allowed = MEMORY_SHARE * self.available
        if self.need > allowed:
            per_agent = world_memory_bytes(1, neighbors)
            # exact integers: a count such as 1e308 is far beyond any float's reach
            room = max(0, (int(allowed) - self.need) // per_agent + count)
            raise self.r.fail(
                key, count if value is None else value,
                f"{_count_text(self.total)} agents in all would need about "
                f"{_count_text(self.need >> 30)} GiB (about {per_agent} bytes per agent with "
                f"{neighbors} neighbour slots), more than {MEMORY_SHARE:.0%} of this machine's "
                f"{self.available / 2**30:.3g} GiB; this table fits at most about {room} agents")


def _count_text(n: int) -> str:
    """A whole number for a message: as it is up to 12 digits, else in scientific notation."""
    return str(n) if n < 10**12 else f"{n:.3e}" if n < 10**300 else f"10^{len(str(n)) - 1}"


def _agents(r: _Reader, data: dict[str, Any], default_neighbors: int) -> list[_Group]:
    """Every agent, grouped by table, in file order of the tables (agents, rings, blocks)."""
    defaults = r.agent_params("agent_defaults", r.table(data, "agent_defaults", "agent_defaults",
                                                        allowed=AGENT_KEYS))
    budget = _AgentBudget(r, int(defaults.get("max_neighbors", default_neighbors)))
    out = []
    for key, spec in r.tables(data, "agents", allowed=AGENT_TABLE_KEYS):
        if "position" not in spec:
            raise r.fail(f"{key}.position", None, "is required")
        if ("goal" in spec) == ("route" in spec):
            raise r.fail(f"{key}.goal", spec.get("goal"), "give exactly one of goal or route")
        route = (r.point(f"{key}.goal", spec["goal"])[None] if "goal" in spec
                 else r.points(f"{key}.route", spec["route"], at_least=1))
        params = {**defaults, **r.agent_params(key, spec)}
        budget.add(key, 1, params)
        out.append(_Group(key, r.point(f"{key}.position", spec["position"])[None], route[None],
                          params, f"{key}.position"))
    for key, spec in r.tables(data, "rings", allowed=RING_KEYS):
        count = int(r.number(f"{key}.count", spec.get("count"), positive=True, integer=True))
        centre = r.point(f"{key}.center", spec.get("center", [0.0, 0.0]))
        ring = r.number(f"{key}.ring_radius_m", spec.get("ring_radius_m"), positive=True)
        turn = r.number(f"{key}.goal_turn_rad", spec.get("goal_turn_rad", 0.0))
        params = {**defaults, **r.agent_params(key, spec)}
        budget.add(f"{key}.count", count, params)
        angle = 2.0 * math.pi * np.arange(count) / count
        start = centre + ring * np.stack([np.cos(angle), np.sin(angle)], axis=1)
        goal = centre - ring * np.stack([np.cos(angle + turn), np.sin(angle + turn)], axis=1)
        out.append(_Group(key, start, goal[:, None], params, f"{key}.center"))
    for key, spec in r.tables(data, "blocks", allowed=BLOCK_KEYS):
        rows = int(r.number(f"{key}.rows", spec.get("rows"), positive=True, integer=True))
        cols = int(r.number(f"{key}.cols", spec.get("cols"), positive=True, integer=True))
        origin = r.point(f"{key}.origin", spec.get("origin", [0.0, 0.0]))
        spacing = r.number(f"{key}.spacing_m", spec.get("spacing_m"), positive=True)
        offset = r.point(f"{key}.goal_offset", spec.get("goal_offset"))
        params = {**defaults, **r.agent_params(key, spec)}
        budget.add(f"{key}.rows", rows * cols, params, value=rows)
        grid = np.stack(np.meshgrid(np.arange(cols, dtype=np.float64),
                                    np.arange(rows, dtype=np.float64)), axis=-1).reshape(-1, 2)
        start = origin + spacing * grid
        out.append(_Group(key, start, (start + offset)[:, None], params, f"{key}.origin"))
    if not out:
        raise r.fail("agents", [], "the scenario needs at least one agent (agents, rings or "
                                   "blocks)")
    return out


def _add_agents(r: _Reader, world: Any, groups: list[_Group]) -> None:
    """Add every group's agents to ``world`` in one call (file order); an invalid value is a
    ScenarioError naming the table's key (``agents[3].radius_m``, ``rings[0].radius_m``)."""
    first = np.concatenate([[0], np.cumsum([g.count for g in groups])])
    position = np.concatenate([g.position_m for g in groups])
    # one route array per agent (views, no copy): a generated table's agents have one waypoint
    routes = [route for g in groups for route in g.route_m]
    d = world.defaults
    default = {"velocity_mps": (0.0, 0.0), "radius_m": d.radius_m,
               "max_speed_mps": d.max_speed_mps, "max_accel_mps2": d.max_accel_mps2,
               "stop_range_m": d.stop_range_m, "neighbor_dist_m": d.neighbor_dist_m,
               "max_neighbors": d.max_neighbors, "time_horizon_s": d.time_horizon_s,
               "time_horizon_obst_s": d.time_horizon_obst_s}
    params: dict[str, Any] = {}
    for name in AGENT_KEYS:
        if not any(name in g.params for g in groups):
            continue
        values = [np.broadcast_to(np.asarray(g.params.get(name, default[name]), np.float64),
                                  (g.count, 2) if name == "velocity_mps" else (g.count,))
                  for g in groups]
        params[name] = np.concatenate(values)
    from navproof.navmesh import MeshError, NoRoute

    try:
        world.add_agents(position, routes, **params)
    except NoRoute as exc:
        raise _route_error(r, exc, groups, first) from None
    except MeshError as exc:
        raise r.fail(exc.field, exc.value, exc.rule) from None
    except InvalidInput as exc:
        raise _agent_error(r, exc, groups, first) from None


def _route_error(r: _Reader, exc: InvalidInput, groups: list[_Group],
                 first: np.ndarray) -> ScenarioError:
    """The ScenarioError of a NoRoute for ``agent N`` (C5): keyed by the agent's table, its
    goal (or route), and naming the agent."""
    match = re.match(r"agent (\d+)", exc.field)
    if match is None:
        return r.fail("agents", exc.value, exc.rule)
    agent = int(match.group(1))
    g = groups[int(np.searchsorted(first, agent, side="right")) - 1]
    which = "" if g.count == 1 else f" (agent #{agent - int(first[groups.index(g)])} of the table)"
    target = "goal" if g.route_m.shape[1] == 1 else "route"
    rule = exc.rule.replace(f"agent {agent}", f"agent {agent} ({g.key}{which})")
    return r.fail(f"{g.key}.{target}", exc.value, rule)


def _agent_error(r: _Reader, exc: InvalidInput, groups: list[_Group],
                 first: np.ndarray) -> ScenarioError:
    """The ScenarioError of an InvalidInput of ``World.add_agents`` over all groups: the row
    in the field (``radius[17]``) names the group, the field its key in the file."""
    match = re.fullmatch(r"([A-Za-z_][A-Za-z_0-9]*)(?:\[(\d+)(?:,\s*(\d+))?\])?", exc.field)
    if match is None:
        return r.fail("agents", exc.value, f"{exc.field}: {exc.rule}")
    name, row, component = match.groups()
    key = _WORLD_FIELDS.get(name, name)
    g = groups[int(np.searchsorted(first, int(row), side="right")) - 1] if row else groups[0]
    suffix = f"[{component}]" if component is not None else ""
    if key == "position":
        which = int(row) - int(first[groups.index(g)]) if row else 0
        rule = exc.rule if g.count == 1 else f"{exc.rule} (agent #{which} of the table)"
        return r.fail(g.position_key + suffix, exc.value, rule)
    return r.fail(f"{g.key}.{key}{suffix}", exc.value, exc.rule)


def _layout(r: _Reader, data: dict[str, Any]) -> Any:
    from navproof.boundary import make_patch
    from navproof.core.validation import check_valid_polygon
    from navproof.world.layout import Layout, SupportSpec

    obstacles = []
    for key, spec in r.tables(data, "obstacles", allowed=OBSTACLE_KEYS):
        vertices = r.points(f"{key}.vertices", spec.get("vertices"), at_least=2)
        try:
            check_valid_polygon(vertices, field_name="vertices")
        except InvalidInput as exc:
            raise r.fail(f"{key}.{exc.field}", exc.value, exc.rule) from None
        obstacles.append(vertices)
    corridor = None
    if "corridor" in data:
        spec = r.table(data, "corridor", "corridor", allowed=CORRIDOR_KEYS)
        corridor = r.points("corridor.vertices", spec.get("vertices"), at_least=3)
    patches = []
    for i, (key, spec) in enumerate(r.tables(data, "patches", allowed=PATCH_KEYS)):
        name = spec.get("name")
        if not isinstance(name, str) or not name or "|" in name:
            raise r.fail(f"{key}.name", name, "must be a non-empty name without '|'")
        vertices = r.points(f"{key}.vertices", spec.get("vertices"), at_least=3)
        gradient = r.point(f"{key}.gradient", spec.get("gradient", [0.0, 0.0]))
        try:
            make_patch(i, vertices, gradient)
        except InvalidInput as exc:
            raise r.fail(f"{key}.{_SCHEMA_NAMES.get(exc.field, exc.field)}", exc.value,
                         exc.rule) from None
        patches.append((name, vertices, gradient))
    supports = []
    for key, spec in r.tables(data, "supports", allowed=SUPPORT_KEYS):
        try:
            supports.append(SupportSpec.build(
                r.string(f"{key}.name", spec.get("name", key), non_empty=True),
                r.string(f"{key}.kind", spec.get("kind")),
                r.points(f"{key}.vertices", spec.get("vertices"), at_least=3),
                velocity_mps=r.point(f"{key}.velocity_mps", spec.get("velocity_mps", [0, 0])),
                pivot_m=r.point(f"{key}.pivot", spec.get("pivot", [0.0, 0.0])),
                omega_radps=r.number(f"{key}.omega_radps", spec.get("omega_radps", 0.0)),
                acceleration_mps2=r.point(f"{key}.acceleration_mps2",
                                          spec.get("acceleration_mps2", [0.0, 0.0]))))
        except ScenarioError:
            raise
        except InvalidInput as exc:
            raise r.fail(f"{key}.{_schema_name(exc.field)}", exc.value, exc.rule) from None
    try:
        return Layout(obstacles=obstacles, corridor_m=corridor, patches=patches,
                      supports=supports)
    except InvalidInput as exc:
        raise r.fail(_layout_key(exc.field), exc.value, exc.rule) from None


def _navigation(r: _Reader, data: dict[str, Any], folder: Path) -> tuple[Any, list[Any]]:
    """The ``[navmesh]`` table -> a MeshNavigation and its planar patches; MeshError -> the
    key."""
    from navproof.navmesh import MeshCache, MeshError, PlanPatch, read_obj, walkable_area
    from navproof.world.mesh_region import MeshNavigation

    spec = r.table(data, "navmesh", "navmesh", allowed=NAVMESH_KEYS)
    for other in ("corridor", "supports"):
        if other in data:
            raise r.fail(other, data[other], "cannot be combined with [navmesh] (the mesh is "
                                             "the corridor; supports on a mesh are not "
                                             "supported)")
    if ("obj" in spec) == ("walkable" in spec):
        raise r.fail("navmesh", sorted(spec), "give exactly one of walkable (with holes) or "
                                              "obj")
    try:
        if "obj" in spec:
            if "holes" in spec:
                raise r.fail("navmesh.holes", spec["holes"], "holes go with walkable, not obj")
            if not isinstance(spec["obj"], str):
                raise r.fail("navmesh.obj", spec["obj"], "must be a file name")
            up = spec.get("up_axis", "z")
            patches = read_obj(folder / spec["obj"], up_axis=str(up), key="navmesh.obj")
        else:
            walkable = r.points("navmesh.walkable", spec["walkable"], at_least=3)
            holes_raw = spec.get("holes", [])
            if not isinstance(holes_raw, list):
                raise r.fail("navmesh.holes", holes_raw, "must be a list of polygons")
            holes = [r.points(f"navmesh.holes[{i}]", h, at_least=3)
                     for i, h in enumerate(holes_raw)]
            area = walkable_area(walkable, holes, key="navmesh")
            patches = [PlanPatch("walkable", area, np.zeros(2), 0.0)]
    except ScenarioError:
        raise
    except MeshError as exc:
        raise r.fail(exc.field, exc.value, exc.rule) from None
    return MeshNavigation(MeshCache(patches, key="navmesh")), patches


def _slope_patches(r: _Reader, data: dict[str, Any], patches: list[Any]) -> list[Any]:
    """Layout patches of a mesh with more than one gradient: every planar patch becomes a
    slope patch, so that edges between gradients stay handoff edges (C1, H1). Each must be
    convex (the handoff's patch pieces are)."""
    import shapely

    grads = {tuple(np.round(p.gradient, 9)) for p in patches}
    if len(grads) <= 1:
        return []
    if data.get("patches"):
        raise r.fail("patches", data["patches"], "a mesh with slopes makes its own patches; "
                                                 "do not give [[patches]] too")
    out = []
    for p in patches:
        area = shapely.simplify(p.area, 0.0)
        if area.geom_type != "Polygon" or abs(area.convex_hull.area - area.area) > 1e-9:
            raise r.fail("navmesh.obj", p.name, "a sloped mesh's planar patches must each be "
                                                "convex (they become handoff patches)")
        ring = shapely.geometry.polygon.orient(area, 1.0).exterior.coords
        out.append((p.name.replace("|", "/"), np.asarray(ring)[:-1], p.gradient))
    return out


_SCHEMA_NAMES = {"vertices_m": "vertices", "pivot_m": "pivot", "corridor": "vertices"}
"""Layout and support field names -> their keys in the file."""


def _schema_name(field: str) -> str:
    """``vertices_m[2]`` -> ``vertices[2]``: a layout field named as the file's key."""
    name, bracket, rest = field.partition("[")
    return _SCHEMA_NAMES.get(name, name) + bracket + rest


def _layout_key(field: str) -> str:
    """The scenario key of a Layout field: ``corridor`` is ``corridor.vertices``,
    ``obstacles[1][3]`` is ``obstacles[1].vertices[3]``, ``supports[0].vertices_m`` is
    ``supports[0].vertices``; other fields as they are."""
    if field.split("[", 1)[0] == "corridor":
        return "corridor.vertices" + field[len("corridor"):]
    match = re.fullmatch(r"(obstacles|patches|supports)\[(\d+)\](.*)", field)
    if match is None:
        return field
    table, index, rest = match.groups()
    if not rest or rest.startswith("["):
        return f"{table}[{index}].vertices{rest}"
    return f"{table}[{index}].{_schema_name(rest.lstrip('.'))}"


def other_kind(path: Path) -> str | None:
    """The kind of a scenario file that is not a World scenario: "velocity" (``*.json``, for
    ``navproof explain``), the TOML's ``[scenario] kind`` when it names one of
    :data:`OTHER_KINDS`; else None (the World loader reads it and reports any defect)."""
    if path.suffix.lower() == ".json":
        return "velocity"
    try:
        meta = tomllib.loads(path.read_text(encoding="utf-8")).get("scenario")
    except (OSError, ValueError):
        # unreadable (a NUL byte in the path is a ValueError), not UTF-8 (UnicodeDecodeError)
        # or not TOML (TOMLDecodeError), all ValueErrors: the World loader names the defect
        return None
    kind = meta.get("kind") if isinstance(meta, dict) else None
    return kind if kind in OTHER_KINDS else None


OTHER_KINDS = ("pq-handoff",)
"""Values of ``[scenario] kind`` read by another schema than the World's."""


def load_scenario(path: str | Path, *, assertions: bool | None = None,
                  progress: Callable[[str], None] | None = None,
                  ) -> Scenario | PQScenario | VelocityScenario:
    """Read and validate a scenario file: a World scenario builds its World (``assertions``
    and ``progress`` apply to it, see :func:`load_world_scenario`); a P/Q demo file gives its
    :class:`~navproof.demos.pq_handoff.data.PQScenario`; a ``*.json`` file its
    :class:`~navproof.explain_scenario.VelocityScenario`. Raises :class:`ScenarioError` (naming
    file and key) on any defect; a bad profile raises the profile's SpecError."""
    path = Path(path)
    kind = other_kind(path)
    if kind == "velocity":
        from navproof.explain_scenario import load_velocity_scenario

        return load_velocity_scenario(path)
    if kind == "pq-handoff":
        from navproof.demos.pq_handoff.data import load_pq_scenario

        return load_pq_scenario(path)
    return load_world_scenario(path, assertions=assertions, progress=progress)


def _read_text(r: _Reader, path: Path) -> str:
    """The file's text; ScenarioError when it cannot be read or is not UTF-8 (TOML is UTF-8)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise r.fail("<file>", str(path), f"cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:
        # a path the system cannot name at all (a NUL byte in it)
        raise r.fail("<file>", str(path), f"cannot be read: {exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise r.fail("<file>", str(path),
                     f"is not UTF-8 text (byte {raw[exc.start]:#04x} at offset {exc.start}); "
                     "save the scenario as UTF-8") from None


def load_world_scenario(path: str | Path, *, assertions: bool | None = None,
                        progress: Callable[[str], None] | None = None) -> Scenario:
    """Read and validate a World scenario file and build its World. Raises :class:`ScenarioError`
    (naming file and key) on any defect; a bad profile raises the profile's SpecError.

    Agents are added to the World in one call. A file asking for more agents than fit in
    the machine's memory is refused naming the table (``rings[0].count``) before any is
    generated; a load of at least ``PROGRESS_MIN_AGENTS`` agents reports its stages on
    ``progress`` (one line each, e.g. for stderr)."""
    from navproof.specs.profile import load_profile
    from navproof.world import World

    started = time.perf_counter()
    path = Path(path)
    file = str(path)
    r = _Reader(file)
    text = _read_text(r, path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise r.fail("<file>", file, f"is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise r.fail(unknown[0], data[unknown[0]], f"unknown table; allowed: {list(TOP_KEYS)}")
    meta = r.table(data, "scenario", "scenario", allowed=SCENARIO_KEYS)
    name = r.string("scenario.name", meta.get("name", path.stem))
    description = r.string("scenario.description", meta.get("description", ""))
    steps = int(r.number("scenario.steps", meta.get("steps", 600), positive=True, integer=True))
    time_step_s = (None if "time_step_s" not in meta
                   else r.number("scenario.time_step_s", meta["time_step_s"], positive=True))
    profile_path = None
    if "profile" in meta:
        profile_path = path.parent / r.string("scenario.profile", meta["profile"],
                                              non_empty=True)
    profile = load_profile(profile_path)
    responsibility = r.number("scenario.responsibility", meta.get("responsibility", 0.5),
                              positive=True)
    expect_raw = r.table(data, "expect", "expect", allowed=EXPECT_KEYS)
    groups = _agents(r, data, int(profile.defaults()["max_neighbors"]))
    total = sum(g.count for g in groups)
    expect = Expectations(_arrived(r, expect_raw.get("arrived", "all"), total),
                          r.number("expect.min_wall_clearance_m",
                                   expect_raw.get("min_wall_clearance_m", 0.0)),
                          None if "min_agent_clearance_m" not in expect_raw
                          else r.number("expect.min_agent_clearance_m",
                                        expect_raw["min_agent_clearance_m"]))
    layout = _layout(r, data)
    navigation, mesh_patches = _navigation(r, data, path.parent) if "navmesh" in data \
        else (None, [])
    slopes = _slope_patches(r, data, mesh_patches)
    if slopes:
        from navproof.world.layout import Layout

        try:
            layout = Layout(obstacles=layout.obstacles, patches=slopes)
        except InvalidInput as exc:
            raise r.fail("navmesh.obj", exc.value, exc.rule) from None
    try:
        world = World(layout, time_step_s=time_step_s, profile=profile,
                      assertions=assertions, responsibility=responsibility,
                      navigation=navigation)
    except InvalidInput as exc:
        # the World's own settings are [scenario] keys; a layout check names its table
        key = (f"scenario.{exc.field}" if exc.field.split("[", 1)[0] in SCENARIO_KEYS
               else _layout_key(exc.field))
        raise r.fail(key, exc.value, exc.rule) from None
    report = progress if progress is not None and total >= PROGRESS_MIN_AGENTS else None
    if report is not None:
        report(f"{file}: adding {total} agents to the World")
    try:
        _add_agents(r, world, groups)
    except ScenarioError:
        world.close()
        raise
    if report is not None:
        report(f"{file}: {total} agents loaded in {time.perf_counter() - started:.2f} s")
    return Scenario(name, description, world, steps, expect, file,
                    inputs=(file,) if profile_path is None else (file, str(profile_path)),
                    text=text)


def _arrived(r: _Reader, value: object, agents: int) -> str | int:
    """``[expect] arrived``: "all" or a whole number of agents in [0, agents]."""
    if value == "all":
        return "all"
    rule = f'must be "all" or a whole number of agents in [0, {agents}]'
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= agents:
        if isinstance(value, float) and value.is_integer() and 0 <= value <= agents:
            return int(value)
        raise r.fail("expect.arrived", value, rule)
    return int(value)


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
