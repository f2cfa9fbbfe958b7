"""ORCA local avoidance (seed 002): neighbours, obstacles, half-planes, the crowd, its monitor and
the RVO2-compatible API."""
