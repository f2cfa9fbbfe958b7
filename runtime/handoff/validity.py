"""The handoff controller's checks of the actual state against the environment: the stop
guarantee voided by a crossing, a support change or an unexplained velocity; the re-validation
of a stopped attempt; the adoption of Q after AtBoundary (Claim: H2, H3, H8, H9, V1).

A part of :class:`navproof.handoff.controller.HandoffController`: it receives the handoff's
:class:`~navproof.handoff.context.HandoffContext` and the attempt steps it cancels or
re-dispatches through.
"""

from __future__ import annotations

import numpy as np

from navproof.boundary.slope import SlopeBudget, slope_factor
from navproof.core.tolerances import EPS
from navproof.handoff.access import stop_guarantee
from navproof.handoff.attempts import AttemptSteps
from navproof.handoff.context import HandoffContext
from navproof.handoff.phases import Phase, parse_phase
from navproof.handoff.values import Feedback, Snapshot, vec_list


class ValidityChecks:
    """Guarantee, re-validation and adoption checks of one handoff."""

    def __init__(self, ctx: HandoffContext, attempts: AttemptSteps) -> None:
        self.ctx = ctx
        self.state = ctx.state
        self.attempts = attempts

    def guarantee_void(self, fb: Feedback, phase: Phase) -> bool:
        """Crossing, support change or a velocity the commands do not explain before the stop:
        record the actual contact, support and velocity, stop the old motion and brake from the
        actual velocity; no snapping back, no clamp counted as braking (Claim: H8)."""
        if phase not in (Phase.APPROACHING, Phase.STOPPING, Phase.AT_BOUNDARY):
            return False
        # Once void, the brake from the actual velocity owns the body; only a new deviation
        # from what it commands re-triggers.
        crossed = self.ctx.signed_edge_distance_m(fb) > EPS and not self.state.guarantee_voided
        support_changed = (fb.support_id not in (None, self.ctx.target.support_id)
                           and not self.state.guarantee_voided)
        deviation = float(np.hypot(*(fb.velocity - self.state.expected_velocity)))
        overspeed = deviation > self.ctx.params.stop_speed_threshold_mps + EPS
        if not (crossed or support_changed or overspeed):
            return False
        self.state.guarantee_voided = True
        causes = [c for c, hit in (("crossed the common edge", crossed),
                                   ("support changed", support_changed),
                                   ("velocity not explained by the commands", overspeed)) if hit]
        row = self.ctx.row
        states = {}
        if self.state.kind == "curve" and row.current_attempt:
            states[row.current_attempt] = "interrupted"
        self.ctx.start_brake(fb)
        guarantee = stop_guarantee(
            remaining_m=max(-self.ctx.signed_edge_distance_m(fb), 0.0), speed_mps=fb.speed_mps,
            accel_mps2=self.ctx.brake_accel_mps2(fb),
        )
        detail = {"causes": causes, "actual_position_xy_m": vec_list(fb.position),
                  "actual_velocity_xy_mps": vec_list(fb.velocity), "contact": fb.contact_patch,
                  "support": fb.support_id, "old_guarantee": "void",
                  "stop_guaranteed": guarantee.guaranteed, "stop_margin_m": guarantee.margin_m}
        self.ctx.decide(
            "guarantee-void", fb, new_phase=Phase.STOPPING if phase != Phase.STOPPING else None,
            updates={"current_motion": "brake"}, attempt_states=states, detail=detail,
            message=(f"{', '.join(causes)} before the stop: old guarantee void; actual contact "
                     f"{fb.contact_patch}, support {fb.support_id}; braking from the actual "
                     f"velocity (H8)"
                     + ("" if guarantee.guaranteed else
                        f"; NO STOP GUARANTEE before the edge: short by "
                        f"{-guarantee.margin_m:.4f} m (A5)")),
        )
        self.state.expected_velocity = fb.velocity
        return True

    def revalidate(self, fb: Feedback, snap: Snapshot) -> None:
        """Stopped short of the edge: cancel, register a new attempt from the actual stop point,
        or stay stopped until the next tick or obstacle-version change (Claim: H5, H6, H8)."""
        row = self.ctx.row
        if self.ctx.signed_edge_distance_m(fb) > EPS:
            self.attempts.cancel(fb, f"stopped beyond the common edge in {fb.contact_patch}; no "
                                     "snapping back, no AtBoundary from a saved target (H8)")
            return
        if not snap.target_valid or not snap.support_valid:
            which = "target" if not snap.target_valid else "support"
            self.attempts.cancel(fb, f"{which} no longer valid")
            return
        if fb.support_id not in (None, self.ctx.target.support_id):
            self.attempts.cancel(fb, f"support changed from {self.ctx.target.support_id} to "
                                     f"{fb.support_id}")
            return
        if row.attempts_used >= row.max_attempts:
            self.attempts.cancel(fb, f"attempts exhausted ({row.attempts_used}/{row.max_attempts})")
            return
        end = fb.position - self.ctx.signed_edge_distance_m(fb) * self.ctx.target.normal
        if snap.sweep_clear(fb.position, end):
            self.attempts.register_and_dispatch(fb, snap, from_phase=parse_phase(row.phase))
            return
        if self.state.wait_logged_version != snap.obstacle_version \
                or snap.obstacle_version != row.obstacle_version:
            self.state.wait_logged_version = snap.obstacle_version
            self.ctx.decide("wait", fb, updates={"obstacle_version": snap.obstacle_version},
                            message=f"stopped at the actual stop point; sweep blocked (obstacle "
                                    f"version {snap.obstacle_version}); re-validating every tick")

    def adopt(self, fb: Feedback, snap: Snapshot) -> None:
        """Adopt Q: re-validate P, Q, the edge, the support and the navigation version, then
        store new patch, gradient, world end velocity, new support velocity and ``Following``
        together (Claim: H2, H3, H9, V1)."""
        row = self.ctx.row
        self.ctx.decide("adopting", fb, new_phase=Phase.ADOPTING,
                        message="Adopting: re-validating P, Q, edge, support, navigation")
        versions = snap.versions
        checks = {
            "original_patch": versions.p == row.p_version,
            "neighbour_patch": versions.q == row.q_version,
            "common_edge": versions.edge == row.edge_version,
            "support_surface": versions.support == row.support_version and snap.support_valid,
            "navigation": versions.nav == row.nav_version and snap.target_valid,
        }
        verdict = self.ctx.verdict(fb)
        if not verdict.at_boundary:
            self.ctx.decide("adoption-aborted", fb, new_phase=Phase.STOPPING,
                            detail={"edge_margin_m": verdict.edge_margin_m,
                                    "speed_margin_mps": verdict.speed_margin_mps},
                            message="actual contact or stop changed during adoption: Stopping (H9)")
            return
        k = self.ctx.q_slope_factor()
        k_p = float(slope_factor(np.asarray(self.ctx.target.p_gradient_xy, dtype=float)))
        # P's budget governs until the next solve; Q's comes into force with it (V1)
        params = self.ctx.params
        budget = SlopeBudget.start(
            np.array([k_p]), params.surface_speed_cap_mps, params.brake_budget_mps2
        ).adopt(np.array([True]), np.array([k]))
        now_speed_cap, now_accel_cap = (float(c[0]) for c in budget.caps())
        speed_cap_mps, accel_cap_mps2 = (float(c[0]) for c in budget.begin_solve().caps())
        world_end = fb.velocity
        new_support = np.asarray(self.ctx.target.q_support_velocity_xy_mps, dtype=float)
        # Both are horizontal world velocities: their difference is the horizontal projection of
        # the relative velocity, the solver's variable on Q (zero only when relatively stopped).
        relative = world_end - new_support
        relative_speed_mps = float(np.hypot(*relative))
        checks["start_velocity_in_q_budget"] = relative_speed_mps <= speed_cap_mps + EPS
        checks["q_contact"] = snap.q_contact_ok and fb.contact_stable
        failed = sorted(name for name, ok in checks.items() if not ok)
        if failed:
            self.ctx.decide("adoption-incomplete", fb, new_phase=Phase.AT_BOUNDARY,
                            detail={"failed_checks": failed},
                            message=f"handoff incomplete, failed checks {failed} (H2/H3)")
            return
        adoption = {
            "patch": self.ctx.target.q_patch,
            "gradient_xy": list(self.ctx.target.q_gradient_xy),
            "slope_factor": k,
            "world_end_velocity_xy_mps": vec_list(world_end),
            "support_velocity_xy_mps": vec_list(new_support),
            "relative_initial_velocity_xy_mps": vec_list(relative),
            "horizontal_speed_cap_mps": speed_cap_mps,
            "horizontal_accel_cap_mps2": accel_cap_mps2,
            "budget_applies_from": "next solve",
            "caps_until_next_solve": {"slope_factor": k_p,
                                      "horizontal_speed_cap_mps": now_speed_cap,
                                      "horizontal_accel_cap_mps2": now_accel_cap},
        }
        self.ctx.decide(
            "adopt", fb, new_phase=Phase.FOLLOWING,
            updates={"patch": self.ctx.target.q_patch, "adoption": adoption,
                     "current_motion": "none"},
            detail=adoption,
            message=(f"adopted {self.ctx.target.q_patch}: k = {k:g}, horizontal caps "
                     f"{speed_cap_mps:g} m/s and {accel_cap_mps2:g} m/s^2 from the next solve; "
                     f"relative initial velocity {vec_list(relative)} m/s; Following"),
        )
