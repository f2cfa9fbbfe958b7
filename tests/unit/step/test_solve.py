"""The safe step's own compiled pass gives the whole-array numpy values bit for bit."""

import numpy as np

from navproof.core.tolerances import EPS
from navproof.step import solve
from navproof.step.result import (
    FLAG_CARRY_EXCEEDS_CANCEL,
    FLAG_NO_REFERENCE,
    FLAG_OVER_CAP,
    NO_STOP_GUARANTEE,
    OVERLAP_RECOVERY,
    SAFE,
    SOLVE_FAILED,
)


def test_over_cap_naming_is_the_numpy_expression():
    rng = np.random.default_rng(5)
    n = 5000
    vh = rng.uniform(0.5, 3.0, n)
    cap = vh * (1.0 + 1e-12) + EPS
    heading = rng.uniform(0.0, 2.0 * np.pi, n)
    # speeds at, just off and far off the cap, zeros of both signs, NaN and infinities
    speed = cap * rng.choice([0.0, 0.5, 1.0 - 1e-15, 1.0, 1.0 + 1e-15, 1.0 + 1e-9, 2.0], n)
    velocity = np.stack([speed * np.cos(heading), speed * np.sin(heading)], axis=1)
    velocity[:, 1][::9] = 0.0
    velocity[::13] = -0.0
    velocity[::17, 0] = cap[::17]
    velocity[::17, 1] = 0.0
    velocity[3, 0], velocity[5, 1], velocity[7] = np.nan, np.inf, -np.inf
    label = rng.integers(0, 4, n).astype(np.int8)
    flags = rng.integers(0, 256, n).astype(np.uint8)
    over = np.hypot(velocity[:, 0], velocity[:, 1]) > vh * (1.0 + 1e-12) + EPS
    want_flags, want_label = flags.copy(), label.copy()
    want_flags[over] |= FLAG_OVER_CAP
    want_label[(want_label == SAFE) & over] = NO_STOP_GUARANTEE
    solve._name_over_cap(velocity, vh, EPS, flags, label)
    assert flags.tobytes() == want_flags.tobytes()
    assert label.tobytes() == want_label.tobytes()
    assert over.any() and not over.all()


def test_reference_naming_is_the_numpy_expression():
    rng = np.random.default_rng(6)
    n = 2000
    exists = rng.random(n) < 0.7
    reachable = exists & (rng.random(n) < 0.6)
    label = rng.integers(0, 4, n).astype(np.int8)
    flags = rng.integers(0, 256, n).astype(np.uint8)
    no_ref = ~exists
    unreachable = exists & ~reachable
    want_flags, want_label = flags.copy(), label.copy()
    want_flags[no_ref] |= FLAG_NO_REFERENCE
    want_flags[unreachable] |= FLAG_CARRY_EXCEEDS_CANCEL
    want_label[(want_label == SAFE) & (no_ref | unreachable)] = NO_STOP_GUARANTEE
    solve._name_reference(exists, reachable, flags, label)
    assert flags.tobytes() == want_flags.tobytes()
    assert label.tobytes() == want_label.tobytes()


def test_taking_the_found_velocities_is_the_numpy_expression():
    rng = np.random.default_rng(11)
    for n in (0, 1, 7, 3000):
        found = rng.random(n) < rng.choice([0.0, 0.5, 0.9, 1.0])
        overlap = rng.random(n) < 0.2
        v1 = rng.normal(0.0, 1.0, (n, 2))
        special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324])
        hit = rng.random(v1.shape) < 0.2
        v1[hit] = rng.choice(special, int(hit.sum()))
        start = rng.normal(0.0, 1.0, (n, 2))
        for v1_layout in (v1, np.asfortranarray(v1)):
            velocity = start.copy()
            label = np.full(n, SOLVE_FAILED, dtype=np.int8)
            left = solve._take_found(found, overlap, v1_layout, velocity, label)
            want_velocity = start.copy()
            np.copyto(want_velocity, v1, where=found[:, None])
            want_label = np.full(n, SOLVE_FAILED, dtype=np.int8)
            want_label[found] = SAFE
            want_label[found & overlap] = OVERLAP_RECOVERY
            assert velocity.tobytes() == want_velocity.tobytes()
            assert label.tobytes() == want_label.tobytes()
            assert left == np.flatnonzero(~found).size
