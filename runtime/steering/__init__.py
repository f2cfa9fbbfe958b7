"""Steering (seed 002, "Steering：先产生期望运动", "Arrive"): the preferred velocity of every
agent, vectorised over agents. Seek (T1), acceleration-clamped steering (T2) and Arrive with
the shipped speed curve and stop range (T3); the formulas come from ``navproof._generated``."""

from navproof.steering.arrive import arrive_velocity
from navproof.steering.clamp import (
    capped_clamped_steering,
    check_steering_step,
    clamped_steering,
    speed_capped,
)
from navproof.steering.params import SteeringParams
from navproof.steering.route import route_velocity
from navproof.steering.seek import seek_velocity

__all__ = [
    "SteeringParams",
    "arrive_velocity",
    "capped_clamped_steering",
    "check_steering_step",
    "clamped_steering",
    "route_velocity",
    "seek_velocity",
    "speed_capped",
]
