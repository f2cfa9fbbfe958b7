"""The World (seed 002's data flow with seed 000's boundaries and handoffs): goals, corridor,
steering, ORCA, the safe step, the motion controller and handoffs in one step. Claim: T4."""

from navproof.world.agents import AgentDefaults
from navproof.world.layout import Layout, SupportSpec
from navproof.world.world import World, WorldStep

__all__ = ["AgentDefaults", "Layout", "SupportSpec", "World", "WorldStep"]
