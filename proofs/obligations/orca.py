"""ORCA proof obligations (seed 002, claims O1, O3, O5, O6, O7) over the profile's ranges.

Agent A at the origin, neighbour B at ``p``; A's current velocity ``vA``, B's ``vB``; the new
velocities ``vA'`` and ``vB'`` each satisfy their own ORCA line, built by the derivation of
``navproof.proofs.orca`` from that agent's own view (B sees ``-p`` and ``-v``) with shares
``alpha`` and ``beta``. Radii, horizon (or step), speeds come from the profile's ranges.

The relative half-plane of the pair is the sum of the two lines; it passes through
``v + (alpha + beta) u``. Per case of the construction:

* ``alpha + beta = 1`` (the runtime's split): the relative motion keeps the combined radius over
  the whole horizon, whether or not the pair is on a collision course (O3);
* ``alpha + beta >= 1`` keeps it when the current relative velocity is in the truncated velocity
  obstacle (the pair is on a collision course, ``u`` points to the allowed side) (O7);
* ``alpha + beta < 1`` on a collision course is refuted (O7), and so is ``alpha + beta > 1``
  when the pair is not on a collision course (``u`` then points into the obstacle and a larger
  sum moves the line into it): together they are why the runtime's shares add up to exactly 1.

Each reciprocity proof runs through lemma steps: the two lines add up to the relative one, the
normal's components, the case condition, the linear bound on the normal distance over time, and
Cauchy-Schwarz with a unit normal. Counterexamples are replayed through the runtime's own line
construction (``navproof.orca.lines.agent_lines``, which evaluates the generated expressions) and
an exact minimum distance over the horizon.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import z3

from navproof.proofs import orca
from navproof.proofs.obligations.common import (
    PROVED,
    REFUTED,
    Builder,
    Obligation,
    Replay,
    Step,
    Values,
    add,
    dot,
    sub,
)
from navproof.proofs.obligations.scaling import ScaleRoles, rescaled_endpoint
from navproof.specs.profile import Profile

Vec = tuple[z3.ArithRef, z3.ArithRef]

CASES = ("cutoff", "left-leg", "right-leg", "colliding")
"""Cases of the half-plane construction (RVO2's names)."""


def _det(p: Vec, q: Vec) -> z3.ArithRef:
    return p[0] * q[1] - p[1] * q[0]


def min_distance_sq(p: tuple[float, float], x: tuple[float, float], horizon_s: float) -> float:
    """Exact minimum of |p - x t|^2 over t in [0, horizon_s] (closed form, no sampling)."""
    xx = x[0] * x[0] + x[1] * x[1]
    t_star = 0.0 if xx == 0.0 else min(max((p[0] * x[0] + p[1] * x[1]) / xx, 0.0), horizon_s)
    dx, dy = p[0] - x[0] * t_star, p[1] - x[1] * t_star
    return dx * dx + dy * dy


class _Pair:
    """The variables, both lines and the relative quantities of one reciprocity obligation."""

    def __init__(self, profile: Profile, case: str) -> None:
        bb = self.bb = Builder(profile)
        self.case = case
        self.ra = bb.param("rA", "agent_radius_m")
        self.rb = bb.param("rB", "agent_radius_m")
        self.comb_r = bb.alias("R", self.ra + self.rb)
        if case == "colliding":
            self.tau = bb.param("dt", "step_s")
        else:
            self.tau = bb.param("tau", "orca_time_horizon_s")
        # 1/tau, positive (implied by tau > 0; stated so that checks need not rederive it)
        self.itau = bb.var("inv_tau", lambda x: x > 0)
        bb.hypotheses.append(self.itau * self.tau == 1)
        speed = bb.param("max_speed", "max_speed_mps")
        self.p = bb.vector("p")
        self.va = bb.vector("vA")
        self.vb = bb.vector("vB")
        self.va_new = bb.vector("vA_new")
        self.vb_new = bb.vector("vB_new")
        for vec in (self.va, self.vb, self.va_new, self.vb_new):
            bb.hypotheses.append(dot(vec, vec) <= speed * speed)
        self.alpha = bb.var("alpha", lambda x: 0 <= x, lambda x: x <= 1)
        self.beta = bb.var("beta", lambda x: 0 <= x, lambda x: x <= 1)
        self.t = bb.var("t")
        self.v = sub(self.va, self.vb)
        self.x = sub(self.va_new, self.vb_new)
        self.u, self.d, self.mirror_facts = self._line_geometry(self.p, self.v, "A")
        neg_p = (-self.p[0], -self.p[1])
        neg_v = (-self.v[0], -self.v[1])
        self.u_b, self.d_b, _ = self._line_geometry(neg_p, neg_v, "B")
        # Each line through the agent's own velocity plus its share of its own change u
        # (``orca.LINE_POINT``); satisfied when det(direction, point - velocity) <= 0.
        point_a = tuple(bb.term(orca.LINE_POINT, own_v=self.va[i], share=self.alpha,
                                change=self.u[i]) for i in range(2))
        point_b = tuple(bb.term(orca.LINE_POINT, own_v=self.vb[i], share=self.beta,
                                change=self.u_b[i]) for i in range(2))
        self.in_a = _det(self.d, sub(point_a, self.va_new)) <= 0
        self.in_b = _det(self.d_b, sub(point_b, self.vb_new)) <= 0
        dist_sq = dot(self.p, self.p)
        self.no_collision = dist_sq > self.comb_r * self.comb_r
        self.w = (self.v[0] - self.itau * self.p[0], self.v[1] - self.itau * self.p[1])
        dot1 = bb.alias("w_dot_p", dot(self.w, self.p))
        w_sq = bb.alias("w_sq", dot(self.w, self.w))
        self.w_dot_p, self.w_sq = dot1, w_sq
        self.on_cutoff = z3.And(dot1 < 0, dot1 * dot1 > self.comb_r * self.comb_r * w_sq)
        side = _det(self.p, self.w)
        if case == "cutoff":
            self.case_facts = [self.no_collision, self.on_cutoff]
        elif case == "colliding":
            # w = 0 (coincident, equal velocities) takes the deterministic tie direction instead
            self.case_facts = [z3.Not(self.no_collision), w_sq > 0]
        else:
            self.case_facts = [self.no_collision, z3.Not(self.on_cutoff),
                               side > 0 if case == "left-leg" else side <= 0]
        # Aliases the steps reason with.
        self.n_u = bb.alias("n_dot_u", dot(self.u, self.normal))
        self.n_x = bb.alias("n_dot_x", dot(self.x, self.normal))
        self.n_v = bb.alias("n_dot_v", dot(self.v, self.normal))
        self.n_p = bb.alias("n_dot_p", dot(self.p, self.normal))

    def _line_geometry(self, p: Vec, v: Vec, who: str) -> tuple[Vec, Vec, list[z3.BoolRef]]:
        """(change u, direction d) of one agent's line from its own view (relative ``p``, ``v``),
        composed in z3 from the generated pieces of ``navproof.proofs.orca`` as the runtime
        composes them (unit vectors as variables with ``n |w| = w``)."""
        bb = self.bb
        common = {"comb_r": self.comb_r, "inv_tau": self.itau}
        if self.case in ("cutoff", "colliding"):
            w = tuple(bb.alias(f"w{who}_{c}", bb.term(orca.CUTOFF_OFFSET, rel_v=v[i], rel_p=p[i],
                                                         inv_tau=self.itau))
                      for i, c in enumerate("xy"))
            w_len = bb.var(f"|w{who}|", lambda x: x >= 0)
            bb.hypotheses.append(w_len * w_len == w[0] * w[0] + w[1] * w[1])
            n = tuple(bb.var(f"n{who}_{c}") for c in "xy")
            bb.hypotheses.extend([z3.Implies(w_len > 0, n[i] * w_len == w[i]) for i in range(2)])
            scale = bb.alias(f"scale{who}", bb.term(orca.CUTOFF_CHANGE_SCALE, w_len=w_len,
                                                     **common))
            return (scale * n[0], scale * n[1]), (n[1], -n[0]), [w_len > 0]
        side_value = 1 if self.case == "left-leg" else -1
        dist_sq = bb.alias(f"dist_sq{who}", dot(p, p))
        leg = bb.var(f"leg{who}", lambda x: x >= 0)
        bb.hypotheses.append(leg * leg == dist_sq - self.comb_r * self.comb_r)
        geometry = {"rel_px": p[0], "rel_py": p[1], "leg_len": leg, "side": side_value,
                    "dist_sq": dist_sq, "comb_r": self.comb_r}
        d = (bb.alias(f"d{who}_x", bb.term(orca.LEG_DIRECTION_X, **geometry)),
             bb.alias(f"d{who}_y", bb.term(orca.LEG_DIRECTION_Y, **geometry)))
        proj = dot(v, d)
        u = tuple(bb.term(orca.LEG_CHANGE, v_dot_d=proj, direction=d[i], rel_v=v[i])
                  for i in range(2))
        return (u[0], u[1]), d, []

    @property
    def normal(self) -> Vec:
        """Unit normal of A's line pointing to the allowed side: (-d_y, d_x)."""
        return -self.d[1], self.d[0]

    def on_course(self) -> z3.BoolRef:
        """The current relative velocity is in the (closed) obstacle: u points to the allowed
        side (u . n >= 0)."""
        return self.n_u >= 0

    def endpoint_hint(self) -> Callable[..., dict | None]:
        """Endpoints of radius, horizon and speed reached from the rescaled witness."""
        names = set(self.bb.shown)
        velocities = tuple(f"{v}_{c}" for v in ("vA", "vB", "vA_new", "vB_new", "y") for c in "xy"
                           if f"{v}_{c}" in names)
        horizon = "dt" if self.case == "colliding" else "tau"
        return rescaled_endpoint(ScaleRoles(
            lengths=("rA", "rB", "p_x", "p_y"), times=(horizon, "t"), velocities=velocities,
            speed_cap="max_speed", kept=("alpha", "beta")))

    def distance_ok(self, t: z3.ArithRef) -> z3.BoolRef:
        q = sub(self.p, (self.x[0] * t, self.x[1] * t))
        return dot(q, q) >= self.comb_r * self.comb_r


def _replay(case: str, shares: str) -> Callable[[Values], Replay]:
    """Replay a counterexample through the runtime's line construction and the exact minimum
    distance of the relative motion over the horizon (or the distance at the step's end)."""

    def replay(x: Values) -> Replay:
        import numpy as np

        from navproof.orca.halfplanes import line_violation
        from navproof.orca.lines import agent_lines

        colliding = case == "colliding"
        horizon = x["dt"] if colliding else x["tau"]
        position = np.array([[0.0, 0.0], [x["p_x"], x["p_y"]]])
        velocity = np.array([[x["vA_x"], x["vA_y"]], [x["vB_x"], x["vB_y"]]])
        radius = np.array([x["rA"], x["rB"]])
        tau = np.full(2, 10.0 if colliding else horizon)
        point, direction, valid = agent_lines(
            position, velocity, radius, tau, horizon if colliding else 0.25,
            np.array([[1], [0]]), responsibility=np.array([[x["alpha"]], [x["beta"]]]))
        new = np.array([[x["vA_new_x"], x["vA_new_y"]], [x["vB_new_x"], x["vB_new_y"]]])
        viol = line_violation(new, point, direction, valid)
        rel = (new[0, 0] - new[1, 0], new[0, 1] - new[1, 1])
        comb = x["rA"] + x["rB"]
        if colliding:
            end = (x["p_x"] - rel[0] * horizon, x["p_y"] - rel[1] * horizon)
            d_sq = end[0] ** 2 + end[1] ** 2
        else:
            d_sq = min_distance_sq((x["p_x"], x["p_y"]), rel, horizon)
        tol = 1e-9
        ok = bool(np.all(viol <= tol) and d_sq < comb * comb * (1 - 1e-9))
        return Replay(ok, f"line violations {viol.ravel().tolist()}, shares "
                          f"{x['alpha']:.4g}+{x['beta']:.4g}, min distance "
                          f"{math.sqrt(d_sq):.6g} m < R {comb:.6g} m: {d_sq < comb * comb}")

    return replay


# Facts the mirror steps never need (the shares, the time, the new velocities, scalar aliases).
_UNRELATED = ("max_speed", "t", "alpha", "beta", "vA_new_x", "vA_new_y", "vB_new_x", "vB_new_y",
              "n_dot_u", "n_dot_x", "n_dot_v", "n_dot_p", "n_dot_end")


def _all_but(bb: Builder, *kept: str) -> tuple[str, ...]:
    """Every name of the obligation but ``kept`` (a step's ``forget`` that keeps only these)."""
    return tuple(sorted(set(bb.env) - set(kept)))


def _triangle_steps(bb: Builder, a: Vec, b: Vec, len_a: z3.ArithRef, len_b: z3.ArithRef,
                    names: tuple[str, str] = ("a", "b")) -> list[Step]:
    """|a + b|^2 <= (|a| + |b|)^2 for the norms ``len_a`` and ``len_b`` (nonnegative, their
    squares |a|^2 and |b|^2 following from the facts), each step from the facts on a, b and the
    norms only: Cauchy-Schwarz squared in the coordinates (the Lagrange identity), the same with
    the norms, unsquared, then the squared triangle. ``names`` label a and b in the steps."""
    ab, aa, bb_ = dot(a, b), dot(a, a), dot(b, b)
    coordinates = _all_but(bb, *bb.names(a, b))
    norms = _all_but(bb, *bb.names(a, b), *bb.names(len_a, len_b))
    product = len_a * len_b
    x, y = names
    return [
        Step(f"|{x}|^2 = |{x}|^2 (the norm)", aa == len_a * len_a, norms),
        Step(f"|{y}|^2 = |{y}|^2 (the norm)", bb_ == len_b * len_b, norms),
        Step(f"({x}.{y})^2 <= |{x}|^2 |{y}|^2 (Cauchy-Schwarz, coordinates)", ab * ab <= aa * bb_,
             coordinates),
        Step(f"(|{x}| |{y}|)^2 = |{x}|^2 |{y}|^2", product * product == aa * bb_, norms),
        Step(f"({x}.{y})^2 <= (|{x}| |{y}|)^2", ab * ab <= product * product, norms),
        Step(f"|{x}| |{y}| >= 0", product >= 0, _all_but(bb, *bb.names(len_a, len_b))),
        Step(f"{x}.{y} <= 0 or {x}.{y} <= |{x}| |{y}|", z3.Or(ab <= 0, ab <= product), norms),
        Step(f"{x}.{y} <= |{x}| |{y}|", ab <= product, norms),
        Step(f"|{x} + {y}|^2 <= (|{x}| + |{y}|)^2",
             dot(add(a, b), add(a, b)) <= (len_a + len_b) ** 2, norms),
    ]


def _leg_unit_steps(pr: _Pair) -> list[Step]:
    """|d| = 1 and det(d, p) = -R for A's leg direction
    d = (side p_x leg - p_y R, p_x R + side p_y leg) / |p|^2 (``orca.LEG_DIRECTION_X``, ``_Y``),
    from leg^2 = |p|^2 - R^2 only: each step keeps the facts on p, R, leg and d alone."""
    bb = pr.bb
    dist_sq, leg = bb.env["dist_sqA"], bb.env["legA"]
    keep = _all_but(bb, *bb.names(pr.p, pr.d), "dist_sqA", "legA", "R", "rA", "rB")
    side = 1 if pr.case == "left-leg" else -1
    scaled = (side * pr.p[0] * leg - pr.p[1] * pr.comb_r,
              pr.p[0] * pr.comb_r + side * pr.p[1] * leg)
    return [
        Step("|p|^2 > 0", dist_sq > 0, keep),
        Step("|p|^2 d = (side p_x leg - p_y R, p_x R + side p_y leg)",
             z3.And(*(dist_sq * pr.d[i] == scaled[i] for i in range(2))), keep),
        Step("|(side p_x leg - p_y R, p_x R + side p_y leg)|^2 = |p|^4",
             dot(scaled, scaled) == dist_sq * dist_sq, keep),
        Step("|p|^4 |d|^2 = |p|^4", (dist_sq * dist_sq) * dot(pr.d, pr.d) == dist_sq * dist_sq,
             keep),
        Step("|d| = 1", dot(pr.d, pr.d) == 1, keep),
        Step("|p|^2 det(d, p) = -R |p|^2", dist_sq * _det(pr.d, pr.p) == -pr.comb_r * dist_sq,
             keep),
        Step("det(d, p) = -R (the leg is tangent)", _det(pr.d, pr.p) == -pr.comb_r, keep),
    ]


def _mirror_steps(pr: _Pair) -> list[Step]:
    """B's line, built from B's view (-p, -v), is A's line mirrored: d_B = -d, u_B = -u."""
    env = pr.bb.env
    if pr.case in ("cutoff", "colliding"):
        wa, wb = env["|wA|"], env["|wB|"]
        na = (env["nA_x"], env["nA_y"])
        nb = (env["nB_x"], env["nB_y"])
        return [
            Step("|w| of B's view = |w| of A's", wb == wa, _UNRELATED),
            Step("B's normal = -A's normal", z3.And(nb[0] == -na[0], nb[1] == -na[1]),
                 _UNRELATED),
            Step("B's change = -A's change", z3.And(pr.u_b[0] == -pr.u[0],
                                                    pr.u_b[1] == -pr.u[1]), _UNRELATED),
        ]
    bb = pr.bb
    side = 1 if pr.case == "left-leg" else -1
    leg, dist_sq = env["legA"], env["dist_sqA"]
    scaled = (side * pr.p[0] * leg - pr.p[1] * pr.comb_r,
              pr.p[0] * pr.comb_r + side * pr.p[1] * leg)
    views = _all_but(bb, *bb.names(pr.p, pr.d, pr.d_b), "dist_sqA", "dist_sqB", "legA", "legB",
                     "R", "rA", "rB")
    return [
        Step("B's leg = A's leg", env["legB"] == env["legA"], _UNRELATED),
        Step("|p|^2 of B's view = A's", env["dist_sqB"] == dist_sq, views),
        Step("|p|^2 d_B = -(side p_x leg - p_y R, p_x R + side p_y leg)",
             z3.And(*(dist_sq * pr.d_b[i] == -scaled[i] for i in range(2))), views),
        Step("|p|^2 d_B = -|p|^2 d", z3.And(*(dist_sq * pr.d_b[i] == -dist_sq * pr.d[i]
                                              for i in range(2))),
             _all_but(bb, *bb.names(pr.p, pr.d, pr.d_b), "dist_sqA", "legA", "R")),
        Step("B's leg direction = -A's", z3.And(pr.d_b[0] == -pr.d[0], pr.d_b[1] == -pr.d[1]),
             _all_but(bb, *bb.names(pr.d, pr.d_b), "dist_sqA")),
        Step("B's change = -A's change", z3.And(pr.u_b[0] == -pr.u[0], pr.u_b[1] == -pr.u[1]),
             _all_but(bb, *bb.names(pr.v, pr.d, pr.d_b))),
    ]


def reciprocity(profile: Profile, case: str, shares: str) -> Obligation:
    """Both agents in their ORCA lines keep the combined radius (see the module docstring).

    ``shares``: "one" (alpha + beta = 1), "at-least-one" (>= 1, on a collision course),
    "below-one" (< 1, on a collision course: refuted), "above-one" (> 1, not on a collision
    course: refuted).
    """
    pr = _Pair(profile, case)
    bb = pr.bb
    total = pr.alpha + pr.beta
    share_facts = {
        "one": [total == 1],
        "at-least-one": [total >= 1, pr.on_course()],
        "below-one": [total < 1, pr.on_course()],
        "above-one": [total > 1, z3.Not(pr.on_course())],
    }[shares]
    colliding = case == "colliding"
    horizon = pr.tau
    if colliding:
        time_facts = [pr.t == pr.tau]
    else:
        time_facts = [0 <= pr.t, pr.t <= horizon]
    premise = [pr.in_a, pr.in_b, *pr.case_facts, *share_facts, *time_facts]
    if shares in ("below-one", "above-one"):
        # one counterexample refutes the statement: search it with equal shares on a head-on
        # line (cut-off circle) or with B at rest on the x axis (legs), where nlsat finds it
        # at once
        if case in ("cutoff", "colliding"):
            premise += [pr.p[1] == 0, pr.va[1] == 0, pr.vb[1] == 0, pr.va_new[1] == 0,
                        pr.vb_new[1] == 0, pr.alpha == pr.beta]
        else:
            premise += [pr.p[1] == 0, pr.vb[0] == 0, pr.vb[1] == 0, pr.alpha == pr.beta,
                        pr.alpha == (z3.Q(1, 4) if shares == "below-one" else z3.Q(3, 4))]
    conclusion = pr.distance_ok(pr.t)
    sum_one = (total - 1) * pr.n_u >= 0
    n_sq = dot(pr.normal, pr.normal)
    vel = bb.names(pr.va, pr.vb)
    new_vel = bb.names(pr.va_new, pr.vb_new)
    pos = bb.names(pr.p)
    env = bb.env
    # what the scalar steps never need: the vectors themselves and unrelated ranges
    vectors = (*vel, *new_vel, *pos, "max_speed", "rA", "rB")
    line_parts = tuple(n for n in env if n.startswith(("w", "|w", "leg", "dist_sq", "scale")))
    unit = _leg_unit_steps(pr) if case in ("left-leg", "right-leg") else []
    mirror = _mirror_steps(pr)
    lemmas = mirror[:1] + unit + mirror[1:] + [
        Step("the two lines add up to the relative half-plane",
             pr.n_x >= pr.n_v + total * pr.n_u,
             ("max_speed", "rA", "rB", "t", "tau", "dt", *pos,
              *(n for n in line_parts if not n.startswith("scale")))),
        Step("|n| = 1", n_sq == 1, ("max_speed", "t", *new_vel)),
        # from the shares and u.n alone (the premise's sign facts): the product's sign
        Step("(alpha + beta - 1) u.n >= 0", sum_one, _all_but(bb, "alpha", "beta", "n_dot_u")),
        Step("n.x >= n.(v + u)", pr.n_x >= pr.n_v + pr.n_u, vectors),
    ]
    if case in ("cutoff", "colliding"):
        # cut-off circle: v + u lies on the circle of centre p/tau and radius R/tau
        lemmas.append(Step("n.(v + u) = (n.p + R)/tau",
                           pr.n_v + pr.n_u == pr.itau * (pr.n_p + pr.comb_r),
                           ("max_speed", "t", *new_vel)))
        if case == "cutoff":
            wa = env["|wA|"]
            lemmas.append(Step("w.p = |w| n.p", pr.w_dot_p == wa * pr.n_p,
                               ("max_speed", "t", *new_vel)))
            lemmas.append(Step("w_sq = |w|^2", pr.w_sq == wa * wa, ("max_speed", "t", *new_vel)))
            lemmas.append(Step("-n.p >= R (the cut-off case)", -pr.n_p >= pr.comb_r, vectors))
    else:
        # leg: v + u lies on the leg line through the origin, the disk is R to its right
        lemmas.append(Step("n.(v + u) = 0", pr.n_v + pr.n_u == 0, ("max_speed", "t", *new_vel)))
        lemmas.append(Step("n.p = -R (tangent leg)", pr.n_p == -pr.comb_r,
                           ("max_speed", "t", *new_vel, *vel)))
    lemmas.append(Step("n.(x t - p) >= R", pr.t * pr.n_x - pr.n_p >= pr.comb_r, vectors))
    rel_end = sub((pr.x[0] * pr.t, pr.x[1] * pr.t), pr.p)
    nd = bb.alias("n_dot_end", dot(rel_end, pr.normal))
    lemmas.append(Step("n.(x t - p) >= R (as the end point)", nd >= pr.comb_r,
                       ("max_speed", *line_parts)))
    n = pr.normal
    unit_cs = _all_but(bb, *bb.names(rel_end, n), "n_dot_end")
    lemmas += [
        Step("|x t - p|^2 |n|^2 - (n.(x t - p))^2 = det(n, x t - p)^2 (Lagrange)",
             dot(rel_end, rel_end) * dot(n, n) - dot(n, rel_end) * dot(n, rel_end)
             == _det(n, rel_end) * _det(n, rel_end), _all_but(bb, *bb.names(rel_end, n))),
        Step("|x t - p|^2 |n|^2 >= (n.(x t - p))^2",
             dot(rel_end, rel_end) * dot(n, n) >= dot(n, rel_end) * dot(n, rel_end),
             _all_but(bb, *bb.names(rel_end, n))),
        Step("|x t - p|^2 |n|^2 = |x t - p|^2 (unit n)",
             dot(rel_end, rel_end) * dot(n, n) == dot(rel_end, rel_end), unit_cs),
        Step("(n.(x t - p))^2 = n_dot_end^2", dot(n, rel_end) * dot(n, rel_end) == nd * nd,
             unit_cs),
        Step("|x t - p|^2 >= (n.(x t - p))^2 (unit n)",
             dot(rel_end, rel_end) >= nd * nd, unit_cs),
        Step("n_dot_end^2 >= R^2", nd * nd >= pr.comb_r * pr.comb_r,
             _all_but(bb, "n_dot_end", "R", "rA", "rB")),
        Step("|x t - p|^2 >= R^2", dot(rel_end, rel_end) >= pr.comb_r * pr.comb_r,
             _all_but(bb, *bb.names(rel_end), "n_dot_end", "R", "rA", "rB")),
    ]
    expected = PROVED if shares in ("one", "at-least-one") else REFUTED
    steps = lemmas if expected == PROVED else []
    oid = _reciprocity_id(case, shares)
    what = {"one": "alpha + beta = 1", "at-least-one": "alpha + beta >= 1 on a collision course",
            "below-one": "alpha + beta < 1 on a collision course",
            "above-one": "alpha + beta > 1 off a collision course"}[shares]
    keeps = "apart at the step's end" if colliding else "the combined radius for t in [0, tau]"
    # a clear overlap (10 % of R^2), not a knife-edge one only exact arithmetic sees; on a leg
    # nlsat takes long to find one, and the replay's own margin decides there
    clear = dot(rel_end, rel_end) <= pr.comb_r * pr.comb_r * z3.Q(9, 10)
    sharpen = [] if expected == PROVED or case not in ("cutoff", "colliding") else [
        z3.And(clear, total == (z3.Q(1, 2) if shares == "below-one" else z3.Q(3, 2))), clear]
    return bb.obligation(
        endpoint_hint=pr.endpoint_hint(),
        id=oid,
        claim=oid.split("/")[0],
        title=f"{case}: {what} keeps {keeps}" if expected == PROVED
        else f"{case}: {what} does not keep {keeps}",
        expected=expected,
        premise=premise,
        conclusion=conclusion,
        replay=_replay(case, shares),
        steps=steps,
        conclusion_forget=(("max_speed", "alpha", "beta", *line_parts, "n_dot_u", "n_dot_x",
                            "n_dot_v", "n_dot_p", *(n for n in env if n[:2] in ("nA", "nB", "dA",
                                                                               "dB")))
                           if expected == PROVED else ()),
        sharpen=sharpen,
        # unequal shares (the O7 case), on a collision course where the premise allows both
        witness_prefer=({"one": [pr.alpha == z3.Q(1, 4)],
                         "at-least-one": [pr.alpha == z3.Q(3, 4), pr.beta == z3.Q(1, 2)]}
                        .get(shares, [])),
    )


def smallest_change(profile: Profile, case: str) -> Obligation:
    """The line passes through v + u with normal along u, and v + u is on the obstacle's boundary.

    Cut-off circle (and already colliding): ``u`` is perpendicular to the line, ``v + u`` lies on
    the circle of centre ``p/tau`` and radius ``R/tau``, and on a collision course every
    velocity closer to ``v`` than ``|u|`` is inside that circle (so it collides at ``tau``): no
    smaller change leaves the obstacle. Legs: ``u`` is perpendicular to the unit leg direction,
    ``v + u`` lies on the leg line through the origin, which is tangent to the disk ``(p, R)``
    (``|u|`` is the distance from ``v`` to the leg line). Claim: O3.
    """
    pr = _Pair(profile, case)
    bb = pr.bb
    perpendicular = dot(pr.u, pr.d) == 0
    end = (pr.v[0] + pr.u[0], pr.v[1] + pr.u[1])
    steps: list[Step] = []
    premise = list(pr.case_facts)
    if case in ("cutoff", "colliding"):
        y = bb.vector("y")
        off = (end[0] - pr.itau * pr.p[0], end[1] - pr.itau * pr.p[1])
        on_circle = dot(off, off) == (pr.comb_r * pr.itau) ** 2
        wa = bb.env["|wA|"]
        gap = bb.var("|y-v|", lambda x: x >= 0)
        yv = sub(y, pr.v)
        bb.hypotheses.append(gap * gap == dot(yv, yv))
        yc = (y[0] - pr.itau * pr.p[0], y[1] - pr.itau * pr.p[1])
        w_a = (bb.env["wA_x"], bb.env["wA_y"])
        triangle_names = (*bb.names(y, pr.v, w_a, pr.p), "|y-v|", "|wA|", "inv_tau")
        scale = bb.env["scaleA"]
        closer = z3.Implies(z3.And(pr.n_u >= 0, gap < scale),
                            dot(yc, yc) < (pr.comb_r * pr.itau) ** 2)
        conclusion = z3.And(perpendicular, on_circle, closer)
        n_a = pr.normal
        circle_names = (*bb.names(pr.v, pr.p, w_a, n_a), "|wA|", "scaleA", "R", "inv_tau",
                        "w_dot_p", "w_sq")
        circle = _all_but(bb, *circle_names)
        radius = pr.comb_r * pr.itau
        ahead = z3.And(pr.n_u >= 0, gap < scale)
        near = _all_but(bb, "n_dot_u", "|y-v|", "|wA|", "scaleA", "R", "inv_tau")
        steps = [
            Step("u . d = 0", perpendicular, ("y_x", "y_y", "|y-v|")),
            Step("|n| = 1", dot(n_a, n_a) == 1, ("y_x", "y_y", "|y-v|")),
            Step("|w| > 0 (the case)", wa > 0, circle),
            Step("w = |w| n", z3.And(*(w_a[i] == wa * n_a[i] for i in range(2))), circle),
            Step("v + u - p/tau = (R/tau) n",
                 z3.And(*(off[i] == radius * n_a[i] for i in range(2))), circle),
            Step("|v + u - p/tau|^2 = (R/tau)^2 |n|^2",
                 dot(off, off) == radius ** 2 * dot(n_a, n_a), circle),
            Step("(R/tau)^2 |n|^2 = (R/tau)^2", radius ** 2 * dot(n_a, n_a) == radius ** 2,
                 _all_but(bb, "R", "inv_tau", *bb.names(n_a))),
            Step("v + u on the cut-off circle", on_circle, circle),
            Step("on a collision course u = scale n with scale >= 0",
                 z3.Implies(pr.n_u >= 0, scale >= 0), ("y_x", "y_y", "|y-v|")),
            *_triangle_steps(bb, yv, w_a, gap, wa, ("(y - v)", "w")),
            Step("|y - p/tau|^2 = |(y - v) + w|^2",
                 dot(yc, yc) == dot(add(yv, w_a), add(yv, w_a)), _all_but(bb, *triangle_names)),
            Step("|y - p/tau| <= |y - v| + |w| (triangle)",
                 dot(yc, yc) <= (gap + wa) ** 2, _all_but(bb, *triangle_names)),
            Step("scale + |w| = R/tau", scale + wa == radius, near),
            Step("closer than scale: |y - v| + |w| < R/tau",
                 z3.Implies(ahead, gap + wa < radius), near),
            Step("closer than scale: (|y - v| + |w|)^2 < (R/tau)^2",
                 z3.Implies(ahead, (gap + wa) ** 2 < radius ** 2), near),
            Step("closer than scale: inside the cut-off circle", closer,
                 _all_but(bb, *bb.names(y, pr.p), "n_dot_u", "|y-v|", "|wA|", "scaleA", "R",
                          "inv_tau")),
        ]
        prefer = [gap > 0]
    else:
        on_leg = _det(pr.d, end) == 0
        tangent = z3.And(dot(pr.d, pr.d) == 1, _det(pr.d, pr.p) == -pr.comb_r)
        conclusion = z3.And(perpendicular, on_leg, tangent)
        steps = [
            *_leg_unit_steps(pr),
            Step("u . d = 0", perpendicular, _all_but(bb, *bb.names(pr.v, pr.d))),
            Step("v + u on the leg line", on_leg),
        ]
        prefer = [pr.n_u > 0]
    return bb.obligation(
        endpoint_hint=pr.endpoint_hint(),
        id=_closest_id(case),
        claim=_closest_id(case).split("/")[0],
        title=f"{case}: the line passes through v + u, normal along u, v + u on the boundary",
        expected=PROVED,
        premise=premise,
        conclusion=conclusion,
        steps=steps,
        witness_prefer=prefer,
    )


def overlap_bounded(profile: Profile) -> Obligation:
    """O6: the already-colliding rule never demands more than the step allows.

    With ``|p| <= R`` (overlapping) and ``w = v - p/dt != 0``, the change ``u`` onto the cut-off
    circle of one step satisfies ``|u| dt <= (R - |p|) + |v| dt``: the correction undoes at most
    the overlap depth plus the current relative motion within one step, and the corrected
    relative velocity ends the step exactly touching (``|p - (v + u) dt| = R``), never pushed
    farther apart. No teleport: positions still move by velocity times the step.
    """
    pr = _Pair(profile, "colliding")
    bb = pr.bb
    dist = bb.var("|p|", lambda x: x >= 0)
    speed = bb.var("|v|", lambda x: x >= 0)
    bb.hypotheses += [dist * dist == dot(pr.p, pr.p), speed * speed == dot(pr.v, pr.v)]
    wa = bb.env["|wA|"]
    scale = bb.env["scaleA"]
    dt = pr.tau
    end = (pr.p[0] - (pr.v[0] + pr.u[0]) * dt, pr.p[1] - (pr.v[1] + pr.u[1]) * dt)
    limit = pr.comb_r - dist + speed * dt
    touching = dot(end, end) == pr.comb_r * pr.comb_r
    bounded = z3.And(scale * dt <= limit, -scale * dt <= limit)
    n = pr.normal
    w_a = (bb.env["wA_x"], bb.env["wA_y"])
    radius = pr.comb_r * pr.itau
    off = (pr.v[0] + pr.u[0] - pr.itau * pr.p[0], pr.v[1] + pr.u[1] - pr.itau * pr.p[1])
    circle = _all_but(bb, *bb.names(pr.v, pr.p, w_a, n), "|wA|", "scaleA", "R", "inv_tau",
                      "w_sq", "dt")
    to_p = (-pr.itau * pr.p[0], -pr.itau * pr.p[1])
    from_w = (-w_a[0], -w_a[1])
    norms = _all_but(bb, *bb.names(pr.v, pr.p, w_a), "|v|", "|p|", "|wA|", "inv_tau")
    scalars = _all_but(bb, "|v|", "|p|", "|wA|", "inv_tau")
    scaled = _all_but(bb, "|v|", "|p|", "|wA|", "inv_tau", "dt", "scaleA", "R")
    steps = [
        Step("|n| = 1", dot(n, n) == 1),
        Step("|w| > 0 (the case)", wa > 0, circle),
        Step("w = |w| n", z3.And(*(w_a[i] == wa * n[i] for i in range(2))), circle),
        Step("v + u - p/dt = (R/dt) n", z3.And(*(off[i] == radius * n[i] for i in range(2))),
             circle),
        Step("p - (v + u) dt = -R n", z3.And(*(end[i] == -pr.comb_r * n[i] for i in range(2))),
             circle),
        Step("|p - (v + u) dt|^2 = R^2 |n|^2", dot(end, end) == pr.comb_r ** 2 * dot(n, n),
             circle),
        Step("R^2 |n|^2 = R^2", pr.comb_r ** 2 * dot(n, n) == pr.comb_r ** 2,
             _all_but(bb, "R", *bb.names(n))),
        Step("ends touching", touching, circle),
        *_triangle_steps(bb, pr.v, to_p, speed, pr.itau * dist, ("v", "(-p/dt)")),
        Step("|w|^2 = |v + (-p/dt)|^2", wa * wa == dot(add(pr.v, to_p), add(pr.v, to_p)), norms),
        Step("|w|^2 <= (|v| + |p|/dt)^2", wa * wa <= (speed + pr.itau * dist) ** 2,
             _all_but(bb, *bb.names(pr.v, pr.p), "|v|", "|p|", "|wA|", "inv_tau")),
        Step("|w| <= |v| + |p|/dt", wa <= speed + pr.itau * dist, scalars),
        *_triangle_steps(bb, pr.v, from_w, speed, wa, ("v", "(-w)")),
        Step("|v + (-w)|^2 = (|p|/dt)^2", dot(add(pr.v, from_w), add(pr.v, from_w))
             == (pr.itau * dist) ** 2, norms),
        Step("(|p|/dt)^2 <= (|v| + |w|)^2", (pr.itau * dist) ** 2 <= (speed + wa) ** 2,
             _all_but(bb, *bb.names(pr.v, w_a), "|v|", "|p|", "|wA|", "inv_tau")),
        Step("|w| >= |p|/dt - |v|", wa >= pr.itau * dist - speed, scalars),
        Step("|w| dt <= |v| dt + |p|", wa * dt <= speed * dt + dist, scaled),
        Step("|w| dt >= |p| - |v| dt", wa * dt >= dist - speed * dt, scaled),
        Step("scale dt = R - |w| dt", scale * dt == pr.comb_r - wa * dt, scaled),
        Step("|p| <= R", dist <= pr.comb_r,
             (*bb.names(pr.va, pr.vb, pr.va_new, pr.vb_new), "max_speed", "t")),
        Step("the change within the limit", bounded, scaled),
    ]
    return bb.obligation(
        endpoint_hint=pr.endpoint_hint(),
        id="O6/bounded",
        claim="O6",
        title="overlap rule: |u| dt <= overlap depth + |v| dt, ends exactly touching",
        expected=PROVED,
        premise=list(pr.case_facts),
        conclusion=z3.And(touching, bounded),
        steps=steps,
        conclusion_forget=(*bb.names(pr.va_new, pr.vb_new), "max_speed", "t"),
        witness_prefer=[dist > 0, speed > 0],
    )


def _edge_frame(bb: Builder) -> dict[str, z3.ArithRef | Vec]:
    """Agent at the origin, an obstacle edge from ``q1`` along the unit ``e`` of length ``len``,
    the agent to the right of it (RVO2 builds lines only for edges it faces), not colliding
    with the edge's line (the usual view: distance ``h = -det(q1, e) > r``)."""
    r = bb.param("r", "agent_radius_m")
    tau = bb.param("tau_obst", "obstacle_time_horizon_s")
    itau = bb.var("inv_tau_obst", lambda x: x > 0)
    bb.hypotheses.append(itau * tau == 1)
    q1 = bb.vector("q1")
    e = bb.unit("e")
    length = bb.var("len", lambda x: x > 0)
    h = bb.alias("h", -_det(q1, e))
    x = bb.vector("x")
    t = bb.var("t")
    sigma = bb.var("sigma")
    # m: unit normal of the edge pointing to the agent's side
    m = (e[1], -e[0])
    return {"r": r, "tau": tau, "itau": itau, "q1": q1, "e": e, "len": length, "h": h, "x": x,
            "t": t, "sigma": sigma, "m": m}


# O5's frame: lengths, times and velocities of the edge and the agent; e and sigma are unitless.
_EDGE_HINT = rescaled_endpoint(ScaleRoles(
    lengths=("r", "q1_x", "q1_y", "len"), times=("tau_obst", "t"),
    velocities=("x_x", "x_y", "v0_x", "v0_y"), kept=("e_x", "e_y", "sigma")))


def _misses_segment(bb: Builder, f: dict, normal: Vec
                    ) -> tuple[z3.BoolRef, list[Step], tuple[str, ...]]:
    """|x t - (q1 + sigma len e)| >= r, the steps that lead there from a normal-distance bound
    along ``normal`` (unit): n.(x t - y) >= r for every point y of the segment, and what the
    conclusion's check may forget."""
    x, t, q1, e, sigma, length, r = (f[k] for k in ("x", "t", "q1", "e", "sigma", "len", "r"))
    rel = (bb.alias("rel_x", x[0] * t - q1[0] - sigma * length * e[0]),
           bb.alias("rel_y", x[1] * t - q1[1] - sigma * length * e[1]))
    dist_sq = bb.alias("dist_sq", dot(rel, rel))
    nd = bb.alias("n_dot_rel", dot(rel, normal))
    scalar = ("rel_x", "rel_y", "n_dot_rel", "dist_sq", "r")
    others = tuple(sorted(set(bb.env) - set(scalar)))
    keep_cs = ("rel_x", "rel_y", "n_dot_rel", "dist_sq", *bb.names(normal))
    needed = {"rel_x", "rel_y", "n_dot_rel", "t", "sigma", "len", "r", "n_dot_x", "n_dot_q1",
              "n_dot_e", "m_dot_x", "m_dot_q1", *bb.names(x, q1, e, normal)}
    return dist_sq >= r * r, [
        Step("n.(x t - y) >= r", nd >= r, tuple(sorted(set(bb.env) - needed))),
        Step("|x t - y|^2 >= (n.(x t - y))^2 (unit n)", dist_sq >= nd * nd,
             tuple(sorted(set(bb.env) - set(keep_cs) - set(bb.names(e))))),
    ], others


def obstacle_segment(profile: Profile) -> Obligation:
    """O5 segment case: a velocity on the allowed side of the cut-off line of an edge does not
    reach the segment within ``tau_obst``.

    RVO2's cut-off line of an edge (``navproof.orca.lines.obstacle_lines``, "project on the
    cut-off line"): point ``q1/tau + (r/tau) m`` with ``m`` the edge normal towards the agent,
    direction ``-e``; allowed when ``det(-e, point - x) <= 0``. Full responsibility: the
    obstacle does not move and the agent takes the whole change.
    """
    bb = Builder(profile)
    f = _edge_frame(bb)
    r, itau, q1, e, m, x, t, sigma = (f[k] for k in ("r", "itau", "q1", "e", "m", "x", "t",
                                                       "sigma"))
    point = (itau * q1[0] + r * itau * m[0], itau * q1[1] + r * itau * m[1])
    allowed = _det((-e[0], -e[1]), sub(point, x)) <= 0
    conclusion, tail, forget = _misses_segment(bb, f, m)
    n_x = bb.alias("m_dot_x", dot(m, x))
    n_q = bb.alias("m_dot_q1", dot(m, q1))
    steps = [
        Step("|m| = 1", dot(m, m) == 1),
        Step("m.x >= (m.q1 + r)/tau (the line)", n_x >= itau * (n_q + r)),
        Step("-m.q1 = h > r (usual view)", -n_q > r),
        Step("m.(x t - q1) >= r for t in [0, tau]", t * n_x - n_q >= r,
             bb.names(x, q1, e)),
        *tail,
    ]
    return bb.obligation(
        endpoint_hint=_EDGE_HINT,
        id="O5/segment",
        claim="O5",
        title="a velocity allowed by an edge's cut-off line misses the segment within tau_obst",
        expected=PROVED,
        premise=[allowed, f["h"] > r, 0 <= t, t <= f["tau"], 0 <= sigma, sigma <= 1],
        conclusion=conclusion,
        steps=steps,
        conclusion_forget=forget,
        witness_prefer=[t > 0, sigma > 0, sigma < 1],
    )


def obstacle_vertex(profile: Profile) -> Obligation:
    """O5 vertex case: a velocity on the allowed side of the left vertex's cut-off circle line
    does not reach the segment within ``tau_obst``.

    RVO2's case "project on the left cut-off circle" of a convex vertex seen in the usual view
    (the agent's projection falls before the vertex, ``s < 0``; the left leg is the tangent to
    the disk ``(q1, r)``, not a neighbouring edge): with the current velocity ``v0`` and
    ``w = v0 - q1/tau``, the case is ``w.e < 0`` (before the cut-off line) and ``w.l < 0``
    (before the left leg); the line passes through ``q1/tau + (r/tau) n``, ``n = w/|w|``, with
    direction ``(n_y, -n_x)``. The geometric step: in that case ``-q1.n >= r``.
    """
    bb = Builder(profile)
    f = _edge_frame(bb)
    r, itau, q1, e, x, t, sigma = (f[k] for k in ("r", "itau", "q1", "e", "x", "t", "sigma"))
    v0 = bb.vector("v0")
    w = (v0[0] - itau * q1[0], v0[1] - itau * q1[1])
    w_len = bb.var("|w|", lambda z: z > 0)
    bb.hypotheses.append(w_len * w_len == dot(w, w))
    n = (bb.var("n_x"), bb.var("n_y"))
    bb.hypotheses += [n[0] * w_len == w[0], n[1] * w_len == w[1]]
    dist_sq = bb.alias("dist_sq1", dot(q1, q1))
    leg = bb.var("leg1", lambda z: z >= 0)
    bb.hypotheses.append(leg * leg == dist_sq - r * r)
    # left leg direction of the vertex (RVO2 leftLegDirection), times |q1|^2 (sign is all we use)
    left = (q1[0] * leg - q1[1] * r, q1[0] * r + q1[1] * leg)
    point = (itau * q1[0] + r * itau * n[0], itau * q1[1] + r * itau * n[1])
    allowed = _det((n[1], -n[0]), sub(point, x)) <= 0
    w_e = bb.alias("w_dot_e", dot(w, e))
    w_l = bb.alias("w_dot_l", dot(w, left))
    case = [dot(q1, e) > 0, f["h"] > r, w_e < 0, w_l < 0]
    conclusion, tail, forget = _misses_segment(bb, f, n)
    n_x = bb.alias("n_dot_x", dot(n, x))
    n_q = bb.alias("n_dot_q1", dot(n, q1))
    n_e = bb.alias("n_dot_e", dot(n, e))
    n_l = bb.alias("n_dot_l", dot(n, left))
    # coordinates in the edge frame (e, m): q1 = a e - h m, n = c e + s m
    m = f["m"]
    a = bb.alias("a", dot(q1, e))
    n_m = bb.alias("n_dot_m", dot(n, m))
    n_det = bb.alias("det_q1_n", _det(q1, n))
    motion = (*bb.names(x), "t", "sigma")
    in_frame = _all_but(bb, *bb.names(q1, e, n), "a", "h", "n_dot_q1", "n_dot_e", "n_dot_m",
                        "det_q1_n")
    frame = tuple(sorted(set(bb.env) - {"a", "h", "r", "leg1", "n_dot_e", "n_dot_m", "n_dot_q1",
                                         "det_q1_n", "n_dot_l"}))
    steps = [
        Step("|n| = 1", dot(n, n) == 1, motion),
        Step("w.e = |w| n.e and w.l = |w| n.l", z3.And(w_e == w_len * n_e, w_l == w_len * n_l),
             motion),
        Step("n.e < 0 and n.l < 0 (the case)", z3.And(n_e < 0, n_l < 0),
             tuple(sorted(set(bb.env) - {"w_dot_e", "w_dot_l", "|w|", "n_dot_e", "n_dot_l"}))),
        Step("(n.e)^2 + (n.m)^2 = |n|^2 |e|^2 (Lagrange)",
             n_e * n_e + n_m * n_m == dot(n, n) * dot(e, e), in_frame),
        Step("|n|^2 |e|^2 = 1", dot(n, n) * dot(e, e) == 1, in_frame),
        Step("(n.e)^2 + (n.m)^2 = 1", n_e * n_e + n_m * n_m == 1, in_frame),
        Step("a n.e - h n.m = n.q1 |e|^2", a * n_e - f["h"] * n_m == n_q * dot(e, e), in_frame),
        Step("n.q1 = a n.e - h n.m", n_q == a * n_e - f["h"] * n_m, in_frame),
        Step("-(a n.m + h n.e) = det(q1, n) |e|^2",
             -(a * n_m + f["h"] * n_e) == n_det * dot(e, e), in_frame),
        Step("det(q1, n) = -(a n.m + h n.e)", n_det == -(a * n_m + f["h"] * n_e), in_frame),
        Step("n.l = leg n.q1 + r det(q1, n)", n_l == leg * n_q + r * n_det, motion),
        Step("a^2 + h^2 = |q1|^2 |e|^2 (Lagrange)", a * a + f["h"] * f["h"]
             == dot(q1, q1) * dot(e, e), _all_but(bb, "a", "h", *bb.names(q1, e))),
        Step("a^2 + h^2 = |q1|^2", a * a + f["h"] * f["h"] == dot(q1, q1),
             _all_but(bb, "a", "h", *bb.names(q1, e))),
        Step("leg^2 = a^2 + h^2 - r^2", leg * leg == a * a + f["h"] * f["h"] - r * r,
             tuple(sorted(set(bb.env) - {"leg1", "dist_sq1", "a", "h", "r",
                                         *bb.names(q1, e)}))),
        Step("(n.q1)^2 + det(q1, n)^2 = a^2 + h^2", n_q * n_q + n_det * n_det
             == a * a + f["h"] * f["h"], frame),
        Step("-n.e (a^2 + h^2) = -a n.q1 + h det(q1, n)",
             -n_e * (a * a + f["h"] * f["h"]) == -a * n_q + f["h"] * n_det, frame),
        Step("n.q1 < 0", n_q < 0, frame),
        Step("det(q1, n) < leg (from n.l < 0 and n.q1 > -r)", z3.Implies(-n_q < r, n_det < leg),
             frame),
        Step("det(q1, n) < -leg", z3.Implies(-n_q < r, n_det < -leg), frame),
        Step("h leg < a (-n.q1)", z3.Implies(-n_q < r, f["h"] * leg < a * (-n_q)), frame),
        Step("-n.q1 >= r (the tangent at the projection supports the obstacle)", -n_q >= r,
             frame),
        Step("n.x >= (n.q1 + r)/tau (the line)", n_x >= itau * (n_q + r),
             _all_but(bb, *bb.names(n, x, q1), "inv_tau_obst", "r", "n_dot_x", "n_dot_q1")),
        Step("n.(x t - q1) >= r for t in [0, tau]", t * n_x - n_q >= r,
             _all_but(bb, "n_dot_x", "n_dot_q1", "r", "t", "tau_obst", "inv_tau_obst")),
        *tail,
    ]
    return bb.obligation(
        endpoint_hint=_EDGE_HINT,
        id="O5/vertex",
        claim="O5",
        title="a velocity allowed by a vertex's cut-off circle line misses the segment",
        expected=PROVED,
        premise=[allowed, *case, 0 <= t, t <= f["tau"], 0 <= sigma, sigma <= 1],
        conclusion=conclusion,
        steps=steps,
        conclusion_forget=forget,
        witness_prefer=[t > 0, sigma > 0],
    )


def unconstrained(profile: Profile) -> Obligation:
    """O1: when the preferred velocity satisfies every line and the max-speed disk, the closest
    feasible velocity is the preferred one.

    Two ORCA lines (point, unit direction) and the disk of radius ``max_speed``; ``v`` is a
    closest feasible point, used at the feasible point ``pref`` itself:
    ``|v - pref|^2 <= |pref - pref|^2``. Then ``v = pref``: no constraint that ``pref`` meets
    moves the answer.
    """
    bb = Builder(profile)
    speed = bb.param("max_speed", "max_speed_mps")
    pref = bb.vector("pref")
    v = bb.vector("v")
    lines = [(bb.vector(f"point{i}"), bb.unit(f"dir{i}")) for i in range(2)]

    def feasible(y: Vec) -> z3.BoolRef:
        return z3.And(dot(y, y) <= speed * speed,
                      *[_det(d, sub(p, y)) <= 0 for p, d in lines])

    gap = sub(v, pref)
    return bb.obligation(
        id="O1/unconstrained",
        claim="O1",
        title="preferred velocity feasible: the closest feasible velocity is the preferred one",
        expected=PROVED,
        premise=[feasible(pref), feasible(v), dot(gap, gap) <= 0],
        conclusion=z3.And(v[0] == pref[0], v[1] == pref[1]),
        witness_prefer=[dot(pref, pref) > 0],
    )


def _named(oid: str, build: Callable[[Profile], Obligation], doc: str
           ) -> Callable[[Profile], Obligation]:
    """A one-argument builder with its own name and docstring (``navproof claims`` lists it)."""

    def builder(profile: Profile) -> Obligation:
        return build(profile)

    name = oid.lower().replace("/", "_")
    builder.__name__ = builder.__qualname__ = name
    builder.__doc__ = doc
    return builder


def _reciprocity_builder(case: str, shares: str) -> Callable[[Profile], Obligation]:
    oid = _reciprocity_id(case, shares)
    doc = (reciprocity.__doc__ or "").splitlines()[0] + f" Case {case}, shares {shares}."
    return _named(oid, lambda profile: reciprocity(profile, case, shares), doc)


def _reciprocity_id(case: str, shares: str) -> str:
    """Obligation ID of a reciprocity statement (``O7/left_leg_below_one``, ``O3/cutoff``)."""
    case_id = case.replace("-", "_")
    if shares != "one":
        return f"O7/{case_id}_{shares.replace('-', '_')}"
    return "O6/apart" if case == "colliding" else f"O3/{case_id}"


def _closest_id(case: str) -> str:
    return "O6/closest" if case == "colliding" else f"O3/closest_{case.replace('-', '_')}"


def _closest_builder(case: str) -> Callable[[Profile], Obligation]:
    oid = _closest_id(case)
    doc = (smallest_change.__doc__ or "").splitlines()[0] + f" Case {case}."
    return _named(oid, lambda profile: smallest_change(profile, case), doc)


def _entry_builder(oid: str, build: Callable[[Profile], Obligation]
                   ) -> Callable[[Profile], Obligation]:
    return _named(oid, build, (build.__doc__ or "").splitlines()[0])


# One named builder per obligation (``navproof claims`` reads this table from the source).
o1_unconstrained = _entry_builder("O1/unconstrained", unconstrained)
o3_cutoff = _reciprocity_builder("cutoff", "one")
o3_left_leg = _reciprocity_builder("left-leg", "one")
o3_right_leg = _reciprocity_builder("right-leg", "one")
o3_closest_cutoff = _closest_builder("cutoff")
o3_closest_left_leg = _closest_builder("left-leg")
o3_closest_right_leg = _closest_builder("right-leg")
o5_segment = _entry_builder("O5/segment", obstacle_segment)
o5_vertex = _entry_builder("O5/vertex", obstacle_vertex)
o6_apart = _reciprocity_builder("colliding", "one")
o6_closest = _closest_builder("colliding")
o6_bounded = _entry_builder("O6/bounded", overlap_bounded)
o7_cutoff_at_least_one = _reciprocity_builder("cutoff", "at-least-one")
o7_left_leg_at_least_one = _reciprocity_builder("left-leg", "at-least-one")
o7_right_leg_at_least_one = _reciprocity_builder("right-leg", "at-least-one")
o7_colliding_at_least_one = _reciprocity_builder("colliding", "at-least-one")
o7_cutoff_below_one = _reciprocity_builder("cutoff", "below-one")
o7_left_leg_below_one = _reciprocity_builder("left-leg", "below-one")
o7_colliding_below_one = _reciprocity_builder("colliding", "below-one")
o7_cutoff_above_one = _reciprocity_builder("cutoff", "above-one")
o7_left_leg_above_one = _reciprocity_builder("left-leg", "above-one")

OBLIGATIONS: dict[str, Callable[[Profile], Obligation]] = {
    "O1/unconstrained": o1_unconstrained,
    "O3/cutoff": o3_cutoff,
    "O3/left_leg": o3_left_leg,
    "O3/right_leg": o3_right_leg,
    "O3/closest_cutoff": o3_closest_cutoff,
    "O3/closest_left_leg": o3_closest_left_leg,
    "O3/closest_right_leg": o3_closest_right_leg,
    "O5/segment": o5_segment,
    "O5/vertex": o5_vertex,
    "O6/apart": o6_apart,
    "O6/closest": o6_closest,
    "O6/bounded": o6_bounded,
    "O7/cutoff_at_least_one": o7_cutoff_at_least_one,
    "O7/left_leg_at_least_one": o7_left_leg_at_least_one,
    "O7/right_leg_at_least_one": o7_right_leg_at_least_one,
    "O7/colliding_at_least_one": o7_colliding_at_least_one,
    "O7/cutoff_below_one": o7_cutoff_below_one,
    "O7/left_leg_below_one": o7_left_leg_below_one,
    "O7/colliding_below_one": o7_colliding_below_one,
    "O7/cutoff_above_one": o7_cutoff_above_one,
    "O7/left_leg_above_one": o7_left_leg_above_one,
}

REFUTABLE = frozenset(oid for oid in OBLIGATIONS if oid.endswith(("below_one", "above_one")))
