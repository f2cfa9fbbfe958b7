"""``navproof explain``'s scenarios: one agent's step in velocity space, from a JSON file or a
built-in one, loaded into an ORCA :class:`~navproof.orca.crowd.Crowd` and, with a ``boundary``,
the safe step's edges, support and caps (Claim: O4; B1-B6, V1, V2 with a boundary). Schema::

    {"time_step": 0.25,
     "defaults": {"neighbor_dist": 15, "max_neighbors": 10, "time_horizon": 10,
                  "time_horizon_obst": 10, "radius": 1.5, "max_speed": 2},
     "agents": [{"position": [0, 0], "velocity": [0, 0], "pref_velocity": [1, 0]}, ...],
     "obstacles": [[[x, y], [x, y], ...], ...],
     "boundary": {"edges": [{"normal": [1, 0], "offset_m": 5, "velocity_mps": [0, 0]}, ...],
                  "support_velocity_mps": [0, 0], "accel_mps2": 2.0, "vh_mps": 2.0}}

Any agent key of the defaults may be given per agent. Boundary edges ``dot(normal, x) <=
offset_m`` (unit outward normal) hold for every agent; ``vh_mps`` defaults to each agent's max
speed. A file is read through :func:`navproof.scenario.load_scenario` (a ``.json`` path), like
the World's and the P/Q demo's TOML files; every error is a
:class:`~navproof.core.errors.ScenarioError` naming the file (or the built-in), the key, the
value and the rule.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from navproof.core.errors import InvalidInput, ScenarioError

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
    "corridor": {
        "time_step": 0.1,
        "defaults": {"radius": 0.4, "max_speed": 2.0, "time_horizon": 2.0},
        "agents": [
            {"position": [1.4, 0.0], "velocity": [1.2, 0.2], "pref_velocity": [2.0, 0.0]},
            {"position": [0.6, -0.55], "velocity": [1.6, 0.0], "pref_velocity": [2.0, 0.0]},
            {"position": [-0.5, 0.2], "velocity": [1.0, 0.0], "pref_velocity": [1.0, 0.0]},
        ],
        "obstacles": [],
        "boundary": {
            "edges": [{"normal": [0.0, 1.0], "offset_m": 0.6},
                      {"normal": [0.0, -1.0], "offset_m": 1.0},
                      {"normal": [1.0, 0.0], "offset_m": 2.0}],
            "support_velocity_mps": [0.0, 0.0],
            "accel_mps2": 4.0,
        },
    },
}


@dataclass(frozen=True)
class VelocityScenario:
    """A loaded ``explain`` scenario: its source (file or ``built-in 'NAME'``), the crowd and the
    boundary (None: ORCA alone)."""

    source: str
    crowd: Any
    boundary: Boundary | None


def load_velocity_scenario(path: str | Path) -> VelocityScenario:
    """Read a JSON ``explain`` scenario file; ScenarioError naming the file when it cannot be
    read, is not UTF-8 text or is not JSON (with the line and column of the defect), and
    naming the file and the key for a bad value."""
    file = str(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise ScenarioError(file, "<file>", None,
                            f"cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:
        # a path the system cannot name at all (a NUL byte in it)
        raise ScenarioError(file, "<file>", None, f"cannot be read: {exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(file, "<file>", None,
                            f"is not UTF-8 text (byte {raw[exc.start]:#04x} at offset "
                            f"{exc.start}); save it as UTF-8") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(file, "<file>", None, f"is not valid JSON: {exc.msg} at line "
                                                  f"{exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise ScenarioError(file, "<file>", None, "is not usable JSON: nested too deeply"
                            ) from None
    return velocity_scenario_from_data(data, source=file)


def builtin_velocity_scenario(name: str) -> VelocityScenario:
    """One of :data:`BUILTIN` (ScenarioError for an unknown name)."""
    if name not in BUILTIN:
        raise ScenarioError("builtin", "name", name, f"must be one of {sorted(BUILTIN)}")
    return velocity_scenario_from_data(BUILTIN[name], source=f"built-in {name!r}")


def velocity_scenario_from_data(data: Any, *, source: str) -> VelocityScenario:
    """The crowd and boundary of a scenario dictionary; ScenarioError naming ``source``."""
    try:
        crowd = load_scenario(data)
        boundary = load_boundary(data, crowd)
    except ScenarioError:
        raise
    except InvalidInput as exc:
        raise ScenarioError(source, exc.field, exc.value, exc.rule) from None
    except TypeError as exc:  # a value of the wrong type deep in a list
        raise ScenarioError(source, "<scenario>", None, f"malformed: {exc}") from None
    return VelocityScenario(source, crowd, boundary)


def load_scenario(data: dict[str, Any]) -> Any:
    """A :class:`~navproof.orca.crowd.Crowd` built from a scenario dictionary (validated)."""
    from navproof.core.errors import InvalidInput
    from navproof.orca.agents import AGENT_DEFAULT_ALIASES
    from navproof.orca.crowd import ADD_AGENTS_ALIASES, AgentDefaults, Crowd

    if not isinstance(data, dict):
        raise InvalidInput("scenario", type(data).__name__, "must be a JSON object")
    # the file format keeps the crowd's old setting names; they map onto the current ones
    known = set(AGENT_DEFAULT_ALIASES) | {"max_neighbors"}
    defaults_raw = data.get("defaults", {})
    if not isinstance(defaults_raw, dict) or set(defaults_raw) - known:
        raise InvalidInput("defaults", defaults_raw, f"keys must be among {sorted(known)}")
    _refuse_booleans("defaults", defaults_raw)
    fields: dict[str, Any] = {AGENT_DEFAULT_ALIASES.get(str(k), str(k)):
                              (tuple(v) if k == "velocity" and isinstance(v, list) else v)
                              for k, v in defaults_raw.items()}
    defaults = AgentDefaults(**fields)
    time_step = data.get("time_step", 0.25)
    if isinstance(time_step, bool):
        raise InvalidInput("time_step", time_step, "must be a number")
    try:
        crowd = Crowd(time_step, defaults=defaults)
        crowd.add_agents(np.zeros((0, 2)))  # no agent: checks every default value now
    except InvalidInput as exc:
        field = exc.field if exc.field == "time_step" else f"defaults.{exc.field}"
        raise InvalidInput(field, exc.value, exc.rule) from None
    agents = data.get("agents", [])
    if not isinstance(agents, list):
        raise InvalidInput("agents", agents, "must be a list")
    for i, agent in enumerate(agents):
        if not isinstance(agent, dict) or "position" not in agent:
            raise InvalidInput(f"agents[{i}]", agent, "must be an object with a position")
        extra = set(agent) - known - {"position", "pref_velocity"}
        if extra:
            raise InvalidInput(f"agents[{i}]", sorted(extra), "unknown keys")
        _refuse_booleans(f"agents[{i}]", agent)
        params = {ADD_AGENTS_ALIASES.get(str(k), str(k)): v for k, v in agent.items()
                  if k != "position"}
        try:
            crowd.add_agent(agent["position"], **params)
        except InvalidInput as exc:
            raise InvalidInput(f"agents[{i}].{exc.field}", exc.value, exc.rule) from None
    obstacles = data.get("obstacles", [])
    if not isinstance(obstacles, list):
        raise InvalidInput("obstacles", obstacles, "must be a list of polygons")
    for j, poly in enumerate(obstacles):
        try:
            crowd.add_obstacle(poly)
        except InvalidInput as exc:
            raise InvalidInput(f"obstacles[{j}].{exc.field}", exc.value, exc.rule) from exc
    return crowd


def _refuse_booleans(key: str, table: dict[str, Any]) -> None:
    """JSON true/false is not a number: refuse it for every numeric key of an agent object
    (``cooperative`` aside, which is a flag)."""
    from navproof.core.errors import InvalidInput

    for name, value in table.items():
        if name == "cooperative":
            continue
        if isinstance(value, bool) or (isinstance(value, list)
                                       and any(isinstance(v, bool) for v in value)):
            raise InvalidInput(f"{key}.{name}", value, "must be a number (not true/false)")


@dataclass(frozen=True)
class Boundary:
    """The safe step's world of a scenario: edges (N, K), support, caps (Claim: B1-B6, V1, V2)."""

    edges: Any
    support: Any
    vh_mps: np.ndarray
    accel_mps2: np.ndarray


def _vector(field: str, value: Any) -> np.ndarray:
    from navproof.core.errors import InvalidInput
    from navproof.core.validation import check_valid_finite

    arr = check_valid_finite(field, value)
    if arr.shape != (2,):
        raise InvalidInput(field, value, "must be a pair (x, y)")
    return arr


def load_boundary(data: dict[str, Any], crowd: Any) -> Boundary | None:
    """The scenario's ``boundary`` for every agent of ``crowd``, or None (validated)."""
    from navproof.boundary.edges import EdgeSet
    from navproof.boundary.motion import Support
    from navproof.core.errors import InvalidInput

    raw = data.get("boundary")
    if raw is None:
        return None
    allowed = {"edges", "support_velocity_mps", "accel_mps2", "vh_mps"}
    if not isinstance(raw, dict) or set(raw) - allowed:
        raise InvalidInput("boundary", raw, f"must be an object with keys among {sorted(allowed)}")
    edges = raw.get("edges", [])
    if not isinstance(edges, list):
        raise InvalidInput("boundary.edges", edges, "must be a list")
    n = crowd.num_agents
    normal = np.zeros((n, len(edges), 2))
    offset = np.zeros((n, len(edges)))
    velocity = np.zeros((n, len(edges), 2))
    for k, edge in enumerate(edges):
        if not isinstance(edge, dict) or {"normal", "offset_m"} - set(edge) or set(edge) - {
                "normal", "offset_m", "velocity_mps"}:
            raise InvalidInput(f"boundary.edges[{k}]", edge,
                               "must be an object with normal, offset_m and optional velocity_mps")
        normal[:, k] = _vector(f"boundary.edges[{k}].normal", edge["normal"])
        offset[:, k] = float(_vector(f"boundary.edges[{k}].offset_m", [edge["offset_m"], 0])[0])
        velocity[:, k] = _vector(f"boundary.edges[{k}].velocity_mps",
                                 edge.get("velocity_mps", [0.0, 0.0]))
    try:
        edge_set = EdgeSet.build(normal, offset, edge_velocity_mps=velocity)
    except InvalidInput as exc:
        raise InvalidInput(f"boundary.edges.{exc.field}", exc.value, exc.rule) from exc
    carry = _vector("boundary.support_velocity_mps", raw.get("support_velocity_mps", [0, 0]))
    accel = float(_vector("boundary.accel_mps2", [raw.get("accel_mps2", 2.0), 0.0])[0])
    if not accel > 0.0:
        raise InvalidInput("boundary.accel_mps2", accel, "must be > 0")
    vh = raw.get("vh_mps")
    vh_mps = crowd.max_speed.copy() if vh is None else np.full(
        n, float(_vector("boundary.vh_mps", [vh, 0.0])[0]))
    if np.any(vh_mps <= 0.0):
        raise InvalidInput("boundary.vh_mps", vh, "must be > 0")
    return Boundary(edge_set, Support.translating(np.broadcast_to(carry, (n, 2)).copy()), vh_mps,
                    np.full(n, accel))
