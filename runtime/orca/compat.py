"""Drop-in replacement for the Python bindings of RVO2 (``rvo2.PyRVOSimulator``).

Same class and method names, argument order and return shapes (tuples of floats), so a program
switches by changing ``import rvo2`` to ``from navproof.orca import compat as rvo2``. Underneath is
the vectorised :class:`~navproof.orca.crowd.Crowd` in float64 (RVO2 computes in float32, so results
agree to about 1e-4, not bit for bit). Invalid input raises ValueError/IndexError naming the
field, the index, the value and the rule, where the bindings would crash or return garbage.
Claim: O1-O6 (through :class:`~navproof.orca.crowd.Crowd`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from navproof.core.errors import InvalidInput
from navproof.core.validation import MAX_LENGTH_M, check_valid_range, check_valid_vector
from navproof.orca.crowd import AgentDefaults, Crowd


class RVOSimulator:
    """RVO2-style simulator: ``RVOSimulator(timeStep, neighborDist, maxNeighbors, timeHorizon,
    timeHorizonObst, radius, maxSpeed, velocity=(0, 0))``.
    """

    def __init__(self, timeStep: float, neighborDist: float, maxNeighbors: int,  # noqa: N803
                 timeHorizon: float, timeHorizonObst: float, radius: float,  # noqa: N803
                 maxSpeed: float, velocity: tuple[float, float] = (0.0, 0.0),  # noqa: N803
                 *, assertions: bool | None = None, priority_share: float = 0.25,
                 tie_break: str = "none", side_bias_rad: float = 0.5,
                 stall_steps: int = 2) -> None:
        self._crowd = Crowd(timeStep, assertions=assertions, priority_share=priority_share,
                            tie_break=tie_break, side_bias_rad=side_bias_rad,
                            stall_steps=stall_steps)
        self.setAgentDefaults(neighborDist, maxNeighbors, timeHorizon, timeHorizonObst, radius,
                              maxSpeed, velocity)

    @property
    def crowd(self) -> Crowd:
        """The array-level simulator (batch API, diagnostics)."""
        return self._crowd

    # ------------------------------------------------------------------ construction
    def setAgentDefaults(self, neighbor_dist: float, max_neighbors: int, time_horizon: float,  # noqa: N802
                         time_horizon_obst: float, radius: float, max_speed: float,
                         velocity: tuple[float, float] = (0.0, 0.0)) -> None:
        """Parameters of agents added with a position only (validated now)."""
        probe = Crowd(self._crowd.time_step)
        probe.add_agents(np.zeros((1, 2)), velocity_mps=velocity, radius_m=radius,
                         max_speed_mps=max_speed, neighbor_dist_m=neighbor_dist,
                         max_neighbors=max_neighbors, time_horizon_s=time_horizon,
                         time_horizon_obst_s=time_horizon_obst)
        self._crowd.defaults = AgentDefaults(
            neighbor_dist_m=float(neighbor_dist), max_neighbors=int(max_neighbors),
            time_horizon_s=float(time_horizon), time_horizon_obst_s=float(time_horizon_obst),
            radius_m=float(radius), max_speed_mps=float(max_speed),
            velocity_mps=(float(velocity[0]), float(velocity[1])))

    def addAgent(self, pos: tuple[float, float], neighborDist: float | None = None,  # noqa: N802,N803
                 maxNeighbors: int | None = None, timeHorizon: float | None = None,  # noqa: N803
                 timeHorizonObst: float | None = None, radius: float | None = None,  # noqa: N803
                 maxSpeed: float | None = None,  # noqa: N803
                 velocity: tuple[float, float] | None = None) -> int:
        """Add an agent at ``pos``; returns its index.

        As in RVO2's bindings, pass either ``pos`` alone (the defaults apply) or every
        parameter. A subset (``addAgent(pos, radius=3.0)``) raises InvalidInput naming the
        missing parameters instead of silently falling back to the defaults.
        """
        given = {"neighborDist": neighborDist, "maxNeighbors": maxNeighbors,
                 "timeHorizon": timeHorizon, "timeHorizonObst": timeHorizonObst,
                 "radius": radius, "maxSpeed": maxSpeed, "velocity": velocity}
        missing = [name for name, value in given.items() if value is None]
        if missing and len(missing) < len(given):
            raise InvalidInput("addAgent", {k: v for k, v in given.items() if v is not None},
                               f"pass only pos, or every parameter (missing: {missing})")
        if len(missing) == len(given):
            return self._crowd.add_agent(pos)
        return self._crowd.add_agent(pos, neighbor_dist_m=neighborDist,
                                     max_neighbors=maxNeighbors, time_horizon_s=timeHorizon,
                                     time_horizon_obst_s=timeHorizonObst, radius_m=radius,
                                     max_speed_mps=maxSpeed, velocity_mps=velocity)

    def addObstacle(self, vertices: list[tuple[float, float]]) -> int:  # noqa: N802
        """Add a polygon obstacle; returns the number of its first vertex."""
        return self._crowd.add_obstacle(vertices)

    def processObstacles(self) -> None:  # noqa: N802
        """Build the obstacle structure (also done automatically before a step)."""
        self._crowd.process_obstacles()

    def clearObstacle(self) -> None:  # noqa: N802
        """Remove every obstacle."""
        from navproof.orca.obstacles import ObstacleSet

        self._crowd.obstacles = ObstacleSet()

    # -------------------------------------------------------------------- simulation
    def doStep(self) -> None:  # noqa: N802
        """Advance every agent by one time step."""
        self._crowd.step()

    def getGlobalTime(self) -> float:  # noqa: N802
        return float(self._crowd.global_time)

    def getTimeStep(self) -> float:  # noqa: N802
        return float(self._crowd.time_step)

    def setTimeStep(self, time_step: float) -> None:  # noqa: N802
        self._crowd.set_time_step(time_step)

    def getNumAgents(self) -> int:  # noqa: N802
        return self._crowd.num_agents

    # ------------------------------------------------------------------ agent getters
    def _idx(self, agent_no: Any) -> int:
        return self._crowd._check_index(agent_no, "agent_no")

    def getAgentPosition(self, agent_no: int) -> tuple[float, float]:  # noqa: N802
        i = self._idx(agent_no)
        return float(self._crowd.position[i, 0]), float(self._crowd.position[i, 1])

    def getAgentVelocity(self, agent_no: int) -> tuple[float, float]:  # noqa: N802
        i = self._idx(agent_no)
        return float(self._crowd.velocity[i, 0]), float(self._crowd.velocity[i, 1])

    def getAgentPrefVelocity(self, agent_no: int) -> tuple[float, float]:  # noqa: N802
        i = self._idx(agent_no)
        return float(self._crowd.pref_velocity[i, 0]), float(self._crowd.pref_velocity[i, 1])

    def getAgentRadius(self, agent_no: int) -> float:  # noqa: N802
        return float(self._crowd.radius[self._idx(agent_no)])

    def getAgentMaxSpeed(self, agent_no: int) -> float:  # noqa: N802
        return float(self._crowd.max_speed[self._idx(agent_no)])

    def getAgentNeighborDist(self, agent_no: int) -> float:  # noqa: N802
        return float(self._crowd.neighbor_dist[self._idx(agent_no)])

    def getAgentMaxNeighbors(self, agent_no: int) -> int:  # noqa: N802
        return int(self._crowd.max_neighbors[self._idx(agent_no)])

    def getAgentTimeHorizon(self, agent_no: int) -> float:  # noqa: N802
        return float(self._crowd.time_horizon[self._idx(agent_no)])

    def getAgentTimeHorizonObst(self, agent_no: int) -> float:  # noqa: N802
        return float(self._crowd.time_horizon_obst[self._idx(agent_no)])

    def _row(self, table: np.ndarray, agent_no: int) -> np.ndarray:
        i = self._idx(agent_no)
        if table.shape[0] != self._crowd.num_agents:
            return np.zeros(0, dtype=np.int64)
        row = table[i]
        return row[row >= 0]

    def getAgentNumAgentNeighbors(self, agent_no: int) -> int:  # noqa: N802
        return int(self._row(self._crowd.agent_neighbor_idx, agent_no).size)

    def getAgentAgentNeighbor(self, agent_no: int, neighbor_no: int) -> int:  # noqa: N802
        row = self._row(self._crowd.agent_neighbor_idx, agent_no)
        if not 0 <= neighbor_no < row.size:
            raise IndexError(f"neighbor_no = {neighbor_no!r}: agent {agent_no} has {row.size} "
                             "agent neighbours")
        return int(row[neighbor_no])

    def getAgentNumObstacleNeighbors(self, agent_no: int) -> int:  # noqa: N802
        return int(self._row(self._crowd.obstacle_neighbor_idx, agent_no).size)

    def getAgentObstacleNeighbor(self, agent_no: int, neighbor_no: int) -> int:  # noqa: N802
        row = self._row(self._crowd.obstacle_neighbor_idx, agent_no)
        if not 0 <= neighbor_no < row.size:
            raise IndexError(f"neighbor_no = {neighbor_no!r}: agent {agent_no} has {row.size} "
                             "obstacle neighbours")
        return int(row[neighbor_no])

    def getAgentNumORCALines(self, agent_no: int) -> int:  # noqa: N802
        i = self._idx(agent_no)
        diag = self._crowd.diagnostics
        return 0 if diag is None else int(diag.constraint_count[i])

    def getAgentORCALine(self, agent_no: int, line_no: int  # noqa: N802
                         ) -> tuple[float, float, float, float]:
        """``(point.x, point.y, direction.x, direction.y)`` of one line of the last step."""
        i = self._idx(agent_no)
        diag = self._crowd.diagnostics
        count = 0 if diag is None else int(diag.constraint_count[i])
        if not 0 <= line_no < count:
            raise IndexError(f"line_no = {line_no!r}: agent {agent_no} has {count} ORCA lines")
        assert diag is not None
        p, d = diag.line_point[i, line_no], diag.line_dir[i, line_no]
        return float(p[0]), float(p[1]), float(d[0]), float(d[1])

    # ------------------------------------------------------------------ agent setters
    def setAgentPosition(self, agent_no: int, position: tuple[float, float]) -> None:  # noqa: N802
        self._crowd.set_agent_vector("position", agent_no, position)

    def setAgentVelocity(self, agent_no: int, velocity: tuple[float, float]) -> None:  # noqa: N802
        self._crowd.set_agent_vector("velocity", agent_no, velocity)

    def setAgentPrefVelocity(self, agent_no: int, velocity: tuple[float, float]) -> None:  # noqa: N802
        self._crowd.set_agent_vector("pref_velocity", agent_no, velocity)

    def setAgentRadius(self, agent_no: int, radius: float) -> None:  # noqa: N802
        self._crowd.set_agent_scalar("radius", agent_no, radius)

    def setAgentMaxSpeed(self, agent_no: int, max_speed: float) -> None:  # noqa: N802
        self._crowd.set_agent_scalar("max_speed", agent_no, max_speed)

    def setAgentNeighborDist(self, agent_no: int, neighbor_dist: float) -> None:  # noqa: N802
        self._crowd.set_agent_scalar("neighbor_dist", agent_no, neighbor_dist)

    def setAgentMaxNeighbors(self, agent_no: int, max_neighbors: int) -> None:  # noqa: N802
        self._crowd.set_agent_scalar("max_neighbors", agent_no, max_neighbors)

    def setAgentTimeHorizon(self, agent_no: int, time_horizon: float) -> None:  # noqa: N802
        self._crowd.set_agent_scalar("time_horizon", agent_no, time_horizon)

    def setAgentTimeHorizonObst(self, agent_no: int, timeHorizonObst: float) -> None:  # noqa: N802,N803
        self._crowd.set_agent_scalar("time_horizon_obst", agent_no, timeHorizonObst)

    # -------------------------------------------- responsibility, priority, stalls (O7, O8)
    def setAgentResponsibility(self, agent_no: int, weight: float) -> None:  # noqa: N802
        """Responsibility weight (> 0): equal-priority pairs split as weight / (sum of both)."""
        self._crowd.set_agent_scalar("responsibility_weight", agent_no, weight)

    def getAgentResponsibility(self, agent_no: int) -> float:  # noqa: N802
        return float(self._crowd.responsibility_weight[self._idx(agent_no)])

    def setAgentPriority(self, agent_no: int, priority: float) -> None:  # noqa: N802
        """Priority: of two agents the higher takes ``priority_share`` of their avoidance."""
        self._crowd.set_agent_scalar("priority", agent_no, priority)

    def getAgentPriority(self, agent_no: int) -> float:  # noqa: N802
        return float(self._crowd.priority[self._idx(agent_no)])

    def setAgentCooperative(self, agent_no: int, cooperative: bool) -> None:  # noqa: N802
        """A non-cooperative agent avoids no agent; its neighbours take the whole change."""
        self._crowd.set_agent_cooperative(agent_no, cooperative)

    def isAgentCooperative(self, agent_no: int) -> bool:  # noqa: N802
        return bool(self._crowd.cooperative[self._idx(agent_no)])

    def getAgentStalledSteps(self, agent_no: int) -> int:  # noqa: N802
        """Consecutive steps the agent has made no progress towards its preferred velocity."""
        return int(self._crowd.stalled_steps[self._idx(agent_no)])

    # ---------------------------------------------------------------- obstacle access
    def _processed(self) -> None:
        if not self._crowd.obstacles.processed:
            self._crowd.process_obstacles()

    def getNumObstacleVertices(self) -> int:  # noqa: N802
        self._processed()
        return int(self._crowd.obstacles.point.shape[0])

    def _vertex(self, vertex_no: Any) -> int:
        self._processed()
        count = self._crowd.obstacles.point.shape[0]
        if isinstance(vertex_no, bool) or not isinstance(vertex_no, (int, np.integer)) or not (
                0 <= int(vertex_no) < count):
            raise IndexError(f"vertex_no = {vertex_no!r}: no such obstacle vertex "
                             f"(0 <= vertex_no < {count})")
        return int(vertex_no)

    def getObstacleVertex(self, vertex_no: int) -> tuple[float, float]:  # noqa: N802
        p = self._crowd.obstacles.point[self._vertex(vertex_no)]
        return float(p[0]), float(p[1])

    def getNextObstacleVertexNo(self, vertex_no: int) -> int:  # noqa: N802
        return int(self._crowd.obstacles.next[self._vertex(vertex_no)])

    def getPrevObstacleVertexNo(self, vertex_no: int) -> int:  # noqa: N802
        return int(self._crowd.obstacles.prev[self._vertex(vertex_no)])

    def queryVisibility(self, point1: tuple[float, float], point2: tuple[float, float],  # noqa: N802
                        radius: float = 0.0) -> bool:
        """True when no obstacle edge crosses or comes closer than ``radius`` (m) to the
        segment point1-point2.

        An exact geometric test; RVO2 answers the same question through its partition tree.
        """
        q = np.stack([check_valid_vector("point1", point1, max_abs=MAX_LENGTH_M, unit="m"),
                      check_valid_vector("point2", point2, max_abs=MAX_LENGTH_M, unit="m")])
        radius = float(check_valid_range("radius", radius, low=0.0, high=MAX_LENGTH_M, unit="m"))
        self._processed()
        obs = self._crowd.obstacles
        if obs.point.shape[0] == 0:
            return True
        a, b = obs.point, obs.point[obs.next]
        dist, crossing = _segment_distance(q[0], q[1], a, b)
        return bool(not np.any(crossing | (dist < radius)))


def _segment_distance(p: np.ndarray, q: np.ndarray, a: np.ndarray, b: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Distance (m) between segment p-q and each segment a[i]-b[i], and whether they cross."""

    def point_seg(x: np.ndarray, s0: np.ndarray, s1: np.ndarray) -> np.ndarray:
        d = s1 - s0
        len_sq = np.einsum("...j,...j->...", d, d)
        t = np.einsum("...j,...j->...", x - s0, d) / np.where(len_sq > 0, len_sq, 1.0)
        t = np.clip(t, 0.0, 1.0)
        c = s0 + t[..., None] * d
        return np.hypot(*(x - c).T)

    def cross(o: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        return (u[..., 0] - o[..., 0]) * (v[..., 1] - o[..., 1]) - (u[..., 1] - o[..., 1]) * (
            v[..., 0] - o[..., 0])

    pb, qb = np.broadcast_to(p, a.shape), np.broadcast_to(q, a.shape)
    d1, d2 = cross(a, b, pb), cross(a, b, qb)
    d3, d4 = cross(pb, qb, a), cross(pb, qb, b)
    crossing = (d1 * d2 < 0) & (d3 * d4 < 0)
    dist = np.minimum.reduce([point_seg(pb, a, b), point_seg(qb, a, b), point_seg(a, pb, qb),
                              point_seg(b, pb, qb)])
    return np.where(crossing, 0.0, dist), crossing


PyRVOSimulator = RVOSimulator
"""The name used by the ``rvo2`` Python bindings."""
