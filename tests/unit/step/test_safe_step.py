"""The combined per-step solve: exact closest point, verification and fallback order
(claims B4, B5, S3, R2, V1, V2, W1, F1-F3, O2), with seed 000's worked examples."""

import numpy as np
import pytest

from navproof import boundary as b
from navproof import step as ss
from navproof.boundary import stop_envelope as se
from navproof.core.errors import InvalidInput, ObligationViolation
from navproof.core.tolerances import PARALLEL_DET
from navproof.orca import crowd as orca_crowd
from navproof.orca import lines as orca
from navproof.solver.candidates import closest_candidates
from navproof.solver.closest import closest_in_disks
from navproof.solver.halfplanes import Disks, HalfPlanes
from navproof.step.monitor import check_committed_step
from navproof.step.search import SOLVE_TOL_MPS

DT = 0.1


def step(x0, v0, pref, *, u=(0.0, 0.0), normals=((1.0, 0.0),), offsets=(0.0,), vh=2.0, a=1.0,
         orca=None, neighbors=None, edge_velocity=None):
    k = len(normals)
    edges = b.EdgeSet.build(np.array([normals], float), np.array([offsets], float),
                            edge_velocity_mps=None if edge_velocity is None else
                            np.array([edge_velocity], float))
    kw = {}
    if orca is not None:
        point, direction = orca
        kw = dict(orca_point=np.array([[point]], float),
                  orca_direction=np.array([[direction]], float),
                  orca_valid=np.ones((1, 1), bool))
    assert edges.normal.shape == (1, k, 2)
    return ss.StepInput(np.array([x0], float), np.array([v0], float), np.array([pref], float),
                        DT, b.Support.translating(np.array([u], float)), edges, np.array([vh]),
                        np.array([a]), np.array([0.3]), neighbors=neighbors, **kw)


def test_free_agent_gets_its_preferred_velocity():
    res = ss.solve_safe_step(step([-5.0, 0.0], [0.0, 0.0], [0.05, 0.03]), assertions=True)
    assert res.velocity_mps[0].tolist() == pytest.approx([0.05, 0.03])
    assert res.label_names() == ["safe"]
    assert res.commit_time_s[0] == DT


def test_f1_wall_at_point_one_metre_against_orca_demanding_one_and_a_half():
    # B1: 0.1 m from the wall, dt = 0.1 s -> rightward speed <= 1 m/s
    s = np.array([[0.1]])
    assert b.step_halfplane_offset_mps(s, DT, 0.0, 0.0)[0, 0] == pytest.approx(1.0)
    # ORCA's only feasible side: rightward speed >= 1.5 (allowed side left of direction (0, -1))
    inp = step([-0.1, 0.0], [1.0, 0.0], [1.6, 0.0], a=20.0, orca=([1.5, 0.0], [0.0, -1.0]))
    res = ss.solve_safe_step(inp, assertions=True)
    assert res.label_names() == ["dynamic avoidance failed"]
    # braking velocity closest to vStop = 0, inside the corridor
    assert res.velocity_mps[0].tolist() == pytest.approx([0.0, 0.0], abs=1e-6)
    assert res.margins.orca_mps[0, 0] < 0.0
    assert res.margins.edge_curve_m[0, 0] >= 0.0


def test_b5_one_mps2_budget_has_no_braking_solution_and_claims_no_safety():
    inp = step([-0.05, 0.0], [0.0, 0.0], [0.0, 0.0], u=(1.0, 0.0), vh=2.0, a=1.0)
    res = ss.solve_safe_step(inp, assertions=True)
    assert res.label[0] == ss.NO_STOP_GUARANTEE
    assert res.label_names()[0] != "safe"
    # strongest reachable braking towards vStop = (-1, 0)
    assert res.velocity_mps[0].tolist() == pytest.approx([-0.1, 0.0])
    # with 10 m/s^2 the curve can brake to v1 = -1 and stay inside
    strong = ss.solve_safe_step(step([-0.05, 0.0], [0.0, 0.0], [0.0, 0.0], u=(1.0, 0.0), vh=2.0,
                                     a=20.0), assertions=True)
    assert strong.label_names()[0] in ("safe", "dynamic avoidance failed")
    assert strong.velocity_mps[0, 0] <= -1.0 + 1e-6
    assert strong.margins.edge_curve_m[0, 0] >= 0.0


def test_b5_cutting_planes_find_the_curve_that_stays_inside():
    # x0 = -0.01, u = 1 towards a fixed wall, v0 = 0: the B4 end condition allows v1_x <= -1.8
    # but that curve dips out mid-step; whole-step coverage needs v1_x <= -5 (t* = 0.02 s)
    inp = step([-0.01, 0.0], [0.0, 0.0], [0.0, 0.0], u=(1.0, 0.0), vh=8.0, a=60.0)
    res = ss.solve_safe_step(inp, assertions=True)
    assert res.label[0] == ss.SAFE
    assert res.velocity_mps[0, 0] == pytest.approx(-5.0, abs=1e-6)
    assert res.margins.edge_curve_m[0, 0] >= 0.0


def test_f2_braking_is_truncated_at_the_first_sweep_contact():
    """F2: with no braking solution, the strongest reachable braking is cut at the sweep contact
    and never labelled safe."""
    # the B5 situation (no braking solution) with a neighbour 0.64 m ahead, combined radius 0.6
    nb = ss.Neighbors(np.array([[[0.59, 0.0]]]), np.zeros((1, 1, 2)), np.array([[0.3]]),
                      np.ones((1, 1), bool))
    inp = step([-0.05, 0.0], [0.0, 0.0], [0.0, 0.0], u=(1.0, 0.0), a=1.0, neighbors=nb)
    res = ss.solve_safe_step(inp, assertions=True)
    assert res.label[0] == ss.NO_STOP_GUARANTEE
    assert res.flags[0] & ss.FLAG_TRUNCATED
    # x(t) = t - t^2 / 2 reaches 0.04 m at t = 1 - sqrt(0.92)
    assert res.commit_time_s[0] == pytest.approx(1.0 - np.sqrt(0.92), abs=1e-9)


def test_r2_support_carry_exceeding_the_cap_is_never_safe():
    inp = step([-5.0, 0.0], [-0.8, 0.0], [-0.8, 0.0], u=(1.0, 0.0), vh=0.8, a=1.0)
    res = ss.solve_safe_step(inp, assertions=True)
    assert res.reference.v_stop_mps[0].tolist() == pytest.approx([-1.0, 0.0])
    assert res.flags[0] & ss.FLAG_CARRY_EXCEEDS_CANCEL
    assert ss.FLAG_NAMES[ss.FLAG_CARRY_EXCEEDS_CANCEL] == "support carry exceeds cancel capacity"
    assert res.label[0] != ss.SAFE


def test_r2_carry_label_is_the_one_reference_constant():
    """R2's worked example (u = (1, 0), fixed right wall, Vh = 0.8 m/s): the result carries
    exactly the catalogue's label, the very string the reference module defines; with Vh = 2 m/s
    the same stop is reachable and the label is absent."""
    from navproof.boundary.reference import CARRY_EXCEEDS_CANCEL
    assert CARRY_EXCEEDS_CANCEL == "support carry exceeds cancel capacity"
    over = ss.solve_safe_step(step([-5.0, 0.0], [0.0, 0.0], [0.0, 0.0], u=(1.0, 0.0), vh=0.8),
                              assertions=True)
    assert not over.reference.reachable[0]
    assert over.flags[0] == ss.FLAG_CARRY_EXCEEDS_CANCEL
    assert over.flag_names() == [(CARRY_EXCEEDS_CANCEL,)]
    assert over.flag_names()[0][0] is CARRY_EXCEEDS_CANCEL
    assert over.label_names() == ["no stop guarantee"]
    within = ss.solve_safe_step(step([-5.0, 0.0], [0.0, 0.0], [0.0, 0.0], u=(1.0, 0.0), vh=2.0),
                                assertions=True)
    assert within.reference.reachable[0]
    assert within.flag_names() == [()]


def test_pq_orca_asking_two_mps_towards_q_is_rejected():
    inp = step([-0.1, 0.0], [0.08, 1.8], [2.0, 0.0], vh=2.0, a=1.0)
    res = ss.solve_safe_step(inp, assertions=True)
    assert res.label_names() == ["safe"]
    assert res.velocity_mps[0, 0] <= 0.1 / 1.1 + 1e-9
    assert res.margins.envelope_m[0, 0] >= 0.0
    assert res.margins.necessary_mps[0, 0] >= 0.0
    # an ORCA line that only allows v_x >= 2 towards Q: rejected, the body brakes inside P
    forced = ss.solve_safe_step(step([-0.1, 0.0], [0.08, 1.8], [2.0, 0.0],
                                     orca=([2.0, 0.0], [0.0, -1.0])), assertions=True)
    assert forced.label_names() == ["dynamic avoidance failed"]
    assert forced.velocity_mps[0, 0] <= 0.1 / 1.1 + 1e-9
    assert forced.margins.edge_curve_m[0, 0] >= 0.0
    # v = (0.08, 1.8) itself stays in P (S3: the whole stop moves 0.0801 m in X) ...
    s3 = se.envelope_margin_m(np.array([[[1.0, 0.0]]]), np.array([[0.1]]), np.array([[0.08, 1.8]]),
                              DT, np.array([1.0]), np.array([2.0]))
    assert s3[0, 0] >= 0.0
    # ... but the step after it could not brake inside S3 again: the safe step keeps the
    # discrete braking envelope (S7, K = Cmax/a - dt/2 = 1.95 s), which takes the normal speed
    # to (s - dt v0_x/2) / (K + dt/2) = 0.048 m/s and keeps the speed along the edge
    keep = ss.solve_safe_step(step([-0.1, 0.0], [0.08, 1.8], [0.08, 1.8]), assertions=True)
    assert keep.velocity_mps[0].tolist() == pytest.approx([0.048, 1.8], abs=1e-6)
    assert keep.label_names() == ["safe"]


def test_s6_zero_margin_allows_retreat_and_sliding():
    for pref, expect in (([-1.0, 0.0], [-0.1, 0.0]), ([0.0, 1.0], [0.0, 0.1])):
        res = ss.solve_safe_step(step([0.0, 0.0], [0.0, 0.0], pref), assertions=True)
        assert res.label_names() == ["safe"]
        assert res.velocity_mps[0].tolist() == pytest.approx(expect, abs=1e-6)


def test_sweep_rejects_candidates_that_pass_through_a_neighbour():
    # 1.6 m/s towards a neighbour 0.75 m ahead, combined radius 0.6 m: the end is 0.59 m away
    nb = ss.Neighbors(np.array([[[0.75, 0.0]]]), np.zeros((1, 1, 2)), np.array([[0.3]]),
                      np.ones((1, 1), bool))
    res = ss.solve_safe_step(step([0.0, 0.0], [1.6, 0.0], [1.6, 0.0], normals=((0.0, 1.0),),
                                  offsets=(10.0,), a=1.0, neighbors=nb), assertions=True)
    assert res.label[0] == ss.DYNAMIC_AVOIDANCE_FAILED
    assert res.velocity_mps[0].tolist() == pytest.approx([1.5, 0.0])
    # the same step without the neighbour keeps the preferred velocity
    free = ss.solve_safe_step(step([0.0, 0.0], [1.6, 0.0], [1.6, 0.0], normals=((0.0, 1.0),),
                                   offsets=(10.0,), a=1.0), assertions=True)
    assert free.label[0] == ss.SAFE and free.velocity_mps[0, 0] == pytest.approx(1.6)


def test_closest_candidates_is_the_exact_optimum():
    rng = np.random.default_rng(11)
    m, k = 300, 4
    ang = rng.uniform(0, 2 * np.pi, (m, k))
    normal = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    offset = rng.uniform(-0.5, 1.0, (m, k))
    pref = rng.normal(size=(m, 2)) * 2
    centre = np.stack([np.zeros((m, 2)), rng.normal(size=(m, 2)) * 0.5], axis=1)
    radius = np.stack([np.full(m, 1.5), rng.uniform(0.2, 1.0, m)], axis=1)
    args = (pref, normal, offset, np.ones((m, k), bool), centre, radius, np.ones((m, 2), bool))
    cand, dist = closest_candidates(*args)
    solved = closest_in_disks(pref, HalfPlanes(normal, offset, args[3]),
                              Disks(centre, radius, args[6]), tol_mps=SOLVE_TOL_MPS,
                              parallel_det=PARALLEL_DET)
    nearest, found = solved.velocity, solved.feasible
    g = np.linspace(-2, 2, 401)
    grid = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)
    for i in range(0, m, 10):
        feas = np.all(grid @ normal[i].T <= offset[i], axis=1)
        for dcent, drad in zip(centre[i], radius[i], strict=True):
            feas &= np.linalg.norm(grid - dcent, axis=1) <= drad
        if not feas.any():
            assert not np.isfinite(dist[i, 0]) or dist[i, 0] >= 0.0
            continue
        best = np.linalg.norm(grid[feas] - pref[i], axis=1).min()
        assert np.isfinite(dist[i, 0])
        assert dist[i, 0] <= best + 1e-9
        # the incremental solver finds the same point
        assert found[i]
        assert np.linalg.norm(nearest[i] - cand[i, 0]) <= 1e-9
        # the optimum itself is feasible: no feasible point is closer, it is one of them
        for v in (cand[i, 0], nearest[i]):
            assert np.all(normal[i] @ v <= offset[i] + 1e-9)
            assert np.all(np.linalg.norm(v - centre[i], axis=1) <= radius[i] + 1e-9)


def test_with_orca_lines_from_the_orca_runtime():
    pos = np.array([[-1.0, 0.0], [1.0, 0.0]])
    vel = np.array([[1.0, 0.0], [-1.0, 0.0]])
    radius = np.array([0.3, 0.3])
    point, direction, valid = orca.agent_lines(pos, vel, radius, np.array([2.0, 2.0]), DT,
                                               np.array([[1], [0]]))
    edges = b.EdgeSet.build(np.array([[[0.0, 1.0]], [[0.0, 1.0]]]), np.array([[5.0], [5.0]]))
    inp = ss.StepInput(pos, vel, vel.copy(), DT, b.Support.translating(np.zeros((2, 2))), edges,
                       np.full(2, 2.0), np.full(2, 5.0), radius, orca_point=point,
                       orca_direction=direction, orca_valid=valid,
                       neighbors=ss.Neighbors.gather(np.array([[1], [0]]), pos, vel, radius))
    res = ss.solve_safe_step(inp, assertions=True)
    assert np.all(res.label == ss.SAFE)
    assert np.all(res.margins.orca_mps >= -1e-9)
    assert np.all(res.margins.sweep_m >= -1e-9)


def test_monitor_raises_with_claim_agent_and_margin():
    inp = step([-5.0, 0.0], [0.0, 0.0], [0.05, 0.0])
    res = ss.solve_safe_step(inp, assertions=False)
    forged = ss.SafeStepResult(np.array([[1.0, 0.0]]), res.label, res.flags, res.commit_time_s,
                               res.reference, res.cmax_mps, res.margins)
    with pytest.raises(ObligationViolation) as err:
        check_committed_step(ss.check_valid_step_input(inp), forged)
    assert err.value.claim_id == "V2"
    assert err.value.agent == 0
    assert err.value.margin == pytest.approx(-0.9)


def test_bad_inputs_are_refused_and_nothing_changes():
    inp = step([-5.0, 0.0], [0.0, 0.0], [0.05, 0.0])
    with pytest.raises(InvalidInput, match="dt_s"):
        ss.solve_safe_step(ss.StepInput(**{**inp.__dict__, "dt_s": 0.0}))
    with pytest.raises(InvalidInput, match="velocity_mps"):
        ss.solve_safe_step(ss.StepInput(**{**inp.__dict__,
                                           "velocity_mps": np.array([[np.nan, 0.0]])}))
    # a zero budget is the hold rule of that agent (S6); a negative one is refused
    with pytest.raises(InvalidInput, match="accel_mps2"):
        ss.solve_safe_step(ss.StepInput(**{**inp.__dict__, "accel_mps2": np.array([-1.0])}))
    with pytest.raises(InvalidInput, match="vh_mps"):
        ss.solve_safe_step(ss.StepInput(**{**inp.__dict__, "vh_mps": np.array([-1.0])}))
    assert inp.velocity_mps.tolist() == [[0.0, 0.0]]


def test_labels_are_small_ints_with_a_name_table():
    res = ss.solve_safe_step(step([-5.0, 0.0], [0.0, 0.0], [0.0, 0.0]))
    assert res.label.dtype == np.int8
    assert ss.LABEL_NAMES[ss.SOLVE_FAILED] == "solve failed"
    assert "no solution exists" not in ss.LABEL_NAMES


def test_f1_keeps_static_obstacle_lines_and_relaxes_only_neighbour_lines():
    edges = b.EdgeSet.build(np.array([[[1.0, 0.0]]]), np.array([[50.0]]))
    point = np.array([[[0.0, -0.02], [0.0, 0.5]]])      # obstacle: v_y <= -0.02; agent: v_y >= 0.5
    direction = np.array([[[-1.0, 0.0], [1.0, 0.0]]])
    base = dict(orca_point=point, orca_direction=direction, orca_valid=np.ones((1, 2), bool))
    args = (np.zeros((1, 2)), np.zeros((1, 2)), np.zeros((1, 2)), DT,
            b.Support.translating(np.zeros((1, 2))), edges, np.array([2.0]), np.array([1.0]),
            np.array([0.3]))
    kept = ss.solve_safe_step(ss.StepInput(*args, **base, orca_num_hard=np.array([1])),
                              assertions=True)
    assert kept.label_names() == ["dynamic avoidance failed"]
    assert kept.velocity_mps[0].tolist() == pytest.approx([0.0, -0.02], abs=1e-6)
    relaxed = ss.solve_safe_step(ss.StepInput(*args, **base), assertions=True)
    assert relaxed.velocity_mps[0].tolist() == pytest.approx([0.0, 0.0], abs=1e-6)
    with pytest.raises(InvalidInput, match="orca_num_hard"):
        ss.solve_safe_step(ss.StepInput(*args, **base, orca_num_hard=np.array([3])))


def test_step_input_from_the_orca_crowd():
    crowd = orca_crowd.Crowd(DT)
    # two agents passing side by side: ORCA lines are built but do not bind
    crowd.add_agents(np.array([[-2.0, 0.5], [2.0, -0.5]]),
                     velocity=np.array([[1.0, 0.0], [-1.0, 0.0]]), radius=0.3, time_horizon=2.0)
    crowd.set_pref_velocities(np.array([[1.0, 0.0], [-1.0, 0.0]]))
    support = b.Support.translating(np.array([[0.1, 0.0], [0.0, 0.0]]))
    edges = b.EdgeSet.build(np.array([[[0.0, 1.0]], [[0.0, 1.0]]]), np.array([[5.0], [5.0]]))
    inp = ss.step_input_from_crowd(crowd, support=support, edges=edges, vh_mps=np.full(2, 2.0),
                                   accel_mps2=np.full(2, 5.0))
    assert inp.velocity_mps[0].tolist() == pytest.approx([0.9, 0.0])
    assert inp.orca_valid.any()
    res = ss.solve_safe_step(inp, assertions=True)
    assert np.all(res.label == ss.SAFE)
    assert np.all(res.margins.orca_mps >= -1e-9)
    assert np.all(res.margins.sweep_m >= -1e-9)


def forge(res, velocity, label=ss.SAFE):
    return ss.SafeStepResult(np.array([velocity], float), np.array([label], np.int8), res.flags,
                             res.commit_time_s, res.reference, res.cmax_mps, res.margins)


def test_monitor_catches_a_mid_step_excursion_as_b5():
    inp = ss.check_valid_step_input(step([-0.01, 0.0], [0.0, 0.0], [0.0, 0.0], u=(1.0, 0.0),
                                         vh=8.0, a=60.0))
    res = ss.solve_safe_step(inp)
    with pytest.raises(ObligationViolation) as err:
        check_committed_step(inp, forge(res, [-3.0, 0.0]))
    assert err.value.claim_id == "B5"
    assert err.value.margin == pytest.approx(0.01 - 1.0 / 30.0 + 15.0 / 900.0)
    assert "curve_margin_m" in err.value.data


def test_monitor_catches_a_sweep_contact_as_w1_only_for_safe_steps():
    nb = ss.Neighbors(np.array([[[0.75, 0.0]]]), np.zeros((1, 1, 2)), np.array([[0.3]]),
                      np.ones((1, 1), bool))
    inp = ss.check_valid_step_input(step([0.0, 0.0], [1.6, 0.0], [1.6, 0.0],
                                         normals=((0.0, 1.0),), offsets=(10.0,), neighbors=nb))
    res = ss.solve_safe_step(inp)
    with pytest.raises(ObligationViolation) as err:
        check_committed_step(inp, forge(res, [1.6, 0.0]))
    assert err.value.claim_id == "W1"
    assert err.value.margin == pytest.approx(0.59 - 0.6)
    # the same velocity labelled "dynamic avoidance failed" owes no sweep
    check_committed_step(inp, forge(res, [1.6, 0.0], ss.DYNAMIC_AVOIDANCE_FAILED))


def test_monitor_catches_an_envelope_breach_as_s3():
    inp = ss.check_valid_step_input(step([-0.1, 0.0], [0.1, 0.0], [0.2, 0.0]))
    res = ss.solve_safe_step(inp)
    with pytest.raises(ObligationViolation) as err:
        check_committed_step(inp, forge(res, [0.15, 0.0]))
    assert err.value.claim_id == "S3"
    assert err.value.margin == pytest.approx(0.1 - 0.15 * 1.1)


def test_monitor_reports_the_first_violating_agent_of_a_large_crowd():
    # enough agents for the recomputed margins to run in pieces: the first agent of the first
    # failing claim is reported (B5 before S3), not the worst one
    n = 5000
    x0 = np.column_stack([np.full(n, -0.5), np.arange(n) * 2.0])
    edges = b.EdgeSet.build(np.tile([[[1.0, 0.0], [0.0, 1.0]]], (n, 1, 1)),
                            np.column_stack([np.zeros(n), np.full(n, 1e4)]))
    inp = ss.check_valid_step_input(ss.StepInput(
        x0, np.zeros((n, 2)), np.zeros((n, 2)), DT, b.Support.translating(np.zeros((n, 2))),
        edges, np.full(n, 8.0), np.full(n, 60.0), np.full(n, 0.3)))
    res = ss.solve_safe_step(inp)
    v1 = res.velocity_mps.copy()
    # agent 4100 crosses the wall x = 0 during the step; agent 4700 further; agent 3000 only
    # leaves the shared stop envelope
    v1[4100], v1[4700], v1[3000] = [12.0, 0.0], [15.0, 0.0], [4.0, 0.0]
    forged = ss.SafeStepResult(v1, res.label, res.flags, res.commit_time_s, res.reference,
                               res.cmax_mps, res.margins)
    with pytest.raises(ObligationViolation) as err:
        check_committed_step(inp, forged)
    assert err.value.claim_id == "B5" and err.value.agent == 4100
    assert err.value.margin == pytest.approx(0.5 - 12.0 * DT / 2.0)
    v1[4100] = v1[4700] = 0.0
    with pytest.raises(ObligationViolation) as err:
        check_committed_step(inp, forged)
    assert err.value.claim_id == "S3" and err.value.agent == 3000


@pytest.mark.parametrize("n, k", [(3, 0), (0, 2), (0, 0)])
def test_no_edges_or_no_agents(n, k):
    edges = b.EdgeSet.build(np.zeros((n, k, 2)), np.zeros((n, k)))
    inp = ss.StepInput(np.zeros((n, 2)), np.zeros((n, 2)), np.ones((n, 2)), DT,
                       b.Support.translating(np.zeros((n, 2))), edges, np.full(n, 2.0),
                       np.full(n, 1.0), np.full(n, 0.3))
    res = ss.solve_safe_step(inp, assertions=True)
    assert res.velocity_mps.shape == (n, 2)
    # free agents reach the preferred direction at the V2 radius a dt = 0.1 m/s
    assert np.allclose(np.linalg.norm(res.velocity_mps, axis=1), 0.1)
    assert np.all(res.label == ss.SAFE)


def test_f3_without_any_reference_the_solve_failed_and_says_so():
    # the left wall sweeps right at 2 m/s towards a fixed right wall: no r keeps both edges
    inp = step([0.0, 0.0], [0.0, 0.0], [0.5, 0.0], normals=((-1.0, 0.0), (1.0, 0.0)),
               offsets=(0.1, 0.1), edge_velocity=((2.0, 0.0), (0.0, 0.0)))
    res = ss.solve_safe_step(inp, assertions=True)
    assert not res.reference.exists[0]
    assert res.flags[0] & ss.FLAG_NO_REFERENCE
    assert res.label_names() == ["solve failed"]
    assert res.velocity_mps[0].tolist() == pytest.approx([0.0, 0.0])


def test_rotating_platform_with_its_own_edge_and_a_fixed_world_wall():
    n = 3
    x0 = np.array([[0.5, 0.2], [1.0, 0.0], [0.2, 0.9]])
    support = b.Support(b.Motion.rotating(np.zeros((n, 2)), np.full(n, 0.5)))
    # edge 0 rides on the platform (same rigid motion), edge 1 is a fixed world wall y <= 1
    motion = b.Motion(np.zeros((n, 2, 2)), np.zeros((n, 2, 2)), np.array([[0.5, 0.0]] * n),
                      np.zeros((n, 2), np.int64))
    edges = b.EdgeSet.build(np.array([[[1.0, 0.0], [0.0, 1.0]]] * n), np.array([[1.2, 1.0]] * n),
                            motion=motion)
    inp = ss.StepInput(x0, np.zeros((n, 2)), np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), DT,
                       support, edges, np.full(n, 2.0), np.full(n, 2.0), np.full(n, 0.3))
    res = ss.solve_safe_step(inp, assertions=True)
    # agent 1 sits at radius 1 of a platform turning towards the wall y <= 1: at rest on the
    # platform where it stands it is carried onto the wall, so its preferred step cannot be
    # certified (B6, R3); it is never labelled safe, and what it commits is a stop and hold
    # certified in the wall's frame (it steps inwards)
    assert res.label[[0, 2]].tolist() == [ss.SAFE, ss.SAFE]
    assert res.label[1] in (ss.DYNAMIC_AVOIDANCE_FAILED, ss.NO_STOP_GUARANTEE)
    assert res.margins.end_stop_m[1].min() >= -1e-9
    assert not np.any(res.flags & ss.FLAG_ROTATING_STOP_UNCERTIFIED)
    assert np.all(res.margins.edge_curve_m[[0, 2]] >= 0.0)
    # the certified B6 bound is below a dense evaluation of the true local-frame margin
    dense = -b.local_frame_excess_m(edges, support, x0, np.zeros((n, 2)), res.velocity_mps, DT,
                                    np.linspace(0.0, DT, 2001)).max(axis=0)
    assert np.all(res.margins.edge_curve_m <= dense + 1e-12)
