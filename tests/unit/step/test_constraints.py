"""The safe step's prepared solve slots: the valid flags the compiled pass writes are the
numpy expressions they replaced."""

import dataclasses

import numpy as np

from navproof import boundary as b
from navproof import step as ss
from navproof.step.constraints import prepare_constraints


def test_slot_flags_are_the_reference_and_wall_masks_and_the_orca_flags() -> None:
    rng = np.random.default_rng(17)
    n, k, lines = 300, 3, 4
    ang = rng.uniform(0.0, 2.0 * np.pi, (n, k))
    normal = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    # two facing walls closing in on some agents: no reference keeps both
    normal[:, 0], normal[:, 1] = (1.0, 0.0), (-1.0, 0.0)
    kind = rng.choice([b.EDGE_WALL, b.EDGE_PORTAL, b.EDGE_OBSTACLE], (n, k))
    kind[:, :2] = b.EDGE_WALL
    edges = b.EdgeSet.build(normal, rng.uniform(-0.2, 2.0, (n, k)),
                            edge_velocity_mps=rng.normal(0.0, 1.0, (n, k, 2)))
    edges = dataclasses.replace(edges, valid=rng.random((n, k)) < 0.9, kind=kind)
    heading = rng.uniform(0.0, 2.0 * np.pi, (n, lines))
    inp = ss.check_valid_step_input(ss.StepInput(
        np.zeros((n, 2)), rng.normal(0.0, 0.5, (n, 2)), rng.normal(0.0, 1.0, (n, 2)), 0.1,
        b.Support.translating(rng.normal(0.0, 0.5, (n, 2))), edges, np.full(n, 2.0),
        np.full(n, 1.0), np.full(n, 0.3), orca_point=rng.normal(0.0, 1.0, (n, lines, 2)),
        orca_direction=np.stack([np.cos(heading), np.sin(heading)], axis=-1),
        orca_valid=rng.random((n, lines)) < 0.6))
    prep = prepare_constraints(inp)
    valid, offset = prep.solve_planes.valid, prep.solve_planes.offset
    has_ref = prep.ref.exists[:, None] & inp.edges.wall
    assert not prep.ref.exists.all() and prep.ref.exists.any()
    for first in (k, 2 * k):
        stop = slice(first, first + k)
        assert np.array_equal(valid[:, stop], has_ref & ~(offset[:, stop] == np.inf))
    assert np.array_equal(valid[:, 3 * k:], inp.orca_valid)
