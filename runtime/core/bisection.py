"""Bisection of monotone brackets, batched over arrays: the root finder of the step's exact
times taken over whole arrays (portal crossing B7). The sweep's per-pair compiled loops (first
contact W1/F2, the cubic roots of the closest approach) halve their brackets the same
BISECTION_STEPS times, one pair at a time."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from navproof.core.tolerances import BISECTION_STEPS


def bisect(lo: np.ndarray, hi: np.ndarray, past: Callable[[np.ndarray], np.ndarray]
           ) -> tuple[np.ndarray, np.ndarray]:
    """Shrink every bracket [lo, hi] around the switch of ``past`` (False at ``lo``, True at
    ``hi``; ``past(mid)`` True moves ``hi`` to ``mid``, else ``lo``). Returns the final
    (lo, hi), BISECTION_STEPS halvings later; ``lo`` is never past the switch, ``hi`` is."""
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        at_or_past = past(mid)
        hi = np.where(at_or_past, mid, hi)
        lo = np.where(at_or_past, lo, mid)
    return lo, hi
