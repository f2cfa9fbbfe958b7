"""The safe step's own compiled pass gives the whole-array numpy values bit for bit."""

import numpy as np

from navproof.core.tolerances import EPS
from navproof.step import solve
from navproof.step.result import (
    FLAG_CARRY_EXCEEDS_CANCEL,
    FLAG_NO_REFERENCE,
    FLAG_OVER_CAP,
    NO_STOP_GUARANTEE,
    SAFE,
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
