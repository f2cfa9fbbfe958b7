"""The committed runtime formulas module is exactly a fresh generation of the derivations."""

import importlib.util

import numpy as np
import pytest

from navproof.proofs import codegen
from navproof.proofs.derivations import FORMULAS


def test_committed_module_equals_fresh_generation():
    committed = codegen.GENERATED_PATH.read_text(encoding="utf-8")
    assert committed == codegen.render(), "run `navproof generate`"
    assert codegen.stale_reason() is None


def test_header_names_the_regenerate_command_and_digest():
    text = codegen.render()
    assert text.startswith("# DO NOT EDIT")
    assert "navproof generate" in text.splitlines()[1]
    assert f"expressions-sha256: {codegen.expressions_digest()}" in text


@pytest.mark.parametrize("formula", FORMULAS, ids=lambda f: f.name)
def test_hand_edit_of_any_formula_is_detected(tmp_path, formula):
    text = codegen.render()
    marker = f"def {formula.name}("
    start = text.index(marker)
    ret = text.index("    return ", start)
    end = text.index("\n", ret)
    edited = text[:end] + " * 1.0001" + text[end:]
    path = tmp_path / "formulas.py"
    path.write_text(edited)
    reason = codegen.stale_reason(path)
    assert reason is not None and "navproof generate" in reason


def test_every_generated_function_matches_its_sympy_expression():
    """The printed numpy code evaluates to the sympy expression at a sample point."""
    spec = importlib.util.spec_from_file_location("fresh_formulas", codegen.GENERATED_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(7)
    for formula in FORMULAS:
        for _ in range(5):
            values = {}
            for sym in formula.args:
                lo = 0.05 if (sym.is_positive or sym.is_nonnegative) else -2.0
                values[sym.name] = float(rng.uniform(lo, 2.0))
            numeric = getattr(module, formula.name)(**values)
            exact = float(formula.expr.subs({s: values[s.name] for s in formula.args}).evalf())
            assert np.isclose(numeric, exact, rtol=1e-9, atol=1e-12), formula.name
