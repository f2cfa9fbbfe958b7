"""The front door ``navproof``: every public name in ``__all__`` resolves to the object its
module defines, and importing the package loads none of them (nor sympy, z3 or numba) until a
name is used, so ``navproof --help`` stays instant."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import navproof

DEFINED_IN = {
    "World": "navproof.world.world",
    "Layout": "navproof.world.layout",
    "Crowd": "navproof.orca.crowd",
    "RVOSimulator": "navproof.orca.compat",
    "StepInput": "navproof.step.inputs",
    "solve_safe_step": "navproof.step.solve",
    "HandoffController": "navproof.handoff.controller",
    "HandoffRecord": "navproof.handoff.record",
    "Profile": "navproof.specs.profile",
    "load_scenario": "navproof.scenario",
    "InvalidInput": "navproof.core.errors",
    "ObligationViolation": "navproof.core.errors",
    "ScenarioError": "navproof.core.errors",
    "RecordError": "navproof.handoff.record_schema",
    "SpecError": "navproof.specs.errors",
}


@pytest.mark.parametrize("name", sorted(DEFINED_IN))
def test_every_public_name_is_the_object_its_module_defines(name):
    assert name in navproof.__all__
    assert getattr(navproof, name) is getattr(importlib.import_module(DEFINED_IN[name]), name)


def test_all_lists_exactly_the_public_names():
    assert set(navproof.__all__) == set(DEFINED_IN) | {"__version__"}
    assert sorted(navproof.__all__) == sorted(set(dir(navproof)) & set(navproof.__all__))


def test_an_unknown_name_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="'Wrold'"):
        navproof.Wrold  # noqa: B018


def test_the_errors_are_invalid_input_or_spec_errors():
    assert issubclass(navproof.ScenarioError, navproof.InvalidInput)
    assert issubclass(navproof.RecordError, navproof.InvalidInput)
    assert issubclass(navproof.SpecError, ValueError)


def test_importing_the_front_door_loads_no_heavy_module():
    code = ("import sys, navproof; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('sympy', 'z3', 'numba', 'matplotlib') or m in ('navproof.world', "
            "'navproof.orca', 'navproof.step', 'navproof.scenario', 'navproof.handoff')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
