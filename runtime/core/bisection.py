"""Bisection of monotone brackets, batched over arrays: the one root finder of the step's
exact times (first contact W1/F2, portal crossing B7, the sweep's cubic roots)."""

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
