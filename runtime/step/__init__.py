"""The safe step (seed 000): ORCA lines, boundaries, stop envelopes, the reachable disk and the
sweep combined into one verified velocity per agent, with the labelled fallbacks F1-F3."""
