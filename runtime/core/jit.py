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

A loop may call the generated formulas (:mod:`navproof._generated.formulas`) by keyword, as the
numpy code does: they are compiled too, so the loop evaluates exactly the derived expressions.
The disk cache only watches the loop's own source file, so the cached name of a loop carries a
digest of everything its machine code depends on elsewhere: the code of every compiled loop and
generated formula it calls, all the way down, and the values of the plain constants (numbers,
strings, tuples of them) it and they read from their modules, which numba freezes at compile
time. A regenerated formula, a changed callee's callee or a changed constant compiles afresh.
"""

from __future__ import annotations

import hashlib
import threading
import types
from collections.abc import Callable
from typing import Any, Literal, TypeGuard

_LOCK = threading.RLock()
_FORMULA_MODULE = "navproof._generated.formulas"


class CompiledLoop:
    """``func`` compiled on its first call (cached on disk where possible)."""

    def __init__(self, func: Callable[..., Any], *, inline: bool = False) -> None:
        self.func = func
        self.inline = inline
        self._compiled: Callable[..., Any] | None = None
        self._digest: str | None = None
        self.__doc__ = func.__doc__
        self.__name__ = func.__name__

    def compiled(self) -> Callable[..., Any]:
        """The machine-code function (compiling or loading it from the cache once)."""
        if self._compiled is None:
            with _LOCK:
                if self._compiled is None:
                    dispatcher = _compile(self.func, inline=self.inline,
                                          digest=self.code_digest())
                    # from now on a call goes straight to numba's dispatcher: a loop called a
                    # hundred times per step would otherwise pay this wrapper's Python frames
                    # on every call
                    self.__class__ = type(type(self).__name__, (type(self),),
                                          {"__call__": staticmethod(dispatcher),
                                           "__slots__": ()})
                    self._compiled = dispatcher
        return self._compiled

    def __call__(self, *args: Any) -> Any:
        return self.compiled()(*args)

    def code_digest(self) -> str:
        """Hex digest of what decides this loop's machine code (:func:`_code_digest`)."""
        if self._digest is None:
            self._digest = ""  # a loop that calls itself adds nothing more
            self._digest = _code_digest(self.func)
        return self._digest


def compiled_loop(func: Callable[..., Any]) -> CompiledLoop:
    """Decorator: compile ``func`` with numba (no Python objects inside) on first call."""
    return CompiledLoop(func)


def inlined_loop(func: Callable[..., Any]) -> CompiledLoop:
    """Decorator: :func:`compiled_loop` whose body is inlined into the compiled loops that call
    it (for small helpers called per sample in a hot loop: no call with every array argument
    passed by value, and the caller's optimiser sees through it)."""
    return CompiledLoop(func, inline=True)


def _compile(func: Callable[..., Any], *, inline: bool = False,
             digest: str = "") -> Callable[..., Any]:
    import numba

    # compiled loops and generated formulas that the loop calls are seen under the same names
    # as machine-code functions (a loop is typed once, with its callees inlined)
    callees: dict[str, Any] = {}
    for name in sorted(set(func.__code__.co_names)):
        value = func.__globals__.get(name)
        if isinstance(value, CompiledLoop):
            callees[name] = value.compiled()
        elif _is_formula(value):
            callees[name] = _formula(value)
    func = types.FunctionType(func.__code__, {**func.__globals__, **callees}, func.__name__,
                              func.__defaults__, func.__closure__)
    # the cache file is named after the qualified name: a changed dependency gets a new one
    func.__qualname__ = f"{func.__name__}_{digest[:16]}"

    how: Literal["always", "never"] = "always" if inline else "never"
    try:
        # numba picks the first writable location (next to the source, then per user)
        return numba.njit(cache=True, nogil=True, inline=how)(func)
    except RuntimeError:
        # no writable cache location at all: compile in memory for this process
        return numba.njit(cache=False, nogil=True, inline=how)(func)



def _formula(formula: Callable[..., Any]) -> Callable[..., Any]:
    """A generated formula compiled for calls from compiled loops.

    The formulas take keyword-only arguments, which numba cannot bind; the same code with
    those parameters made positional-or-keyword still accepts the keyword calls.
    """
    import numba

    code = formula.__code__
    code = code.replace(co_argcount=code.co_argcount + code.co_kwonlyargcount,
                        co_kwonlyargcount=0)
    # the module's helpers that a scalar form calls (numpy's minimum and maximum of two floats)
    helpers = {name: _formula(value) for name, value in _formula_callees(formula)}
    plain = types.FunctionType(code, {**formula.__globals__, **helpers}, formula.__name__)
    return numba.njit(nogil=True)(plain)


def _is_formula(value: Any) -> TypeGuard[types.FunctionType]:
    """Whether ``value`` is a function of the generated formula module."""
    return isinstance(value, types.FunctionType) and value.__module__ == _FORMULA_MODULE


def _formula_callees(formula: Callable[..., Any]) -> list[tuple[str, Any]]:
    """The generated module's functions that ``formula`` calls, by name."""
    found = []
    for name in sorted(set(formula.__code__.co_names)):
        value = formula.__globals__.get(name)
        if _is_formula(value):
            found.append((name, value))
    return found


def _is_constant(value: Any) -> bool:
    """Whether numba would freeze ``value`` into machine code as a plain constant."""
    if isinstance(value, (bool, int, float, complex, str)):
        return True
    return isinstance(value, tuple) and all(_is_constant(item) for item in value)


def _code_digest(func: Callable[..., Any]) -> str:
    """Hex digest of what decides the machine code of ``func``: its code, the digest of every
    compiled loop it calls (:meth:`CompiledLoop.code_digest`, so all the way down), the code of
    every generated formula it calls with theirs, and the name and value of every plain
    constant it reads from its module."""
    digest = hashlib.sha256()
    _add_code(digest, func.__code__)
    for name in sorted(set(func.__code__.co_names)):
        value = func.__globals__.get(name)
        if isinstance(value, CompiledLoop):
            digest.update(value.code_digest().encode())
        elif _is_formula(value):
            digest.update(_code_digest(value).encode())
        elif _is_constant(value):
            digest.update(repr((name, value)).encode())
    return digest.hexdigest()


def _add_code(digest: Any, code: types.CodeType) -> None:
    """Feed what decides a function's behaviour into ``digest``."""
    digest.update(code.co_code)
    digest.update(repr((code.co_names, code.co_varnames)).encode())
    for const in code.co_consts:
        # nested code objects by their content (their repr holds a memory address)
        if isinstance(const, types.CodeType):
            _add_code(digest, const)
        else:
            digest.update(repr(const).encode())
