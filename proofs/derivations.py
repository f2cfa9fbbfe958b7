"""Every named closed form of the derivations, in the order the runtime module lists them."""

from __future__ import annotations

from navproof.proofs import access_curve, boundary, orca, rigid, slope, steering, stop_envelope
from navproof.proofs.formula import Formula

FORMULAS: tuple[Formula, ...] = (
    *boundary.FORMULAS,
    *stop_envelope.FORMULAS,
    *rigid.FORMULAS,
    *slope.FORMULAS,
    *access_curve.FORMULAS,
    *orca.FORMULAS,
    *steering.FORMULAS,
)

FORMULAS_BY_NAME: dict[str, Formula] = {f.name: f for f in FORMULAS}
assert len(FORMULAS_BY_NAME) == len(FORMULAS), "formula names must be unique"
