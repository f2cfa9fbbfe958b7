"""V — slope budgets (derivations: ``navproof.proofs.slope``)."""

from __future__ import annotations

import math

import sympy
import z3

from navproof.proofs import slope
from navproof.proofs.obligations.common import (
    PROVED,
    Builder,
    Obligation,
    Replay,
    Step,
    Values,
    cauchy_schwarz_step,
    dot,
    fdot,
    fnorm,
    runtime_formulas,
)
from navproof.specs.profile import Profile


def v1(profile: Profile) -> Obligation:
    """V1: with k = ``SLOPE_FACTOR``(|g|^2), |v| <= ``HORIZONTAL_CAP``(V, k) implies the surface
    speed sqrt(|v|^2 + dot(g, v)^2) <= V (2-D gradient g and horizontal velocity v).

    Steps: Cauchy-Schwarz dot(g, v)^2 <= |g|^2 |v|^2, so surface speed^2 <= k^2 |v|^2
    (k^2 = 1 + |g|^2); k |v| <= V; surface speed^2 <= V^2, hence the speed (both >= 0)."""
    bb = Builder(profile)
    surface = bb.param("V", "surface_speed_cap_mps")
    g = bb.vector("g")
    v = bb.vector("v")
    k = bb.term(slope.SLOPE_FACTOR, grad_sq=dot(g, g))
    bb.shown["k"] = k
    k_lo, k_hi = bb.bounds("slope_factor")
    bb.hypotheses.extend([k_lo <= k, k <= k_hi])
    vh = bb.term(slope.HORIZONTAL_CAP, surface_cap=surface, k=k)
    speed_v = bb.norm("|v|", v)
    gs, gv = sympy.Symbol("g_dot_v", real=True), sympy.Symbol("v_sq", nonnegative=True)
    bb.env[gs.name], bb.env[gv.name] = dot(g, v), dot(v, v)
    surface_speed = bb.tr.term(sympy.sqrt(gv + gs**2))
    bb.shown["surface_speed"] = surface_speed

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        kk = f.slope_factor(grad_sq=x["g_x"] ** 2 + x["g_y"] ** 2)
        vh_f = f.horizontal_cap(surface_cap=x["V"], k=kk)
        sp = math.sqrt(x["v_x"] ** 2 + x["v_y"] ** 2 + fdot(x, "g", "v") ** 2)
        return Replay(
            bool(fnorm(x, "v") <= vh_f and sp > x["V"]),
            f"surface speed {sp:.6g}, V {x['V']:.6g}, Vh {vh_f:.6g}",
        )

    coordinates = bb.names(g, v)
    cap = bb.names(surface, vh)
    steps = [
        cauchy_schwarz_step(g, v, (*cap, *bb.names(k, speed_v, surface_speed))),
        Step(
            "k^2 |v|^2 = (1 + |g|^2) |v|^2",
            k * k * (speed_v * speed_v) == (1 + dot(g, g)) * dot(v, v),
            (*cap, *bb.names(surface_speed)),
        ),
        Step(
            "surface speed^2 <= k^2 |v|^2",
            surface_speed * surface_speed <= k * k * (speed_v * speed_v),
            cap,
        ),
        Step(
            "k |v| <= V (|v| <= V/k)",
            k * speed_v <= surface,
            (*coordinates, *bb.names(surface_speed)),
        ),
        Step(
            "surface speed^2 <= V^2",
            surface_speed * surface_speed <= surface * surface,
            coordinates,
        ),
    ]
    return bb.obligation(
        id="V1",
        claim="V1",
        title="horizontal cap V/k keeps the surface speed <= V",
        expected=PROVED,
        premise=[speed_v <= vh],
        conclusion=surface_speed <= surface,
        replay=replay,
        witness_prefer=[speed_v > 0, dot(g, g) > 0],
        steps=steps,
        conclusion_forget=coordinates,
    )


def v1_factor(profile: Profile) -> Obligation:
    """V1 pinned: ``SLOPE_FACTOR`` is the catalogue's k with k^2 = 1 + |grad h|^2, and the cap
    ``HORIZONTAL_CAP`` is tight: a horizontal speed of exactly Vh along the gradient moves at
    exactly V along the surface (Vh^2 (1 + |g|^2) = V^2)."""
    bb = Builder(profile)
    surface = bb.param("V", "surface_speed_cap_mps")
    grad_sq = bb.var("|g|^2", lambda x: x >= 0)
    k = bb.alias("k", bb.term(slope.SLOPE_FACTOR, grad_sq=grad_sq))
    k_lo, k_hi = bb.bounds("slope_factor")
    bb.hypotheses.extend([k_lo <= k, k <= k_hi])
    bb.covers("k", "slope_factor", k)
    vh = bb.alias("Vh", bb.term(slope.HORIZONTAL_CAP, surface_cap=surface, k=k))

    def replay(x: Values) -> Replay:
        f = runtime_formulas()
        kk = f.slope_factor(grad_sq=x["|g|^2"])
        vh_f = f.horizontal_cap(surface_cap=x["V"], k=kk)
        # Walk along the gradient at vh_f for a short time: surface length over time.
        h = 1e-3
        run = vh_f * h
        rise = run * x["|g|^2"] ** 0.5
        surface_speed = (run * run + rise * rise) ** 0.5 / h
        return Replay(
            bool(abs(kk * kk - 1 - x["|g|^2"]) > 1e-9 or abs(surface_speed - x["V"]) > 1e-9),
            f"k {kk:.6g}, surface speed at Vh along the gradient {surface_speed:.6g}, "
            f"V {x['V']:.6g}",
        )

    return bb.obligation(
        id="V1/factor",
        claim="V1",
        title="k^2 = 1 + |grad h|^2 and Vh is tight along the gradient",
        expected=PROVED,
        premise=[],
        conclusion=z3.And(k * k == 1 + grad_sq, vh * vh * (1 + grad_sq) == surface * surface),
        replay=replay,
        witness_prefer=[grad_sq > 0],
    )


OBLIGATIONS = {"V1": v1, "V1/factor": v1_factor}
