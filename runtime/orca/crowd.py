"""N-agent ORCA simulator on numpy arrays: neighbours -> ORCA lines -> closest velocity -> move.

One :meth:`Crowd.step` takes a snapshot of every agent's position and velocity, builds all
constraints from that one snapshot (so A and B see each other at the same instant, as the
reciprocity argument assumes), solves every agent's closest-velocity problem and only then
moves everybody. Units: metres, seconds, metres per second.

Agent indices are row numbers: removing agent ``i`` shifts the agents after it down by one.
Every input is validated before anything changes; a rejected call leaves the state as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from navproof.core.deprecation import renamed_keywords
from navproof.core.errors import InvalidInput, assertions_enabled
from navproof.core.parallel import available_cpus, run_pieces
from navproof.core.ranges import check_in_profile_range
from navproof.core.validation import (
    MAX_DURATION_S,
    MAX_LENGTH_M,
    MIN_DURATION_S,
    check_valid_finite,
    check_valid_range,
    check_valid_vector,
)
from navproof.orca.agents import (  # noqa: F401  (PROFILE_PARAMETERS re-exported)
    FLOAT_FIELDS,
    PROFILE_PARAMETERS,
    VECTOR_BOUNDS,
    AgentDefaults,
    check_agents_in_profile,
    check_valid_agent_scalar,
    check_valid_agent_vectors,
)
from navproof.orca.diagnostics import (  # noqa: F401  (re-exported: the crowd's public types)
    AgentRecord,
    SolveSnapshot,
    StepDiagnostics,
    build_diagnostics,
    snapshot_of,
)
from navproof.orca.halfplanes import solve_lines
from navproof.orca.lines import agent_lines, obstacle_lines
from navproof.orca.neighbors import AgentGrid, build_grid, query_into
from navproof.orca.obstacles import ObstacleSet
from navproof.orca.responsibility import (
    TIE_BREAKS,
    pair_shares,
    stall_count,
    turn_right,
    uniform_shares,
)
from navproof.orca.small_crowd import small_crowd_lines, solve_small_crowd
from navproof.orca.state import check_valid_crowd_state

if TYPE_CHECKING:
    from navproof.specs.profile import Profile

PARALLEL_MIN_AGENTS = 4096
"""Crowds at least this large run their compiled loops in ``workers`` threads."""

THREAD_PIECES = 16
"""Pieces a threaded compiled loop is cut into: a busy core's share moves to the free one."""

PIECE_ROWS = 65536
"""Largest piece of agent rows whose lines and programs are solved at once: bounds the
working memory per agent of very large crowds (smaller pieces cost more in merging)."""


CROWD_ALIASES = {"time_step": "time_step_s"}
"""Old keyword names of :class:`Crowd` -> their unit-suffixed names (the old ones warn)."""
ADD_AGENTS_ALIASES = {
    "position": "position_m",
    "velocity": "velocity_mps",
    "pref_velocity": "pref_velocity_mps",
    "radius": "radius_m",
    "max_speed": "max_speed_mps",
    "neighbor_dist": "neighbor_dist_m",
    "time_horizon": "time_horizon_s",
    "time_horizon_obst": "time_horizon_obst_s",
}
"""Old keyword names of :meth:`Crowd.add_agents` -> their unit-suffixed names (the old ones
warn)."""


def _renamed_arguments(where: str, deprecated: dict[str, Any], aliases: dict[str, str],
                       current: dict[str, Any]) -> dict[str, Any]:
    """``current`` keyword values with those given under an old name of ``aliases`` filled in
    (DeprecationWarning); an unknown keyword is a TypeError, as Python reports it."""
    unknown = sorted(set(deprecated) - set(aliases))
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument {unknown[0]!r}")
    given = {k: v for k, v in current.items() if v is not None}
    renamed = renamed_keywords(where, {**given, **deprecated}, aliases, stacklevel=4)
    return {**current, **renamed}


class Crowd:
    """ORCA simulator for many agents held in arrays. Claim: O1-O6.

    ``time_step_s`` (s) > 0, 0.25 when not given (the old keyword ``time_step`` still works for
    one release, with a DeprecationWarning); ``assertions`` turns on the run-time monitor
    (default: the ``NAVPROOF_ASSERT`` environment variable); ``responsibility`` is the share
    each of two equal agents takes of their avoidance (1/2 is RVO2's reciprocal split; per
    agent, the
    ``responsibility_weight``, ``priority`` and ``cooperative`` settings split each pair as in
    :mod:`navproof.orca.responsibility`, Claim O7; ``priority_share`` is what the higher
    priority of a pair takes); ``tie_break`` is "none" (RVO2) or "keep-right": an agent
    stalled for ``stall_steps`` steps turns its preferred velocity clockwise by
    ``side_bias_rad`` and yields by index to stalled equals (Claim O8); ``workers`` threads
    (default: the CPUs this process may use) run the compiled loops of crowds of at least
    ``PARALLEL_MIN_AGENTS`` agents. The numpy stages stay on the calling thread: their many
    short calls contend for the interpreter lock, and on a loaded 2-core machine two threads
    of them cost twice the CPU time. The answer does not depend on ``workers``.

    With a ``profile`` the time step and every agent's ORCA parameters must lie in its ranges
    (``PROFILE_PARAMETERS``, ``step_s``: where ``navproof prove`` covered them), and agents
    take its defaults; without one the embedded default profile gives the defaults and only
    the working bounds apply (RVO2 accepts any positive values).
    """

    def __init__(self, time_step_s: float | None = None, *,
                 defaults: AgentDefaults | None = None,
                 profile: Profile | None = None,
                 assertions: bool | None = None, responsibility: float = 0.5,
                 priority_share: float = 0.25, tie_break: str = "none",
                 side_bias_rad: float = 0.5, stall_steps: int = 2,
                 workers: int | None = None, **deprecated: Any) -> None:
        if deprecated:
            time_step_s = _renamed_arguments("Crowd", deprecated, CROWD_ALIASES,
                                             {"time_step_s": time_step_s})["time_step_s"]
        self.profile = profile
        self.time_step = self._valid_time_step(0.25 if time_step_s is None else time_step_s)
        self.responsibility = float(check_valid_range("responsibility", responsibility,
                                                      low=0.0, high=1.0, low_open=True))
        self.priority_share = float(check_valid_range("priority_share", priority_share,
                                                      low=0.0, high=0.5))
        if tie_break not in TIE_BREAKS:
            raise InvalidInput("tie_break", tie_break, f"must be one of {TIE_BREAKS}")
        self.tie_break = tie_break
        self.side_bias_rad = float(check_valid_range("side_bias_rad", side_bias_rad, low=0.0,
                                                     high=np.pi / 2, low_open=True,
                                                     high_open=True, unit="rad"))
        if isinstance(stall_steps, bool) or not isinstance(stall_steps, (int, np.integer)) \
                or stall_steps < 1:
            raise InvalidInput("stall_steps", stall_steps, "must be an integer >= 1")
        self.stall_steps = int(stall_steps)
        self.defaults = defaults or (AgentDefaults() if profile is None
                                     else AgentDefaults.from_profile(profile))
        self.assertions = assertions_enabled(assertions)
        self.workers = max(1, int(workers if workers is not None else available_cpus()))
        self.global_time = 0.0
        self.obstacles = ObstacleSet()
        self.position = np.zeros((0, 2))
        self.velocity = np.zeros((0, 2))
        self.pref_velocity = np.zeros((0, 2))
        self.radius = np.zeros(0)
        self.max_speed = np.zeros(0)
        self.neighbor_dist = np.zeros(0)
        self.time_horizon = np.zeros(0)
        self.time_horizon_obst = np.zeros(0)
        self.max_neighbors = np.zeros(0, dtype=np.int64)
        # per-agent responsibility (O7) and progress (O8)
        self.responsibility_weight = np.zeros(0)
        self.priority = np.zeros(0)
        self.cooperative = np.zeros(0, dtype=bool)
        self.stalled_steps = np.zeros(0, dtype=np.int64)
        self._preferred = np.zeros((0, 2))  # what the last solve used (see solve_preferred)
        self.diagnostics: StepDiagnostics | None = None
        # neighbours of the last snapshot, by distance, -1 padded (agent rows, obstacle vertices)
        self.agent_neighbor_idx = np.zeros((0, 0), dtype=np.int64)
        self.obstacle_neighbor_idx = np.zeros((0, 0), dtype=np.int64)

    # ----------------------------------------------------------------- validation helpers
    def _valid_time_step(self, time_step: float) -> float:
        dt = float(check_valid_range("time_step", time_step, low=MIN_DURATION_S,
                                     high=MAX_DURATION_S, unit="s"))
        if self.profile is not None:
            check_in_profile_range(self.profile, "time_step", "step_s", dt)
        return dt


    @property
    def num_agents(self) -> int:
        """Number of agents."""
        return int(self.position.shape[0])

    def _check_index(self, agent: Any, name: str = "agent") -> int:
        n = self.num_agents
        if isinstance(agent, bool) or not isinstance(agent, (int, np.integer)):
            raise IndexError(f"{name} = {agent!r}: agent index must be an integer")
        if not 0 <= int(agent) < n:
            raise IndexError(f"{name} = {agent!r}: no such agent (0 <= {name} < {n})")
        return int(agent)

    def _forget_snapshot(self) -> None:
        # rows changed: the last solve's per-agent arrays no longer line up with the agents
        self.diagnostics = None
        self.agent_neighbor_idx = np.zeros((0, 0), dtype=np.int64)
        self.obstacle_neighbor_idx = np.zeros((0, 0), dtype=np.int64)

    # ------------------------------------------------------------------------- agents
    def add_agents(self, position_m: Any = None, *, velocity_mps: Any = None,
                   pref_velocity_mps: Any = None, radius_m: Any = None,
                   max_speed_mps: Any = None, neighbor_dist_m: Any = None,
                   max_neighbors: Any = None, time_horizon_s: Any = None,
                   time_horizon_obst_s: Any = None, responsibility_weight: Any = None,
                   priority: Any = None, cooperative: Any = None,
                   **deprecated: Any) -> np.ndarray:
        """Add agents at ``position_m (M, 2)`` [m]; missing parameters come from the defaults.

        Velocities in m/s, radius and neighbour distance in m, horizons in s. The old keyword
        names (``position``, ``velocity``, ``pref_velocity``, ``radius``, ``max_speed``,
        ``neighbor_dist``, ``time_horizon``, ``time_horizon_obst``) still work for one release
        and emit a ``DeprecationWarning``.

        Scalars broadcast. Returns the new agents' indices. Nothing is added if any value is
        invalid (non-finite, negative radius/speed/distance, non-positive horizon or
        responsibility weight). ``responsibility_weight`` (> 0, default 1), ``priority`` (any
        finite number, default 0) and ``cooperative`` (default True) set the pair shares
        (Claim O7, :mod:`navproof.orca.responsibility`).
        """
        if deprecated:
            given = _renamed_arguments("Crowd.add_agents", deprecated, ADD_AGENTS_ALIASES, {
                "position_m": position_m, "velocity_mps": velocity_mps,
                "pref_velocity_mps": pref_velocity_mps, "radius_m": radius_m,
                "max_speed_mps": max_speed_mps, "neighbor_dist_m": neighbor_dist_m,
                "time_horizon_s": time_horizon_s, "time_horizon_obst_s": time_horizon_obst_s})
            position_m, velocity_mps = given["position_m"], given["velocity_mps"]
            pref_velocity_mps, radius_m = given["pref_velocity_mps"], given["radius_m"]
            max_speed_mps, neighbor_dist_m = given["max_speed_mps"], given["neighbor_dist_m"]
            time_horizon_s = given["time_horizon_s"]
            time_horizon_obst_s = given["time_horizon_obst_s"]
        if position_m is None:
            raise TypeError("Crowd.add_agents() missing required argument: 'position_m'")
        position = position_m
        pos = check_valid_finite("position", position)
        if pos.ndim != 2 or pos.shape[1] != 2:
            raise InvalidInput("position", position, "must have shape (M, 2)")
        pos = check_valid_agent_vectors("position", pos)
        m = pos.shape[0]
        d = self.defaults

        def vec(name: str, value: Any, default: tuple[float, float]) -> np.ndarray:
            arr = check_valid_agent_vectors(name, default if value is None else value)
            try:
                return np.broadcast_to(arr, (m, 2)).astype(np.float64)
            except ValueError as exc:
                raise InvalidInput(name, value, f"must broadcast to shape ({m}, 2)") from exc

        def col(name: str, value: Any, default: float) -> np.ndarray:
            arr = check_valid_finite(name, default if value is None else value)
            try:
                arr = np.broadcast_to(arr, (m,)).copy()
            except ValueError as exc:
                raise InvalidInput(name, value, f"must broadcast to shape ({m},)") from exc
            return check_valid_agent_scalar(name, arr)

        vel = vec("velocity", velocity_mps, d.velocity_mps)
        pref = vec("pref_velocity", pref_velocity_mps, (0.0, 0.0))
        rad = col("radius", radius_m, d.radius_m)
        speed = col("max_speed", max_speed_mps, d.max_speed_mps)
        ndist = col("neighbor_dist", neighbor_dist_m, d.neighbor_dist_m)
        th = col("time_horizon", time_horizon_s, d.time_horizon_s)
        tho = col("time_horizon_obst", time_horizon_obst_s, d.time_horizon_obst_s)
        mn = col("max_neighbors", max_neighbors, d.max_neighbors)
        for name, values in (("radius", rad), ("max_speed", speed), ("neighbor_dist", ndist),
                             ("time_horizon", th), ("time_horizon_obst", tho),
                             ("max_neighbors", mn)):
            check_agents_in_profile(self.profile, name, values)
        weight = col("responsibility_weight", responsibility_weight, 1.0)
        prio = col("priority", priority, 0.0)
        coop_raw = np.asarray(True if cooperative is None else cooperative)
        if coop_raw.dtype != bool:
            raise InvalidInput("cooperative", cooperative, "must be True or False")
        try:
            coop = np.broadcast_to(coop_raw, (m,))
        except ValueError as exc:
            raise InvalidInput("cooperative", cooperative, f"must broadcast to ({m},)") from exc
        first = self.num_agents
        self.position = np.concatenate([self.position, pos])
        self.velocity = np.concatenate([self.velocity, vel])
        self.pref_velocity = np.concatenate([self.pref_velocity, pref])
        self.radius = np.concatenate([self.radius, rad])
        self.max_speed = np.concatenate([self.max_speed, speed])
        self.neighbor_dist = np.concatenate([self.neighbor_dist, ndist])
        self.time_horizon = np.concatenate([self.time_horizon, th])
        self.time_horizon_obst = np.concatenate([self.time_horizon_obst, tho])
        self.max_neighbors = np.concatenate([self.max_neighbors, mn.astype(np.int64)])
        self.responsibility_weight = np.concatenate([self.responsibility_weight, weight])
        self.priority = np.concatenate([self.priority, prio])
        self.cooperative = np.concatenate([self.cooperative, coop])
        self.stalled_steps = np.concatenate([self.stalled_steps, np.zeros(m, dtype=np.int64)])
        self._forget_snapshot()
        return np.arange(first, first + m)

    def add_agent(self, position_m: Any, **params: Any) -> int:
        """Add one agent at ``position_m (x, y)`` [m]; keyword parameters as
        :meth:`add_agents`."""
        pos = check_valid_vector("position", position_m, max_abs=MAX_LENGTH_M, unit="m")
        vectors = ("velocity", "pref_velocity", "velocity_mps", "pref_velocity_mps")
        wrapped = {k: (np.asarray(v)[None] if k in vectors and v is not None else v)
                   for k, v in params.items()}
        return int(self.add_agents(pos[None], **wrapped)[0])

    def remove_agent(self, agent: int) -> None:
        """Remove one agent; the agents after it move down one index."""
        i = self._check_index(agent)
        for name in ("position", "velocity", "pref_velocity", "radius", "max_speed",
                     "neighbor_dist", "time_horizon", "time_horizon_obst", "max_neighbors",
                     "responsibility_weight", "priority", "cooperative", "stalled_steps"):
            setattr(self, name, np.delete(getattr(self, name), i, axis=0))
        self._forget_snapshot()

    def set_agent_vector(self, name: str, agent: int, value: Any) -> None:
        """Set ``position``, ``velocity`` or ``pref_velocity`` of one agent (m, m/s)."""
        if name not in ("position", "velocity", "pref_velocity"):
            raise InvalidInput("name", name, "must be position, velocity or pref_velocity")
        i = self._check_index(agent)
        bound, unit = VECTOR_BOUNDS[name]
        arr = check_valid_vector(name, value, max_abs=bound, unit=unit)
        getattr(self, name)[i] = arr

    def set_agent_scalar(self, name: str, agent: int, value: Any) -> None:
        """Set one agent's radius, max_speed, neighbor_dist, time horizons or max_neighbors."""
        if name not in FLOAT_FIELDS + ("max_neighbors",):
            raise InvalidInput("name", name, f"must be one of {FLOAT_FIELDS + ('max_neighbors',)}")
        i = self._check_index(agent)
        arr = check_valid_finite(name, value)
        if arr.shape != ():
            raise InvalidInput(name, value, "must be a scalar")
        arr = check_valid_agent_scalar(name, arr)
        check_agents_in_profile(self.profile, name, arr)
        if name == "max_neighbors":
            self.max_neighbors[i] = int(arr)
        else:
            getattr(self, name)[i] = float(arr)

    def set_agent_cooperative(self, agent: int, cooperative: bool) -> None:
        """Mark one agent cooperative (it avoids other agents) or not (Claim O7)."""
        i = self._check_index(agent)
        if not isinstance(cooperative, (bool, np.bool_)):
            raise InvalidInput("cooperative", cooperative, "must be True or False")
        self.cooperative[i] = bool(cooperative)

    def set_pref_velocities(self, pref_velocity: Any) -> None:
        """Set every agent's preferred velocity at once, ``(N, 2)`` m/s."""
        arr = check_valid_finite("pref_velocity", pref_velocity, shape=(self.num_agents, 2))
        self.pref_velocity = check_valid_agent_vectors("pref_velocity", arr).copy()

    def set_time_step(self, time_step: float) -> None:
        """Change the time step (s, > 0)."""
        self.time_step = self._valid_time_step(time_step)

    # ---------------------------------------------------------------------- obstacles
    def add_obstacle(self, vertices: Any) -> int:
        """Add a polygon (CCW solid, 2 vertices a segment, CW bounding); returns its first vertex.

        Takes effect from the next step (vertices are re-processed then). Claim: O5.
        """
        return self.obstacles.add(vertices)

    def process_obstacles(self) -> None:
        """Build vertex links, convexity and partition splits now (else done lazily)."""
        self.obstacles.process()

    # --------------------------------------------------------------------------- step
    def _noncooperative_velocity(self) -> np.ndarray:
        """What a non-cooperative agent is about to do: its preferred velocity within its max
        speed (the obstacles aside, nothing else binds it). Claim: O7."""
        pref = self._preferred
        speed = np.hypot(pref[:, 0], pref[:, 1])
        scale = np.where(speed > self.max_speed, self.max_speed / np.maximum(speed, 1e-300), 1.0)
        return pref * scale[:, None]

    def _tie_broken(self) -> np.ndarray | None:
        """Agents the tie-break acts on (stalled long enough), or None without a tie-break."""
        if self.tie_break == "none":
            return None
        return self.stalled_steps >= self.stall_steps

    def _uniform_shares(self) -> bool:
        """Whether every pair splits by the crowd-wide share (RVO2's rule, no per-pair work)."""
        stalled = self._tie_broken()
        return bool((stalled is None or not stalled.any())
                    and uniform_shares(self.cooperative, self.responsibility_weight,
                                       self.priority))

    def solve_preferred(self) -> np.ndarray:
        """The preferred velocities the solve uses: with the keep-right tie-break, those of
        agents stalled for ``stall_steps`` steps turned clockwise by ``side_bias_rad``. Claim:
        O8."""
        stalled = self._tie_broken()
        if stalled is None:
            return self.pref_velocity
        return turn_right(self.pref_velocity, stalled, self.side_bias_rad)

    def _lines_for(self, rows: np.ndarray, nb_idx: np.ndarray, obst_idx: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Constraint lines of agent ``rows``: obstacle lines first, then agent lines, packed."""
        pos, vel = self.position, self.velocity
        share: float | np.ndarray = self.responsibility
        if not self._uniform_shares():
            # non-cooperative agents avoid no agent; the others split each pair (O7) and
            # expect a non-cooperative neighbour at the velocity it is about to take
            nb_idx = np.where(self.cooperative[rows][:, None], nb_idx, -1)
            vel = np.where(self.cooperative[:, None], vel, self._noncooperative_velocity())
            share = pair_shares(nb_idx, rows, weight=self.responsibility_weight,
                                priority=self.priority, cooperative=self.cooperative,
                                equal_share=self.responsibility,
                                higher_share=self.priority_share,
                                stalled=self._tie_broken())
        threads = self.workers if rows.size >= PARALLEL_MIN_AGENTS else 1
        ap, ad, av = agent_lines(pos, vel, self.radius, self.time_horizon, self.time_step, nb_idx,
                                 responsibility=share, rows=rows, threads=threads)
        if obst_idx.shape[1] == 0:
            return ap, ad, av, np.zeros(rows.size, dtype=np.int64)
        op, od, ov = obstacle_lines(self.position[rows], self.velocity[rows], self.radius[rows],
                                    self.time_horizon_obst[rows], self.obstacles, obst_idx)
        num_hard = ov.sum(axis=1).astype(np.int64)
        m, k = ov.shape[1], av.shape[1]
        if m == 0:
            return ap, ad, av, num_hard
        r = rows.size
        point = np.zeros((r, m + k, 2))
        direction = np.zeros((r, m + k, 2))
        valid = np.zeros((r, m + k), dtype=bool)
        point[:, :m] = op
        direction[:, :m] = od
        valid[:, :m] = ov
        if k:
            # agent lines follow each agent's own obstacle lines without a gap
            slot = num_hard[:, None] + np.arange(k)[None, :]
            local = np.broadcast_to(np.arange(r)[:, None], slot.shape)
            point[local, slot] = ap
            direction[local, slot] = ad
            valid[local, slot] = av
        return point, direction, valid, num_hard

    def _obstacle_neighbors(self, rows: np.ndarray, grid: AgentGrid | None = None
                            ) -> np.ndarray:
        """Obstacle edges near agent ``rows``, by increasing distance, -1 padded.

        With obstacles and a ``grid``, the agents are taken in grid order (spatially compact
        pieces meet fewer edges); the answer is per agent and does not depend on the order.
        """
        if self.obstacles.point.shape[0] == 0:
            return np.empty((rows.size, 0), dtype=np.int64)
        if grid is not None and rows.size > 1:
            order = np.argsort(grid.slot_of[rows], kind="stable")
            found = self._obstacle_neighbors(rows[order])
            out = np.empty_like(found)
            out[order] = found
            return out
        obst_range = (self.time_horizon_obst[rows] * self.max_speed[rows] + self.radius[rows])
        return self.obstacles.neighbors(self.position[rows], obst_range * obst_range)[0]

    def compute_lines(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """All agents' constraint lines from the current snapshot: obstacle lines first.

        Returns ``(point (N, K, 2), direction (N, K, 2), valid (N, K), num_hard (N,))``.
        Claim: O3, O5, O6.
        """
        check_valid_crowd_state(self)
        if not self.obstacles.processed:
            self.obstacles.process()
        n = self.num_agents
        if (0 < n < PARALLEL_MIN_AGENTS and self.obstacles.point.shape[0] == 0
                and self._uniform_shares()):
            # the usual lines of a small crowd: the solve's passes in one compiled call
            small = small_crowd_lines(self.position, self.velocity, self.radius,
                                      self.time_horizon, self.neighbor_dist, self.max_neighbors,
                                      self.time_step, self.responsibility)
            if small is not None:
                self.agent_neighbor_idx, point, direction, valid = small
                self.obstacle_neighbor_idx = np.empty((n, 0), dtype=np.int64)
                return point, direction, valid, np.zeros(n, dtype=np.int64)
        grid = build_grid(self.position, self.neighbor_dist, self.max_neighbors)
        rows = np.arange(n)
        obst_idx = self._obstacle_neighbors(rows, grid)
        nb_idx = self._agent_neighbors(grid, threads=self.workers)
        self.agent_neighbor_idx = nb_idx
        self.obstacle_neighbor_idx = obst_idx
        return self._lines_for(rows, nb_idx, obst_idx)

    def _agent_neighbors(self, grid: AgentGrid | None, *, threads: int) -> np.ndarray:
        """Agent neighbours of every agent by distance, -1 padded. Claim: O2.

        The grid's sorted slots (neighbouring agents together in memory) are answered in
        pieces on up to ``threads`` threads; every row depends on the snapshot alone.
        """
        n = self.num_agents
        if grid is None:
            return np.full((n, int(self.max_neighbors.max(initial=0))), -1, dtype=np.int64)
        # every agent is in the grid: each row is written
        nb_idx = np.empty((n, grid.k), dtype=np.int64)
        nb_d = np.empty((n, grid.k))
        m = grid.members.size
        pieces = THREAD_PIECES if threads > 1 and n >= PARALLEL_MIN_AGENTS else 1
        bounds = [m * i // pieces for i in range(pieces + 1)]
        run_pieces(lambda i: query_into(grid, bounds[i], bounds[i + 1], nb_idx, nb_d), pieces,
                   threads=threads)
        return nb_idx

    def _solve_chunk(self, grid: AgentGrid | None, lo: int, hi: int, nb: np.ndarray
                     ) -> tuple[np.ndarray, Any, Any]:
        """Obstacle neighbours, lines and programs of agent rows ``lo:hi``."""
        rows = np.arange(lo, hi)
        obst_idx = self._obstacle_neighbors(rows, grid)
        lines = self._lines_for(rows, nb, obst_idx)
        threads = self.workers if rows.size >= PARALLEL_MIN_AGENTS else 1
        # slices of the rows: the same values as gathering them, without the copy
        result = solve_lines(self._preferred[lo:hi], self.max_speed[lo:hi], *lines,
                             threads=threads)
        return obst_idx, lines, result

    def compute_new_velocities(self) -> StepDiagnostics:
        """Solve every agent's ORCA problem from the current snapshot; nothing moves.

        Very large crowds are cut into contiguous pieces of agent rows (bounded working
        memory), whose results are plain slices of the crowd's arrays; every piece reads the
        same snapshot, so the answer does not depend on the split.
        Claim: O1, O2, O4 (and O3, O5, O6 through the lines).
        """
        return self._solve(count_stalls=False)

    def _solve(self, *, count_stalls: bool) -> StepDiagnostics:
        """:meth:`compute_new_velocities`; with ``count_stalls`` the diagnostics carry the
        stalled-step counts the selected velocities would give (Claim O8), nothing moves."""
        check_valid_crowd_state(self)
        n = self.num_agents
        self._preferred = self.solve_preferred()
        if not self.obstacles.processed:
            self.obstacles.process()
        if (0 < n < PARALLEL_MIN_AGENTS and self.obstacles.point.shape[0] == 0
                and self._uniform_shares()):
            # the usual step of a small crowd: its passes in one compiled call
            small = solve_small_crowd(self.position, self.velocity, self.radius,
                                      self.time_horizon, self.neighbor_dist, self.max_neighbors,
                                      self.time_step, self.responsibility, self._preferred,
                                      self.max_speed)
            if small is not None:
                nb_idx, point, direction, valid, velocity, feasible, fail_line = small
                return self._diagnostics(nb_idx, np.empty((n, 0), dtype=np.int64), point,
                                         direction, valid, np.zeros(n, dtype=np.int64),
                                         velocity, feasible, fail_line,
                                         count_stalls=count_stalls)
        grid = build_grid(self.position, self.neighbor_dist, self.max_neighbors)
        nb_idx = self._agent_neighbors(grid, threads=self.workers)
        parts = max(1, -(-n // PIECE_ROWS))
        spans = [(n * i // parts, n * (i + 1) // parts) for i in range(parts)]
        # lines and programs: pieces of agent rows, so the results are slices
        outputs = [self._solve_chunk(grid, lo, hi, nb_idx[lo:hi]) for lo, hi in spans]
        if len(outputs) == 1:
            obst_idx, (point, direction, valid, num_hard), result = outputs[0]
            velocity, feasible, fail_line = result.velocity, result.feasible, result.fail_slot
        else:
            width = max(out[1][2].shape[1] for out in outputs)
            obst_width = max(out[0].shape[1] for out in outputs)
            point = np.zeros((n, width, 2))
            direction = np.zeros((n, width, 2))
            valid = np.zeros((n, width), dtype=bool)
            num_hard = np.zeros(n, dtype=np.int64)
            velocity = np.zeros((n, 2))
            feasible = np.ones(n, dtype=bool)
            fail_line = np.full(n, -1, dtype=np.int64)
            obst_idx = np.full((n, obst_width), -1, dtype=np.int64)
            for (lo, hi), (ob, (p, d, v, h), result) in zip(spans, outputs, strict=True):
                w = v.shape[1]
                point[lo:hi, :w] = p
                direction[lo:hi, :w] = d
                valid[lo:hi, :w] = v
                num_hard[lo:hi] = h
                velocity[lo:hi] = result.velocity
                feasible[lo:hi] = result.feasible
                fail_line[lo:hi] = result.fail_slot
                obst_idx[lo:hi, :ob.shape[1]] = ob
        return self._diagnostics(nb_idx, obst_idx, point, direction, valid, num_hard, velocity,
                                 feasible, fail_line, count_stalls=count_stalls)

    def _diagnostics(self, nb_idx: np.ndarray, obst_idx: np.ndarray, point: np.ndarray,
                     direction: np.ndarray, valid: np.ndarray, num_hard: np.ndarray,
                     velocity: np.ndarray, feasible: np.ndarray, fail_line: np.ndarray, *,
                     count_stalls: bool) -> StepDiagnostics:
        """The solve's diagnostics (and, in assertion mode, its certificates) from its
        neighbours, lines and selected velocities; the neighbours become the crowd's."""
        self.agent_neighbor_idx = nb_idx
        self.obstacle_neighbor_idx = obst_idx
        # progress is judged against what the agent asked for, not the turned velocity
        stalled = (stall_count(self.stalled_steps, velocity, self.pref_velocity, self.max_speed)
                   if count_stalls else None)
        diag = build_diagnostics(self.global_time, self._preferred, velocity, self.max_speed,
                                 point, direction, valid, num_hard, feasible, fail_line,
                                 snapshot=snapshot_of(self, nb_idx, obst_idx),
                                 stalled_steps=stalled)
        if self.assertions:
            from navproof.orca.monitor import check_reciprocity, check_solve

            check_solve(diag)
            if self.responsibility == 0.5:
                # shares add up to 1 for every pair of cooperative agents (O3, O7)
                check_reciprocity(self.position, self.radius, self.time_horizon, self.time_step,
                                  velocity, self.max_speed, nb_idx, feasible,
                                  cooperative=self.cooperative)
        return diag

    def step(self) -> StepDiagnostics:
        """Advance the crowd by one time step; returns the solve's diagnostics."""
        diag = self._solve(count_stalls=True)
        self.velocity = diag.selected.copy()
        self.position = self.position + self.velocity * self.time_step
        self.global_time += self.time_step
        assert diag.stalled_steps is not None
        self.stalled_steps = diag.stalled_steps.copy()
        self.diagnostics = diag
        return diag
