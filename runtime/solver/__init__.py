"""The closest-feasible-velocity solver (Claim O2): half-planes and speed disks, batched over
agents."""
