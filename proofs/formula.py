"""A named closed form: the unit of exchange between derivations, codegen and z3 obligations."""

from __future__ import annotations

from dataclasses import dataclass

import sympy


@dataclass(frozen=True)
class Formula:
    """A sympy expression with the name, arguments and claim IDs of its runtime function.

    ``args`` fixes the keyword parameters of the generated function (and their order); every free
    symbol of ``expr`` must be among them.
    """

    name: str
    expr: sympy.Expr
    args: tuple[sympy.Symbol, ...]
    claims: tuple[str, ...]
    summary: str
    unit: str

    def __post_init__(self) -> None:
        missing = self.expr.free_symbols - set(self.args)
        if missing:
            raise ValueError(f"formula {self.name}: free symbols {missing} are not arguments")

    def __call__(self, **values: object) -> sympy.Expr:
        """Substitute values (numbers or expressions) for the named arguments."""
        by_name = {sym.name: sym for sym in self.args}
        return self.expr.subs({by_name[key]: value for key, value in values.items()})
