"""S7 — control invariance (derivations: ``navproof.proofs.stop_envelope``,
``boundary``).

S7 obligations: a safe step at k leaves a safe candidate at k + 1 (control invariance).

Setting (the claim's hypotheses): one edge of a set (each edge is proved alone; the candidate
below does not depend on the edge, so it serves every edge at once), edge and support
translating at constant velocities within the profile's ranges, the reference r keeping the
edge (``dot(n, r - e) <= 0``, R1) and the stop target within the cap (``|r - u| <= Vh``, R2), no
dynamic neighbours. The state at the start of step k + 1 is the end of step k: margin ``s1``
and end velocity ``v1`` (relative to the support), ``c1 = u + v1 - r``.

Premise (step k was labelled safe): ``|v1| <= Vh`` (V1), ``s1 >= 0`` (B4) and the S7 braking
envelope ``BRAKE_ENVELOPE_MARGIN(s1, dot(n, c1), K) >= 0`` with ``K = BRAKE_ENVELOPE_FACTOR``.

Candidate (the witness of the next step): the strongest braking along c, ``c2 = lambda c1``
with ``lambda |c1| = BRAKED_SPEED(|c1|)`` (``lambda = 0`` at rest), i.e. ``v2 = r - u + c2``.

Conclusions, split into three obligations that z3 decides separately:
- ``S7/reach``: ``|v2 - v1| <= a dt`` (V2) and ``|v2| <= Vh`` (V1);
- ``S7/boundary``: the margin of the whole next step (B4's ``ACCEL_MARGIN`` for all t in
  [0, dt]) stays >= 0, and the S7 envelope holds again at its end;
- ``S7/envelope``: the next step also meets the shared linear envelope of S3
  (``dot(n, c2) <= LINEAR_ENVELOPE_BOUND(s1, dt, a, Cmax)``).
Compositions with the runtime's own constraints (what the solve actually enforces):
- ``S7/halfplane``: the runtime's half-plane ``dot(n, v1) <= BRAKE_ENVELOPE_OFFSET`` is exactly
  the envelope at the end of the accelerating step, the end margin taken from the step's 2-D
  world model (so a wrong offset derivation fails here, not only in a test);
- ``S7/stop_after_step``: a step inside the runtime's B4 and S7 half-planes can be followed by
  braking at a to c = 0 (plain kinematics) without the margin going below zero.
By induction the body stays safe on every step; while it approaches, the speed falls by a dt per
step, so it comes to rest with a margin >= 0 (at or before the wall), and the hold at r keeps
that margin (R3).
"""

from __future__ import annotations

import math

import z3

from navproof.proofs import boundary, stop_envelope
from navproof.proofs.obligations.common import (
    PROVED,
    Builder,
    Obligation,
    Replay,
    Step,
    Values,
    add,
    dot,
    fdot,
    runtime_formulas,
    sub,
)
from navproof.proofs.obligations.kinematics import least_margin_step_then_brake, ramp_margin_at
from navproof.proofs.obligations.stop_envelope import _envelope_cap
from navproof.specs.profile import Profile


class _Setting:
    """The variables, premise and braking candidate shared by the three S7 obligations."""

    def __init__(self, profile: Profile) -> None:
        bb = self.bb = Builder(profile)
        self.dt = bb.param("dt", "step_s")
        self.a = bb.param("a", "brake_budget_mps2")
        self.n = bb.unit("n")
        self.u = bb.bounded_vector("u", "support_speed_mps")
        self.e = bb.bounded_vector("e", "edge_speed_mps")
        self.r = bb.vector("r")
        self.c1 = bb.vector("c1")
        self.s1 = bb.var("s1")
        self.vh, self.cmax = _envelope_cap(bb, self.u, self.r)
        self.k = bb.alias("K", bb.term(stop_envelope.BRAKE_ENVELOPE_FACTOR, cmax=self.cmax,
                                       dt=self.dt, a=self.a))
        # the stop target w = r - u and the end velocity v1 = c1 + w as named components
        self.w = (bb.alias("w_x", self.r[0] - self.u[0]), bb.alias("w_y", self.r[1] - self.u[1]))
        self.v1 = (bb.alias("v1_x", self.c1[0] + self.w[0]),
                   bb.alias("v1_y", self.c1[1] + self.w[1]))
        self.speed_v1 = bb.norm("|v1|", self.v1)
        self.speed_w = bb.norm("|w|", self.w)
        self.speed_c1 = bb.norm("|c1|", self.c1)
        self.speed_c2 = bb.alias("|c2|", bb.term(stop_envelope.BRAKED_SPEED,
                                                  speed=self.speed_c1, dt=self.dt, a=self.a))
        # c2 = lambda c1 with lambda |c1| = |c2| (zero at rest): no division
        self.lam = bb.var("lambda")
        bb.hypotheses.append(z3.If(self.speed_c1 > 0, self.lam * self.speed_c1 == self.speed_c2,
                                   self.lam == 0))
        self.c2 = (self.lam * self.c1[0], self.lam * self.c1[1])
        self.v2 = (self.c2[0] + self.w[0], self.c2[1] + self.w[1])
        self.p1 = bb.alias("n_dot_c1", dot(self.n, self.c1))
        self.p2 = bb.alias("n_dot_c2", self.lam * self.p1)
        self.nu = bb.alias("n_dot_u", dot(self.n, self.u))
        self.ne = bb.alias("n_dot_e", dot(self.n, self.e))
        self.nr = bb.alias("n_dot_r", dot(self.n, self.r))
        envelope = bb.term(stop_envelope.BRAKE_ENVELOPE_MARGIN, s_end=self.s1, n_dot_c=self.p1,
                           kfac=self.k)
        self.premise = [self.speed_v1 <= self.vh, self.speed_w <= self.vh, self.s1 >= 0,
                        envelope >= 0, self.nr - self.ne <= 0]

    def keep_only(self, *terms: z3.ExprRef) -> tuple[str, ...]:
        """Names to forget so that a step sees only the facts about ``terms``'s constants."""
        # only the named variables are forgotten; the translator's helper variables (reciprocals)
        # go with the facts of the variables they belong to
        named = set(self.bb.names(*self.bb.shown.values()))
        return tuple(sorted(named - set(self.bb.names(*terms))))

    def margin(self, t: z3.ArithRef) -> z3.ArithRef:
        """B4's margin at time t of step k + 1 (from v1 to the candidate v2)."""
        # dot(n, v) = dot(n, c) + dot(n, r) - dot(n, u) for v = c + r - u
        return self.bb.term(boundary.ACCEL_MARGIN, s=self.s1, t=t, dt=self.dt, n_dot_e=self.ne,
                            n_dot_u=self.nu, n_dot_v0=self.p1 + self.nr - self.nu,
                            n_dot_v1=self.p2 + self.nr - self.nu)

    def candidate_steps(self) -> list[Step]:
        """Lemmas about the candidate: |c1| <= Cmax, 0 <= lambda <= 1, |c1| - |c2| <= a dt."""
        m1, m2, lam = self.speed_c1, self.speed_c2, self.lam
        return [
            *self.speed_steps(),
            Step("0 <= |c1| - |c2| <= a dt", z3.And(m1 - m2 >= 0, m1 - m2 <= self.a * self.dt),
                 self.keep_only(m1, m2, self.a, self.dt)),
            Step("0 <= lambda <= 1", z3.And(lam >= 0, lam <= 1),
                 self.keep_only(m1, m2, lam, self.a, self.dt)),
        ]

    def speed_steps(self) -> list[Step]:
        """Lemmas about the speed relative to the stop target: |c1| <= Cmax (S4)."""
        m1 = self.speed_c1
        return [
            Step("dot(v1, w) >= -|v1| |w|",
                 dot(self.v1, self.w) >= -self.speed_v1 * self.speed_w,
                 self.keep_only(*self.v1, *self.w, self.speed_v1, self.speed_w)),
            *self.triangle_steps(),
            Step("|w| = |u - r|", self.speed_w == self.bb.shown["|u-r|"],
                 self.keep_only(*self.w, *self.u, *self.r, self.speed_w,
                                self.bb.shown["|u-r|"])),
            Step("|c1| <= Cmax (S4)", m1 <= self.cmax,
                 self.keep_only(m1, self.cmax, self.speed_v1, self.speed_w, self.vh,
                                self.bb.shown["|u-r|"])),
        ]

    def triangle_steps(self) -> list[Step]:
        """The triangle inequality |c1| <= |v1| + |w| for c1 = v1 - w, in squared form.

        The square roots enter through their defining facts (``|x| >= 0``, ``|x|^2 = dot(x, x)``):
        the law of cosines is proved with |v1| and |c1| only, then |w|^2 takes the place of
        dot(w, w); with Cauchy-Schwarz (the step before) the squares compare, and from the squares
        alone (``s^2 <= t^2`` with ``s, t >= 0``) follows ``s <= t``.
        """
        m1, s_v1, s_w = self.speed_c1, self.speed_v1, self.speed_w
        v1, w = self.v1, self.w
        cosines = m1 * m1 - s_v1 * s_v1 + 2 * dot(v1, w)
        return [
            Step("|c1|^2 = |v1|^2 - 2 dot(v1, w) + dot(w, w) (c1 = v1 - w)",
                 cosines == dot(w, w), self.keep_only(m1, *self.c1, *v1, *w, s_v1)),
            Step("|c1|^2 = |v1|^2 - 2 dot(v1, w) + |w|^2", cosines == s_w * s_w,
                 self.keep_only(m1, *v1, *w, s_v1, s_w)),
            Step("|c1|^2 <= (|v1| + |w|)^2", m1 * m1 <= (s_v1 + s_w) * (s_v1 + s_w),
                 self.keep_only(m1, *v1, *w, s_v1, s_w)),
            Step("|c1| <= |v1| + |w| (c1 = v1 - w)", m1 <= s_v1 + s_w,
                 self.keep_only(m1, s_v1, s_w)),
        ]

    @staticmethod
    def replay_state(x: Values) -> dict[str, float]:
        """The candidate recomputed from a model through the generated runtime formulas."""
        f = runtime_formulas()
        vh = f.horizontal_cap(surface_cap=x["V"], k=x["k"])
        w = (x["r_x"] - x["u_x"], x["r_y"] - x["u_y"])
        cm = f.envelope_speed_cap(vh=vh, carry=math.hypot(*w))
        kk = f.brake_envelope_factor(cmax=cm, dt=x["dt"], a=x["a"])
        c1 = (x["c1_x"], x["c1_y"])
        m1 = math.hypot(*c1)
        m2 = float(f.braked_speed(speed=m1, dt=x["dt"], a=x["a"]))
        scale = m2 / m1 if m1 > 0 else 0.0
        c2 = (c1[0] * scale, c1[1] * scale)
        v1 = (c1[0] + w[0], c1[1] + w[1])
        v2 = (c2[0] + w[0], c2[1] + w[1])
        n = (x["n_x"], x["n_y"])
        p1 = n[0] * c1[0] + n[1] * c1[1]
        drift = n[0] * (x["r_x"] - x["e_x"]) + n[1] * (x["r_y"] - x["e_y"])
        premise = (math.hypot(*v1) <= vh and math.hypot(*w) <= vh and x["s1"] >= 0
                   and f.brake_envelope_margin(s_end=x["s1"], n_dot_c=p1, kfac=kk) >= 0
                   and drift <= 0)
        return {"vh": vh, "cmax": cm, "K": kk, "v1x": v1[0], "v1y": v1[1], "v2x": v2[0],
                "v2y": v2[1], "c2x": c2[0], "c2y": c2[1], "premise": float(premise)}


def _mix_steps(st: _Setting, speed_sq: z3.ArithRef, combo: z3.ArithRef) -> list[Step]:
    """|v2|^2 <= mix^2 for v2 = lambda v1 + (1 - lambda) w and mix = lambda |v1| + (1 - lambda)
    |w|: |v2|^2 expanded in dot products, then with |v1|^2 and |w|^2 in place of dot(v1, v1) and
    dot(w, w); the cross term bounded by Cauchy-Schwarz (0 <= lambda <= 1); the bound is mix^2."""
    lam, v1, w, s_v1, s_w = st.lam, st.v1, st.w, st.speed_v1, st.speed_w
    mixed = 2 * lam * (1 - lam)
    return [
        Step("|v2|^2 = lambda^2 dot(v1, v1) + 2 lambda (1 - lambda) dot(v1, w) + "
             "(1 - lambda)^2 dot(w, w)",
             speed_sq == lam * lam * dot(v1, v1) + mixed * dot(v1, w)
             + (1 - lam) * (1 - lam) * dot(w, w),
             st.keep_only(*st.c1, *v1, *w, lam, speed_sq)),
        Step("|v2|^2 = lambda^2 |v1|^2 + 2 lambda (1 - lambda) dot(v1, w) + "
             "(1 - lambda)^2 |w|^2",
             speed_sq == lam * lam * s_v1 * s_v1 + mixed * dot(v1, w)
             + (1 - lam) * (1 - lam) * s_w * s_w,
             st.keep_only(*v1, *w, lam, speed_sq, s_v1, s_w)),
        Step("lambda (1 - lambda) dot(v1, w) <= lambda (1 - lambda) |v1| |w|",
             mixed * dot(v1, w) <= mixed * s_v1 * s_w,
             st.keep_only(*v1, *w, lam, s_v1, s_w)),
        Step("|v2|^2 <= (lambda |v1|)^2 + 2 lambda (1 - lambda) |v1| |w| + ((1 - lambda) |w|)^2",
             speed_sq <= lam * lam * s_v1 * s_v1 + mixed * s_v1 * s_w
             + (1 - lam) * (1 - lam) * s_w * s_w,
             st.keep_only(*v1, *w, lam, speed_sq, s_v1, s_w)),
        Step("|v2|^2 <= mix^2, mix = lambda |v1| + (1 - lambda) |w|", speed_sq <= combo * combo,
             st.keep_only(lam, speed_sq, combo, s_v1, s_w)),
    ]


def s7_reach(profile: Profile) -> Obligation:
    """S7/reach: the braking candidate lies in the reachable disk (V2) and the speed disk (V1).

    |v2 - v1| = (1 - lambda) |c1| = |c1| - |c2| <= a dt; v2 = lambda v1 + (1 - lambda) w is a
    convex combination of v1 and the stop target w = r - u, both within Vh (Cauchy-Schwarz).
    """
    st = _Setting(profile)
    bb = st.bb
    lam, m1, m2 = st.lam, st.speed_c1, st.speed_c2
    d = (st.v2[0] - st.v1[0], st.v2[1] - st.v1[1])
    reach_sq = bb.alias("|v2-v1|^2", dot(d, d))
    speed_sq = bb.alias("|v2|^2", dot(st.v2, st.v2))
    radius = st.a * st.dt
    cauchy = dot(st.v1, st.w) <= st.speed_v1 * st.speed_w
    combo = bb.alias("mix", lam * st.speed_v1 + (1 - lam) * st.speed_w)
    steps = [
        *st.candidate_steps(),
        Step("dot(v1, w) <= |v1| |w|", cauchy, st.keep_only(*st.v1, *st.w, st.speed_v1,
                                                               st.speed_w)),
        *_mix_steps(st, speed_sq, combo),
        Step("0 <= mix <= Vh", z3.And(combo >= 0, combo <= st.vh),
             st.keep_only(st.speed_v1, st.speed_w, lam, st.vh, combo)),
        Step("|v2 - v1| = |c1| - |c2|", reach_sq == (m1 - m2) ** 2,
             st.keep_only(*st.c1, *st.v1, *st.w, m1, m2, lam, st.a, st.dt, reach_sq)),
    ]

    def replay(x: Values) -> Replay:
        y = _Setting.replay_state(x)
        reach = math.hypot(y["v2x"] - y["v1x"], y["v2y"] - y["v1y"])
        spd = math.hypot(y["v2x"], y["v2y"])
        bad = reach > x["a"] * x["dt"] * (1 + 1e-12) or spd > y["vh"] * (1 + 1e-12)
        return Replay(bool(y["premise"] and bad), f"|v2-v1| {reach:.6g}, |v2| {spd:.6g}")

    return bb.obligation(
        id="S7/reach",
        claim="S7",
        title="the braking candidate is reachable and within the speed cap",
        expected=PROVED,
        premise=st.premise,
        conclusion=z3.And(reach_sq <= radius * radius, speed_sq <= st.vh * st.vh),
        replay=replay,
        witness_prefer=[m1 > radius],
        steps=steps,
        conclusion_forget=st.keep_only(st.a, st.dt, st.vh, m1, m2, reach_sq, speed_sq, combo),
    )


def s7_boundary(profile: Profile) -> Obligation:
    """S7/boundary: the candidate's whole step stays inside and ends inside the S7 envelope.

    Steps: |dot(n, c1)| <= |c1|; the envelope releases K (dot(n,c1) - dot(n,c2)) >=
    dt (dot(n,c1) + dot(n,c2))/2, the margin the step consumes (the derivation of
    ``BRAKE_ENVELOPE_FACTOR``); the reference drift never consumes margin; the ramp's
    displacement up to any t is at most its whole-step one while dot(n, c) keeps one sign.
    """
    st = _Setting(profile)
    bb = st.bb
    t = bb.var("t")
    st.premise.extend([t >= 0, t <= st.dt])
    end = st.margin(st.dt)
    at_t = st.margin(t)
    envelope = bb.term(stop_envelope.BRAKE_ENVELOPE_MARGIN, s_end=end, n_dot_c=st.p2,
                       kfac=st.k)
    p1, p2, k, dt, a, m1, lam = st.p1, st.p2, st.k, st.dt, st.a, st.speed_c1, st.lam
    consumed = dt * (p1 + p2) / 2
    drift = st.nr - st.ne
    scalars = (p1, p2, k, dt, a, m1, st.speed_c2, lam, st.s1, st.cmax)
    steps = [
        *st.candidate_steps(),
        Step("|dot(n, c1)| <= |c1|", z3.And(p1 <= m1, -p1 <= m1),
             st.keep_only(*st.n, *st.c1, m1, p1)),
        Step("K >= |c1|/a - dt/2 and K >= dt/2",
             z3.And(k * a >= m1 - a * dt / 2, 2 * k >= dt), st.keep_only(k, st.cmax, a, dt, m1)),
        Step("one braking step: K dot(n,c2) + consumed <= max(K dot(n,c1), 0)",
             k * p2 + consumed <= z3.If(p1 >= 0, k * p1, 0), st.keep_only(*scalars)),
        Step("end margin = s1 - consumed - dt dot(n, r - e)",
             end == st.s1 - consumed - dt * drift,
             st.keep_only(*scalars, st.nr, st.ne, st.nu)),
        Step("margin at t >= s1 - consumed (approaching) or s1 (leaving)",
             at_t >= z3.If(p1 >= 0, st.s1 - consumed, st.s1),
             st.keep_only(*scalars, st.nr, st.ne, st.nu, t)),
    ]

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        y = _Setting.replay_state(x)
        n = (x["n_x"], x["n_y"])

        def nd(vx: float, vy: float) -> float:
            return n[0] * vx + n[1] * vy

        common = dict(s=x["s1"], dt=x["dt"], n_dot_e=nd(x["e_x"], x["e_y"]),
                      n_dot_u=nd(x["u_x"], x["u_y"]), n_dot_v0=nd(y["v1x"], y["v1y"]),
                      n_dot_v1=nd(y["v2x"], y["v2y"]))
        m_t = f.accel_margin(t=x["t"], **common)
        m_end = f.accel_margin(t=x["dt"], **common)
        env = f.brake_envelope_margin(s_end=m_end, n_dot_c=nd(y["c2x"], y["c2y"]), kfac=y["K"])
        bad = m_t < 0 or env < 0 or m_end < 0
        return Replay(bool(y["premise"] and bad),
                      f"margin at t {m_t:.6g}, envelope at the end {env:.6g}")

    return bb.obligation(
        id="S7/boundary",
        claim="S7",
        title="the braking candidate's step stays inside and keeps the S7 envelope",
        expected=PROVED,
        premise=st.premise,
        conclusion=z3.And(at_t >= 0, end >= 0, envelope >= 0),
        replay=replay,
        witness_prefer=[p1 > 0, m1 > a * dt, t > 0, t < dt, drift < 0],
        steps=steps,
        conclusion_forget=st.keep_only(*scalars, st.nr, st.ne, st.nu, t),
    )


def s7_envelope(profile: Profile) -> Obligation:
    """S7/envelope: the candidate also meets S3's shared linear envelope at step k + 1.

    Steps: lambda (dt + Cmax/(2a)) <= K (lambda = 1 - a dt/|c1| <= 1 - a dt/Cmax while braking,
    0 on the last step); the premise s1 >= K dot(n, c1) then bounds dot(n, c2) (dt + Cmax/(2a))
    by s1.
    """
    st = _Setting(profile)
    bb = st.bb
    bound = bb.term(stop_envelope.LINEAR_ENVELOPE_BOUND, s=st.s1, dt=st.dt, a=st.a,
                    cmax=st.cmax)
    factor_cap = bb.alias("factor(Cmax)", bb.term(stop_envelope.STOP_DISPLACEMENT_FACTOR,
                                                  speed=st.cmax, dt=st.dt, a=st.a))
    p1, p2, k, lam = st.p1, st.p2, st.k, st.lam
    scalars = (st.cmax, st.dt, st.a, k, lam, st.speed_c1, st.speed_c2, factor_cap)
    steps = [
        *st.candidate_steps(),
        Step("lambda factor(Cmax) <= K", lam * factor_cap <= k, st.keep_only(*scalars)),
        Step("dot(n, c2) factor(Cmax) <= max(K dot(n, c1), 0)",
             p2 * factor_cap <= z3.If(p1 >= 0, k * p1, 0), st.keep_only(*scalars, p1, p2)),
    ]

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        y = _Setting.replay_state(x)
        lb = f.linear_envelope_bound(s=x["s1"], dt=x["dt"], a=x["a"], cmax=y["cmax"])
        p2_f = x["n_x"] * y["c2x"] + x["n_y"] * y["c2y"]
        return Replay(bool(y["premise"] and p2_f > lb), f"dot(n,c2) {p2_f:.6g}, bound {lb:.6g}")

    return bb.obligation(
        id="S7/envelope",
        claim="S7",
        title="the braking candidate meets the shared linear envelope (S3)",
        expected=PROVED,
        premise=st.premise,
        conclusion=p2 <= bound,
        replay=replay,
        witness_prefer=[p1 > 0, st.speed_c1 > st.a * st.dt],
        steps=steps,
        conclusion_forget=st.keep_only(*scalars, p1, p2, st.s1, bound),
    )


def _world_end_margin(bb: Builder, s, dt, n, u, e, v0, v1) -> z3.ArithRef:
    """Margin at the step end from the 2-D world model of the step, written here and not taken
    from a derivation: the body moves x(t) = x0 + (u + v0) t + (v1 - v0) t^2 / (2 dt) relative to
    its start, the edge moves at e, so the end margin is s + dt dot(n, e) - dot(n, x(dt) - x0)."""
    half = z3.RealVal("1/2")
    moved = tuple((u[i] + v0[i]) * dt + (v1[i] - v0[i]) * dt * half for i in range(2))
    return bb.alias("s_end_world", s + dt * dot(n, e) - dot(n, moved))


def s7_halfplane(profile: Profile) -> Obligation:
    """S7/halfplane (composition of B4 and S7): the runtime's half-plane
    ``dot(n, v1) <= BRAKE_ENVELOPE_OFFSET`` holds exactly when the margin at the end of the
    accelerating step, taken from the 2-D world model of the step, covers K dot(n, u + v1 - r)
    with the runtime's factor K = ``BRAKE_ENVELOPE_FACTOR``."""
    bb = Builder(profile)
    dt = bb.param("dt", "step_s")
    a = bb.param("a", "brake_budget_mps2")
    s = bb.param("s", "initial_margin_m")
    n = bb.unit("n")
    u = bb.bounded_vector("u", "support_speed_mps")
    e = bb.bounded_vector("e", "edge_speed_mps")
    r, v0, v1 = bb.vector("r"), bb.vector("v0"), bb.vector("v1")
    cmax = bb.var("Cmax", lambda x: x > 0)
    k = bb.alias("K", bb.term(stop_envelope.BRAKE_ENVELOPE_FACTOR, cmax=cmax, dt=dt, a=a))
    end = _world_end_margin(bb, s, dt, n, u, e, v0, v1)
    offset = bb.alias("q", bb.term(stop_envelope.BRAKE_ENVELOPE_OFFSET, s=s, dt=dt,
                                   n_dot_e=dot(n, e), n_dot_u=dot(n, u), n_dot_v0=dot(n, v0),
                                   n_dot_r=dot(n, r), kfac=k))
    c1 = sub(add(u, v1), r)

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        kk = f.brake_envelope_factor(cmax=x["Cmax"], dt=x["dt"], a=x["a"])
        q = f.brake_envelope_offset(s=x["s"], dt=x["dt"], n_dot_e=fdot(x, "n", "e"),
                                    n_dot_u=fdot(x, "n", "u"), n_dot_v0=fdot(x, "n", "v0"),
                                    n_dot_r=fdot(x, "n", "r"), kfac=kk)
        world_end = ramp_margin_at(x["dt"], s=x["s"], dt=x["dt"], n_dot_e=fdot(x, "n", "e"),
                                   n_dot_u=fdot(x, "n", "u"), n_dot_v0=fdot(x, "n", "v0"),
                                   n_dot_v1=fdot(x, "n", "v1"))
        p1 = fdot(x, "n", "u") + fdot(x, "n", "v1") - fdot(x, "n", "r")
        inside = fdot(x, "n", "v1") <= q
        covered = world_end - kk * p1 >= 0
        return Replay(bool(inside != covered),
                      f"dot(n,v1) {fdot(x, 'n', 'v1'):.6g}, offset {q:.6g}, "
                      f"end margin {world_end:.6g}, K dot(n,c1) {kk * p1:.6g}")

    return bb.obligation(
        id="S7/halfplane",
        claim="S7",
        title="the S7 half-plane is the braking envelope at the end of the accelerating step",
        expected=PROVED,
        premise=[],
        conclusion=(dot(n, v1) <= offset) == (end - k * dot(n, c1) >= 0),
        replay=replay,
        witness_prefer=[s > 0, dot(n, v1) != dot(n, v0), dot(n, e) != 0, cmax > a * dt],
    )


def s7_stop_after_step(profile: Profile) -> Obligation:
    """S7/stop_after_step (composition of B4, S7 and S1): a step that meets the runtime's B4 and
    S7 half-planes (generated offsets, in v1) can be followed by braking at the budget a along
    c1 = u + v1 - r to c = 0, and the margin stays >= 0 during that brake: the end margin is
    taken from the 2-D world model of the step and the brake is plain kinematics written here
    (normal displacement dot(n, c1) (tau - a tau^2 / (2 |c1|)) plus the drift with r, the edge
    moving at e), at every time tau = q |c1| / a with q in [0, 1].
    """
    st = _Setting(profile)
    bb = st.bb
    s = bb.param("s", "initial_margin_m")
    v0 = bb.vector("v0")
    q = bb.var("q")
    end = _world_end_margin(bb, s, st.dt, st.n, st.u, st.e, v0, st.v1)
    n_dot_v0 = bb.alias("n_dot_v0", dot(st.n, v0))
    common = dict(s=s, dt=st.dt, n_dot_e=st.ne, n_dot_u=st.nu, n_dot_v0=n_dot_v0)
    b4_bound = bb.alias("q_B4", bb.term(boundary.ACCEL_STEP_V1_BOUND, **common))
    s7_offset = bb.alias("q_S7", bb.term(stop_envelope.BRAKE_ENVELOPE_OFFSET, n_dot_r=st.nr,
                                         kfac=st.k, **common))
    n_dot_v1 = bb.alias("n_dot_v1", dot(st.n, st.v1))
    # the runtime's facts about the step replace S7's premise on s1 (which they must imply)
    st.premise = [st.speed_v1 <= st.vh, st.speed_w <= st.vh, st.nr - st.ne <= 0,
                  n_dot_v1 <= b4_bound, n_dot_v1 <= s7_offset, st.s1 == end, q >= 0, q <= 1]
    p1, k, a, dt, m1 = st.p1, st.k, st.a, st.dt, st.speed_c1
    half = z3.RealVal("1/2")
    braking = bb.alias("brake_margin",
                       st.s1 - q * m1 / a * (st.nr - st.ne) - p1 * m1 / a * (q - q * q * half))
    vectors = (*v0, *st.n, *st.u, *st.e, *st.r, *st.c1, *st.v1, *st.w)
    normal = (s, dt, st.nu, st.ne, st.nr, n_dot_v0, n_dot_v1, p1, st.s1, end)
    scalars = (st.s1, k, p1, m1, a, dt, st.nr, st.ne, q, st.cmax)
    steps = [
        *st.speed_steps(),
        Step("end margin = s + dt dot(n, e - u) - dt (dot(n, v0) + dot(n, v1))/2",
             st.s1 == s + dt * (st.ne - st.nu) - dt * (n_dot_v0 + n_dot_v1) / 2,
             st.keep_only(*vectors, *normal)),
        Step("dot(n, v1) = dot(n, c1) + dot(n, r) - dot(n, u)", n_dot_v1 == p1 + st.nr - st.nu,
             st.keep_only(*vectors, *normal)),
        Step("end margin >= 0 (the B4 half-plane)", st.s1 >= 0,
             st.keep_only(*normal, b4_bound)),
        Step("K >= dt/2", 2 * k >= dt, st.keep_only(k, st.cmax, a, dt)),
        Step("K >= |c1|/a - dt/2", k * a >= m1 - a * dt / 2, st.keep_only(k, st.cmax, a, dt, m1)),
        Step("2 a K >= |c1|", 2 * a * k >= m1, st.keep_only(k, a, dt, m1)),
        Step("(dt + 2K) dot(n, v1) <= (dt + 2K) q_S7 (the S7 half-plane)",
             (dt + 2 * k) * n_dot_v1 <= (dt + 2 * k) * s7_offset,
             st.keep_only(dt, k, n_dot_v1, s7_offset)),
        Step("end margin >= K dot(n, c1)", st.s1 >= k * p1,
             st.keep_only(*normal, s7_offset, k)),
    ]

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        y = _Setting.replay_state(x)
        vec = {p: (x[f"{p}_x"], x[f"{p}_y"]) for p in ("n", "u", "e", "r", "v0")}
        v1 = (y["v1x"], y["v1y"])
        common_f = dict(s=x["s"], dt=x["dt"], n_dot_e=fdot(x, "n", "e"),
                        n_dot_u=fdot(x, "n", "u"), n_dot_v0=fdot(x, "n", "v0"))
        nv1 = vec["n"][0] * v1[0] + vec["n"][1] * v1[1]
        q_b4 = f.accel_step_v1_bound(**common_f)
        q_s7 = f.brake_envelope_offset(n_dot_r=fdot(x, "n", "r"), kfac=y["K"], **common_f)
        w = (x["r_x"] - x["u_x"], x["r_y"] - x["u_y"])
        drift = fdot(x, "n", "r") - fdot(x, "n", "e")
        premise = (math.hypot(*v1) <= y["vh"] and math.hypot(*w) <= y["vh"] and drift <= 0
                   and nv1 <= q_b4 and nv1 <= q_s7)
        least = least_margin_step_then_brake(x["s"], x["dt"], x["a"], vec["n"], vec["u"], vec["e"],
                                         vec["r"], vec["v0"], v1)
        return Replay(bool(premise and least < -1e-9),
                      f"least margin over the step and the brake {least:.6g}")

    return bb.obligation(
        id="S7/stop_after_step",
        claim="S7",
        title="after a step inside the B4 and S7 half-planes, braking at a stays inside",
        expected=PROVED,
        premise=st.premise,
        conclusion=braking >= 0,
        replay=replay,
        witness_prefer=[p1 > 0, m1 > a * dt, q > 0, q < 1, st.nr - st.ne < 0],
        steps=steps,
        conclusion_forget=st.keep_only(*scalars, braking),
    )


OBLIGATIONS = {"S7/reach": s7_reach, "S7/boundary": s7_boundary, "S7/envelope": s7_envelope,
               "S7/halfplane": s7_halfplane, "S7/stop_after_step": s7_stop_after_step}
