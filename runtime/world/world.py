"""The whole pipeline of seed 002 and seed 000 as one object: a World of agents with routes,
obstacles, a corridor region, slope patches, conveyors and rotating platforms.

One :meth:`World.step` (Claim: T4, the order of seed 002's data flow):

1. snapshot (P1): time origin, support and edge versions of every agent;
2. goals: each agent's current waypoint (passed waypoints are dropped);
3. steering: Arrive at the last waypoint, Seek through the others (T1, T3), relative to the
   support and clamped by maxAccel dt (T2): the preferred velocity;
4. ORCA lines from the executed positions and world velocities (O2-O6);
5. the safe step: boundaries, stop envelopes, the reachable disk and the sweep, with the
   labelled fallbacks (B1-B6, S3, R1-R2, V1-V2, W1, F1-F3), re-checked against the snapshot;
6. the motion controller: the verified curve up to the commit time, carried by the support
   (with the rotation carry), gives the executed positions and velocities;
7. handoffs: bodies at a patch edge belong to their handoff controller (H1-H10), which moves
   them instead of the solve;
8. diagnostics: labels, flags, clearances, stalls.

The next step reads the executed state (T4), never the previous suggestion. Every per-agent
stage is one set of array operations over the crowd; only the few handoff bodies are handled
one by one. Assertion mode checks the whole step and names the claim that failed; in a crowd of
BESIDE_MIN_AGENTS and more, the safe step's re-check runs on another core beside stages 6-8,
and its verdict comes before theirs (and before any handoff changes the World).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from navproof._generated.formulas import horizontal_cap
from navproof.boundary.slope import horizontal_caps
from navproof.core.errors import InvalidInput, ObligationViolation, assertions_enabled
from navproof.core.filled import filled
from navproof.core.jit import compiled_loop
from navproof.core.parallel import Beside
from navproof.core.ranges import agents_outside_profile, check_in_profile_range
from navproof.core.tolerances import EPS
from navproof.orca.crowd import Crowd
from navproof.orca.responsibility import keep_right_and_yield
from navproof.steering import (
    SteeringParams,
    capped_clamped_steering,
    check_steering_step,
    route_velocity,
)
from navproof.step import (
    FLAG_OUT_OF_RANGE,
    IN_VIOLATION,
    NEIGHBOUR_FALLBACK,
    OUT_OF_RANGE,
    SAFE,
    Neighbors,
    SafeStepResult,
    StepInput,
    solve_safe_step,
)
from navproof.step.monitor import check_committed_step
from navproof.step.snapshot import ActualState, commit_step, take_input_rows, take_snapshot
from navproof.step.solve import solved_step
from navproof.world.agents import (
    AgentDefaults,
    check_positive,
    check_valid_finite_2d,
    pack_routes,
    pad_routes,
    rows_snapshot,
)
from navproof.world.clearance import (
    CLEARANCE_EXACT_BAND_M,
    agent_clearance_m,
    turning_allowance_m,
)
from navproof.world.handoffs import Handoffs
from navproof.world.independent_check import (
    StepMotion,
    StepTruth,
    assert_truthful,
    check_motion,
)
from navproof.world.layout import SUPPORT_PLATFORM, Layout
from navproof.world.motion import execute, executed_points_m
from navproof.world.progress import route_targets, update_status
from navproof.world.reach import (
    bodies_within_reach,
    executed_reach_m,
    nearest_hold_every_pair,
    step_reach_m,
    stopping_horizon,
)

STALL_STEPS = 20
"""Consecutive stalled steps (:func:`navproof.orca.responsibility.stalled_now`) that count as a
stall (O8)."""
SIDE_BIAS_STEPS = 3
"""A body held below half the speed it asks for during this many steps gets the side bias (O8)."""
SIDE_BIAS_RAD = 0.5
"""The tie-break of symmetric deadlocks (O8), part one: a held body's desired direction turns
this far to its right (clockwise), the same rule for everybody, so a symmetric ring turns into a
roundabout. Part two, for a pair that still blocks each other (a door one body wide): of two
held bodies within reach of each other, the one with the higher index yields for YIELD_STEPS
(backs off away from the other and to its right at half speed) and the other passes. ORCA's
lines and the safe step's checks are untouched (O2, O3 hold as before); only the preferred
velocity changes."""
YIELD_STEPS = 30
"""Steps a body yields once it gave way (O8): it backs off at half speed, away and to its right."""
YIELD_REACH_M = 1.0
"""Two held bodies closer than their combined radius plus this (m) are a deadlocked pair."""
BESIDE_MIN_AGENTS = 4096
"""Steps of at least this many agents run the safe step's re-check (assertion mode) beside the
rest of the step (:class:`navproof.core.parallel.Beside`). Measured on the bench corridor, the
two alternated in one process: at 20k agents assertions added 22-38 % to the step beside
against 33-43 % first (about 5 points less); at 1k, 40-45 % against 27-36 % (a second busy
core slows the step's own passes more than the re-check costs there)."""
HANDOFF_TRIGGER_M = 0.2
"""A body whose route crosses a patch edge is handed to the handoff controller within this
distance (m) of the edge (well inside the access-length range of the profile)."""


def check_layout_in_profile(layout: Layout, profile: Any) -> None:
    """Refuse a layout value outside the profile's ranges at construction (InvalidInput naming
    the key, the value, the range and the profile): every patch's slope factor k
    (``slope_factor``), every support's surface speed at the start, a platform's far side
    included (``support_speed_mps``; a platform's edges move with it: ``edge_speed_mps``).
    Values that drift out during a run (an accelerating support) are labelled per step.
    Claim: V1, B3, B6, S4."""
    for i, patch in enumerate(layout.patches):
        try:
            check_in_profile_range(profile, f"patches[{i}].gradient", "slope_factor",
                                   patch.slope_factor)
        except InvalidInput as exc:
            raise InvalidInput(exc.field, patch.gradient.tolist(),
                               f"gives slope factor k = {patch.slope_factor:g}, {exc.rule}"
                               ) from None
    for i, spec in enumerate(layout.supports):
        pivot = float(np.hypot(*spec.velocity_mps))
        far = float(np.max(np.hypot(*(spec.vertices_m - spec.pivot_m).T)))
        edge = spec.kind == SUPPORT_PLATFORM
        for parameter in ("support_speed_mps",) + (("edge_speed_mps",) if edge else ()):
            try:
                check_in_profile_range(profile, f"supports[{i}].velocity_mps", parameter,
                                       pivot)
            except InvalidInput as exc:
                raise InvalidInput(exc.field, spec.velocity_mps.tolist(),
                                   f"a speed of {pivot:g} m/s: {exc.rule}") from None
            try:
                check_in_profile_range(profile, f"supports[{i}].omega_radps", parameter,
                                       pivot + abs(spec.omega_radps) * far)
            except InvalidInput as exc:
                raise InvalidInput(exc.field, spec.omega_radps,
                                   f"turns the far side ({far:g} m from the pivot) at "
                                   f"{exc.value:g} m/s: {exc.rule}") from None


@compiled_loop
def _solved_rows(free, solved_label, solved_flags, solved_commit_s, solved_velocity_mps,
                 outside, start_wall_m, tol, label, flags, commit_s, velocity_mps):
    """The safe step's results for the solved rows ``free`` into the step's arrays: its label,
    flags, commit time (s) and velocity (m/s), except that a step with a value outside the
    proven ranges (``outside``, per solved row) is flagged and never safe (B1, S3, S4, V1), and
    a body that starts inside an obstacle or outside its walls (``start_wall_m`` below
    ``-tol``) is in violation until a step starts clear (B5, C2, O5).
    Claim: B1, S3, S4, V1, B5, C2, O5."""
    for r in range(free.shape[0]):
        i = free[r]
        lab = solved_label[r]
        flag = solved_flags[r]
        if outside[r]:
            flag |= FLAG_OUT_OF_RANGE
            if lab == SAFE:
                lab = OUT_OF_RANGE
        if start_wall_m[i] < -tol:
            lab = IN_VIOLATION
        label[i] = lab
        flags[i] = flag
        commit_s[i] = solved_commit_s[r]
        velocity_mps[i, 0] = solved_velocity_mps[r, 0]
        velocity_mps[i, 1] = solved_velocity_mps[r, 1]


@compiled_loop
def _neighbour_fallbacks(agent_clearance_m, limit_m, label):
    """NEIGHBOUR_FALLBACK for every body labelled SAFE whose clearance to the other bodies over
    the executed step is below ``limit_m`` (m), in ``label``. Claim: W1."""
    for i in range(label.shape[0]):
        if label[i] == SAFE and agent_clearance_m[i] < limit_m:
            label[i] = NEIGHBOUR_FALLBACK


@compiled_loop
def _clear_caps(speed_mps, accel_mps2, patch, patch_k, vh_mps, accel_cap_mps2):
    """The horizontal caps V / k (m/s) and a / k (m/s^2) of every agent on its patch
    (``patch_k[patch]``, numpy's indexing: a negative index counts from the end) into
    ``vh_mps`` and ``accel_cap_mps2``; False, with the outputs partly written, as soon as a cap
    is not finite and > 0, a patch index is out of range or a slope factor is not finite and
    >= 1 (the exact checks of :func:`horizontal_caps` then name it). Claim: V1."""
    m = patch_k.shape[0]
    for i in range(speed_mps.shape[0]):
        q = patch[i]
        if q < -m or q >= m:
            return False
        k = patch_k[q + m if q < 0 else q]
        v = speed_mps[i]
        a = accel_mps2[i]
        # NaN fails every comparison; +inf is refused by the upper bounds
        if not (v > 0.0 and v < np.inf and a > 0.0 and a < np.inf and k >= 1.0 and k < np.inf):
            return False
        vh_mps[i] = horizontal_cap(surface_cap=v, k=k)
        accel_cap_mps2[i] = horizontal_cap(surface_cap=a, k=k)
    return True


@dataclass(frozen=True)
class WorldStep:
    """What one step did, per agent: the preferred velocity (relative to the support), the safe
    step's label and flags (-1 for a body moved by its handoff controller), executed world
    velocities, and the signed clearances (m) over the whole step."""

    time_s: float
    preferred_mps: np.ndarray
    label: np.ndarray
    flags: np.ndarray
    velocity_mps: np.ndarray
    agent_clearance_m: np.ndarray
    wall_clearance_m: np.ndarray
    handoff_rows: np.ndarray
    motion: StepMotion | None = None
    """What was executed, for the independent check (``independent_check.check_world_step``)."""
    truth: StepTruth | None = None
    """The independent check's verdict, when assertion mode already ran it on this step."""


class World:
    """Agents with routes on a :class:`~navproof.world.layout.Layout`, stepped as one pipeline.

    ``time_step_s`` within the profile's ``step_s`` range; ``assertions`` as everywhere
    (default: ``NAVPROOF_ASSERT``); ``responsibility`` is ORCA's share of each avoidance;
    ``record_path`` the handoff record (a temporary file when None); ``navigation`` a
    :class:`~navproof.world.mesh_region.MeshNavigation` (routes and regions on a navigation
    mesh, C1-C5) or None. Claim: T4.
    """

    def __init__(self, layout: Layout, *, time_step_s: float | None = None,
                 profile: Any = None, assertions: bool | None = None,
                 responsibility: float = 0.5, steering: SteeringParams | None = None,
                 defaults: AgentDefaults | None = None,
                 record_path: str | Path | None = None, navigation: Any = None) -> None:
        if profile is None:
            from navproof.specs.profile import load_profile

            profile = load_profile()
        self.profile = profile
        dt = float(profile.defaults()["step_s"] if time_step_s is None else time_step_s)
        try:
            profile.check_value("step_s", dt)
        except ValueError as exc:
            raise InvalidInput("time_step_s", dt, str(exc)) from None
        self.dt_s = dt
        self.layout = layout
        check_layout_in_profile(layout, profile)
        self.assertions = assertions_enabled(assertions)
        self.steering = steering or SteeringParams.from_profile(profile)
        d = profile.defaults()
        self.defaults = defaults or AgentDefaults(
            radius_m=d["agent_radius_m"], max_speed_mps=d["max_speed_mps"],
            max_accel_mps2=d["brake_budget_mps2"], stop_range_m=self.steering.stop_range_m,
            neighbor_dist_m=d["neighbor_dist_m"], max_neighbors=int(d["max_neighbors"]),
            time_horizon_s=d["orca_time_horizon_s"],
            time_horizon_obst_s=d["obstacle_time_horizon_s"])
        self.arrival_speed_mps = d["arrival_velocity_threshold_mps"]
        self.crowd = Crowd(dt, profile=profile, assertions=False, responsibility=responsibility)
        for poly in layout.obstacles:
            self.crowd.add_obstacle(poly)
        self.time_s = 0.0
        self.step_index = 0
        self.position_m = np.zeros((0, 2))
        self.velocity_mps = np.zeros((0, 2))
        self.radius_m = np.zeros(0)
        self.max_speed_mps = np.zeros(0)
        self.max_accel_mps2 = np.zeros(0)
        self.stop_range_m = np.zeros(0)
        self.route_m = np.zeros((0, 1, 2))
        self.route_count = np.zeros(0, np.int64)
        self.route_index = np.zeros(0, np.int64)
        self.patch = np.zeros(0, np.int64)
        self.handoff_failed = np.zeros(0, bool)
        self.stall_steps = np.zeros(0, np.int64)
        self.held_steps = np.zeros(0, np.int64)
        self.yield_left = np.zeros(0, np.int64)
        self.yield_dir = np.zeros((0, 2))
        self.stalled = np.zeros(0, bool)
        self.arrived_at_s = np.zeros(0)
        self._record_dir: tempfile.TemporaryDirectory[str] | None = None
        self._record_path = record_path
        self._handoffs: Handoffs | None = None
        self.navigation = navigation
        self._tick: float | None = None
        self._too_fast: tuple[Any, Any, Any, np.ndarray | None] | None = None

    # ------------------------------------------------------------------------ agents
    @property
    def count(self) -> int:
        return int(self.position_m.shape[0])

    def add_agents(self, position_m: Any, routes: list[Any], *, velocity_mps: Any = None,
                   radius_m: Any = None, max_speed_mps: Any = None, max_accel_mps2: Any = None,
                   stop_range_m: Any = None, neighbor_dist_m: Any = None,
                   max_neighbors: Any = None, time_horizon_s: Any = None,
                   time_horizon_obst_s: Any = None) -> np.ndarray:
        """Add agents at ``position_m`` (M, 2), each with a route (a list of waypoints, the
        last one its goal); returns their indices. Missing values come from the defaults;
        nothing is added when any value is invalid (InvalidInput naming it)."""
        pos = check_valid_finite_2d("position_m", position_m)
        m = pos.shape[0]
        if len(routes) != m:
            raise InvalidInput("routes", len(routes), f"must give one route per agent ({m})")
        route, count = pack_routes([np.asarray(r, dtype=np.float64) for r in routes])
        d = self.defaults
        vel = np.zeros((m, 2)) if velocity_mps is None else np.broadcast_to(
            check_valid_finite_2d("velocity_mps", velocity_mps), (m, 2))
        radius = check_positive("radius_m", d.radius_m if radius_m is None else radius_m, m)
        speed = check_positive("max_speed_mps", d.max_speed_mps if max_speed_mps is None
                               else max_speed_mps, m)
        accel = check_positive("max_accel_mps2", d.max_accel_mps2 if max_accel_mps2 is None
                               else max_accel_mps2, m)
        stop = check_positive("stop_range_m", d.stop_range_m if stop_range_m is None
                              else stop_range_m, m)
        for name, value in (("max_speed_mps", speed), ("stop_range_m", stop),
                            ("max_accel_mps2", accel)):
            rule = {"max_speed_mps": "max_speed_mps", "stop_range_m": "arrive_stop_range_m",
                    "max_accel_mps2": "brake_budget_mps2"}[name]
            bad = ~((value >= float(self.profile[rule].min))
                    & (value <= float(self.profile[rule].max)))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise InvalidInput(f"{name}[{i}]", float(value[i]),
                                   f"must lie in the profile range of {rule} (the proofs' "
                                   f"range)")
        plans = None
        if self.navigation is not None:
            # routed on the mesh of each agent's radius (C5); nothing is added without a route
            plans = self.navigation.plan(self.count, pos, routes, radius)
            route, count = pack_routes([self.navigation.waypoints(p) for p in plans])
        self.crowd.add_agents(
            pos, velocity_mps=vel, radius_m=radius, max_speed_mps=speed,
            neighbor_dist_m=d.neighbor_dist_m if neighbor_dist_m is None else neighbor_dist_m,
            max_neighbors=d.max_neighbors if max_neighbors is None else max_neighbors,
            time_horizon_s=d.time_horizon_s if time_horizon_s is None else time_horizon_s,
            time_horizon_obst_s=(d.time_horizon_obst_s if time_horizon_obst_s is None
                                 else time_horizon_obst_s))
        first = self.count
        width = max(self.route_m.shape[1], route.shape[1])
        self.route_m = np.concatenate([pad_routes(self.route_m, width),
                                       pad_routes(route, width)])
        self.route_count = np.concatenate([self.route_count, count])
        self.route_index = np.concatenate([self.route_index, np.zeros(m, np.int64)])
        self.position_m = np.concatenate([self.position_m, pos])
        self.velocity_mps = np.concatenate([self.velocity_mps, vel])
        self.radius_m = np.concatenate([self.radius_m, radius])
        self.max_speed_mps = np.concatenate([self.max_speed_mps, speed])
        self.max_accel_mps2 = np.concatenate([self.max_accel_mps2, accel])
        self.stop_range_m = np.concatenate([self.stop_range_m, stop])
        self.patch = np.concatenate([self.patch, self.layout.patch_of(pos)])
        self.handoff_failed = np.concatenate([self.handoff_failed, np.zeros(m, bool)])
        self.stall_steps = np.concatenate([self.stall_steps, np.zeros(m, np.int64)])
        self.held_steps = np.concatenate([self.held_steps, np.zeros(m, np.int64)])
        self.yield_left = np.concatenate([self.yield_left, np.zeros(m, np.int64)])
        self.yield_dir = np.concatenate([self.yield_dir, np.zeros((m, 2))])
        self.stalled = np.concatenate([self.stalled, np.zeros(m, bool)])
        self.arrived_at_s = np.concatenate([self.arrived_at_s, np.full(m, np.nan)])
        if plans is not None:
            self.navigation.add(plans)
        return np.arange(first, first + m)

    def set_goal(self, agent: int, goal_m: Any) -> None:
        """Give agent ``agent`` a new goal: routed again on its mesh from where it stands
        (C5; NoRoute and nothing changed when there is none), else a direct route."""
        from navproof.world.mesh_region import _set_route, check_goal

        if not 0 <= int(agent) < self.count:
            raise InvalidInput("agent", agent, f"must name an agent (0..{self.count - 1})")
        goal = check_goal(goal_m)
        if self.navigation is not None:
            self.navigation.replan(self, int(agent), goal)
        else:
            _set_route(self, int(agent), goal[None])
        self.arrived_at_s[int(agent)] = np.nan

    # ------------------------------------------------------------------------- stages
    def _handoff_machinery(self) -> Handoffs:
        if self._handoffs is None:
            from navproof.handoff.controller import HandoffParams
            from navproof.handoff.record import HandoffRecord

            if self._record_path is None:
                self._record_dir = tempfile.TemporaryDirectory(prefix="navproof-world-")
                self._record_path = Path(self._record_dir.name) / "handoffs.db"
            params = HandoffParams.from_profile(self.profile, step_s=self.dt_s)
            self._handoffs = Handoffs(HandoffRecord.open(self._record_path), params,
                                      assertions=self.assertions)
        return self._handoffs

    @property
    def handoffs(self) -> Handoffs | None:
        """The handoff bodies and outcomes (None until the first handoff)."""
        return self._handoffs

    def targets(self) -> tuple[np.ndarray, np.ndarray]:
        """Each agent's current waypoint (m, (N, 2)) and whether it is its goal (N,), after
        dropping the waypoints it has passed (within its radius)."""
        target, last, self.route_index = route_targets(
            self.route_m, self.route_count, self.route_index, self.position_m, self.radius_m)
        return target, last

    def _caps(self) -> tuple[np.ndarray, np.ndarray]:
        """Horizontal speed and acceleration caps of each agent on its patch (V1): one pass
        when every cap and slope factor is clearly valid, else :func:`horizontal_caps`, whose
        checks name the offending value."""
        speed, accel, patch, patch_k = (self.max_speed_mps, self.max_accel_mps2, self.patch,
                                        self.layout.patch_k)
        if (speed.dtype == accel.dtype == patch_k.dtype == np.float64
                and patch.dtype == np.int64 and speed.shape == accel.shape == patch.shape
                and speed.ndim == 1 and patch_k.ndim == 1):
            vh = np.empty(speed.shape[0])
            accel_cap = np.empty(speed.shape[0])
            if _clear_caps(speed, accel, patch, patch_k, vh, accel_cap):
                return vh, accel_cap
        return horizontal_caps(speed, accel, patch_k[patch])

    def preferred(self, target_m: np.ndarray, last: np.ndarray, carry_mps: np.ndarray,
                  v0_mps: np.ndarray, vh_mps: np.ndarray, accel_mps2: np.ndarray
                  ) -> np.ndarray:
        """Steering: the preferred velocity relative to the support (m/s, (N, 2)). Arrive at
        the goal, Seek through waypoints (world frame), minus the support carry, capped at Vh,
        then one clamped steering step from the executed velocity. Claim: T1, T2, T3."""
        steer_accel = np.minimum(self.steering.max_accel_mps2, accel_mps2)
        desired_world = route_velocity(self.position_m, target_m, last, max_speed_mps=vh_mps,
                                       max_accel_mps2=steer_accel,
                                       stop_range_m=self.stop_range_m, dt_s=self.dt_s)
        desired_world = self._tie_break(desired_world, vh_mps)
        # a body at its goal holds still in the world, not on its support
        new, desired = capped_clamped_steering(v0_mps, desired_world, carry_mps, vh_mps,
                                               steer_accel, self.dt_s)
        if self.assertions:
            check_steering_step(v0_mps, new, desired, steer_accel, vh_mps, self.dt_s)
        return new

    def _tie_break(self, desired_mps: np.ndarray, vh_mps: np.ndarray) -> np.ndarray:
        """The deterministic deadlock tie-break of SIDE_BIAS_RAD (O8) on desired velocities:
        :func:`navproof.orca.responsibility.keep_right_and_yield`."""
        out, self.yield_dir, self.yield_left = keep_right_and_yield(
            desired_mps, vh_mps, held=self.held_steps >= SIDE_BIAS_STEPS,
            yield_dir=self.yield_dir, yield_left=self.yield_left,
            neighbor_idx=self.crowd.agent_neighbor_idx, position_m=self.position_m,
            radius_m=self.radius_m, angle_rad=SIDE_BIAS_RAD, yield_steps=YIELD_STEPS,
            yield_reach_m=YIELD_REACH_M)
        return out

    # --------------------------------------------------------------------------- step
    def step(self) -> WorldStep:
        """Advance every agent by one step (see the module docstring). Claim: T4."""
        n = self.count
        dt = self.dt_s
        layout = self.layout
        x0 = self.position_m
        support_index = layout.support_of(x0)
        support, carry = layout.support_and_carry(support_index, x0)
        nav = self.navigation
        if nav is not None:
            nav.sync(self)
        # the executed world velocity of the last step, relative to today's support (T4)
        v0 = self.velocity_mps - carry
        target, last = self.targets() if nav is None else nav.targets(self)
        vh, accel = self._caps()
        # the sweep, the F2 truncation and the overlap rule see every body within reach of
        # the step, whatever ORCA's neighbour range and count (W1)
        reach = step_reach_m(x0, v0, self.velocity_mps, vh, accel, dt, support)
        # obstacle pieces within reach bound the whole step's curve (B5, EDGE_OBSTACLE); a
        # platform must stay inside the corridor while its riders could still be stopping
        carry_range = layout.carry_speed_range_mps(support_index, dt)
        if carry_range is None:
            carry_range = support.carry_speed_range_mps(x0, dt)
        horizon, lookahead = stopping_horizon(reach, vh, carry_range, accel, dt)
        edges = layout.edges(self.patch, support_index, position_m=x0, radius_m=self.radius_m,
                             horizon_m=horizon, platform_lookahead_s=lookahead)
        if nav is not None:
            edges = nav.edges(edges)
        snapshot = take_snapshot(self.time_s, support, edges)
        preferred = self.preferred(target, last, carry, v0, vh, accel)
        # ORCA reads the executed state (T4): positions and world velocities as executed
        crowd = self.crowd
        crowd.position = x0
        crowd.velocity = self.velocity_mps
        crowd.max_speed = vh
        point, direction, valid, num_hard = crowd.compute_lines()
        step_extent = reach + self.radius_m
        # ORCA's nearest neighbours, just found at the same positions, answer it where they
        # hold every body within reach (no second spatial query)
        within = bodies_within_reach(x0, step_extent,
                                     nearest=(crowd.agent_neighbor_idx, crowd.max_neighbors))
        neighbors = Neighbors.gather(within, x0, self.velocity_mps, self.radius_m)
        inp = StepInput(x0, v0, preferred, dt, support, edges, vh, accel, self.radius_m,
                        orca_point=point, orca_direction=direction, orca_valid=valid,
                        neighbors=neighbors, orca_num_hard=num_hard)
        handoff_rows = np.array(sorted(self._handoffs.active), np.int64) \
            if self._handoffs is not None else np.zeros(0, np.int64)
        free = np.setdiff1d(np.arange(n), handoff_rows, assume_unique=True) \
            if handoff_rows.size else np.arange(n)
        # every body's wall clearance at the start (its rows do not depend on the others)
        start_wall = layout.wall_clearance_m(x0, self.radius_m, edges)
        label = filled(n, -1, np.int8)
        flags = np.zeros(n, np.uint8)
        commit = filled(n, dt)
        v1 = v0.copy()
        # assertion mode: the safe step's re-check runs beside the rest of the step (it reads
        # only the step's input and result, which nothing writes to from here on)
        monitor = None
        try:
            if free.size:
                solve_inp = inp if free.size == n else take_input_rows(inp, free)
                if nav is not None:
                    result = nav.solve(solve_inp, free, assertions=self.assertions)
                elif self.assertions and free.size >= BESIDE_MIN_AGENTS:
                    given, result = solved_step(solve_inp)
                    monitor = Beside(check_committed_step, given, result)
                else:
                    result = solve_safe_step(solve_inp, assertions=self.assertions)
                actual = ActualState(self.time_s, solve_inp.position_m, solve_inp.velocity_mps,
                                     solve_inp.support, solve_inp.edges)
                result, _ = commit_step(rows_snapshot(snapshot, free, n), solve_inp, result,
                                        actual, assertions=self.assertions)
                _solved_rows(free, result.label, result.flags, result.commit_time_s,
                             result.velocity_mps,
                             self._outside_profile(
                                 solve_inp,
                                 support_index if free.size == n else support_index[free],
                                 carry_range if free.size == n else None),
                             start_wall, EPS, label, flags, commit, v1)
            executed = execute(x0, v0, v1, commit, dt, support)
            position, velocity, mid = (executed.position_m, executed.velocity_world_mps,
                                       executed.mid_m)
            if monitor is not None and (handoff_rows.size or layout.common_edges):
                # the handoffs change the World: not before the re-check's verdict
                monitor.join()
            # bodies that crossed their portal go on along the rebuilt curve (B7, C3)
            crossed = None if nav is None else nav.finish(label, flags, position, velocity, mid)
            tick = int(round(self.time_s / self._tick_s()))
            if handoff_rows.size:
                for agent in handoff_rows.tolist():
                    self._step_handoff(agent, tick, position, velocity, mid)
            self._begin_handoffs(tick, position, velocity, target, free, accel)
            # every pair within reach of the executed step, and ORCA's neighbours further away (so
            # the report also measures pairs that kept their distance)
            executed_extent = executed_reach_m(x0, mid, position, radius_m=self.radius_m,
                                               band_m=0.5 * CLEARANCE_EXACT_BAND_M)
            orca_nb = crowd.agent_neighbor_idx
            nearest = (orca_nb, crowd.max_neighbors)
            if nearest_hold_every_pair(x0, executed_extent, nearest):
                # ORCA's lists already hold every pair within reach: a body's clearance is the
                # least over the same pairs (listed twice before), with no query and no copy
                executed_within, ordered_from = orca_nb, 0
            else:
                # the step's answer where the executed extents stay inside the step's (the
                # executed curve may bulge beyond the step's reach bound), else a new query
                executed_within = bodies_within_reach(x0, executed_extent,
                                                      wider=(within, step_extent))
                ordered_from = executed_within.shape[1]
                if orca_nb.shape[0] == n and orca_nb.shape[1]:
                    executed_within = np.concatenate([executed_within, orca_nb], axis=1) \
                        if executed_within.shape[1] else orca_nb
            # a truncated step ramps then rests (F2), a step split at its portal ramps up to the
            # portal and again after it (B7): their pairs are measured on those curves
            def points_at(rows: np.ndarray, t_s: np.ndarray) -> np.ndarray:
                return executed_points_m(x0, v0, v1, commit, dt, support, rows, t_s)

            split = None
            if crossed is not None and crossed.size:
                assert nav is not None
                _, split_s, _, commit2_s = nav.split_motion
                split = (crossed, split_s, np.where(commit2_s < dt - split_s, split_s + commit2_s,
                                                    dt))
                points_at = partial(nav.executed_points_m, others=points_at)
            agent_clear = agent_clearance_m(
                x0, mid, position, self.radius_m, executed_within, dt, ordered_from=ordered_from,
                truncated=(commit, points_at), split=split)
            # each safe step was verified against its neighbours' predictions; a neighbour whose
            # committed step left its prediction (a fallback) may still have reached it (W1); a
            # body turning with its support is measured through a quadratic, less its bound
            fallback_clear = agent_clear
            if np.count_nonzero(support.motion.omega_radps):
                fallback_clear = agent_clear - turning_allowance_m(x0, v0, v1, dt, support,
                                                                   executed_within)
            _neighbour_fallbacks(fallback_clear, -EPS, label)
            wall_clear = layout.step_wall_clearance_m(start_wall, executed.mid_end_m,
                                                      self.radius_m, edges, dt)
            if nav is not None:
                wall_clear = nav.wall_clearance_m(wall_clear, crossed, mid)
                if self.assertions:
                    nav.check_c4(position, wall_clear, handoff_rows)
            motion = StepMotion.capture(self, x0, v0, v1, commit, support, support_index, vh,
                                        handoff_rows, position, velocity,
                                        split=None if nav is None else nav.split_motion)
            truth = None
            if self.assertions:
                if monitor is not None:
                    monitor.join()
                self._check_step(label, wall_clear, support_index)
                truth = check_motion(motion, label)
                assert_truthful(truth)
        except BaseException:
            # the re-check's violation comes first, as when it ran before the rest of the step
            if monitor is not None:
                monitor.join()
            raise
        self.position_m, self.velocity_mps = position, velocity
        self.time_s += dt
        self.step_index += 1
        layout.advance(dt)
        self._update_status(preferred, carry)
        return WorldStep(self.time_s, preferred, label, flags, velocity, agent_clear, wall_clear,
                         handoff_rows, motion, truth)

    def _outside_profile(self, inp: StepInput, support_index: np.ndarray,
                         carry_range_mps: np.ndarray | None) -> np.ndarray:
        """(R,) True for the rows of ``inp`` whose step leaves the profile's ranges: the values
        the step checks per agent (:func:`navproof.core.ranges.agents_outside_profile`, with
        the support speed ranges ``carry_range_mps`` of its rows when known) and the largest
        surface speed of the agent's support over the step, a platform's far side included
        (:meth:`Layout.support_speed_range_mps`). Without platforms and a navigation mesh no
        edge of :meth:`Layout.edges` moves. Claim: B1, S3, S4, V1."""
        fixed = self.navigation is None and not self.layout.platform_supports
        outside = agents_outside_profile(inp, self.profile, support_speed_mps=carry_range_mps,
                                         fixed_edges=fixed)
        if self.layout.supports:
            fast = self._supports_too_fast()
            # no support too fast (the usual case): no row changes, nothing to gather
            if fast is not None:
                outside |= fast[support_index]
        return outside

    def _supports_too_fast(self) -> np.ndarray | None:
        """(S + 1,) True for the supports whose largest surface speed over the next step
        (:meth:`Layout.support_speed_range_mps`) exceeds the profile's support or edge speed
        range, read-only, the last entry the static ground's (support index -1, False); None
        when none does (the usual case). Found again only when the supports, a support's
        velocity, the step or the profile's parameters changed (a parameter and its bounds are
        immutable). Claim: B3, B6, S4."""
        layout = self.layout
        support_p, edge_p = self.profile["support_speed_mps"], self.profile["edge_speed_mps"]
        key = (tuple(map(id, layout.supports)), layout.support_velocity_mps.tobytes(),
               self.dt_s)
        cached = self._too_fast
        if (cached is not None and cached[0] == key and cached[1] is support_p
                and cached[2] is edge_p):
            return cached[3]
        speed = layout.support_speed_range_mps(self.dt_s)
        hi = min(float(support_p.max), float(edge_p.max))
        fast = speed > hi * (1.0 + 1e-12)
        answer = None
        if fast.any():
            answer = np.append(fast, False)
            answer.flags.writeable = False
        self._too_fast = (key, support_p, edge_p, answer)
        return answer

    def _tick_s(self) -> float:
        if self._tick is None:
            self._tick = float(self.profile.defaults()["tick_s"])
        return self._tick

    def _sweep_clear(self, agent: int, position: np.ndarray) -> Any:
        """Straight-segment test of a handoff body's access against every other body."""
        def clear(start: np.ndarray, end: np.ndarray) -> bool:
            seg = np.asarray(end, float) - np.asarray(start, float)
            rel = position - np.asarray(start, float)
            t = np.clip(rel @ seg / max(float(seg @ seg), EPS), 0.0, 1.0)
            dist = np.hypot(*(rel - t[:, None] * seg).T)
            gap = dist - self.radius_m - self.radius_m[agent]
            gap[agent] = np.inf
            return bool(np.all(gap >= 0.0))
        return clear

    def _step_handoff(self, agent: int, tick: int, position: np.ndarray, velocity: np.ndarray,
                      mid: np.ndarray) -> None:
        """One step of a body owned by its handoff controller (H4), in place."""
        machinery = self._handoff_machinery()
        body = machinery.active[agent]
        x = self.position_m[agent]
        moved = machinery.step(body, tick=tick, step_index=self.step_index, time_s=self.time_s,
                               dt_s=self.dt_s, x_m=x, v_world_mps=self.velocity_mps[agent],
                               sweep_clear=self._sweep_clear(agent, self.position_m))
        if moved is None:
            outcome = machinery.finish(body)
            if machinery.adopted(outcome):
                self.patch[agent] = body.edge.q
            else:
                self.handoff_failed[agent] = True
            position[agent], velocity[agent] = x, self.velocity_mps[agent]
        else:
            position[agent], velocity[agent] = moved
        mid[agent] = 0.5 * (x + position[agent])

    def _begin_handoffs(self, tick: int, position: np.ndarray, velocity: np.ndarray,
                        target: np.ndarray, free: np.ndarray, accel_mps2: np.ndarray) -> None:
        """Hand the bodies whose route crosses a patch edge and that reached it to the handoff
        controller (vectorised test; the few found are registered one by one), with the
        horizontal acceleration cap on P their step had (m/s^2, (N,)) for the brake before the
        access curve. Claim: H1, A4."""
        layout = self.layout
        if not layout.common_edges or free.size == 0:
            return
        target_patch = layout.patch_of(target[free])
        here = self.patch[free]
        crossing = (here >= 0) & (target_patch >= 0) & (target_patch != here) \
            & ~self.handoff_failed[free]
        if not crossing.any():
            return
        for i in np.flatnonzero(crossing).tolist():
            agent = int(free[i])
            edge = layout.common_edges.get((int(here[i]), int(target_patch[i])))
            if edge is None:
                continue
            margin = edge.offset_m - float(edge.normal @ position[agent])
            if margin > HANDOFF_TRIGGER_M:
                continue
            self._handoff_machinery().begin(
                agent, edge, layout, tick=tick, time_s=self.time_s + self.dt_s,
                x_m=position[agent], v_world_mps=velocity[agent],
                sweep_clear=self._sweep_clear(agent, position),
                brake_budget_mps2=float(accel_mps2[agent]))

    def _check_step(self, label: np.ndarray, wall_clear: np.ndarray,
                    support_index: np.ndarray) -> None:
        """Assertion mode over the executed step: a body labelled safe kept every wall (B5)
        along its executed motion (every pair of bodies, W1, is the independent check's, and so
        is a platform's rider, which the check bounds in the platform's frame over the whole
        step)."""
        bad = (label == SAFE) & (wall_clear < -EPS)
        platforms = self.layout.platform_supports
        if platforms:
            bad &= ~np.isin(support_index, platforms)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ObligationViolation("B5", "a body labelled safe crossed a wall during the "
                                            "executed step", agent=i,
                                      observed=float(wall_clear[i]), limit=0.0,
                                      margin=float(wall_clear[i]),
                                      data={"position_m": self.position_m[i].tolist()})

    def _update_status(self, preferred: np.ndarray, carry: np.ndarray) -> None:
        """Arrivals (goal within the stop range, world speed within the arrival threshold) and
        stalls (O8: no motion for STALL_STEPS while the preferred speed is not zero)."""
        self.held_steps, self.stall_steps = update_status(
            self.route_m, self.route_count, self.route_index, self.position_m,
            self.velocity_mps, preferred, carry, stop_range_m=self.stop_range_m,
            arrival_speed_mps=self.arrival_speed_mps, max_speed_mps=self.max_speed_mps,
            time_s=self.time_s, arrived_at_s=self.arrived_at_s, held_steps=self.held_steps,
            stall_steps=self.stall_steps, stalled=self.stalled, stall_limit=STALL_STEPS,
            tol=EPS)

    @property
    def arrived(self) -> np.ndarray:
        """(N,) True for agents at their goal and at rest there."""
        return ~np.isnan(self.arrived_at_s)

    def close(self) -> None:
        """Close the handoff record (and remove its temporary folder)."""
        if self._handoffs is not None:
            self._handoffs.record.close()
        if self._record_dir is not None:
            self._record_dir.cleanup()

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # handoff records hold a SQLite connection: close it with the world
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


__all__ = ["World", "WorldStep", "SafeStepResult"]
