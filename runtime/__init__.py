"""navproof runtime: lean, vectorised numpy enforcement of the proven navigation formulas.

The front door of the public API::

    from navproof import World, Crowd, RVOSimulator, Layout, StepInput, solve_safe_step
    from navproof import HandoffController, HandoffRecord, Profile, load_scenario
    from navproof import InvalidInput, ObligationViolation, ScenarioError, RecordError, SpecError

Each name is loaded on first use (module ``__getattr__``), so ``import navproof`` stays as light
as ``navproof --help``: it imports the two run-time errors and nothing else. The proof chain
(sympy, z3) lives in ``navproof.proofs`` and is imported on demand. This module is outside the
layer rule of ``tests/unit/test_layers.py``: it names both the library and ``load_scenario``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from navproof.core.errors import InvalidInput, ObligationViolation

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    # the library
    "World": "navproof.world.world",
    "Layout": "navproof.world.layout",
    "Crowd": "navproof.orca.crowd",
    "RVOSimulator": "navproof.orca.compat",
    "StepInput": "navproof.step.inputs",
    "solve_safe_step": "navproof.step.solve",
    "HandoffController": "navproof.handoff.controller",
    "HandoffRecord": "navproof.handoff.record",
    "Profile": "navproof.specs.profile",
    # scenario files (TOML; the applications' loader)
    "load_scenario": "navproof.scenario",
    # the errors
    "ScenarioError": "navproof.core.errors",
    "RecordError": "navproof.handoff.record_schema",
    "SpecError": "navproof.specs.errors",
}
"""Public name -> the module that defines it."""

if TYPE_CHECKING:  # what a type checker and an IDE see; at run time __getattr__ loads these
    from navproof.core.errors import ScenarioError
    from navproof.handoff.controller import HandoffController
    from navproof.handoff.record import HandoffRecord
    from navproof.handoff.record_schema import RecordError
    from navproof.orca.compat import RVOSimulator
    from navproof.orca.crowd import Crowd
    from navproof.scenario import load_scenario
    from navproof.specs.errors import SpecError
    from navproof.specs.profile import Profile
    from navproof.step.inputs import StepInput
    from navproof.step.solve import solve_safe_step
    from navproof.world.layout import Layout
    from navproof.world.world import World

__all__ = [
    "Crowd",
    "HandoffController",
    "HandoffRecord",
    "InvalidInput",
    "Layout",
    "ObligationViolation",
    "Profile",
    "RVOSimulator",
    "RecordError",
    "ScenarioError",
    "SpecError",
    "StepInput",
    "World",
    "__version__",
    "load_scenario",
    "solve_safe_step",
]


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use (then it is a plain attribute)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'navproof' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
