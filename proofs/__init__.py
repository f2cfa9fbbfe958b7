"""The proof chain: sympy derivations, generated runtime formulas, z3 obligations and the engine."""
