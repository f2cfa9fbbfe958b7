"""Building blocks shared by every obligation family.

An obligation (``Obligation``) has
- hypotheses: the profile's parameter ranges as exact rationals (``lo <= p <= hi``), geometric
  facts (unit normals, speeds as norms) and the side conditions of the sympy translation;
- a premise and a conclusion built from the named sympy expressions of the derivation modules
  (``navproof.proofs.boundary``, ``stop_envelope``, ``slope``, ``access_curve``) through
  ``navproof.proofs.to_z3``; no derived formula is retyped in an obligation;
- the expected outcome: PROVED (hypotheses and premise imply the conclusion) or REFUTED (a
  counterexample must exist: the naive statement is false);
- a numeric replay of a counterexample through the generated runtime module
  ``navproof._generated.formulas``;
- optionally, lemma ``steps`` (each proved from a subset of the facts, then assumed) that lead
  nlsat through the non-linear ones, and a preferred witness case.

``Builder`` collects the variables, hypotheses and translations of one z3 obligation; ``dot``,
``sub``, ``add`` are 2-D vector helpers on z3 terms, ``fdot`` and ``fnorm`` their float
counterparts for replays. ``identity_obligation`` makes a kind="sympy" obligation: a list of
sympy expressions that must each simplify to exactly zero.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction

import sympy
import z3

from navproof.proofs import symbols as sym
from navproof.proofs.to_z3 import Translator
from navproof.specs.profile import Profile

_DERIVATION_SYMBOL_NAMES = frozenset(
    value.name for value in vars(sym).values() if isinstance(value, sympy.Symbol)
)
"""Names of the symbols of the derivation modules (``navproof.proofs.symbols``)."""

PROVED = "proved"
REFUTED = "refuted"

Values = dict[str, float]


@dataclass(frozen=True)
class Replay:
    """Outcome of replaying a counterexample numerically through the generated formulas."""

    confirmed: bool
    detail: str


@dataclass(frozen=True)
class Step:
    """An intermediate lemma of a z3 proof, proved before the conclusion and then assumed.

    It is proved from the facts available so far (hypotheses, premise, earlier steps) minus every
    fact that mentions a constant named in ``forget``: dropping facts only weakens what is
    assumed, so the step stays sound, and nlsat no longer projects irrelevant variables.
    """

    name: str
    claim: z3.BoolRef
    forget: tuple[str, ...] = ()


@dataclass(frozen=True)
class Endpoint:
    """A profile range endpoint an obligation covers: ``condition`` puts ``variable`` at it."""

    variable: str
    parameter: str
    end: str  # "min" or "max"
    value: str  # the exact endpoint value
    condition: z3.BoolRef
    # Why the claim's premise does not cover this endpoint (then it must be reachable under the
    # hypotheses alone); None: covered, reachable under hypotheses and premise.
    outside_claim: str | None = None


@dataclass
class Obligation:
    """One proof obligation: what is assumed, what must follow, and what outcome is expected."""

    id: str
    claim: str
    title: str
    expected: str
    method: str = "z3"
    hypotheses: list[z3.BoolRef] = field(default_factory=list)
    premise: list[z3.BoolRef] = field(default_factory=list)
    conclusion: z3.BoolRef | None = None
    shown: dict[str, z3.ArithRef] = field(default_factory=dict)
    # Optional stronger violations tried first, so that a counterexample is not a knife-edge
    # case that only exact arithmetic can see.
    sharpen: list[z3.BoolRef] = field(default_factory=list)
    # Optional conditions of an interesting witness (e.g. the braking phase of a stop), tried
    # first so that the non-vacuity witness exercises the case the claim is about.
    witness_prefer: list[z3.BoolRef] = field(default_factory=list)
    replay: Callable[[Values], Replay] | None = None
    # Lemmas proved in order before the conclusion, and what the conclusion's check forgets.
    steps: list[Step] = field(default_factory=list)
    conclusion_forget: tuple[str, ...] = ()
    identities: Callable[[], list[tuple[str, bool]]] | None = None
    # Sympy assumptions of symbols bound to z3 terms (``dt`` positive, ``speed`` nonnegative):
    # sympy may have simplified with them, so each must follow from hypotheses and premise.
    bindings: list[tuple[str, z3.BoolRef]] = field(default_factory=list)
    # Definedness, proved before anything else: ``domain`` holds the conditions under which each
    # sqrt / Piecewise without a default is defined; ``guarded_hypotheses`` are the hypotheses
    # with those definitions guarded by their domains (None: the same as ``hypotheses``).
    domain: list[z3.BoolRef] = field(default_factory=list)
    guarded_hypotheses: list[z3.BoolRef] | None = None
    # Every range endpoint the obligation covers; each must be reachable under the facts.
    endpoints: list[Endpoint] = field(default_factory=list)
    # Optional: exact values of named variables (from the witness) to try first when reaching an
    # endpoint; z3 still decides that query (see ``navproof.proofs.obligations.scaling``).
    endpoint_hint: Callable[..., dict[str, Fraction] | None] | None = None

    def fingerprint(self) -> dict[str, str]:
        """Digests of the exact statement: hypotheses, premise and conclusion (z3 obligations), or
        the identity names (sympy obligations). Fresh variable numbers are renumbered in order of
        appearance, so the digest depends on the statement only, never on what was built before.
        """
        if self.method == "sympy":
            names = [name for name, _ in self.identities()] if self.identities else []
            return {"identities": _digest("\n".join(names))}
        parts = {
            "hypotheses": "\n".join(h.sexpr() for h in self.hypotheses),
            "premise": "\n".join(p.sexpr() for p in self.premise),
            "conclusion": self.conclusion.sexpr() if self.conclusion is not None else "",
        }
        numbers: dict[str, str] = {}

        def renumber(match: re.Match[str]) -> str:
            index = numbers.setdefault(match.group(0), str(len(numbers) + 1))
            return f"{match.group(1)}!{index}"

        # Renumbered names change the printer's line breaks: compare with whitespace collapsed.
        return {
            key: _digest(" ".join(_FRESH.sub(renumber, text).split()))
            for key, text in parts.items()
        }


_FRESH = re.compile(r"([A-Za-z_]+)!(\d+)")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class Builder:
    """Collects the variables, hypotheses and translations of one z3 obligation."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.env: dict[str, z3.ArithRef] = {}
        self.tr = Translator(env=self.env)
        self.hypotheses: list[z3.BoolRef] = []
        self.shown: dict[str, z3.ArithRef] = {}
        self.endpoints: list[Endpoint] = []
        self._placeholder_tags: dict[int, int] = {}

    def var(self, name: str, *conditions: Callable[[z3.ArithRef], z3.BoolRef]) -> z3.ArithRef:
        """A free real variable, shown in witnesses and counterexamples."""
        x = z3.Real(name)
        self.env[name] = x
        self.shown[name] = x
        self.hypotheses.extend(cond(x) for cond in conditions)
        return x

    def alias(self, name: str, term: z3.ArithRef) -> z3.ArithRef:
        """A named variable equal to ``term`` (lets a step forget how the term was built)."""
        x = self.var(name)
        self.hypotheses.append(x == term)
        return x

    @staticmethod
    def names(*terms: z3.ExprRef | tuple[z3.ExprRef, ...]) -> tuple[str, ...]:
        """Names of the z3 constants in the given terms (for a step's ``forget``)."""
        found: set[str] = set()
        todo: list[z3.ExprRef] = []
        for term in terms:
            todo.extend(term if isinstance(term, tuple) else (term,))
        while todo:
            node = todo.pop()
            if z3.is_const(node) and node.decl().kind() == z3.Z3_OP_UNINTERPRETED:
                found.add(node.decl().name())
            else:
                todo.extend(node.children())
        return tuple(sorted(found))

    def bounds(self, parameter: str) -> tuple[z3.ArithRef, z3.ArithRef]:
        p = self.profile[parameter]
        return self.tr._val(p.min), self.tr._val(p.max)

    def covers(
        self, name: str, parameter: str, term: z3.ArithRef, *, squared: bool = False
    ) -> None:
        """Record that ``term`` (named ``name``) spans the profile's [min, max] of ``parameter``;
        with ``squared`` the term is the squared norm of a vector and spans [min^2, max^2]."""
        p = self.profile[parameter]
        for end, value in (("min", p.min), ("max", p.max)):
            target = self.tr._val(value * value if squared else value)
            self.endpoints.append(Endpoint(name, parameter, end, str(value), term == target))

    def outside_claim(self, variable: str, end: str, reason: str) -> None:
        """Declare that the premise excludes one endpoint of ``variable`` (and say why)."""
        for i, point in enumerate(self.endpoints):
            if point.variable == variable and point.end == end:
                self.endpoints[i] = replace(point, outside_claim=reason)
                return
        raise KeyError(f"no endpoint {variable} {end}")

    def param(self, name: str, parameter: str) -> z3.ArithRef:
        """A scalar parameter ranging over the profile's closed range [min, max]."""
        lo, hi = self.bounds(parameter)
        x = self.var(name, lambda x: lo <= x, lambda x: x <= hi)
        self.covers(name, parameter, x)
        return x

    def projection(self, name: str, parameter: str) -> z3.ArithRef:
        """The projection on a unit normal of a vector whose norm ranges over ``parameter``."""
        p = self.profile[parameter]
        _, hi = self.bounds(parameter)
        x = self.var(name, lambda x: -hi <= x, lambda x: x <= hi)
        for end, value in (("min", -p.max), ("max", p.max)):
            self.endpoints.append(
                Endpoint(name, parameter, end, str(value), x == self.tr._val(value))
            )
        return x

    def vector(self, name: str) -> tuple[z3.ArithRef, z3.ArithRef]:
        return self.var(f"{name}_x"), self.var(f"{name}_y")

    def unit(self, name: str) -> tuple[z3.ArithRef, z3.ArithRef]:
        """A unit vector (an outward edge normal)."""
        x, y = self.vector(name)
        self.hypotheses.append(x * x + y * y == 1)
        return x, y

    def bounded_vector(self, name: str, parameter: str) -> tuple[z3.ArithRef, z3.ArithRef]:
        """A 2-D vector whose norm ranges over the profile's [min, max] of ``parameter``."""
        x, y = self.vector(name)
        lo, hi = self.bounds(parameter)
        self.hypotheses.extend([lo * lo <= x * x + y * y, x * x + y * y <= hi * hi])
        self.covers(f"|{name}|", parameter, x * x + y * y, squared=True)
        return x, y

    def norm(self, name: str, vec: tuple[z3.ArithRef, z3.ArithRef]) -> z3.ArithRef:
        """``|vec|`` as sympy ``sqrt(x**2 + y**2)`` through the translator (a sqrt variable)."""
        sx, sy = sympy.Symbol(f"{name}__x", real=True), sympy.Symbol(f"{name}__y", real=True)
        self.env[sx.name], self.env[sy.name] = vec
        length = self.tr.term(sympy.sqrt(sx**2 + sy**2))
        self.shown[name] = length
        return length

    def _bind(self, expr: sympy.Basic, subs: dict[str, z3.ExprRef | sympy.Basic]) -> sympy.Basic:
        """Substitute sympy values, and placeholders bound to z3 terms, for named symbols.

        A z3 value is bound through a placeholder symbol named by the z3 term (its first use in
        this builder), so the translator's memo (and its sqrt / reciprocal variables) stays valid
        across calls and the same ``sqrt(d)`` is one variable however often it is translated.
        """
        by_name = {s.name: s for s in expr.free_symbols}
        # A derivation may legitimately lose a symbol (a term that cancels, or a wrong
        # derivation that dropped it): its binding is then moot, and the obligation itself
        # decides whether the formula is still the claim. A name that is no derivation symbol
        # at all is a typo in the obligation and stays an error.
        unknown = set(subs) - set(by_name) - _DERIVATION_SYMBOL_NAMES
        subs = {k: v for k, v in subs.items() if k in by_name}
        if unknown:
            raise KeyError(f"{sorted(unknown)} are not symbols of {expr}")
        # Sympy values first (they may bring in symbols that z3 bindings then replace).
        values = {by_name[k]: v for k, v in subs.items() if not isinstance(v, z3.ExprRef)}
        if values:
            expr = expr.subs(values, simultaneous=True)
        placeholders = {}
        for key, value in subs.items():
            if isinstance(value, z3.ExprRef):
                original = by_name[key]
                # Named by first use within this builder (never by z3's global term id), so the
                # sympy ordering, and with it the statement's fingerprint, is reproducible.
                tag = self._placeholder_tags.setdefault(value.get_id(), len(self._placeholder_tags))
                name = f"{key}@{tag}"
                self.env[name] = value
                placeholders[original] = sympy.Symbol(name, **original.assumptions0)
        return expr.subs(placeholders, simultaneous=True) if placeholders else expr

    def term(self, expr: sympy.Basic, **subs: z3.ExprRef | sympy.Basic) -> z3.ArithRef:
        """Translate a named sympy expression with symbols replaced by z3 terms or sympy values."""
        return self.tr.term(self._bind(expr, subs))

    def formula(self, expr: sympy.Basic, **subs: z3.ExprRef | sympy.Basic) -> z3.BoolRef:
        """Translate a named sympy relation with symbols replaced by z3 terms or sympy values."""
        return self.tr.formula(self._bind(expr, subs))

    def obligation(self, **kwargs: object) -> Obligation:
        shown = dict(self.shown)
        # Symbols left unbound (e.g. a time t) are shown under their own names.
        for name, variable in self.tr.variables.items():
            shown.setdefault(name, variable)
        return Obligation(
            hypotheses=[*self.hypotheses, *self.tr.side],
            guarded_hypotheses=[*self.hypotheses, *self.tr.definitions],
            domain=list(self.tr.domain),
            endpoints=list(self.endpoints),
            shown=shown,
            bindings=list(self.tr.bound),
            **kwargs,  # type: ignore[arg-type]
        )


def dot(p: tuple[z3.ArithRef, z3.ArithRef], q: tuple[z3.ArithRef, z3.ArithRef]) -> z3.ArithRef:
    return p[0] * q[0] + p[1] * q[1]


def sub(p: tuple[z3.ArithRef, z3.ArithRef], q: tuple[z3.ArithRef, z3.ArithRef]):
    return p[0] - q[0], p[1] - q[1]


def add(p: tuple[z3.ArithRef, z3.ArithRef], q: tuple[z3.ArithRef, z3.ArithRef]):
    return p[0] + q[0], p[1] + q[1]


def runtime_formulas():
    # The runtime module, imported lazily: replays must use what the runtime uses.
    from navproof._generated import formulas

    return formulas


def fdot(values: Values, p: str, q: str) -> float:
    return values[f"{p}_x"] * values[f"{q}_x"] + values[f"{p}_y"] * values[f"{q}_y"]


def fnorm(values: Values, p: str) -> float:
    return math.hypot(values[f"{p}_x"], values[f"{p}_y"])


def is_zero(expr: sympy.Basic) -> bool:
    return sympy.simplify(expr) == 0


def branch(pw: sympy.Basic, condition: sympy.Basic, fold: bool = False) -> sympy.Basic:
    """The piece of a Piecewise (folded first when ``fold``) whose condition is ``condition``."""
    folded = sympy.piecewise_fold(pw) if fold else pw
    for expr, cond in folded.args:
        if cond == condition:
            return expr
    raise LookupError(f"no branch {condition} in {pw}")


def time_pieces(pw: sympy.Piecewise) -> list[tuple[sympy.Basic, sympy.Basic | None]]:
    """(expression, upper time bound) for each piece of a time Piecewise (None for the last)."""
    pieces = []
    for expr, cond in pw.args:
        bound = cond.rhs if isinstance(cond, sympy.Le) and cond.lhs == sym.t else None
        pieces.append((expr, bound))
    return pieces


def identity_obligation(
    id_: str, title: str, checks: Callable[[], list[tuple[str, bool]]], *, module: str
) -> Callable[[Profile], Obligation]:
    """A builder of the kind="sympy" obligation ``id_``; ``module`` is the family module that
    declares it (named by ``proof_locations``)."""

    def build(profile: Profile) -> Obligation:
        return Obligation(
            id=id_,
            claim=id_.split("/", 1)[0],
            title=title,
            expected=PROVED,
            method="sympy",
            identities=checks,
        )

    build.__doc__ = f"{id_}: sympy identities ({title}); proved only if each simplifies to 0."
    build.__name__ = build.__qualname__ = id_.lower().replace("/", "_")
    build.__module__ = module
    return build


def cauchy_schwarz_step(
    p: tuple[z3.ArithRef, z3.ArithRef],
    q: tuple[z3.ArithRef, z3.ArithRef],
    forget: tuple[str, ...] = (),
) -> Step:
    """dot(p, q)^2 <= |p|^2 |q|^2, polynomial (Lagrange: the gap is (p_x q_y - p_y q_x)^2)."""
    return Step(
        "Cauchy-Schwarz, squared (Lagrange identity)",
        dot(p, q) * dot(p, q) <= dot(p, p) * dot(q, q),
        forget,
    )


def triangle_steps(
    p: tuple[z3.ArithRef, z3.ArithRef],
    q: tuple[z3.ArithRef, z3.ArithRef],
    norms: tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef],
    forget: tuple[str, ...] = (),
) -> list[Step]:
    """|p + q| <= |p| + |q| as steps a second engine decides, for the sqrt variables
    ``norms`` = (|p|, |q|, |p + q|) (each ``>= 0`` with its square the squared norm):
    Cauchy-Schwarz squared, then dot(p, q) <= |p| |q|; |p + q|^2 expanded by the norm
    definitions; the squared triangle |p + q|^2 <= (|p| + |q|)^2; the triangle itself
    (s <= t iff s^2 <= t^2 for s, t >= 0).

    ``forget`` names what no step needs (the obligation's other quantities); the steps also
    forget the norms or the coordinates they do not use.
    """
    norm_p, norm_q, norm_sum = norms
    coordinates = Builder.names(p, q)
    total = norm_p + norm_q
    return [
        cauchy_schwarz_step(p, q, (*forget, *Builder.names(*norms), *coordinates)),
        Step(
            "dot(p,q) <= |p| |q| (Cauchy-Schwarz)",
            dot(p, q) <= norm_p * norm_q,
            (*forget, *Builder.names(norm_sum)),
        ),
        Step(
            "|p+q|^2 = |p|^2 + 2 dot(p,q) + |q|^2 (norm definitions)",
            norm_sum * norm_sum == norm_p * norm_p + 2 * dot(p, q) + norm_q * norm_q,
            forget,
        ),
        Step("|p+q|^2 <= (|p| + |q|)^2", norm_sum * norm_sum <= total * total, forget),
        Step("|p+q| <= |p| + |q| (triangle)", norm_sum <= total, (*forget, *coordinates)),
    ]
