"""The boundary model (seed 000): motions, supports, edges, patches, their margins, the reference
velocity, slope budgets and stop envelopes."""
