"""Pictures of a step and of a run: velocity space (seed 002's debugging list) and trajectories.

``navproof.viz.scene`` gathers what a velocity-space picture shows (numpy only);
``navproof.viz.velocity_space`` and ``navproof.viz.trajectories`` draw with matplotlib, which is
the optional extra ``navproof[plot]`` and is imported only when a picture is drawn
(``navproof.viz.backend``).
"""
