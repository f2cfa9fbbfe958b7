"""Plain-Python, one-agent-at-a-time port of the RVO2 library (van den Berg et al.), the oracle.

Follows the C++ sources statement by statement: Agent::computeNeighbors / computeNewVelocity /
insertAgentNeighbor / insertObstacleNeighbor / update, linearProgram1/2/3, the KdTree's
obstacle partition (with edge splits) and its range queries, RVOSimulator::addObstacle and
doStep. Differences: float64 instead of float32, and the agent kd-tree is replaced by a scan of
all agents through the same insertAgentNeighbor (the tree only prunes; the shrinking range and
the insertion order by distance are kept). Deliberately slow and simple; used only by tests.

:func:`float32_port` gives a second copy of this module whose every scalar is a numpy float32,
so each operation rounds to single precision as the C++ library's does (``Vector2 / s`` is a
multiplication by ``1 / s`` there and here). It tells a float32 rounding effect of the library
from a difference of rules: from the same float32 input it reproduces the library bit for bit.
"""

from __future__ import annotations

import importlib.util
import math
import types

RVO_EPSILON = 0.00001
SCALAR = float
"""Type of every scalar: float here, numpy.float32 in :func:`float32_port`."""
sqrt = math.sqrt
INF = math.inf


def float32_port() -> types.ModuleType:
    """A fresh copy of this module computing in IEEE float32 like the C++ library.

    Needs numpy >= 2, whose Python-float literals do not widen float32 operands.
    """
    import numpy as np

    spec = importlib.util.spec_from_file_location(f"{__name__}_float32", __file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.SCALAR = np.float32
    module.RVO_EPSILON = np.float32(RVO_EPSILON)
    module.sqrt = lambda x: np.sqrt(np.float32(x))
    module.INF = np.float32(np.inf)
    return module


class V:
    """A 2-D vector with the operators of RVO2's Vector2 (``*`` between vectors is the dot)."""

    __slots__ = ("x", "y")

    def __init__(self, x: float = 0.0, y: float = 0.0) -> None:
        self.x = SCALAR(x)
        self.y = SCALAR(y)

    def __add__(self, o: V) -> V:
        return V(self.x + o.x, self.y + o.y)

    def __sub__(self, o: V) -> V:
        return V(self.x - o.x, self.y - o.y)

    def __neg__(self) -> V:
        return V(-self.x, -self.y)

    def __mul__(self, o):  # noqa: ANN001 - vector dot or scalar scale, as in Vector2
        if isinstance(o, V):
            return self.x * o.x + self.y * o.y
        return V(self.x * o, self.y * o)

    def __rmul__(self, s: float) -> V:
        return V(self.x * s, self.y * s)

    def __truediv__(self, s: float) -> V:
        inv = 1.0 / s
        return V(self.x * inv, self.y * inv)


def abs_sq(v: V) -> float:
    return v * v


def absv(v: V) -> float:
    return sqrt(v * v)


def det(a: V, b: V) -> float:
    return a.x * b.y - a.y * b.x


def normalize(v: V) -> V:
    return v / absv(v)


def sqr(x: float) -> float:
    return x * x


def left_of(a: V, b: V, c: V) -> float:
    return det(a - c, b - a)


def dist_sq_point_line_segment(a: V, b: V, c: V) -> float:
    r = ((c - a) * (b - a)) / abs_sq(b - a)
    if r < 0.0:
        return abs_sq(c - a)
    if r > 1.0:
        return abs_sq(c - b)
    return abs_sq(c - (a + r * (b - a)))


class Line:
    __slots__ = ("point", "direction")

    def __init__(self, point: V | None = None, direction: V | None = None) -> None:
        self.point = point or V()
        self.direction = direction or V()


class Obstacle:
    def __init__(self) -> None:
        self.point = V()
        self.unit_dir = V()
        self.is_convex = False
        self.next: Obstacle | None = None
        self.prev: Obstacle | None = None
        self.id = 0


class TreeNode:
    def __init__(self) -> None:
        self.obstacle: Obstacle | None = None
        self.left: TreeNode | None = None
        self.right: TreeNode | None = None


def linear_program1(lines, line_no, radius, opt_velocity, direction_opt):
    dot_product = lines[line_no].point * lines[line_no].direction
    discriminant = sqr(dot_product) + sqr(radius) - abs_sq(lines[line_no].point)
    if discriminant < 0.0:
        return False, None
    sqrt_discriminant = sqrt(discriminant)
    t_left = -dot_product - sqrt_discriminant
    t_right = -dot_product + sqrt_discriminant
    for i in range(line_no):
        denominator = det(lines[line_no].direction, lines[i].direction)
        numerator = det(lines[i].direction, lines[line_no].point - lines[i].point)
        if abs(denominator) <= RVO_EPSILON:
            if numerator < 0.0:
                return False, None
            continue
        t = numerator / denominator
        if denominator >= 0.0:
            t_right = min(t_right, t)
        else:
            t_left = max(t_left, t)
        if t_left > t_right:
            return False, None
    line = lines[line_no]
    if direction_opt:
        if opt_velocity * line.direction > 0.0:
            return True, line.point + t_right * line.direction
        return True, line.point + t_left * line.direction
    t = line.direction * (opt_velocity - line.point)
    if t < t_left:
        return True, line.point + t_left * line.direction
    if t > t_right:
        return True, line.point + t_right * line.direction
    return True, line.point + t * line.direction


def linear_program2(lines, radius, opt_velocity, direction_opt, result):
    if direction_opt:
        result = opt_velocity * radius
    elif abs_sq(opt_velocity) > sqr(radius):
        result = normalize(opt_velocity) * radius
    else:
        result = opt_velocity
    for i in range(len(lines)):
        if det(lines[i].direction, lines[i].point - result) > 0.0:
            temp_result = result
            ok, new = linear_program1(lines, i, radius, opt_velocity, direction_opt)
            if not ok:
                return i, temp_result
            result = new
    return len(lines), result


def linear_program3(lines, num_obst_lines, begin_line, radius, result):
    distance = 0.0
    for i in range(begin_line, len(lines)):
        if det(lines[i].direction, lines[i].point - result) > distance:
            proj_lines = list(lines[:num_obst_lines])
            for j in range(num_obst_lines, i):
                line = Line()
                determinant = det(lines[i].direction, lines[j].direction)
                if abs(determinant) <= RVO_EPSILON:
                    if lines[i].direction * lines[j].direction > 0.0:
                        continue
                    line.point = 0.5 * (lines[i].point + lines[j].point)
                else:
                    line.point = lines[i].point + (
                        det(lines[j].direction, lines[i].point - lines[j].point) / determinant
                    ) * lines[i].direction
                line.direction = normalize(lines[j].direction - lines[i].direction)
                proj_lines.append(line)
            temp_result = result
            fail, new = linear_program2(proj_lines, radius,
                                        V(-lines[i].direction.y, lines[i].direction.x), True,
                                        result)
            result = temp_result if fail < len(proj_lines) else new
            distance = det(lines[i].direction, lines[i].point - result)
    return result


class Agent:
    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.position = V()
        self.velocity = V()
        self.pref_velocity = V()
        self.new_velocity = V()
        self.radius = 0.0
        self.max_speed = 0.0
        self.neighbor_dist = 0.0
        self.max_neighbors = 0
        self.time_horizon = 0.0
        self.time_horizon_obst = 0.0
        self.agent_neighbors: list[tuple[float, Agent]] = []
        self.obstacle_neighbors: list[tuple[float, Obstacle]] = []
        self.orca_lines: list[Line] = []
        self.id = 0

    def compute_neighbors(self) -> None:
        self.obstacle_neighbors = []
        range_sq = sqr(self.time_horizon_obst * self.max_speed + self.radius)
        self.sim.query_obstacle_tree(self, range_sq, self.sim.obstacle_tree)
        self.agent_neighbors = []
        if self.max_neighbors > 0:
            range_sq = sqr(self.neighbor_dist)
            for other in self.sim.agents:
                range_sq = self.insert_agent_neighbor(other, range_sq)

    def insert_agent_neighbor(self, agent: Agent, range_sq: float) -> float:
        if self is not agent:
            dist_sq = abs_sq(self.position - agent.position)
            if dist_sq < range_sq:
                if len(self.agent_neighbors) < self.max_neighbors:
                    self.agent_neighbors.append((dist_sq, agent))
                i = len(self.agent_neighbors) - 1
                while i != 0 and dist_sq < self.agent_neighbors[i - 1][0]:
                    self.agent_neighbors[i] = self.agent_neighbors[i - 1]
                    i -= 1
                self.agent_neighbors[i] = (dist_sq, agent)
                if len(self.agent_neighbors) == self.max_neighbors:
                    range_sq = self.agent_neighbors[-1][0]
        return range_sq

    def insert_obstacle_neighbor(self, obstacle: Obstacle, range_sq: float) -> None:
        next_obstacle = obstacle.next
        dist_sq = dist_sq_point_line_segment(obstacle.point, next_obstacle.point, self.position)
        if dist_sq < range_sq:
            self.obstacle_neighbors.append((dist_sq, obstacle))
            i = len(self.obstacle_neighbors) - 1
            while i != 0 and dist_sq < self.obstacle_neighbors[i - 1][0]:
                self.obstacle_neighbors[i] = self.obstacle_neighbors[i - 1]
                i -= 1
            self.obstacle_neighbors[i] = (dist_sq, obstacle)

    def compute_new_velocity(self) -> None:  # noqa: C901 - one case per RVO2 branch
        self.orca_lines = []
        lines = self.orca_lines
        inv_time_horizon_obst = 1.0 / self.time_horizon_obst
        for _, obstacle1_ in self.obstacle_neighbors:
            obstacle1 = obstacle1_
            obstacle2 = obstacle1.next
            relative_position1 = obstacle1.point - self.position
            relative_position2 = obstacle2.point - self.position
            already_covered = False
            for line in lines:
                if (det(inv_time_horizon_obst * relative_position1 - line.point, line.direction)
                        - inv_time_horizon_obst * self.radius >= -RVO_EPSILON
                        and det(inv_time_horizon_obst * relative_position2 - line.point,
                                line.direction) - inv_time_horizon_obst * self.radius
                        >= -RVO_EPSILON):
                    already_covered = True
                    break
            if already_covered:
                continue
            dist_sq1 = abs_sq(relative_position1)
            dist_sq2 = abs_sq(relative_position2)
            radius_sq = sqr(self.radius)
            obstacle_vector = obstacle2.point - obstacle1.point
            s = (-relative_position1 * obstacle_vector) / abs_sq(obstacle_vector)
            dist_sq_line = abs_sq(-relative_position1 - s * obstacle_vector)
            if s < 0.0 and dist_sq1 <= radius_sq:
                if obstacle1.is_convex:
                    lines.append(Line(V(), normalize(V(-relative_position1.y,
                                                       relative_position1.x))))
                continue
            elif s > 1.0 and dist_sq2 <= radius_sq:
                if obstacle2.is_convex and det(relative_position2, obstacle2.unit_dir) >= 0.0:
                    lines.append(Line(V(), normalize(V(-relative_position2.y,
                                                       relative_position2.x))))
                continue
            elif 0.0 <= s <= 1.0 and dist_sq_line <= radius_sq:
                lines.append(Line(V(), -obstacle1.unit_dir))
                continue
            r = self.radius
            if s < 0.0 and dist_sq_line <= radius_sq:
                if not obstacle1.is_convex:
                    continue
                obstacle2 = obstacle1
                leg1 = sqrt(dist_sq1 - radius_sq)
                rp = relative_position1
                left_leg = V(rp.x * leg1 - rp.y * r, rp.x * r + rp.y * leg1) / dist_sq1
                right_leg = V(rp.x * leg1 + rp.y * r, -rp.x * r + rp.y * leg1) / dist_sq1
            elif s > 1.0 and dist_sq_line <= radius_sq:
                if not obstacle2.is_convex:
                    continue
                obstacle1 = obstacle2
                leg2 = sqrt(dist_sq2 - radius_sq)
                rp = relative_position2
                left_leg = V(rp.x * leg2 - rp.y * r, rp.x * r + rp.y * leg2) / dist_sq2
                right_leg = V(rp.x * leg2 + rp.y * r, -rp.x * r + rp.y * leg2) / dist_sq2
            else:
                if obstacle1.is_convex:
                    leg1 = sqrt(dist_sq1 - radius_sq)
                    rp = relative_position1
                    left_leg = V(rp.x * leg1 - rp.y * r, rp.x * r + rp.y * leg1) / dist_sq1
                else:
                    left_leg = -obstacle1.unit_dir
                if obstacle2.is_convex:
                    leg2 = sqrt(dist_sq2 - radius_sq)
                    rp = relative_position2
                    right_leg = V(rp.x * leg2 + rp.y * r, -rp.x * r + rp.y * leg2) / dist_sq2
                else:
                    right_leg = obstacle1.unit_dir
            left_neighbor = obstacle1.prev
            is_left_leg_foreign = False
            is_right_leg_foreign = False
            if obstacle1.is_convex and det(left_leg, -left_neighbor.unit_dir) >= 0.0:
                left_leg = -left_neighbor.unit_dir
                is_left_leg_foreign = True
            if obstacle2.is_convex and det(right_leg, obstacle2.unit_dir) <= 0.0:
                right_leg = obstacle2.unit_dir
                is_right_leg_foreign = True
            left_cutoff = inv_time_horizon_obst * (obstacle1.point - self.position)
            right_cutoff = inv_time_horizon_obst * (obstacle2.point - self.position)
            cutoff_vec = right_cutoff - left_cutoff
            same = obstacle1 is obstacle2
            t = 0.5 if same else ((self.velocity - left_cutoff) * cutoff_vec) / abs_sq(cutoff_vec)
            t_left = (self.velocity - left_cutoff) * left_leg
            t_right = (self.velocity - right_cutoff) * right_leg
            if (t < 0.0 and t_left < 0.0) or (same and t_left < 0.0 and t_right < 0.0):
                unit_w = normalize(self.velocity - left_cutoff)
                direction = V(unit_w.y, -unit_w.x)
                lines.append(Line(left_cutoff + r * inv_time_horizon_obst * unit_w, direction))
                continue
            elif t > 1.0 and t_right < 0.0:
                unit_w = normalize(self.velocity - right_cutoff)
                direction = V(unit_w.y, -unit_w.x)
                lines.append(Line(right_cutoff + r * inv_time_horizon_obst * unit_w, direction))
                continue
            inf = INF
            dist_sq_cutoff = inf if (t < 0.0 or t > 1.0 or same) else abs_sq(
                self.velocity - (left_cutoff + t * cutoff_vec))
            dist_sq_left = inf if t_left < 0.0 else abs_sq(
                self.velocity - (left_cutoff + t_left * left_leg))
            dist_sq_right = inf if t_right < 0.0 else abs_sq(
                self.velocity - (right_cutoff + t_right * right_leg))
            if dist_sq_cutoff <= dist_sq_left and dist_sq_cutoff <= dist_sq_right:
                direction = -obstacle1.unit_dir
                lines.append(Line(left_cutoff + r * inv_time_horizon_obst
                                  * V(-direction.y, direction.x), direction))
                continue
            elif dist_sq_left <= dist_sq_right:
                if is_left_leg_foreign:
                    continue
                direction = left_leg
                lines.append(Line(left_cutoff + r * inv_time_horizon_obst
                                  * V(-direction.y, direction.x), direction))
                continue
            else:
                if is_right_leg_foreign:
                    continue
                direction = -right_leg
                lines.append(Line(right_cutoff + r * inv_time_horizon_obst
                                  * V(-direction.y, direction.x), direction))
                continue

        num_obst_lines = len(lines)
        inv_time_horizon = 1.0 / self.time_horizon
        for _, other in self.agent_neighbors:
            relative_position = other.position - self.position
            relative_velocity = self.velocity - other.velocity
            dist_sq = abs_sq(relative_position)
            combined_radius = self.radius + other.radius
            combined_radius_sq = sqr(combined_radius)
            if dist_sq > combined_radius_sq:
                w = relative_velocity - inv_time_horizon * relative_position
                w_length_sq = abs_sq(w)
                dot_product1 = w * relative_position
                if dot_product1 < 0.0 and sqr(dot_product1) > combined_radius_sq * w_length_sq:
                    w_length = sqrt(w_length_sq)
                    unit_w = w / w_length
                    direction = V(unit_w.y, -unit_w.x)
                    u = (combined_radius * inv_time_horizon - w_length) * unit_w
                else:
                    leg = sqrt(dist_sq - combined_radius_sq)
                    rp = relative_position
                    if det(relative_position, w) > 0.0:
                        direction = V(rp.x * leg - rp.y * combined_radius,
                                      rp.x * combined_radius + rp.y * leg) / dist_sq
                    else:
                        direction = -V(rp.x * leg + rp.y * combined_radius,
                                       -rp.x * combined_radius + rp.y * leg) / dist_sq
                    dot_product2 = relative_velocity * direction
                    u = dot_product2 * direction - relative_velocity
            else:
                inv_time_step = 1.0 / self.sim.time_step
                w = relative_velocity - inv_time_step * relative_position
                w_length = absv(w)
                unit_w = w / w_length
                direction = V(unit_w.y, -unit_w.x)
                u = (combined_radius * inv_time_step - w_length) * unit_w
            lines.append(Line(self.velocity + 0.5 * u, direction))

        line_fail, result = linear_program2(lines, self.max_speed, self.pref_velocity, False,
                                            self.new_velocity)
        if line_fail < len(lines):
            result = linear_program3(lines, num_obst_lines, line_fail, self.max_speed, result)
        self.new_velocity = result

    def update(self) -> None:
        self.velocity = self.new_velocity
        self.position = self.position + self.velocity * self.sim.time_step


class Simulator:
    """RVOSimulator with the agent parameters given per agent."""

    def __init__(self, time_step: float) -> None:
        self.time_step = SCALAR(time_step)
        self.agents: list[Agent] = []
        self.obstacles: list[Obstacle] = []
        self.obstacle_tree: TreeNode | None = None
        self.global_time = 0.0

    def add_agent(self, position, neighbor_dist, max_neighbors, time_horizon, time_horizon_obst,
                  radius, max_speed, velocity=(0.0, 0.0), pref_velocity=(0.0, 0.0)) -> int:
        agent = Agent(self)
        agent.position = V(*position)
        agent.neighbor_dist = SCALAR(neighbor_dist)
        agent.max_neighbors = max_neighbors
        agent.time_horizon = SCALAR(time_horizon)
        agent.time_horizon_obst = SCALAR(time_horizon_obst)
        agent.radius = SCALAR(radius)
        agent.max_speed = SCALAR(max_speed)
        agent.velocity = V(*velocity)
        agent.pref_velocity = V(*pref_velocity)
        agent.id = len(self.agents)
        self.agents.append(agent)
        return agent.id

    def add_obstacle(self, vertices) -> int:
        vertices = [V(*v) for v in vertices]
        obstacle_no = len(self.obstacles)
        n = len(vertices)
        for i in range(n):
            obstacle = Obstacle()
            obstacle.point = vertices[i]
            if i != 0:
                obstacle.prev = self.obstacles[-1]
                obstacle.prev.next = obstacle
            if i == n - 1:
                obstacle.next = self.obstacles[obstacle_no]
                obstacle.next.prev = obstacle
            obstacle.unit_dir = normalize(vertices[0 if i == n - 1 else i + 1] - vertices[i])
            if n == 2:
                obstacle.is_convex = True
            else:
                obstacle.is_convex = left_of(vertices[n - 1 if i == 0 else i - 1], vertices[i],
                                             vertices[0 if i == n - 1 else i + 1]) >= 0.0
            obstacle.id = len(self.obstacles)
            self.obstacles.append(obstacle)
        return obstacle_no

    def process_obstacles(self) -> None:
        self.obstacle_tree = self.build_obstacle_tree(list(self.obstacles))

    def build_obstacle_tree(self, obstacles: list[Obstacle]) -> TreeNode | None:
        if not obstacles:
            return None
        node = TreeNode()
        optimal_split = 0
        min_left = len(obstacles)
        min_right = len(obstacles)
        for i, obstacle_i1 in enumerate(obstacles):
            left_size = 0
            right_size = 0
            obstacle_i2 = obstacle_i1.next
            for j, obstacle_j1 in enumerate(obstacles):
                if i == j:
                    continue
                obstacle_j2 = obstacle_j1.next
                j1_left_of_i = left_of(obstacle_i1.point, obstacle_i2.point, obstacle_j1.point)
                j2_left_of_i = left_of(obstacle_i1.point, obstacle_i2.point, obstacle_j2.point)
                if j1_left_of_i >= -RVO_EPSILON and j2_left_of_i >= -RVO_EPSILON:
                    left_size += 1
                elif j1_left_of_i <= RVO_EPSILON and j2_left_of_i <= RVO_EPSILON:
                    right_size += 1
                else:
                    left_size += 1
                    right_size += 1
                if (max(left_size, right_size), min(left_size, right_size)) >= (
                        max(min_left, min_right), min(min_left, min_right)):
                    break
            if (max(left_size, right_size), min(left_size, right_size)) < (
                    max(min_left, min_right), min(min_left, min_right)):
                min_left = left_size
                min_right = right_size
                optimal_split = i
        left_obstacles: list[Obstacle] = []
        right_obstacles: list[Obstacle] = []
        i = optimal_split
        obstacle_i1 = obstacles[i]
        obstacle_i2 = obstacle_i1.next
        for j, obstacle_j1 in enumerate(obstacles):
            if i == j:
                continue
            obstacle_j2 = obstacle_j1.next
            j1_left_of_i = left_of(obstacle_i1.point, obstacle_i2.point, obstacle_j1.point)
            j2_left_of_i = left_of(obstacle_i1.point, obstacle_i2.point, obstacle_j2.point)
            if j1_left_of_i >= -RVO_EPSILON and j2_left_of_i >= -RVO_EPSILON:
                left_obstacles.append(obstacle_j1)
            elif j1_left_of_i <= RVO_EPSILON and j2_left_of_i <= RVO_EPSILON:
                right_obstacles.append(obstacle_j1)
            else:
                t = det(obstacle_i2.point - obstacle_i1.point,
                        obstacle_j1.point - obstacle_i1.point) / det(
                    obstacle_i2.point - obstacle_i1.point, obstacle_j1.point - obstacle_j2.point)
                split_point = obstacle_j1.point + t * (obstacle_j2.point - obstacle_j1.point)
                new_obstacle = Obstacle()
                new_obstacle.point = split_point
                new_obstacle.prev = obstacle_j1
                new_obstacle.next = obstacle_j2
                new_obstacle.is_convex = True
                new_obstacle.unit_dir = obstacle_j1.unit_dir
                new_obstacle.id = len(self.obstacles)
                self.obstacles.append(new_obstacle)
                obstacle_j1.next = new_obstacle
                obstacle_j2.prev = new_obstacle
                if j1_left_of_i > 0.0:
                    left_obstacles.append(obstacle_j1)
                    right_obstacles.append(new_obstacle)
                else:
                    right_obstacles.append(obstacle_j1)
                    left_obstacles.append(new_obstacle)
        node.obstacle = obstacle_i1
        node.left = self.build_obstacle_tree(left_obstacles)
        node.right = self.build_obstacle_tree(right_obstacles)
        return node

    def query_obstacle_tree(self, agent: Agent, range_sq: float, node: TreeNode | None) -> None:
        if node is None:
            return
        obstacle1 = node.obstacle
        obstacle2 = obstacle1.next
        agent_left_of_line = left_of(obstacle1.point, obstacle2.point, agent.position)
        self.query_obstacle_tree(agent, range_sq,
                                 node.left if agent_left_of_line >= 0.0 else node.right)
        dist_sq_line = sqr(agent_left_of_line) / abs_sq(obstacle2.point - obstacle1.point)
        if dist_sq_line < range_sq:
            if agent_left_of_line < 0.0:
                agent.insert_obstacle_neighbor(node.obstacle, range_sq)
            self.query_obstacle_tree(agent, range_sq,
                                     node.right if agent_left_of_line >= 0.0 else node.left)

    def do_step(self) -> None:
        for agent in self.agents:
            agent.compute_neighbors()
            agent.compute_new_velocity()
        for agent in self.agents:
            agent.update()
        self.global_time += self.time_step
