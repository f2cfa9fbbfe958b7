"""B6 — certified margins next to rotating motion (derivations: ``navproof.proofs.rigid``).

The runtime bounds the local-frame excess f = const + m1(t).P(t) + m2(t).Q(t) of a body next to
a rotating (or accelerating) edge piecewise: on a piece of width h, f is at most its larger
endpoint value plus ``INTERPOLATION_EXCESS_BOUND``(M2, h), with
M2 = ``RIGID_SECOND_DERIVATIVE_BOUND`` of bounds of |P|, |P'|, |P''|, |Q|, |Q'|, |Q''| (the curve
bounds are pinned in :mod:`navproof.proofs.obligations.rigid_curves` and ``rigid_stop``).

- ``B6/product_rule`` (sympy): the runtime's local-frame excess is const + m1.P + m2.Q with m1,
  m2 unit vectors turning at the edge's rate and at the relative rate; (m.X)'' = m''.X + 2 m'.X'
  + m.X'' with m' = w (-m_y, m_x), m'' = -w^2 m; the comparison parabola M2 t (h - t)/2 has
  second derivative -M2 and vanishes at 0 and h.
- ``B6/second_derivative``: |(m1.P)'' + (m2.Q)''| <= M2 for every admissible rate and vector;
  ``/tight``: an aligned construction reaches M2 exactly (a doubled bound fails there).
- ``B6/interpolation``: chord plus parabola stays below the larger endpoint plus the excess
  bound; ``/tight``: the parabola reaches the bound at h/2.

Argued, not checked by z3: the comparison step. e = f - chord - parabola has e'' = f'' + M2 >= 0
(|f''| <= M2), so e is convex and vanishes at both ends of the piece, hence e <= 0 there: f lies
below chord + parabola. ``B6/product_rule`` checks its ingredients (the parabola's curvature and
end values), the z3 obligations the rest. The float64 rounding slack ``ROUNDING_SLACK`` has no
world model to pin (it covers float evaluation, not geometry) and has no obligation.

Claim: B6 (seed 000).
"""

from __future__ import annotations

import math

import sympy
import z3

from navproof.proofs import rigid
from navproof.proofs.obligations.common import (
    PROVED,
    Builder,
    Obligation,
    Replay,
    Step,
    Values,
    dot,
    identity_obligation,
    is_zero,
    runtime_formulas,
)
from navproof.proofs.obligations.kinematics import second_difference
from navproof.specs.profile import Profile

_RIGID_NAMES = frozenset(
    value.name for value in vars(rigid).values() if isinstance(value, sympy.Symbol)
)
"""Names of the symbols of :mod:`navproof.proofs.rigid`."""


def rigid_term(bb: Builder, expr: sympy.Basic, **subs: z3.ExprRef) -> z3.ArithRef:
    """``bb.term`` of a rigid-motion formula; a rigid symbol that a (wrong) derivation lost is
    not bound, so that the obligation itself, not the binding, decides."""
    present = {s.name for s in expr.free_symbols}
    kept = {k: v for k, v in subs.items() if k in present or k not in _RIGID_NAMES}
    return bb.term(expr, **kept)


def keep_only(bb: Builder, *terms: z3.ExprRef) -> tuple[str, ...]:
    """Names a step forgets so that it sees only the facts about ``terms``'s constants."""
    named = set(bb.names(*bb.shown.values()))
    return tuple(sorted(named - set(bb.names(*terms))))


def nonnegative(x: z3.ArithRef) -> z3.BoolRef:
    return x >= 0


def rot(m: tuple[z3.ArithRef, z3.ArithRef]) -> tuple[z3.ArithRef, z3.ArithRef]:
    """m turned a quarter turn counter-clockwise: m' = w rot(m) for m turning at rate w."""
    return -m[1], m[0]


# --- B6/product_rule -------------------------------------------------------------------------

_t = sympy.Symbol("t", real=True)
_w, _phi, _oe, _os = (sympy.Symbol(n, real=True) for n in ("w", "phi", "omega_e", "omega_s"))


def _rotation(angle: sympy.Expr) -> sympy.Matrix:
    return sympy.Matrix([[sympy.cos(angle), -sympy.sin(angle)],
                         [sympy.sin(angle), sympy.cos(angle)]])


def _vec(name: str) -> sympy.Matrix:
    return sympy.Matrix(sympy.symbols(f"{name}_x {name}_y", real=True))


def _product_rule_identities() -> list[tuple[str, bool]]:
    m = sympy.Matrix([sympy.cos(_w * _t + _phi), sympy.sin(_w * _t + _phi)])
    x = sympy.Matrix([sympy.Function("X_x")(_t), sympy.Function("X_y")(_t)])
    dm, ddm = m.diff(_t), m.diff(_t, 2)
    rot_m = sympy.Matrix([-m[1], m[0]])
    # The runtime's local point of a support-frame point y (runtime/boundary/rigid.py), pivots
    # moving as c + w t + alpha t^2/2: world x = cs(t) + R(os t)(y - cs),
    # local = ce + R(-oe t)(x - ce(t) + ce); the edge normal n = (cos b0, sin b0).
    ce, cs, we, ws, ae, as_, y = (_vec(n) for n in ("ce", "cs", "we", "ws", "ae", "as", "y"))
    angle, b = sympy.symbols("b0 b", real=True)
    n = sympy.Matrix([sympy.cos(angle), sympy.sin(angle)])
    world = cs + ws * _t + as_ * _t**2 / 2 + _rotation(_os * _t) * (y - cs)
    local = ce + _rotation(-_oe * _t) * (world - ce - we * _t - ae * _t**2 / 2)
    m1 = sympy.Matrix([sympy.cos(_oe * _t + angle), sympy.sin(_oe * _t + angle)])
    m2 = sympy.Matrix([sympy.cos(-(_os - _oe) * _t + angle),
                       sympy.sin(-(_os - _oe) * _t + angle)])
    pivot = cs - ce + (ws - we) * _t + (as_ - ae) * _t**2 / 2
    decomposed = n.dot(ce) - b + m1.dot(pivot) + m2.dot(y - cs)
    gap = rigid.m2 * _t * (rigid.h - _t) / 2

    def zero(expr: sympy.Expr) -> bool:
        # Angle sums expanded, then sin^2 = 1 - cos^2: a polynomial that is 0 when the
        # identity holds; anything left is decided by sympy.simplify.
        reduced = sympy.expand(sympy.expand_trig(sympy.expand(expr)))
        for sine in reduced.atoms(sympy.sin):
            reduced = reduced.subs(sine**2, 1 - sympy.cos(sine.args[0]) ** 2)
        return sympy.expand(reduced) == 0 or is_zero(expr)

    return [
        ("local-frame excess f = n.ce - b + m1(t).P(t) + m2(t).Q(t), m1 turning at omega_e, "
         "m2 at -(omega_s - omega_e), P the pivot offset, Q = y - cs",
         zero(n.dot(local) - b - decomposed)),
        ("(m.X)'' = m''.X + 2 m'.X' + m.X''",
         zero(sympy.diff(m.dot(x), _t, 2) - (ddm.dot(x) + 2 * dm.dot(x.diff(_t))
                                               + m.dot(x.diff(_t, 2))))),
        ("|m| = 1", zero(m.dot(m) - 1)),
        ("m' = w (-m_y, m_x), so |m'| = |w|", all(zero(c) for c in dm - _w * rot_m)),
        ("m'' = -w^2 m, so |m''| = w^2", all(zero(c) for c in ddm + _w**2 * m)),
        ("the parabola M2 t (h - t)/2 has second derivative -M2",
         is_zero(sympy.diff(gap, _t, 2) + rigid.m2)),
        ("the parabola vanishes at t = 0 and t = h",
         is_zero(gap.subs(_t, 0)) and is_zero(gap.subs(_t, rigid.h))),
    ]


b6_product_rule = identity_obligation(
    "B6/product_rule",
    "local-frame excess as rotating products; product rule; comparison parabola",
    _product_rule_identities,
    module=__name__,
)


# --- B6/second_derivative --------------------------------------------------------------------

_TERMS = (("1", "omega_e", "P", "p"), ("2", "d_omega", "Q", "q"))
"""(unit vector tag, rate bound, vector name, bound prefix) of the two rotating terms."""


class _Rotating:
    """One term m.X of f: a unit vector m turning at a signed rate w, |w| <= rate, and a vector
    X with its first two derivatives, |X| <= x_max, |X'| <= dx_max, |X''| <= ddx_max.

    Each vector is written in the orthonormal frame (m, rot m) as X = X_along m + X_across rot m:
    for a unit m every vector of the plane has exactly one such pair, so nothing is lost, and
    the solver finds counterexamples of a wrong bound without searching the unit circle.
    """

    def __init__(self, bb: Builder, tag: str, rate: str, vec: str, prefix: str) -> None:
        self.m = bb.unit(f"m{tag}")
        self.w = bb.var(f"w{tag}")
        self.rate = bb.var(rate, nonnegative)
        self.names = tuple(f"{d}{vec}" for d in ("", "d", "dd"))
        self.coords = tuple((bb.var(f"{n}_along"), bb.var(f"{n}_across")) for n in self.names)
        r = rot(self.m)
        self.x, self.dx, self.ddx = (
            (a * self.m[0] + b * r[0], a * self.m[1] + b * r[1]) for a, b in self.coords
        )
        self.bounds = tuple(bb.var(f"{d}{prefix}_max", nonnegative) for d in ("", "d", "dd"))
        self.prefix = prefix

    def premise(self) -> list[z3.BoolRef]:
        norms = [dot(v, v) <= b * b for v, b in zip((self.x, self.dx, self.ddx), self.bounds,
                                                    strict=True)]
        return [self.w <= self.rate, -self.w <= self.rate, *norms]

    def second(self) -> z3.ArithRef:
        """(m.X)'' = m''.X + 2 m'.X' + m.X'' with m' = w rot(m), m'' = -w^2 m."""
        w, m = self.w, self.m
        dm = (w * rot(m)[0], w * rot(m)[1])
        ddm = (-w * w * m[0], -w * w * m[1])
        return dot(ddm, self.x) + 2 * dot(dm, self.dx) + dot(m, self.ddx)

    def bound(self) -> z3.ArithRef:
        x_max, dx_max, ddx_max = self.bounds
        return self.rate * self.rate * x_max + 2 * self.rate * dx_max + ddx_max

    def substitutions(self) -> dict[str, z3.ArithRef]:
        x_max, dx_max, ddx_max = self.bounds
        p = self.prefix
        return {f"{p}_max": x_max, f"d{p}_max": dx_max, f"dd{p}_max": ddx_max}


def _term_steps(bb: Builder, r: _Rotating, second: z3.ArithRef) -> list[Step]:
    """Each product through the frame coordinates (Cauchy-Schwarz: a coordinate is at most the
    norm), then the term's bound."""
    (a, _), (_, db), (dda, _) = r.coords
    w, rate = r.w, r.rate
    name = r.names[0]

    def within(value: z3.ArithRef, limit: z3.ArithRef) -> z3.BoolRef:
        return z3.And(value <= limit, -value <= limit)

    coordinate_steps = [
        Step(f"|{label}| <= |{vec}| (Cauchy-Schwarz, |m| = 1)", within(value, limit),
             keep_only(bb, *r.m, *coords, limit))
        for label, value, vec, coords, limit in (
            (f"m.{name}", a, name, r.coords[0], r.bounds[0]),
            (f"rot(m).{name}'", db, f"{name}'", r.coords[1], r.bounds[1]),
            (f"m.{name}''", dda, f"{name}''", r.coords[2], r.bounds[2]),
        )
    ]
    return [
        *coordinate_steps,
        Step(f"w^2 |m.{name}| <= rate^2 |{name}|", within(w * w * a, rate * rate * r.bounds[0]),
             keep_only(bb, w, rate, a, r.bounds[0])),
        Step(f"|w rot(m).{name}'| <= rate |{name}'|", within(w * db, rate * r.bounds[1]),
             keep_only(bb, w, rate, db, r.bounds[1])),
        Step(f"(m.{name})'' = -w^2 m.{name} + 2 w rot(m).{name}' + m.{name}''",
             second == -w * w * a + 2 * w * db + dda,
             keep_only(bb, *r.m, w, *(c for pair in r.coords for c in pair), second)),
        Step(f"|(m.{name})''| <= rate^2 |{name}| + 2 rate |{name}'| + |{name}''|",
             within(second, r.bound()),
             keep_only(bb, w, rate, a, db, dda, second, *r.bounds)),
    ]


def _numeric_second(x: Values, construction: dict[str, tuple[float, float]] | None = None
                    ) -> float:
    """f''(0) of f(t) = m1(t).P(t) + m2(t).Q(t) by a second difference of the rotation itself:
    m_i(t) = R(w_i t) m_i, P(t) = P + P' t + P'' t^2/2 (likewise Q)."""
    vec = dict(construction or {})

    def get(name: str, m: tuple[float, float]) -> tuple[float, float]:
        if name in vec:
            return vec[name]
        a, b = x[f"{name}_along"], x[f"{name}_across"]
        return a * m[0] - b * m[1], a * m[1] + b * m[0]

    def f(t: float) -> float:
        total = 0.0
        for tag, _, name, _ in _TERMS:
            m, w = (x[f"m{tag}_x"], x[f"m{tag}_y"]), x[f"w{tag}"]
            c, s = math.cos(w * t), math.sin(w * t)
            mt = (c * m[0] - s * m[1], s * m[0] + c * m[1])
            p, dp, ddp = get(name, m), get(f"d{name}", m), get(f"dd{name}", m)
            xt = [p[i] + dp[i] * t + ddp[i] * t * t / 2 for i in range(2)]
            total += mt[0] * xt[0] + mt[1] * xt[1]
        return total

    scale = max(1.0, abs(x["w1"]), abs(x["w2"]))
    return second_difference(f, 1e-4 / scale)


def _bound_of(x: Values) -> float:
    return runtime_formulas().rigid_second_derivative_bound(
        omega_e=x["omega_e"], d_omega=x["d_omega"], p_max=x["p_max"], dp_max=x["dp_max"],
        ddp_max=x["ddp_max"], q_max=x["q_max"], dq_max=x["dq_max"], ddq_max=x["ddq_max"])


def b6_second_derivative(profile: Profile) -> Obligation:
    """B6/second_derivative: |(m1.P)'' + (m2.Q)''| <= ``RIGID_SECOND_DERIVATIVE_BOUND`` for unit
    vectors m1, m2 turning at signed rates |w1| <= omega_e, |w2| <= d_omega and any P, Q with
    |P| <= p_max, |P'| <= dp_max, |P''| <= ddp_max (likewise Q).

    The product rule (``B6/product_rule``) is written out here with m' = w rot(m),
    m'' = -w^2 m. Steps: Cauchy-Schwarz on each of the six products, then each term's bound.
    """
    bb = Builder(profile)
    terms = [_Rotating(bb, *spec) for spec in _TERMS]
    seconds = [bb.alias(f"(m{tag}.{vec})''", r.second())
               for r, (tag, _, vec, _) in zip(terms, _TERMS, strict=True)]
    f2 = seconds[0] + seconds[1]
    subs = {"omega_e": terms[0].rate, "d_omega": terms[1].rate,
            **terms[0].substitutions(), **terms[1].substitutions()}
    bound = rigid_term(bb, rigid.RIGID_SECOND_DERIVATIVE_BOUND, **subs)
    bb.shown["bound"] = bound
    steps = [*_term_steps(bb, terms[0], seconds[0]), *_term_steps(bb, terms[1], seconds[1])]
    scalars = [t.rate for t in terms] + [b for t in terms for b in t.bounds]

    def replay(x: Values) -> Replay:
        f2_num = _numeric_second(x)
        limit = _bound_of(x)
        tol = 1e-6 * (1.0 + abs(limit))
        admissible = all(
            abs(x[f"w{tag}"]) <= x[rate] + tol
            and all(math.hypot(x[f"{d}{vec}_along"], x[f"{d}{vec}_across"])
                    <= x[f"{d}{p}_max"] + tol for d in ("", "d", "dd"))
            for tag, rate, vec, p in _TERMS)
        return Replay(bool(admissible and abs(f2_num) > limit + tol),
                      f"f'' {f2_num:.6g} (second difference of the rotation), bound {limit:.6g}")

    return bb.obligation(
        id="B6/second_derivative",
        claim="B6",
        title="M2 bounds |f''| of the local-frame excess",
        expected=PROVED,
        premise=[*terms[0].premise(), *terms[1].premise()],
        conclusion=z3.And(f2 <= bound, -f2 <= bound),
        replay=replay,
        witness_prefer=[terms[0].w != 0, terms[1].w != 0, terms[0].coords[1][1] != 0,
                        terms[1].coords[0][0] != 0, terms[1].coords[2][0] != 0],
        steps=steps,
        conclusion_forget=keep_only(bb, *seconds, *scalars),
        sharpen=[z3.Or(f2 >= bound + 1, -f2 >= bound + 1)],
    )


def b6_second_derivative_tight(profile: Profile) -> Obligation:
    """B6/second_derivative/tight: each vector placed where its product is largest reaches
    ``RIGID_SECOND_DERIVATIVE_BOUND`` exactly: w1 = omega_e, w2 = -d_omega (the relative rate
    turns m2 backwards), P = -p_max m1, P' = dp_max rot(m1), P'' = ddp_max m1, Q = -q_max m2,
    Q' = -dq_max rot(m2), Q'' = ddq_max m2 (norms exactly the bounds)."""
    bb = Builder(profile)
    out: list[z3.ArithRef] = []
    norms: list[z3.BoolRef] = []
    subs: dict[str, z3.ArithRef] = {}
    for tag, rate_name, _vec, prefix in _TERMS:
        m = bb.unit(f"m{tag}")
        rate = bb.var(rate_name, nonnegative)
        bounds = [bb.var(f"{d}{prefix}_max", nonnegative) for d in ("", "d", "dd")]
        sign = 1 if tag == "1" else -1
        w = bb.alias(f"w{tag}", sign * rate)
        r = rot(m)
        x = (-bounds[0] * m[0], -bounds[0] * m[1])
        dx = (sign * bounds[1] * r[0], sign * bounds[1] * r[1])
        ddx = (bounds[2] * m[0], bounds[2] * m[1])
        dm = (w * r[0], w * r[1])
        ddm = (-w * w * m[0], -w * w * m[1])
        out.append(dot(ddm, x) + 2 * dot(dm, dx) + dot(m, ddx))
        norms.extend(dot(v, v) == b * b for v, b in zip((x, dx, ddx), bounds, strict=True))
        subs.update({rate_name: rate, f"{prefix}_max": bounds[0], f"d{prefix}_max": bounds[1],
                     f"dd{prefix}_max": bounds[2]})
    f2 = bb.alias("f''", out[0] + out[1])
    bound = rigid_term(bb, rigid.RIGID_SECOND_DERIVATIVE_BOUND, **subs)

    def replay(x: Values) -> Replay:
        built: dict[str, tuple[float, float]] = {}
        for tag, _, vec, p in _TERMS:
            m = (x[f"m{tag}_x"], x[f"m{tag}_y"])
            sign = 1.0 if tag == "1" else -1.0
            built[vec] = (-x[f"{p}_max"] * m[0], -x[f"{p}_max"] * m[1])
            built[f"d{vec}"] = (-sign * x[f"d{p}_max"] * m[1], sign * x[f"d{p}_max"] * m[0])
            built[f"dd{vec}"] = (x[f"dd{p}_max"] * m[0], x[f"dd{p}_max"] * m[1])
        f2_num = _numeric_second(x, built)
        limit = _bound_of(x)
        return Replay(bool(abs(f2_num - limit) > 1e-6 * (1.0 + abs(limit))),
                      f"aligned f'' {f2_num:.6g} (second difference), bound {limit:.6g}")

    return bb.obligation(
        id="B6/second_derivative/tight",
        claim="B6",
        title="the aligned construction reaches M2 exactly",
        expected=PROVED,
        premise=[],
        conclusion=z3.And(f2 == bound, *norms),
        replay=replay,
        witness_prefer=[v > 0 for v in (bb.shown["omega_e"], bb.shown["d_omega"],
                                        bb.shown["p_max"], bb.shown["dq_max"],
                                        bb.shown["ddq_max"])],
    )


# --- B6/interpolation ------------------------------------------------------------------------


def _piece(bb: Builder) -> tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef, z3.ArithRef]:
    """M2 >= 0, a piece width h > 0, a time t = s h in it (s in [0, 1]); the excess bound."""
    curvature = bb.var("M2", nonnegative)
    width = bb.var("h", lambda x: x > 0)
    s = bb.var("s", nonnegative, lambda x: x <= 1)
    bound = rigid_term(bb, rigid.INTERPOLATION_EXCESS_BOUND, m2=curvature, h=width)
    bb.shown["bound"] = bound
    return curvature, width, s, bound


def _largest_gap(f_a: float, f_b: float, curvature: float, width: float,
                 samples: int = 20001) -> float:
    """max over [0, h] of chord + M2 t (h - t)/2, the function with |f''| <= M2 whose excess
    over its larger endpoint is largest, sampled finely."""
    best = -math.inf
    for i in range(samples):
        t = width * i / (samples - 1)
        chord = f_a + (f_b - f_a) * t / width
        best = max(best, chord + curvature * t * (width - t) / 2)
    return best - max(f_a, f_b)


def b6_interpolation(profile: Profile) -> Obligation:
    """B6/interpolation: on a piece [0, h], the chord between the end values fa, fb plus the
    comparison parabola M2 t (h - t)/2 stays below max(fa, fb) + ``INTERPOLATION_EXCESS_BOUND``.
    With the comparison step (argued in the module docstring) every f with |f''| <= M2 does."""
    bb = Builder(profile)
    curvature, width, s, bound = _piece(bb)
    f_a, f_b = bb.var("fa"), bb.var("fb")
    t = bb.alias("t", s * width)
    value = f_a * (1 - s) + f_b * s + curvature * t * (width - t) / 2

    def replay(x: Values) -> Replay:
        limit = runtime_formulas().interpolation_excess_bound(m2=x["M2"], h=x["h"])
        gap = _largest_gap(x["fa"], x["fb"], x["M2"], x["h"])
        return Replay(bool(gap > limit + 1e-9 * (1.0 + limit)),
                      f"largest excess {gap:.6g} (sampled), bound {limit:.6g}")

    return bb.obligation(
        id="B6/interpolation",
        claim="B6",
        title="chord plus parabola stays below max endpoint + M2 h^2/8",
        expected=PROVED,
        premise=[],
        conclusion=value <= z3.If(f_a >= f_b, f_a, f_b) + bound,
        replay=replay,
        witness_prefer=[curvature > 0, s > 0, s < 1, f_a != f_b],
    )


def b6_interpolation_tight(profile: Profile) -> Obligation:
    """B6/interpolation/tight: the comparison parabola reaches ``INTERPOLATION_EXCESS_BOUND`` at
    t = h/2, so no smaller excess covers every f with |f''| <= M2."""
    bb = Builder(profile)
    curvature, width, _, bound = _piece(bb)
    t = bb.alias("t", width / 2)
    peak = curvature * t * (width - t) / 2

    def replay(x: Values) -> Replay:
        limit = runtime_formulas().interpolation_excess_bound(m2=x["M2"], h=x["h"])
        gap = _largest_gap(0.0, 0.0, x["M2"], x["h"])
        return Replay(bool(abs(gap - limit) > 1e-9 * (1.0 + limit)),
                      f"largest excess {gap:.6g} (sampled), bound {limit:.6g}")

    return bb.obligation(
        id="B6/interpolation/tight",
        claim="B6",
        title="the parabola reaches M2 h^2/8 at h/2",
        expected=PROVED,
        premise=[],
        conclusion=peak == bound,
        replay=replay,
        witness_prefer=[curvature > 0],
    )


OBLIGATIONS = {
    "B6/product_rule": b6_product_rule,
    "B6/second_derivative": b6_second_derivative,
    "B6/second_derivative/tight": b6_second_derivative_tight,
    "B6/interpolation": b6_interpolation,
    "B6/interpolation/tight": b6_interpolation_tight,
}
