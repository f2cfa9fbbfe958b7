"""Storage the safe step writes over from one step to the next on the same thread.

The solve slots of a step (:func:`navproof.step.constraints.prepare_constraints`: normals,
offsets and valid flags of every half-plane of every agent) are its largest arrays, megabytes
at 20k agents. Allocated afresh each step, the allocator hands their pages back to the system
when the step ends and the next step faults them in again, page by page. Kept per thread, they
are written over instead: every slot is written before it is read, so a step's values never
depend on the step before. The slots are read only while the step is solved; nothing in a
step's result refers to them, so a later step never changes an earlier result.
"""

from __future__ import annotations

import threading

import numpy as np


class SlotBuffers:
    """Reusable storage of the solve slots of R rows of S slots: normal (R, S, 2) float64,
    offset (R, S) float64 and valid (R, S) bool, as C-contiguous views into flat arrays that
    grow to the largest step seen. A call's views are overwritten by the next call's."""

    def __init__(self) -> None:
        self._normal = np.empty(0)
        self._offset = np.empty(0)
        self._valid = np.empty(0, dtype=bool)

    def slots(self, rows: int, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(normal, offset, valid) views of shapes (rows, width, 2), (rows, width) and
        (rows, width), their values left from earlier use."""
        size = rows * width
        if self._offset.size < size:
            self._normal = np.empty(2 * size)
            self._offset = np.empty(size)
            self._valid = np.empty(size, dtype=bool)
        return (self._normal[:2 * size].reshape(rows, width, 2),
                self._offset[:size].reshape(rows, width),
                self._valid[:size].reshape(rows, width))


_PER_THREAD = threading.local()


def thread_slot_buffers() -> SlotBuffers:
    """The calling thread's :class:`SlotBuffers` (steps solved on other threads at the same
    time have their own)."""
    buffers = getattr(_PER_THREAD, "slots", None)
    if buffers is None:
        buffers = _PER_THREAD.slots = SlotBuffers()
    return buffers
