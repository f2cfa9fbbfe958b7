"""The step monitor's block pass over the edges (the step frame, reference, owed claims and
margins computed and judged block by block) raises exactly what the whole-array re-check it
replaced raised: the same claim, agent, observed value, margin, message and payload, bit for
bit, on random crowds with failing steps (walls and portals, moving and rotating edges and
supports, zero budgets, every label); its carry, owed claims, R2 agent and margins equal the
whole arrays bit for bit. The reference below is that re-check, over the solve's step frame
(:func:`navproof.step.constraints.edge_frame`) and its recomputed (N, K) margins.
Claim: B5, S3, S7, B6, V2, W1, R2."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from navproof import boundary as b
from navproof import step as ss
from navproof.boundary.margins import curve_min_margin_m
from navproof.boundary.rigid import moving_frame_pairs
from navproof.boundary.slope import reach_margin_mps
from navproof.core.errors import InvalidInput, ObligationViolation
from navproof.core.tolerances import EPS
from navproof.core.validation import check_valid_budget
from navproof.step.constraints import edge_frame
from navproof.step.monitor import (
    B5_FOUND,
    FRAME_MOVES,
    OWES_CORRIDOR,
    OWES_ENVELOPE,
    OWES_REACH,
    OWES_ROTATING,
    OWES_SWEEP,
    REACH_HELD_MAX_MPS,
    REACH_OPEN,
    S3_FOUND,
    S7_FOUND,
    _least_below,
    _owed_claims,
    _raise_at,
    _raise_first,
    _reach_held,
    check_committed_step,
    checked_frame,
)
from navproof.step.result import FLAG_CARRY_EXCEEDS_CANCEL, LABEL_NAMES
from navproof.step.verify import (
    _committed_edge_margins,
    _edge_step_margins,
    rotating_stop_margins_m,
    sweep_end_velocity_mps,
    sweep_margins_m,
)

DT = 0.1


def recomputed_edge_margins(edges: b.EdgeSet, dt_s: np.ndarray, accel_mps2: np.ndarray,
                            frame: ss.constraints.EdgeFrame, v1_mps: np.ndarray
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Of every agent's end velocity ``v1_mps`` (N, 2), from the step's frame recomputed from
    the step input (:func:`navproof.step.constraints.edge_frame`): the exact translating
    whole-step minimum (+inf for invalid edges), the step-end margin, and per wall the S3
    envelope and S7 braking margins (+inf elsewhere), all (N, K), by the compiled passes of the
    solve (:func:`_edge_step_margins`, :func:`_committed_edge_margins`). Claim: B4, B5, S3,
    S7."""
    s_m, u_mps, r_mps, kfac_s = frame.s, frame.u, frame.ref.r_mps, frame.kfac_s
    rows, k = s_m.shape
    v1 = np.ascontiguousarray(v1_mps, dtype=np.float64)
    normal = np.asarray(edges.normal, np.float64)
    curve, t_min, end, env, stop, nec = (np.empty((rows, k)) for _ in range(6))
    curve_ok, stop_ok = np.empty(rows, bool), np.empty(rows, bool)
    args = (np.arange(rows), v1, s_m, frame.n_dot_e, frame.n_dot_u, frame.n_dot_v0, normal,
            np.asarray(edges.valid, bool), edges.wall, dt_s, u_mps, r_mps, kfac_s,
            np.zeros(rows, bool), EPS, curve, t_min, end, curve_ok, stop_ok)
    _edge_step_margins(*args, 0, rows)
    committed = (s_m, end, normal, edges.wall, dt_s, accel_mps2, frame.cmax, kfac_s, u_mps,
                 r_mps, v1, env, stop, nec)
    _committed_edge_margins(*committed, 0, rows)
    return curve, end, env, stop


def _whole_array_check(inp: ss.StepInput, result: ss.SafeStepResult) -> None:
    """The monitor as it was: the step frame and every (N, K) margin as whole arrays, each
    claim judged on them in the order B5, S3, S7, B6, V2, W1, R2."""
    dt, dt_rows = inp.dt_s, inp.dt_per_agent_s
    x0, v0, v1 = inp.position_m, inp.velocity_mps, result.velocity_mps
    label = result.label
    budget = np.where(inp.accel_mps2 > 0.0, inp.accel_mps2, 1.0)
    data = {"position_m": x0, "v0_mps": v0, "v1_mps": v1}
    frame = edge_frame(inp, budget)
    owed = np.empty(inp.count, np.uint8)
    first_r2 = _owed_claims(np.ascontiguousarray(label),
                            np.ascontiguousarray(inp.accel_mps2, np.float64),
                            np.ascontiguousarray(frame.ref.exists, np.bool_),
                            np.ascontiguousarray(frame.ref.reachable, np.bool_),
                            np.ascontiguousarray(result.flags), FLAG_CARRY_EXCEEDS_CANCEL, owed)
    exact, _, env, brake = recomputed_edge_margins(inp.edges, dt_rows, budget, frame,
                                                   np.asarray(v1, np.float64))
    curve = curve_min_margin_m(inp.edges, inp.support, x0, v0, v1, dt, exact_m=exact) \
        if frame.moving.any() else exact
    _raise_first("B5", "committed curve leaves an edge during the step", curve, owed,
                 OWES_CORRIDOR, {**data, "curve_margin_m": curve}, label)
    _raise_first("S3", "committed velocity outside the shared stop envelope", env, owed,
                 OWES_ENVELOPE, {**data, "envelope_margin_m": env}, label)
    _raise_first("S7", "committed step leaves no braking candidate for the next step", brake,
                 owed, OWES_ENVELOPE, {**data, "brake_envelope_margin_m": brake}, label)
    rot = frame.rot_stop
    if rot is not None and rot.any():
        rot_m = rotating_stop_margins_m(inp.edges, inp.support, x0, v0, dt_rows, budget,
                                        agents=np.arange(inp.count), v1_mps=v1, pairs=rot)
        _raise_first("B6", "stop or hold next to rotating or accelerating motion not certified",
                     rot_m, owed, OWES_ROTATING, {**data, "rotating_stop_margin_m": rot_m},
                     label)
    reach = reach_margin_mps(v1, v0, inp.accel_mps2 * dt)
    _raise_first("V2", "committed velocity outside the acceleration-reachable disk", reach,
                 owed, OWES_REACH, {**data, "reach_margin_mps": reach}, label)
    nb = inp.neighbors
    if nb is not None and nb.valid.shape[1]:
        v_sweep = sweep_end_velocity_mps(inp.support, slice(None), v1, dt_rows)
        sweep, t_min = sweep_margins_m(x0, frame.u, v0, v_sweep, dt_rows, inp.radius_m, nb)
        _raise_first("W1", "committed curve comes within the combined radius", sweep, owed,
                     OWES_SWEEP, {**data, "sweep_margin_m": sweep, "time_s": t_min}, label)
    _raise_at("R2", "unreachable stop target labelled safe", first_r2, -1.0, data, label)


def _random_step(rng: np.random.Generator, n: int, k: int, *, motion: str
                 ) -> tuple[ss.StepInput, ss.SafeStepResult]:
    """A crowd of ``n`` agents with ``k`` edges each near walls, ``motion`` "fixed",
    "translating" (moving edges and supports) or "rotating", committing random velocities
    under random labels and flags."""
    x0 = rng.uniform(-1.0, 1.0, (n, 2))
    angle = rng.uniform(0.0, 2.0 * np.pi, (n, k))
    normal = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    # some crowds stand at their walls, others keep a margin that only the envelopes use up
    gaps = [[0.0, 0.02, 0.3, 3.0], [0.3, 3.0], [3.0]][int(rng.integers(0, 3))]
    offset = np.einsum("nkc,nc->nk", normal, x0) + rng.choice(gaps, (n, k))
    valid = rng.random((n, k)) < 0.9
    kind = rng.choice([b.EDGE_WALL, b.EDGE_PORTAL, b.EDGE_WALL], (n, k))
    if motion == "rotating":
        support = b.Support(b.Motion.rotating(rng.uniform(-1.0, 1.0, (n, 2)),
                                              rng.choice([0.0, 0.5, -0.3], n)))
        edge_motion = b.Motion.rotating(rng.uniform(-1.0, 1.0, (n, k, 2)),
                                        rng.choice([0.0, 0.0, 0.4], (n, k)),
                                        velocity_mps=rng.normal(0.0, 0.2, (n, k, 2)))
    elif motion == "translating":
        support = b.Support.translating(rng.choice([0.0, 0.4], (n, 1)) * rng.normal(0.0, 1.0,
                                                                                    (n, 2)))
        edge_motion = b.Motion.translating(rng.choice([0.0, 0.3], (n, k, 1))
                                           * rng.normal(0.0, 1.0, (n, k, 2)))
    else:
        support = b.Support.translating(np.zeros((n, 2)))
        edge_motion = None
    edges = b.EdgeSet.build(normal, offset, valid=valid, motion=edge_motion,
                            edge_id=rng.integers(0, 8, (n, k)), kind=kind)
    v0 = rng.normal(0.0, 0.5, (n, 2))
    accel = rng.choice([0.0, 1.0, 5.0, 60.0], n)
    inp = ss.check_valid_step_input(ss.StepInput(
        x0, v0, v0, DT, support, edges, np.full(n, 2.0), accel, np.full(n, 0.3)))
    spread = float(rng.choice([0.05, 0.6, 3.0]))
    v1 = v0 + rng.normal(0.0, spread, (n, 2)) * rng.choice([0.0, 0.01, 1.0], (n, 1))
    label = rng.integers(0, len(LABEL_NAMES), n).astype(np.int8)
    flags = (rng.random(n) < 0.05).astype(np.uint8) * np.uint8(FLAG_CARRY_EXCEEDS_CANCEL)
    res = ss.solve_safe_step(inp)
    return inp, ss.SafeStepResult(v1, label, flags, res.commit_time_s, res.reference,
                                  res.cmax_mps, res.margins)


def _raised(check, inp, result) -> ObligationViolation | None:
    try:
        check(inp, result)
    except ObligationViolation as err:
        return err
    return None


def _payload_bits(data: dict) -> dict:
    return {key: np.asarray(val, dtype=object if key == "label" else np.float64).tobytes()
            if key != "label" else val for key, val in data.items()}


@pytest.mark.parametrize("motion", ["fixed", "translating", "rotating"])
def test_the_block_pass_raises_what_the_whole_array_check_raised(motion):
    rng = np.random.default_rng({"fixed": 41, "translating": 43, "rotating": 47}[motion])
    claims = set()
    for trial in range(80):
        n = int(rng.choice([1, 3, 17, 300]))
        k = int(rng.choice([0, 1, 4]))
        inp, result = _random_step(rng, n, k, motion=motion)
        got = _raised(check_committed_step, inp, result)
        want = _raised(_whole_array_check, inp, result)
        assert (got is None) == (want is None), trial
        if want is None:
            continue
        claims.add(want.claim_id)
        assert (got.claim_id, got.agent, str(got)) == (want.claim_id, want.agent, str(want))
        for attr in ("observed", "limit", "margin"):
            assert np.float64(getattr(got, attr)).tobytes() == \
                np.float64(getattr(want, attr)).tobytes()
        assert _payload_bits(got.data) == _payload_bits(want.data)
    assert {"B5", "S3", "V2"} <= claims, claims


def test_a_large_crowd_in_pieces_raises_what_the_whole_array_check_raised():
    rng = np.random.default_rng(53)
    for _ in range(3):
        inp, result = _random_step(rng, 6000, 3, motion="translating")
        # one late failing agent among passing ones: the pieces after the first find it
        v1 = np.array(inp.velocity_mps, copy=True)
        v1[5500] += [30.0, 30.0]
        result = ss.SafeStepResult(v1, np.zeros(6000, np.int8), np.zeros(6000, np.uint8),
                                   result.commit_time_s, result.reference, result.cmax_mps,
                                   result.margins)
        got = _raised(check_committed_step, inp, result)
        want = _raised(_whole_array_check, inp, result)
        assert want is not None and got is not None
        assert (got.claim_id, got.agent, str(got)) == (want.claim_id, want.agent, str(want))
        assert _payload_bits(got.data) == _payload_bits(want.data)


@pytest.mark.parametrize("columns", [0, 1, 4])
def test_least_below_is_numpys_row_minimum_below_the_limit(columns):
    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, -EPS, -EPS * (1 + 1e-15), -1.0])
    rng = np.random.default_rng(59 + columns)
    margin = rng.uniform(-2.0 * EPS, 1.0, (4000, columns))
    pick = rng.random(margin.shape) < 0.2
    margin[pick] = rng.choice(specials, int(pick.sum()))
    least = np.full(margin.shape[0], np.inf)
    for j in range(columns):
        np.minimum(least, margin[:, j], out=least)
    for i in range(margin.shape[0]):
        assert _least_below(margin, i, -EPS) == bool(least[i] < -EPS)


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a, dtype=np.float64).tobytes()


@pytest.mark.parametrize("motion", ["fixed", "translating", "rotating"])
def test_the_block_pass_computes_the_whole_arrays_bit_for_bit(motion):
    rng = np.random.default_rng({"fixed": 61, "translating": 67, "rotating": 71}[motion])
    for trial in range(40):
        n = int(rng.choice([1, 17, 300, 5000]))
        k = int(rng.choice([0, 1, 4]))
        inp, result = _random_step(rng, n, k, motion=motion)
        budget = np.where(inp.accel_mps2 > 0.0, inp.accel_mps2, 1.0)
        frame = edge_frame(inp, budget)
        owed = np.empty(n, np.uint8)
        first_r2 = _owed_claims(np.ascontiguousarray(result.label),
                                np.ascontiguousarray(inp.accel_mps2, np.float64),
                                np.ascontiguousarray(frame.ref.exists, np.bool_),
                                np.ascontiguousarray(frame.ref.reachable, np.bool_),
                                np.ascontiguousarray(result.flags), FLAG_CARRY_EXCEEDS_CANCEL,
                                owed)
        exact, _, env, brake = recomputed_edge_margins(inp.edges, inp.dt_per_agent_s, budget,
                                                       frame, np.asarray(result.velocity_mps))
        moves = bool(moving_frame_pairs(inp.edges, inp.support).any())
        least = [np.full(n, np.inf) if k == 0 else np.min(m, axis=1) for m in (exact, env, brake)]
        want = ((B5_FOUND if (((owed & OWES_CORRIDOR) > 0) & (least[0] < -EPS)).any() else 0)
                | (S3_FOUND if (((owed & OWES_ENVELOPE) > 0) & (least[1] < -EPS)).any() else 0)
                | (S7_FOUND if (((owed & OWES_ENVELOPE) > 0) & (least[2] < -EPS)).any() else 0))
        radius = inp.accel_mps2 * inp.dt_s
        reach = reach_margin_mps(result.velocity_mps, inp.velocity_mps, radius)
        kept = np.full((3, n, k), np.nan)
        got_budget = np.full(n, np.nan)
        found, first, u, got_owed = checked_frame(inp, result, got_budget, radius,
                                                  frame.rot_stop, stop_if_moving=False,
                                                  judge_curve=True, kept=kept)
        assert _bits(got_budget) == _bits(budget)
        assert found & ~REACH_OPEN == want, trial
        # V2 is left open wherever it fails (and measured then)
        assert found & REACH_OPEN or not (reach < -EPS).any(), trial
        assert first == first_r2, trial
        assert _bits(u) == _bits(frame.u)
        assert got_owed.tobytes() == owed.tobytes()
        for got, ref in zip(kept, (exact, env, brake), strict=True):
            assert _bits(got) == _bits(ref), trial
        # the fast pass: the same verdicts, or a moving frame named before any of them
        fast = checked_frame(inp, result, budget, radius, None, stop_if_moving=True,
                             judge_curve=True, kept=np.empty((3, 0, k)))
        if moves:
            assert fast[0] & FRAME_MOVES, trial
        else:
            assert fast[0] == found and fast[1] == first_r2, trial
            assert _bits(fast[2]) == _bits(frame.u)
            assert fast[3].tobytes() == owed.tobytes()


def test_reach_held_only_where_numpys_v2_margin_is_at_least_minus_eps():
    rng = np.random.default_rng(73)
    n = 60000
    radius = rng.choice([0.0, 1e-300, 1e-12, 1e-9, 0.1, 3.0, REACH_HELD_MAX_MPS,
                         REACH_HELD_MAX_MPS * 1.5, np.inf, np.nan, -0.1], n)
    mix = rng.random(n) < 0.5
    radius[mix] = rng.uniform(0.0, 2.0, int(mix.sum()))
    angle = rng.uniform(0.0, 2.0 * np.pi, n)
    # lengths at the radius within a few EPS and ulps, inside, outside, tiny and huge
    with np.errstate(invalid="ignore"):
        length = radius * rng.choice([0.0, 0.5, 1.0, 1.0 + 1e-16, 1.0 - 1e-16, 2.0], n) \
            + rng.choice([0.0, 0.0, 0.4, 0.5, 0.51, 0.9, 1.0, 1.1, -0.5], n) * EPS
    length = np.where(np.isfinite(length), length, rng.uniform(0.0, 1.0, n))
    d = np.stack([length * np.cos(angle), length * np.sin(angle)], axis=-1)
    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-320, 1e200])
    pick = rng.random((n, 2)) < 0.02
    d[pick] = rng.choice(specials, int(pick.sum()))
    v0 = rng.normal(0.0, 1.0, (n, 2))
    v1 = v0 + d
    with np.errstate(invalid="ignore"):
        margin = reach_margin_mps(v1, v0, radius)
    dx, dy = v1[:, 0] - v0[:, 0], v1[:, 1] - v0[:, 1]
    held = np.array([_reach_held(dx[i], dy[i], radius[i], EPS) for i in range(n)])
    assert not (held & ~(margin >= -EPS)).any()
    # a step of a radius below 0.5 m/s at or inside its disk up to rounding is decided
    usual = np.isfinite(margin) & (margin >= -0.1 * EPS) & (radius >= 1e-9) & (radius <= 0.5)
    assert usual.sum() > 1000 and held[usual].all()
    assert (~held[~(margin >= -EPS)]).all() and (~(margin >= -EPS)).sum() > 1000


def test_an_infinite_budget_is_refused_as_before():
    rng = np.random.default_rng(79)
    for n in (1, 300, 6000):
        inp, result = _random_step(rng, n, 3, motion="fixed")
        accel = np.array(inp.accel_mps2, copy=True)
        accel[rng.integers(0, n, 2)] = np.inf
        inp = dataclasses.replace(inp, accel_mps2=accel)
        with pytest.raises(InvalidInput) as want:
            check_valid_budget("a_mps2", np.where(accel > 0.0, accel, 1.0))
        with pytest.raises(InvalidInput) as got:
            check_committed_step(inp, result)
        assert str(got.value) == str(want.value)


def test_a_row_the_edge_pass_finds_inside_has_no_curve_margin_below_minus_eps():
    # the block pass leaves out the search of a row the verification's edge pass found inside
    # (every valid edge's curve margin >= -EPS): that search finds nothing there, NaN,
    # infinite and special values included
    from navproof.step.verify import _edge_step_margins

    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, -EPS, -EPS * (1 + 1e-15), 1e300])
    rng = np.random.default_rng(67)
    for k in (0, 1, 4):
        n = 3000
        v1 = rng.normal(0.0, 1.0, (n, 2))
        s, n_dot_e, n_dot_u, n_dot_v0 = (rng.normal(0.0, 0.5, (n, k)) for _ in range(4))
        for a in (s, n_dot_e, n_dot_u, n_dot_v0):
            pick = rng.random(a.shape) < 0.05
            a[pick] = rng.choice(specials, int(pick.sum()))
        near = rng.random(s.shape) < 0.3
        s[near] = rng.uniform(-2.0 * EPS, 2.0 * EPS, int(near.sum()))
        normal = rng.normal(0.0, 1.0, (n, k, 2))
        valid, wall = rng.random((n, k)) < 0.8, rng.random((n, k)) < 0.5
        dt, kfac = np.full(n, 0.1), rng.uniform(0.0, 1.0, n)
        u, r = rng.normal(0.0, 0.5, (n, 2)), rng.normal(0.0, 0.5, (n, 2))
        curve, t_min, end = (np.empty((n, k)) for _ in range(3))
        curve_ok, stop_ok = np.empty(n, bool), np.empty(n, bool)
        _edge_step_margins(np.arange(n), v1, s, n_dot_e, n_dot_u, n_dot_v0, normal, valid, wall,
                           dt, u, r, kfac, np.zeros(n, bool), EPS, curve, t_min, end, curve_ok,
                           stop_ok, 0, n)
        assert curve_ok.any() and (k == 0 or not curve_ok.all())
        for i in np.flatnonzero(curve_ok):
            assert not _least_below(curve, i, -EPS)
