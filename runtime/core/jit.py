"""Compiled loops: plain Python functions over numpy arrays, compiled by numba on first call.

The runtime's few hot loops (per agent, data-dependent, hard to vectorise without waste) are
written once as ordinary Python over arrays and compiled to machine code the first time they
run; that compiled function is the implementation. numba is imported then, not at ``import
navproof`` (it costs about half a second of start-up that a user who never steps a crowd
should not pay).

The machine code is cached on disk (next to the source, else numba's per-user cache folder),
so later processes start in milliseconds. Where no cache location is writable (a read-only
install without a home folder) the loop is compiled in memory each process instead.
Compiled loops release the interpreter lock, so worker threads run them on separate cores.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable
from typing import Any

_LOCK = threading.RLock()


class CompiledLoop:
    """``func`` compiled on its first call (cached on disk where possible)."""

    def __init__(self, func: Callable[..., Any]) -> None:
        self.func = func
        self._compiled: Callable[..., Any] | None = None
        self.__doc__ = func.__doc__
        self.__name__ = func.__name__

    def compiled(self) -> Callable[..., Any]:
        """The machine-code function (compiling or loading it from the cache once)."""
        if self._compiled is None:
            with _LOCK:
                if self._compiled is None:
                    self._compiled = _compile(self.func)
        return self._compiled

    def __call__(self, *args: Any) -> Any:
        return self.compiled()(*args)


def compiled_loop(func: Callable[..., Any]) -> CompiledLoop:
    """Decorator: compile ``func`` with numba (no Python objects inside) on first call."""
    return CompiledLoop(func)


def _compile(func: Callable[..., Any]) -> Callable[..., Any]:
    import numba

    # compiled loops that call other compiled loops of their module see those machine-code
    # functions under the same names (a loop is typed once, with its callees inlined)
    callees = {name: value.compiled() for name, value in func.__globals__.items()
               if isinstance(value, CompiledLoop) and name in func.__code__.co_names}
    if callees:
        func = types.FunctionType(func.__code__, {**func.__globals__, **callees},
                                  func.__name__, func.__defaults__, func.__closure__)

    try:
        # numba picks the first writable location (next to the source, then per user)
        return numba.njit(cache=True, nogil=True)(func)
    except RuntimeError:
        # no writable cache location at all: compile in memory for this process
        return numba.njit(cache=False, nogil=True)(func)
