"""navproof runtime: lean, vectorised numpy enforcement of the proven navigation formulas.

Importing ``navproof`` loads numpy only; the proof chain (sympy, z3) lives in
``navproof.proofs`` and is imported on demand.
"""

from navproof.core.errors import InvalidInput, ObligationViolation

__version__ = "0.1.0"

__all__ = ["InvalidInput", "ObligationViolation", "__version__"]
