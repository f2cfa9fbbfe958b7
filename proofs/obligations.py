"""Proof obligations: one named builder per claim, over the ranges of a parameter profile.

Each z3 obligation has
- hypotheses: the profile's parameter ranges as exact rationals (``lo <= p <= hi``), geometric
  facts (unit normals, speeds as norms) and the side conditions of the sympy translation;
- a premise and a conclusion built from the named sympy expressions of the derivation modules
  (``navproof.proofs.boundary``, ``stop_envelope``, ``slope``, ``access_curve``) through
  ``navproof.proofs.to_z3``; no derived formula is retyped here;
- the expected outcome: PROVED (hypotheses and premise imply the conclusion) or REFUTED (a
  counterexample must exist: the naive statement is false);
- a numeric replay of a counterexample through the generated runtime module
  ``navproof._generated.formulas``;
- optionally, lemma ``steps`` (each proved from a subset of the facts, then assumed) that lead
  nlsat through the non-linear ones (S2, S3, S5), and a preferred witness case.

R2 is a profile-consistency obligation: with every edge fixed the stop target |u| must fit under
the relative cap V/k for every value of the ranges; it fails when a profile's support speed range
outgrows the cap (which ``navproof audit`` reports).

The kind="sympy" claims (S1, A1, A3) are identity checks: each is a list of sympy expressions
that must simplify to exactly zero.

Builders take the profile and return a fresh ``Obligation``; ``build(id, profile)`` rebuilds one by
ID, which is how worker processes get their own z3 terms.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import sympy
import z3

from navproof.proofs import access_curve, boundary, slope, stop_envelope
from navproof.proofs import symbols as sym
from navproof.proofs.to_z3 import Translator
from navproof.specs.profile import Profile

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


# --------------------------------------------------------------------------------------------
# Building blocks


class _Builder:
    """Collects the variables, hypotheses and translations of one z3 obligation."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.env: dict[str, z3.ArithRef] = {}
        self.tr = Translator(env=self.env)
        self.hypotheses: list[z3.BoolRef] = []
        self.shown: dict[str, z3.ArithRef] = {}

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

    def param(self, name: str, parameter: str) -> z3.ArithRef:
        """A scalar parameter ranging over the profile's closed range [min, max]."""
        lo, hi = self.bounds(parameter)
        return self.var(name, lambda x: lo <= x, lambda x: x <= hi)

    def projection(self, name: str, parameter: str) -> z3.ArithRef:
        """The projection on a unit normal of a vector whose norm ranges over ``parameter``."""
        _, hi = self.bounds(parameter)
        return self.var(name, lambda x: -hi <= x, lambda x: x <= hi)

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

        A z3 value is bound through a placeholder symbol named after the z3 term's identity, so
        the translator's memo (and its sqrt / reciprocal variables) stays valid across calls and
        the same ``sqrt(d)`` is one variable however often it is translated.
        """
        by_name = {s.name: s for s in expr.free_symbols}
        unknown = set(subs) - set(by_name)
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
                name = f"{key}@{value.get_id()}"
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
            shown=shown,
            bindings=list(self.tr.bound),
            **kwargs,  # type: ignore[arg-type]
        )


def _dot(p: tuple[z3.ArithRef, z3.ArithRef], q: tuple[z3.ArithRef, z3.ArithRef]) -> z3.ArithRef:
    return p[0] * q[0] + p[1] * q[1]


def _sub(p: tuple[z3.ArithRef, z3.ArithRef], q: tuple[z3.ArithRef, z3.ArithRef]):
    return p[0] - q[0], p[1] - q[1]


def _add(p: tuple[z3.ArithRef, z3.ArithRef], q: tuple[z3.ArithRef, z3.ArithRef]):
    return p[0] + q[0], p[1] + q[1]


def _formulas():
    # The runtime module, imported lazily: replays must use what the runtime uses.
    from navproof._generated import formulas

    return formulas


def _fdot(values: Values, p: str, q: str) -> float:
    return values[f"{p}_x"] * values[f"{q}_x"] + values[f"{p}_y"] * values[f"{q}_y"]


def _fnorm(values: Values, p: str) -> float:
    return math.hypot(values[f"{p}_x"], values[f"{p}_y"])


# --------------------------------------------------------------------------------------------
# Extra named expressions derived from the derivation modules (used by S3)

_tau = sympy.Symbol("tau", nonnegative=True)

# --------------------------------------------------------------------------------------------
# B — boundaries on moving supports


def b1(profile: Profile) -> Obligation:
    """B1: the step-end position is inside the moved edge iff dot(n, v) <= s/dt + dot(n, e - u).

    2-D world model: x(t) = x0 + t (u + v), edge dot(n, x) <= b0 + t dot(n, e) with
    s = b0 - dot(n, x0). The offset is ``boundary.STEP_HALFPLANE_OFFSET``.
    """
    bb = _Builder(profile)
    dt = bb.param("dt", "step_s")
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    u = bb.bounded_vector("u", "support_speed_mps")
    e = bb.bounded_vector("e", "edge_speed_mps")
    v = bb.vector("v")
    x0 = bb.vector("x0")
    b0 = s + _dot(n, x0)
    x_end = (x0[0] + dt * (u[0] + v[0]), x0[1] + dt * (u[1] + v[1]))
    inside_end = _dot(n, x_end) <= b0 + dt * _dot(n, e)
    offset = bb.term(boundary.STEP_HALFPLANE_OFFSET, n_dot_e=_dot(n, e), n_dot_u=_dot(n, u))
    halfplane = _dot(n, v) <= offset

    def replay(x: Values) -> Replay:
        f = _formulas()
        off = f.step_halfplane_offset(
            s=x["s"], dt=x["dt"], n_dot_e=_fdot(x, "n", "e"), n_dot_u=_fdot(x, "n", "u")
        )
        end = [
            x["x0_x"] + x["dt"] * (x["u_x"] + x["v_x"]),
            x["x0_y"] + x["dt"] * (x["u_y"] + x["v_y"]),
        ]
        b_end = x["s"] + _fdot(x, "n", "x0") + x["dt"] * _fdot(x, "n", "e")
        inside = x["n_x"] * end[0] + x["n_y"] * end[1] <= b_end
        return Replay(
            inside != (_fdot(x, "n", "v") <= off),
            f"inside at dt: {inside}; dot(n,v) <= offset {off:.6g}: {_fdot(x, 'n', 'v') <= off}",
        )

    return bb.obligation(
        id="B1",
        claim="B1",
        title="step half-plane iff step-end inside",
        expected=PROVED,
        premise=[],
        conclusion=inside_end == halfplane,
        replay=replay,
        witness_prefer=[s > 0, _dot(n, u) != 0, _dot(n, e) != 0, _dot(n, v) > 0],
    )


def b2(profile: Profile) -> Obligation:
    """B2: s >= 0 and the B1 half-plane imply a non-negative margin at every t in [0, dt].

    Margin ``boundary.CONSTANT_VELOCITY_MARGIN``, half-plane offset
    ``boundary.STEP_HALFPLANE_OFFSET``; projections on n range over +-|u|, +-|e| of the profile.
    """
    bb = _Builder(profile)
    dt = bb.param("dt", "step_s")
    s = bb.param("s", "initial_margin_m")
    nu = bb.projection("n_dot_u", "support_speed_mps")
    ne = bb.projection("n_dot_e", "edge_speed_mps")
    nv = bb.var("n_dot_v")
    t = bb.var("t")
    common = {"s": s, "n_dot_e": ne, "n_dot_u": nu}
    offset = bb.term(boundary.STEP_HALFPLANE_OFFSET, dt=dt, **common)
    margin = bb.term(boundary.CONSTANT_VELOCITY_MARGIN, t=t, n_dot_v=nv, **common)

    def replay(x: Values) -> Replay:
        m = _formulas().constant_velocity_margin(
            s=x["s"], t=x["t"], n_dot_e=x["n_dot_e"], n_dot_u=x["n_dot_u"], n_dot_v=x["n_dot_v"]
        )
        return Replay(bool(m < 0 and 0 <= x["t"] <= x["dt"]), f"margin at t: {m:.6g}")

    return bb.obligation(
        id="B2",
        claim="B2",
        title="constant-velocity step covered for all t",
        expected=PROVED,
        premise=[s >= 0, nv <= offset, 0 <= t, t <= dt],
        conclusion=margin >= 0,
        replay=replay,
        witness_prefer=[s > 0, nv > 0, nu != 0, 0 < t, t < dt],
    )


def b3(profile: Profile) -> Obligation:
    """B3: a fixed edge (e = 0) and a co-moving edge (e = u) in one intersection.

    2-D: both B1 half-plane rows built from ``boundary.STEP_HALFPLANE_OFFSET`` with each edge's own
    e; together they keep the body inside both moving edges at every t in [0, dt]. The fixed row's
    offset is s1/dt - dot(n1, u) (support carry subtracted), the co-moving row's is s2/dt.
    """
    bb = _Builder(profile)
    dt = bb.param("dt", "step_s")
    s1 = bb.param("s1", "initial_margin_m")
    s2 = bb.param("s2", "initial_margin_m")
    n1 = bb.unit("n1")
    n2 = bb.unit("n2")
    u = bb.bounded_vector("u", "support_speed_mps")
    v = bb.vector("v")
    x0 = bb.vector("x0")
    t = bb.var("t")
    zero = z3.RealVal(0)
    fixed = bb.term(boundary.STEP_HALFPLANE_OFFSET, s=s1, dt=dt, n_dot_e=zero, n_dot_u=_dot(n1, u))
    moving = bb.term(
        boundary.STEP_HALFPLANE_OFFSET, s=s2, dt=dt, n_dot_e=_dot(n2, u), n_dot_u=_dot(n2, u)
    )
    x_t = (x0[0] + t * (u[0] + v[0]), x0[1] + t * (u[1] + v[1]))
    # World edges: the fixed one stays at b1, the co-moving one translates with the support.
    inside_fixed = _dot(n1, x_t) <= s1 + _dot(n1, x0)
    inside_moving = _dot(n2, x_t) <= s2 + _dot(n2, x0) + t * _dot(n2, u)
    conclusion = z3.And(
        inside_fixed,
        inside_moving,
        fixed == s1 / dt - _dot(n1, u),
        moving == s2 / dt,
    )

    def replay(x: Values) -> Replay:
        f = _formulas()
        m1 = f.constant_velocity_margin(
            s=x["s1"],
            t=x["t"],
            n_dot_e=0.0,
            n_dot_u=_fdot(x, "n1", "u"),
            n_dot_v=_fdot(x, "n1", "v"),
        )
        nu2 = _fdot(x, "n2", "u")
        m2 = f.constant_velocity_margin(
            s=x["s2"], t=x["t"], n_dot_e=nu2, n_dot_u=nu2, n_dot_v=_fdot(x, "n2", "v")
        )
        return Replay(bool(min(m1, m2) < 0), f"fixed margin {m1:.6g}, co-moving margin {m2:.6g}")

    return bb.obligation(
        id="B3",
        claim="B3",
        title="fixed and co-moving edges in one intersection",
        expected=PROVED,
        premise=[_dot(n1, v) <= fixed, _dot(n2, v) <= moving, 0 <= t, t <= dt],
        conclusion=conclusion,
        replay=replay,
        witness_prefer=[s1 > 0, s2 > 0, _dot(n1, u) > 0, _dot(n2, u) > 0, 0 < t, t < dt],
    )


def b4(profile: Profile) -> Obligation:
    """B4: the accelerating step ends inside iff dot(n, v1) <= ``ACCEL_STEP_V1_BOUND``.

    2-D world model x(t) = x0 + (u + v0) t + (v1 - v0) t^2 / (2 dt); equivalently the mean
    velocity dot(n, (v0 + v1)/2) respects the B1 offset ``STEP_HALFPLANE_OFFSET``; and the
    derived margin ``ACCEL_MARGIN`` at dt is the world margin.
    """
    bb = _Builder(profile)
    dt = bb.param("dt", "step_s")
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    u = bb.bounded_vector("u", "support_speed_mps")
    e = bb.bounded_vector("e", "edge_speed_mps")
    v0 = bb.vector("v0")
    v1 = bb.vector("v1")
    x0 = bb.vector("x0")
    half = z3.RealVal("1/2")
    x_end = tuple(
        x0[i] + (u[i] + v0[i]) * dt + (v1[i] - v0[i]) * dt * dt * half / dt for i in range(2)
    )
    world_margin = s + _dot(n, x0) + dt * _dot(n, e) - _dot(n, x_end)
    common = {"s": s, "dt": dt, "n_dot_e": _dot(n, e), "n_dot_u": _dot(n, u)}
    bound = bb.term(boundary.ACCEL_STEP_V1_BOUND, n_dot_v0=_dot(n, v0), **common)
    offset = bb.term(boundary.STEP_HALFPLANE_OFFSET, **common)
    margin_end = bb.term(
        boundary.ACCEL_MARGIN, t=dt, n_dot_v0=_dot(n, v0), n_dot_v1=_dot(n, v1), **common
    )
    mean = (_dot(n, v0) + _dot(n, v1)) * half
    conclusion = z3.And(
        (world_margin >= 0) == (_dot(n, v1) <= bound),
        (_dot(n, v1) <= bound) == (mean <= offset),
        margin_end == world_margin,
    )

    def replay(x: Values) -> Replay:
        f = _formulas()
        common_f = dict(
            s=x["s"], dt=x["dt"], n_dot_e=_fdot(x, "n", "e"), n_dot_u=_fdot(x, "n", "u")
        )
        bnd = f.accel_step_v1_bound(n_dot_v0=_fdot(x, "n", "v0"), **common_f)
        m = f.accel_margin(
            t=x["dt"], n_dot_v0=_fdot(x, "n", "v0"), n_dot_v1=_fdot(x, "n", "v1"), **common_f
        )
        return Replay(
            bool((m >= 0) != (_fdot(x, "n", "v1") <= bnd)),
            f"margin at dt {m:.6g}, v1 bound {bnd:.6g}",
        )

    return bb.obligation(
        id="B4",
        claim="B4",
        title="accelerating step end is a half-plane in v1",
        expected=PROVED,
        premise=[],
        conclusion=conclusion,
        replay=replay,
        witness_prefer=[s > 0, _dot(n, u) != 0, _dot(n, v1) != _dot(n, v0)],
    )


def _b5(profile: Profile, with_extremum: bool) -> Obligation:
    bb = _Builder(profile)
    dt = bb.param("dt", "step_s")
    s = bb.param("s", "initial_margin_m")
    nu = bb.projection("n_dot_u", "support_speed_mps")
    ne = bb.projection("n_dot_e", "edge_speed_mps")
    v0 = bb.var("n_dot_v0")
    v1 = bb.var("n_dot_v1")
    t = bb.var("t")
    common = {"s": s, "dt": dt, "n_dot_e": ne, "n_dot_u": nu, "n_dot_v0": v0, "n_dot_v1": v1}
    margin = boundary.ACCEL_MARGIN
    premise = [
        bb.term(margin, t=sympy.Integer(0), **common) >= 0,
        bb.term(margin, t=sym.dt, **common) >= 0,
        0 <= t,
        t <= dt,
    ]
    if with_extremum:
        t_star = bb.term(
            boundary.ACCEL_EXTREMUM_TIME, **{k: v for k, v in common.items() if k != "s"}
        )
        margin_star = bb.term(margin, t=boundary.ACCEL_EXTREMUM_TIME, **common)
        bb.shown["t_star"] = t_star
        interior = z3.And(v0 != v1, 0 < t_star, t_star < dt)
        premise.append(z3.Implies(interior, margin_star >= 0))
    margin_t = bb.term(margin, t=t, **common)

    def replay(x: Values) -> Replay:
        f = _formulas()
        args = dict(
            s=x["s"],
            dt=x["dt"],
            n_dot_e=x["n_dot_e"],
            n_dot_u=x["n_dot_u"],
            n_dot_v0=x["n_dot_v0"],
            n_dot_v1=x["n_dot_v1"],
        )
        m0 = f.accel_margin(t=0.0, **args)
        m1 = f.accel_margin(t=x["dt"], **args)
        mt = f.accel_margin(t=x["t"], **args)
        ok = bool(m0 >= 0 and m1 >= 0 and mt < 0 and 0 <= x["t"] <= x["dt"])
        detail = f"margin(0) {m0:.6g}, margin(dt) {m1:.6g}, margin(t) {mt:.6g}"
        if with_extremum:
            ts = f.accel_extremum_time(**{k: v for k, v in args.items() if k != "s"})
            ms = f.accel_margin(t=ts, **args)
            ok = ok and bool(not (0 < ts < x["dt"]) or ms >= 0)
            detail += f", t* {ts:.6g}, margin(t*) {ms:.6g}"
        return Replay(ok, detail)

    suffix = "extremum" if with_extremum else "endpoints"
    title = (
        "endpoints and interior extremum imply coverage"
        if with_extremum
        else "endpoint conditions alone do not imply coverage"
    )
    return bb.obligation(
        id=f"B5/{suffix}",
        claim="B5",
        title=title,
        expected=PROVED if with_extremum else REFUTED,
        premise=premise,
        conclusion=margin_t >= 0,
        replay=replay,
        witness_prefer=[z3.And(v0 != v1, 0 < bb.shown["t_star"], bb.shown["t_star"] < dt)]
        if with_extremum
        else [],
        sharpen=[] if with_extremum else [margin_t <= -z3.RealVal("1/1000")],
    )


def b5_endpoints(profile: Profile) -> Obligation:
    """B5 (refutable half): margin(0) >= 0 and margin(dt) >= 0 do NOT give margin(t) >= 0 for
    every t in [0, dt].

    Margin ``boundary.ACCEL_MARGIN``; a counterexample (a mid-step excursion) is required.
    """
    return _b5(profile, with_extremum=False)


def b5_extremum(profile: Profile) -> Obligation:
    """B5 (proved half): endpoints plus the margin at t* = ``ACCEL_EXTREMUM_TIME`` (when
    v0 != v1 and 0 < t* < dt) imply margin(t) >= 0 for every t in [0, dt]."""
    return _b5(profile, with_extremum=True)


# --------------------------------------------------------------------------------------------
# S — stop envelope


def s2(profile: Profile) -> Obligation:
    """S2: dot(n, c) > ``NECESSARY_NORMAL_BOUND`` implies ``NORMAL_STOP_DISPLACEMENT`` > s.

    2-D c and unit n; |c| is the sqrt variable of the translation. Step: dot(n, c) <= |c|.
    """
    bb = _Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    c = bb.vector("c")
    speed = bb.norm("|c|", c)
    n_c = bb.alias("n_dot_c", _dot(n, c))
    bound = bb.term(stop_envelope.NECESSARY_NORMAL_BOUND, s=s, dt=dt, a=a)
    displacement = bb.term(
        stop_envelope.NORMAL_STOP_DISPLACEMENT, n_dot_c=n_c, speed=speed, dt=dt, a=a
    )
    vectors = bb.names(n, c)

    def replay(x: Values) -> Replay:
        f = _formulas()
        nb = f.necessary_normal_bound(s=x["s"], dt=x["dt"], a=x["a"])
        disp = f.normal_stop_displacement(
            n_dot_c=_fdot(x, "n", "c"), speed=_fnorm(x, "c"), dt=x["dt"], a=x["a"]
        )
        return Replay(
            bool(_fdot(x, "n", "c") > nb and disp <= x["s"]),
            f"bound {nb:.6g}, displacement {disp:.6g}, s {x['s']:.6g}",
        )

    return bb.obligation(
        id="S2",
        claim="S2",
        title="beyond the necessary bound no stop fits",
        expected=PROVED,
        premise=[n_c > bound],
        conclusion=displacement > s,
        replay=replay,
        witness_prefer=[n_c < speed],
        steps=[Step("dot(n,c) <= |c| (unit n)", n_c <= speed, bb.names(s, dt, a))],
        conclusion_forget=vectors,
    )


def _envelope_cap(bb: _Builder, u, r) -> tuple[z3.ArithRef, z3.ArithRef]:
    """Vh = ``HORIZONTAL_CAP``(V, k) and Cmax = ``ENVELOPE_SPEED_CAP``(Vh, |u - r|) (aliases)."""
    surface = bb.param("V", "surface_speed_cap_mps")
    k = bb.param("k", "slope_factor")
    vh = bb.alias("Vh", bb.term(slope.HORIZONTAL_CAP, surface_cap=surface, k=k))
    carry = bb.norm("|u-r|", _sub(u, r))
    cmax = bb.alias("Cmax", bb.term(stop_envelope.ENVELOPE_SPEED_CAP, vh=vh, carry=carry))
    return vh, cmax


def s3(profile: Profile) -> Obligation:
    """S3: |c| <= Cmax and dot(n, c) <= ``LINEAR_ENVELOPE_BOUND`` keep the margin >= 0 over the
    whole reaction-and-brake trajectory and the hold at r afterwards, when dot(n, r - e) <= 0.

    2-D: c = u + v - r, world velocity r + c sigma(t) with sigma the reaction-then-brake profile.
    Margin at time t >= 0: the constant-velocity margin ``CONSTANT_VELOCITY_MARGIN`` of the
    reference motion r minus dot(n, c) times ``STOP_TRAJECTORY_FACTOR`` (which ends at S1's
    ``STOP_DISPLACEMENT_FACTOR``). Steps: the trajectory factor lies in [0, factor(|c|)], the
    factor grows with the speed up to Cmax, the linear bound caps dot(n, c) factor(Cmax) by s,
    and the reference motion never moves towards the edge.
    """
    bb = _Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    u = bb.bounded_vector("u", "support_speed_mps")
    e = bb.bounded_vector("e", "edge_speed_mps")
    v = bb.vector("v")
    r = bb.vector("r")
    t = bb.var("t")
    _, cmax = _envelope_cap(bb, u, r)
    c = _sub(_add(u, v), r)
    speed = bb.norm("|c|", c)
    n_c = bb.alias("n_dot_c", _dot(n, c))
    n_re = bb.alias("n_dot_r_minus_e", _dot(n, _sub(r, e)))
    bound = bb.term(stop_envelope.LINEAR_ENVELOPE_BOUND, s=s, dt=dt, a=a, cmax=cmax)
    reference_margin = bb.alias(
        "reference_margin",
        bb.term(
            boundary.CONSTANT_VELOCITY_MARGIN,
            s=s,
            t=t,
            n_dot_e=_dot(n, e),
            n_dot_u=_dot(n, u),
            n_dot_v=_dot(n, _sub(r, u)),
        ),
    )
    factor = bb.term(stop_envelope.STOP_TRAJECTORY_FACTOR, t=t, dt=dt, a=a, speed=speed)
    factor_end = bb.term(stop_envelope.STOP_DISPLACEMENT_FACTOR, speed=speed, dt=dt, a=a)
    factor_cap = bb.term(stop_envelope.STOP_DISPLACEMENT_FACTOR, speed=cmax, dt=dt, a=a)
    margin = reference_margin - n_c * factor
    vectors = bb.names(n, u, e, v, r)
    geometry = (*vectors, *bb.names(bb.shown["|u-r|"]), "V", "k", "Vh")

    def replay(x: Values) -> Replay:
        f = _formulas()
        c_x = x["u_x"] + x["v_x"] - x["r_x"]
        c_y = x["u_y"] + x["v_y"] - x["r_y"]
        n_c_f = x["n_x"] * c_x + x["n_y"] * c_y
        spd = math.hypot(c_x, c_y)
        vh = f.horizontal_cap(surface_cap=x["V"], k=x["k"])
        cm = f.envelope_speed_cap(vh=vh, carry=math.hypot(x["u_x"] - x["r_x"], x["u_y"] - x["r_y"]))
        lb = f.linear_envelope_bound(s=x["s"], dt=x["dt"], a=x["a"], cmax=cm)
        tt = x["t"]
        fac = f.stop_trajectory_factor(t=tt, dt=x["dt"], a=x["a"], speed=spd)
        ref = f.constant_velocity_margin(
            s=x["s"], t=tt, n_dot_e=_fdot(x, "n", "e"), n_dot_u=_fdot(x, "n", "r"), n_dot_v=0.0
        )
        m = ref - n_c_f * fac
        premise = spd <= cm and n_c_f <= lb
        return Replay(
            bool(premise and m < 0), f"margin at t {m:.6g}, bound {lb:.6g}, Cmax {cm:.6g}"
        )

    steps = [
        Step("trajectory factor >= 0", factor >= 0, geometry),
        Step(
            "trajectory factor <= factor(|c|) (S1: the end is the worst point)",
            factor <= factor_end,
            geometry,
        ),
        Step("factor(|c|) <= factor(Cmax)", factor_end <= factor_cap, geometry),
        Step("dot(n,c) factor(Cmax) <= s (linear envelope)", n_c * factor_cap <= s, geometry),
        Step("dot(n,c) factor(t) <= s", n_c * factor <= s, geometry),
        Step(
            "reference motion keeps the margin >= s",
            reference_margin >= s,
            (*bb.names(v, bb.shown["|u-r|"], speed), "V", "k", "Vh", "Cmax"),
        ),
    ]
    return bb.obligation(
        id="S3",
        claim="S3",
        title="linear envelope keeps the whole stop inside",
        expected=PROVED,
        premise=[speed <= cmax, n_c <= bound, n_re <= 0, t >= 0],
        conclusion=margin >= 0,
        replay=replay,
        witness_prefer=[n_c > 0, dt < t, a * (t - dt) < speed, n_re < 0],
        steps=steps,
        conclusion_forget=geometry,
    )


def s4(profile: Profile) -> Obligation:
    """S4: |v| <= Vh = ``HORIZONTAL_CAP`` implies |u + v - r| <= ``ENVELOPE_SPEED_CAP``."""
    bb = _Builder(profile)
    u = bb.bounded_vector("u", "support_speed_mps")
    v = bb.vector("v")
    r = bb.vector("r")
    vh, cmax = _envelope_cap(bb, u, r)
    speed_v = bb.norm("|v|", v)
    speed_c = bb.norm("|c|", _sub(_add(u, v), r))

    def replay(x: Values) -> Replay:
        f = _formulas()
        vh_f = f.horizontal_cap(surface_cap=x["V"], k=x["k"])
        cm = f.envelope_speed_cap(
            vh=vh_f, carry=math.hypot(x["u_x"] - x["r_x"], x["u_y"] - x["r_y"])
        )
        c = math.hypot(x["u_x"] + x["v_x"] - x["r_x"], x["u_y"] + x["v_y"] - x["r_y"])
        return Replay(bool(_fnorm(x, "v") <= vh_f and c > cm), f"|c| {c:.6g}, Cmax {cm:.6g}")

    return bb.obligation(
        id="S4",
        claim="S4",
        title="relative speed cap bounds the envelope speed",
        expected=PROVED,
        premise=[speed_v <= vh],
        conclusion=speed_c <= cmax,
        replay=replay,
        witness_prefer=[speed_v > 0, bb.shown["|u-r|"] > 0],
    )


def s5(profile: Profile) -> Obligation:
    """S5: under S4 (|v| <= Vh, Cmax = Vh + |u - r|) a c = u + v - r admitted by the linear
    envelope ``LINEAR_ENVELOPE_BOUND`` also respects ``NECESSARY_NORMAL_BOUND``.

    Steps: |c| <= Cmax (S4's triangle inequality), dot(n, c) <= |c|, hence dot(n, c) <= Cmax.
    """
    bb = _Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    u = bb.bounded_vector("u", "support_speed_mps")
    v = bb.vector("v")
    r = bb.vector("r")
    vh, cmax = _envelope_cap(bb, u, r)
    speed_v = bb.norm("|v|", v)
    c = _sub(_add(u, v), r)
    speed_c = bb.norm("|c|", c)
    n_c = bb.alias("n_dot_c", _dot(n, c))
    linear = bb.term(stop_envelope.LINEAR_ENVELOPE_BOUND, s=s, dt=dt, a=a, cmax=cmax)
    necessary = bb.term(stop_envelope.NECESSARY_NORMAL_BOUND, s=s, dt=dt, a=a)
    stop = bb.names(s, dt, a)
    vectors = (*bb.names(n, u, v, r), *bb.names(speed_v, bb.shown["|u-r|"]), "V", "k", "Vh")

    def replay(x: Values) -> Replay:
        f = _formulas()
        vh_f = f.horizontal_cap(surface_cap=x["V"], k=x["k"])
        cm = f.envelope_speed_cap(
            vh=vh_f, carry=math.hypot(x["u_x"] - x["r_x"], x["u_y"] - x["r_y"])
        )
        lb = f.linear_envelope_bound(s=x["s"], dt=x["dt"], a=x["a"], cmax=cm)
        nb = f.necessary_normal_bound(s=x["s"], dt=x["dt"], a=x["a"])
        n_c_f = x["n_x"] * (x["u_x"] + x["v_x"] - x["r_x"]) + x["n_y"] * (
            x["u_y"] + x["v_y"] - x["r_y"]
        )
        return Replay(
            bool(_fnorm(x, "v") <= vh_f and n_c_f <= lb and n_c_f > nb),
            f"dot(n,c) {n_c_f:.6g}, linear {lb:.6g}, necessary {nb:.6g}",
        )

    steps = [
        Step("|c| <= Cmax (S4)", speed_c <= cmax, (*stop, *bb.names(n))),
        Step("dot(n,c) <= |c| (unit n)", n_c <= speed_c, (*stop, "V", "k", "Vh", "Cmax")),
        Step("dot(n,c) <= Cmax", n_c <= cmax, vectors),
    ]
    return bb.obligation(
        id="S5",
        claim="S5",
        title="linear envelope within the necessary bound",
        expected=PROVED,
        premise=[speed_v <= vh, n_c <= linear],
        conclusion=n_c <= necessary,
        replay=replay,
        witness_prefer=[n_c > 0, bb.shown["|u-r|"] > 0],
        steps=steps,
        conclusion_forget=(*vectors, *bb.names(speed_c)),
    )


# --------------------------------------------------------------------------------------------
# R — reference velocity


def r2(profile: Profile) -> Obligation:
    """R2 (profile consistency): with every edge fixed (r = 0) the stop target |vStop| = |u| is
    within the relative cap ``HORIZONTAL_CAP``(V, k) for every value of the profile's ranges."""
    bb = _Builder(profile)
    u = bb.bounded_vector("u", "support_speed_mps")
    surface = bb.param("V", "surface_speed_cap_mps")
    k = bb.param("k", "slope_factor")
    vh = bb.term(slope.HORIZONTAL_CAP, surface_cap=surface, k=k)
    bb.shown["Vh"] = vh
    stop_target = bb.norm("|vStop|", (-u[0], -u[1]))

    def replay(x: Values) -> Replay:
        cap = _formulas().horizontal_cap(surface_cap=x["V"], k=x["k"])
        target = _fnorm(x, "u")
        return Replay(bool(target > cap), f"|vStop| {target:.6g}, Vh {cap:.6g}")

    return bb.obligation(
        id="R2",
        claim="R2",
        title="all-fixed stop target within the relative cap",
        expected=PROVED,
        premise=[],
        conclusion=stop_target <= vh,
        replay=replay,
        witness_prefer=[u[0] * u[0] + u[1] * u[1] > 0],
        sharpen=[stop_target >= vh + z3.RealVal("1/1000")],
    )


def r3(profile: Profile) -> Obligation:
    """R3: with c = u + v - r = 0 and dot(n, r - e) <= 0 the margin
    ``CONSTANT_VELOCITY_MARGIN`` never decreases: margin(t2) >= margin(t1) for t2 >= t1 >= 0."""
    bb = _Builder(profile)
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    u = bb.bounded_vector("u", "support_speed_mps")
    e = bb.bounded_vector("e", "edge_speed_mps")
    v = bb.vector("v")
    r = bb.vector("r")
    t1 = bb.var("t1")
    t2 = bb.var("t2")
    common = {"s": s, "n_dot_e": _dot(n, e), "n_dot_u": _dot(n, u), "n_dot_v": _dot(n, v)}
    m1 = bb.term(boundary.CONSTANT_VELOCITY_MARGIN, t=t1, **common)
    m2 = bb.term(boundary.CONSTANT_VELOCITY_MARGIN, t=t2, **common)
    c = _sub(_add(u, v), r)

    def replay(x: Values) -> Replay:
        f = _formulas()
        args = dict(
            s=x["s"],
            n_dot_e=_fdot(x, "n", "e"),
            n_dot_u=_fdot(x, "n", "u"),
            n_dot_v=_fdot(x, "n", "v"),
        )
        a1 = f.constant_velocity_margin(t=x["t1"], **args)
        a2 = f.constant_velocity_margin(t=x["t2"], **args)
        return Replay(bool(a2 < a1), f"margin(t1) {a1:.6g}, margin(t2) {a2:.6g}")

    return bb.obligation(
        id="R3",
        claim="R3",
        title="holding at r never loses margin",
        expected=PROVED,
        premise=[c[0] == 0, c[1] == 0, _dot(n, _sub(r, e)) <= 0, 0 <= t1, t1 <= t2],
        conclusion=m2 >= m1,
        replay=replay,
        witness_prefer=[t1 < t2, _dot(n, _sub(r, e)) < 0],
    )


# --------------------------------------------------------------------------------------------
# A — access curve


def _access(bb: _Builder) -> dict[str, z3.ArithRef]:
    return {
        "d": bb.param("d", "access_length_m"),
        "vcap": bb.param("vcap", "access_speed_cap_mps"),
        "accel": bb.param("accel", "access_accel_mps2"),
    }


def a2(profile: Profile) -> Obligation:
    """A2: on a long curve (d > vCap^2/a) ``ACCESS_POSITION`` reaches exactly d at
    ``TOTAL_TIME``, ``ACCESS_SPEED`` stays in [0, vCap], and the position is monotone in [0, d]."""
    bb = _Builder(profile)
    curve = _access(bb)
    t1 = bb.var("t1")
    t2 = bb.var("t2")
    total = bb.term(access_curve.TOTAL_TIME, **curve)
    bb.shown["T"] = total
    long_curve = z3.Not(bb.formula(access_curve.IS_SHORT, **curve))
    end = bb.term(access_curve.ACCESS_POSITION, t=access_curve.TOTAL_TIME, **curve)
    p1 = bb.term(access_curve.ACCESS_POSITION, t=t1, **curve)
    p2 = bb.term(access_curve.ACCESS_POSITION, t=t2, **curve)
    v1 = bb.term(access_curve.ACCESS_SPEED, t=t1, **curve)
    conclusion = z3.And(
        end == curve["d"],
        0 <= v1,
        v1 <= curve["vcap"],
        0 <= p1,
        p1 <= p2,
        p2 <= curve["d"],
    )

    def replay(x: Values) -> Replay:
        f = _formulas()
        args = dict(d=x["d"], vcap=x["vcap"], accel=x["accel"])
        tot = f.access_total_time(**args)
        pe = f.access_position(t=tot, **args)
        q1 = f.access_position(t=x["t1"], **args)
        q2 = f.access_position(t=x["t2"], **args)
        w1 = f.access_speed(t=x["t1"], **args)
        bad = (
            abs(pe - x["d"]) > 1e-9 or w1 < 0 or w1 > x["vcap"] or q1 < 0 or q1 > q2 or q2 > x["d"]
        )
        return Replay(bool(bad), f"end {pe:.6g}, p(t1) {q1:.6g}, p(t2) {q2:.6g}, v(t1) {w1:.6g}")

    return bb.obligation(
        id="A2",
        claim="A2",
        title="long access curve: exact length, capped, monotone",
        expected=PROVED,
        premise=[long_curve, 0 <= t1, t1 <= t2],
        conclusion=conclusion,
        replay=replay,
        witness_prefer=[0 < t1, t1 < t2, t2 < total],
    )


def _a45(profile: Profile, reaction: bool) -> Obligation:
    bb = _Builder(profile)
    curve = _access(bb)
    t = bb.var("t")
    # Braking at once is the stop point with a zero reaction time, substituted exactly.
    dt = bb.param("dt", "step_s") if reaction else sympy.Integer(0)
    total = bb.term(access_curve.TOTAL_TIME, **curve)
    bb.shown["T"] = total
    stop = bb.term(access_curve.INTERRUPTED_STOP_POINT, t=t, dt=dt, **curve)
    bb.shown["stop"] = stop

    def replay(x: Values) -> Replay:
        sp = _formulas().interrupted_stop_point(
            t=x["t"], dt=x.get("dt", 0.0), d=x["d"], vcap=x["vcap"], accel=x["accel"]
        )
        return Replay(bool(sp > x["d"]), f"stop point {sp:.6g} vs d {x['d']:.6g}")

    if reaction:
        return bb.obligation(
            id="A5",
            claim="A5",
            title="a reaction step at current speed can cross",
            expected=REFUTED,
            premise=[0 <= t, t <= total],
            conclusion=stop <= curve["d"],
            replay=replay,
            witness_prefer=[0 < t, t < total],
            sharpen=[stop - curve["d"] >= z3.RealVal("1/1000")],
        )
    return bb.obligation(
        id="A4",
        claim="A4",
        title="interrupted and braked at once never crosses",
        expected=PROVED,
        premise=[0 <= t, t <= total],
        conclusion=stop <= curve["d"],
        replay=replay,
        witness_prefer=[0 < t, t < total, curve["d"] > 0],
    )


def a4(profile: Profile) -> Obligation:
    """A4: interrupted at any t in [0, T] and braked at once at the curve's accel, the stop point
    ``INTERRUPTED_STOP_POINT`` (reaction dt = 0) is <= d."""
    return _a45(profile, reaction=False)


def a5(profile: Profile) -> Obligation:
    """A5 (refutable): with one reaction step dt at the current speed first, the stop point
    ``INTERRUPTED_STOP_POINT`` can exceed d; a counterexample is required."""
    return _a45(profile, reaction=True)


# --------------------------------------------------------------------------------------------
# V — budgets


def v1(profile: Profile) -> Obligation:
    """V1: with k = ``SLOPE_FACTOR``(|g|^2), |v| <= ``HORIZONTAL_CAP``(V, k) implies the surface
    speed sqrt(|v|^2 + dot(g, v)^2) <= V (2-D gradient g and horizontal velocity v)."""
    bb = _Builder(profile)
    surface = bb.param("V", "surface_speed_cap_mps")
    g = bb.vector("g")
    v = bb.vector("v")
    k = bb.term(slope.SLOPE_FACTOR, grad_sq=_dot(g, g))
    bb.shown["k"] = k
    k_lo, k_hi = bb.bounds("slope_factor")
    bb.hypotheses.extend([k_lo <= k, k <= k_hi])
    vh = bb.term(slope.HORIZONTAL_CAP, surface_cap=surface, k=k)
    speed_v = bb.norm("|v|", v)
    gs, gv = sympy.Symbol("g_dot_v", real=True), sympy.Symbol("v_sq", nonnegative=True)
    bb.env[gs.name], bb.env[gv.name] = _dot(g, v), _dot(v, v)
    surface_speed = bb.tr.term(sympy.sqrt(gv + gs**2))
    bb.shown["surface_speed"] = surface_speed

    def replay(x: Values) -> Replay:
        f = _formulas()
        kk = f.slope_factor(grad_sq=x["g_x"] ** 2 + x["g_y"] ** 2)
        vh_f = f.horizontal_cap(surface_cap=x["V"], k=kk)
        sp = math.sqrt(x["v_x"] ** 2 + x["v_y"] ** 2 + _fdot(x, "g", "v") ** 2)
        return Replay(
            bool(_fnorm(x, "v") <= vh_f and sp > x["V"]),
            f"surface speed {sp:.6g}, V {x['V']:.6g}, Vh {vh_f:.6g}",
        )

    return bb.obligation(
        id="V1",
        claim="V1",
        title="horizontal cap V/k keeps the surface speed <= V",
        expected=PROVED,
        premise=[speed_v <= vh],
        conclusion=surface_speed <= surface,
        replay=replay,
        witness_prefer=[speed_v > 0, _dot(g, g) > 0],
    )


# --------------------------------------------------------------------------------------------
# Sympy identities (kind = "sympy")


def _zero(expr: sympy.Basic) -> bool:
    return sympy.simplify(expr) == 0


def _branch(pw: sympy.Basic, condition: sympy.Basic, fold: bool = False) -> sympy.Basic:
    """The piece of a Piecewise (folded first when ``fold``) whose condition is ``condition``."""
    folded = sympy.piecewise_fold(pw) if fold else pw
    for expr, cond in folded.args:
        if cond == condition:
            return expr
    raise LookupError(f"no branch {condition} in {pw}")


def _s1_identities() -> list[tuple[str, bool]]:
    c, a, dt = sym.speed, sym.a, sym.dt
    dist = stop_envelope.STOP_DISTANCE
    slope_ = sympy.diff(dist, c)
    return [
        ("stop distance is c (dt + c/(2a))", _zero(dist - c * (dt + c / (2 * a)))),
        ("braking part obeys v^2 = 2 a x", _zero(2 * a * (dist - c * dt) - c**2)),
        ("factor is distance / |c|", _zero(stop_envelope.STOP_DISPLACEMENT_FACTOR * c - dist)),
        (
            "normal displacement is dot(n, c) times the factor",
            _zero(
                stop_envelope.NORMAL_STOP_DISPLACEMENT
                - sym.n_dot_c * stop_envelope.STOP_DISPLACEMENT_FACTOR
            ),
        ),
        ("d(distance)/d|c| = dt + |c|/a", _zero(slope_ - (dt + c / a))),
        ("d(distance)/d|c| > 0 (monotone)", bool((dt + c / a).is_positive)),
        (
            "the time integral of the braking speed profile is the distance",
            _zero(
                sympy.integrate(c, (_tau, 0, dt))
                + sympy.integrate(c - a * (_tau - dt), (_tau, dt, dt + c / a))
                - dist
            ),
        ),
        (
            "the braking trajectory moves along c at the braking speed (never back)",
            _zero(
                sympy.diff(stop_envelope.BRAKING_PHASE_FACTOR, sym.t) * c - (c - a * (sym.t - dt))
            ),
        ),
        (
            "the braking trajectory ends at the stop distance",
            _zero(stop_envelope.BRAKING_PHASE_FACTOR.subs(sym.t, dt + c / a) * c - dist),
        ),
    ]


def _a1_identities() -> list[tuple[str, bool]]:
    d, accel = sym.d, sym.accel
    short = access_curve.IS_SHORT
    peak = _branch(access_curve.PEAK_SPEED, short)
    total = _branch(access_curve.TOTAL_TIME, short, fold=True)
    position = _branch(access_curve.ACCESS_POSITION, short)
    speed = _branch(access_curve.ACCESS_SPEED, short)
    accel_time = _branch(access_curve.ACCEL_TIME, short)
    return [
        ("short peak is sqrt(a d)", _zero(peak - sympy.sqrt(accel * d))),
        ("short total time is 2 sqrt(d/a)", _zero(total - 2 * sympy.sqrt(d / accel))),
        (
            "short curve reaches d at its total time",
            _zero(position.args[1][0].subs(sym.t, total) - d),
        ),
        (
            "short curve's speed at the end of acceleration is the peak",
            _zero(speed.args[0][0].subs(sym.t, accel_time) - peak),
        ),
        ("short curve's cruise time is zero", _zero(_branch(access_curve.CRUISE_TIME, short))),
        ("short ramps meet at the peak", _zero(2 * peak**2 / (2 * accel) - d)),
    ]


def _pieces(pw: sympy.Piecewise) -> list[tuple[sympy.Basic, sympy.Basic | None]]:
    """(expression, upper time bound) for each piece of a time Piecewise (None for the last)."""
    pieces = []
    for expr, cond in pw.args:
        bound = cond.rhs if isinstance(cond, sympy.Le) and cond.lhs == sym.t else None
        pieces.append((expr, bound))
    return pieces


def _a3_identities() -> list[tuple[str, bool]]:
    t = sym.t
    checks: list[tuple[str, bool]] = []
    for label, condition in (("short", access_curve.IS_SHORT), ("long", sympy.true)):
        positions = _pieces(_branch(access_curve.ACCESS_POSITION, condition))
        speeds = _pieces(_branch(access_curve.ACCESS_SPEED, condition))
        checks.append((f"{label}: position starts at 0", _zero(positions[0][0].subs(t, 0))))
        for i in range(len(positions) - 1):
            expr, bound = positions[i]
            nxt = positions[i + 1][0]
            checks.append(
                (
                    f"{label}: position continuous at boundary {i + 1}",
                    bound is not None and _zero(expr.subs(t, bound) - nxt.subs(t, bound)),
                )
            )
        for i, ((p, _), (v, _)) in enumerate(zip(positions, speeds, strict=True)):
            checks.append(
                (f"{label}: d(position)/dt = speed on piece {i + 1}", _zero(sympy.diff(p, t) - v))
            )
    t2 = sympy.Symbol("t2", nonnegative=True)
    step = access_curve.ACCESS_STEP_DISPLACEMENT
    telescoped = (
        step + step.subs({sym.t0: sym.t1, sym.t1: t2}, simultaneous=True) - step.subs(sym.t1, t2)
    )
    checks.append(("step displacements telescope", _zero(telescoped)))
    checks.append(
        (
            "a step is the difference of positions",
            _zero(
                step
                - (
                    access_curve.ACCESS_POSITION.subs(t, sym.t1)
                    - access_curve.ACCESS_POSITION.subs(t, sym.t0)
                )
            ),
        )
    )
    return checks


def _identity(id_: str, title: str, checks: Callable[[], list[tuple[str, bool]]]):
    def build(profile: Profile) -> Obligation:
        return Obligation(
            id=id_, claim=id_, title=title, expected=PROVED, method="sympy", identities=checks
        )

    build.__doc__ = f"{id_}: sympy identities ({title}); proved only if each simplifies to 0."
    build.__name__ = build.__qualname__ = id_.lower()
    return build


s1 = _identity("S1", "reaction-plus-brake displacement and its monotonicity", _s1_identities)
a1 = _identity("A1", "short access curve: peak sqrt(a d), total 2 sqrt(d/a)", _a1_identities)
a3 = _identity(
    "A3", "access positions continuous, derivative = speed, steps telescope", _a3_identities
)


# --------------------------------------------------------------------------------------------
# Registry

BUILDERS: dict[str, Callable[[Profile], Obligation]] = {
    "B1": b1,
    "B2": b2,
    "B3": b3,
    "B4": b4,
    "B5/endpoints": b5_endpoints,
    "B5/extremum": b5_extremum,
    "S1": s1,
    "S2": s2,
    "S3": s3,
    "S4": s4,
    "S5": s5,
    "R2": r2,
    "R3": r3,
    "A1": a1,
    "A2": a2,
    "A3": a3,
    "A4": a4,
    "A5": a5,
    "V1": v1,
}

OBLIGATION_IDS: tuple[str, ...] = tuple(BUILDERS)

# Obligations whose naive statement is false: a confirmed counterexample is the expected outcome.
REFUTABLE_OBLIGATIONS = frozenset({"B5/endpoints", "A5"})


def expected_of(obligation_id: str) -> str:
    """PROVED or REFUTED, known without building the obligation."""
    return REFUTED if obligation_id in REFUTABLE_OBLIGATIONS else PROVED


def claim_of(obligation_id: str) -> str:
    """The claim ID an obligation discharges (``B5/endpoints`` -> ``B5``)."""
    return obligation_id.split("/", 1)[0]


def obligations_for(claim_ids: list[str] | None = None) -> list[str]:
    """Obligation IDs of the given claims (all of them when None), in registry order."""
    if claim_ids is None:
        return list(OBLIGATION_IDS)
    wanted = set(claim_ids)
    return [oid for oid in OBLIGATION_IDS if claim_of(oid) in wanted or oid in wanted]


def proof_locations(claim_id: str) -> list[str]:
    """Where a claim is discharged: ``module.function`` of each of its obligation builders."""
    return [
        f"{BUILDERS[oid].__module__}.{BUILDERS[oid].__name__}"
        for oid in obligations_for([claim_id])
    ]


def build(obligation_id: str, profile: Profile) -> Obligation:
    """Build the obligation ``obligation_id`` afresh (new z3 terms) over ``profile``."""
    return BUILDERS[obligation_id](profile)
