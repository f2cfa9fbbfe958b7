"""The independent check of a committed World step (``navproof.world.independent_check``) on
hand-made steps: each breach is flagged with its claim and its signed margin, a violation
between two samples does not hide, a step that keeps every rule is not flagged, and assertion
mode raises on a safe label the check refutes. Claim: C4, C1, B5, W1, O2, V1, T4."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from navproof.core.errors import ObligationViolation
from navproof.step import SAFE
from navproof.world import Layout, World
from navproof.world import independent_check as ic
from navproof.world.independent_check import (
    SAMPLES,
    TOLERANCE_M,
    StepMotion,
    StepTruth,
    candidate_pairs,
    check_motion,
    check_world_step,
    lie_violation,
    polygon_signed_distance_m,
)

DT_S = 0.1
L_SHAPE = np.array([[0.0, 0.0], [3.0, 0.0], [3.0, 1.0], [1.0, 1.0], [1.0, 3.0], [0.0, 3.0]])
SQUARE = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])


def ground_step(x0_m, v_mps, *, v1_mps=None, radius_m=0.4, cap_mps=20.0, corridor_m=None,
                obstacles_m=(), patches_m=(), patch=None, slope=None, end_m=None,
                end_velocity_mps=None) -> StepMotion:
    """A step of bodies on static ground ramping from ``v_mps`` to ``v1_mps`` over the step."""
    x0 = np.asarray(x0_m, dtype=float).reshape(-1, 2)
    n = x0.shape[0]
    v0 = np.broadcast_to(np.asarray(v_mps, dtype=float), (n, 2)).copy()
    v1 = v0.copy() if v1_mps is None else np.broadcast_to(np.asarray(v1_mps, float), (n, 2))
    x1 = x0 + 0.5 * (v0 + v1) * DT_S if end_m is None else np.asarray(end_m, float)
    zeros = np.zeros((n, 2))
    return StepMotion(
        0.0, DT_S, x0, v0, v1, np.full(n, DT_S), zeros, zeros, zeros, np.zeros(n),
        np.full(n, -1), np.full(n, -1) if patch is None else np.asarray(patch),
        np.ones(n) if slope is None else np.asarray(slope, float), np.full(n, cap_mps),
        np.zeros(0, np.int64), np.full(n, radius_m), x1,
        v1 if end_velocity_mps is None else np.asarray(end_velocity_mps, float),
        corridor_m, tuple(patches_m), (), np.zeros(0, bool), tuple(obstacles_m))


def safe(n: int) -> np.ndarray:
    return np.full(n, SAFE, np.int8)


def test_w1_a_pair_passing_through_each_other_is_flagged_though_both_ends_are_clear():
    # both ends 0.4 m apart beyond the radii; in the middle of the step the discs coincide
    mo = ground_step([[-0.6, 0.0], [0.6, 0.0]], [[12.0, 0.0], [-12.0, 0.0]])
    truth = check_motion(mo, safe(2))
    assert list(truth.claim) == ["W1", "W1"]
    assert truth.lying.all()
    assert truth.agent_clearance_m[0] == pytest.approx(-0.8, abs=1e-9)


def test_w1_a_touch_between_two_samples_does_not_hide():
    # small fast bodies meet at t = 0.3 of the first sample interval, clear at every sample
    r = 0.01
    t_meet = 0.3 * DT_S / SAMPLES
    speed = 10.0
    mo = ground_step([[-speed * t_meet, 0.0], [speed * t_meet, 0.0]],
                     [[speed, 0.0], [-speed, 0.0]], radius_m=r)
    grid = np.linspace(0.0, DT_S, SAMPLES + 1)
    gaps = np.abs(2 * speed * (grid - t_meet)) - 2 * r
    assert gaps.min() > 0.0, "the touch lies between samples"
    truth = check_motion(mo, safe(2))
    assert truth.claim[0] == "W1"
    assert truth.agent_clearance_m[0] == pytest.approx(-2 * r, abs=TOLERANCE_M)


def test_w1_pairs_beyond_neighbor_lists_are_found_by_the_spatial_hash():
    rng = np.random.default_rng(3)
    x = rng.uniform(-20, 20, (400, 2))
    reach = rng.uniform(0.1, 1.5, 400)
    i, j = candidate_pairs(x, reach)
    found = set(zip(i.tolist(), j.tolist(), strict=True))
    d = np.hypot(*(x[:, None] - x[None]).transpose(2, 0, 1))
    want = {(a, b) for a, b in zip(*np.nonzero(d <= reach[:, None] + reach[None]), strict=True)
            if a < b}
    assert found == want


def test_w1_spatial_hash_finds_the_same_pairs_in_the_same_order_in_a_sparse_crowd():
    # two clusters far apart: more hash cells per body than the direct cell table covers, so
    # every cell is found by binary search; the pairs and their order are those of the table
    from navproof.world import independent_check as ic

    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(0, 10, (150, 2)), rng.uniform(500, 510, (150, 2))])
    reach = rng.uniform(0.2, 1.0, 300)
    sparse = candidate_pairs(x, reach)
    d = np.hypot(*(x[:, None] - x[None]).transpose(2, 0, 1))
    want = {(a, b) for a, b in zip(*np.nonzero(d <= reach[:, None] + reach[None]), strict=True)
            if a < b}
    assert set(zip(sparse[0].tolist(), sparse[1].tolist(), strict=True)) == want
    table_size = ic.CELL_TABLE_PER_BODY
    try:
        ic.CELL_TABLE_PER_BODY = 10**9
        direct = candidate_pairs(x, reach)
    finally:
        ic.CELL_TABLE_PER_BODY = table_size
    assert np.array_equal(sparse[0], direct[0]) and np.array_equal(sparse[1], direct[1])


def test_b5_a_body_inside_an_l_shaped_obstacle_is_flagged():
    # (0.5, 2.5) lies in the L's vertical arm, 0.5 m from its nearest edges
    mo = ground_step([[0.5, 2.5], [2.0, 2.0]], [0.0, 0.0], radius_m=0.3, obstacles_m=[L_SHAPE])
    truth = check_motion(mo, safe(2))
    assert truth.claim[0] == "B5" and truth.lying[0]
    assert truth.obstacle_clearance_m[0] == pytest.approx(-0.5 - 0.3)
    # (2, 2) is in the L's notch: 1 m from both inner edges, outside the solid
    assert truth.claim[1] == "" and not truth.violated[1]
    assert truth.obstacle_clearance_m[1] == pytest.approx(1.0 - 0.3)


@pytest.mark.parametrize("orientation", [1, -1], ids=["ccw", "cw"])
def test_signed_distance_to_a_simple_polygon_is_exact_in_both_orientations(orientation):
    poly = L_SHAPE[::orientation]
    pts = np.array([[0.5, 2.5], [2.0, 2.0], [2.0, 0.5], [-1.0, -1.0], [1.0, 1.0], [4.0, 0.5]])
    want = [-0.5, 1.0, -0.5, np.sqrt(2.0), 0.0, 1.0]
    assert polygon_signed_distance_m(poly, pts) == pytest.approx(want, abs=1e-12)
    seg = polygon_signed_distance_m(np.array([[0.0, 0.0], [2.0, 0.0]]), pts[[3, 5]])
    assert seg == pytest.approx([np.sqrt(2.0), np.hypot(2.0, 0.5)])


def test_c4_a_body_leaving_the_corridor_is_flagged_with_its_excursion():
    mo = ground_step([[0.95, 0.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 0.0]], corridor_m=SQUARE)
    truth = check_motion(mo, safe(2))
    assert truth.claim[0] == "C4" and truth.lying[0]
    assert truth.margin[0] == pytest.approx(-0.05)
    assert truth.wall_clearance_m[1] == pytest.approx(1.0)
    assert not truth.violated[1]


def test_c1_a_free_body_crossing_its_patch_edge_is_a_patch_crossing():
    left = np.array([[-1.0, -1.0], [0.0, -1.0], [0.0, 1.0], [-1.0, 1.0]])
    mo = ground_step([[-0.02, 0.0]], [[1.0, 0.0]], patches_m=[left], patch=[0])
    truth = check_motion(mo, safe(1))
    assert truth.patch_crossing[0] and truth.claim[0] == "C1"
    assert truth.margin[0] == pytest.approx(-0.08)


def test_o2_and_v1_a_speed_over_the_cap_is_flagged():
    mo = ground_step([[0.0, 0.0], [5.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]],
                     v1_mps=[[1.5, 0.0], [0.0, 1.0]], cap_mps=1.2)
    truth = check_motion(mo, safe(2))
    assert truth.claim[0] == "O2" and truth.speed_excess_mps[0] == pytest.approx(0.3)
    assert not truth.violated[1]
    sloped = ground_step([[0.0, 0.0]], [[0.7, 0.0]], cap_mps=0.6, slope=[2.0], patch=[0],
                         patches_m=[SQUARE * 5])
    assert check_motion(sloped, safe(1)).claim[0] == "V1"


def test_t4_an_end_state_off_the_executed_curve_is_flagged():
    mo = ground_step([[0.0, 0.0]], [[1.0, 0.0]], end_m=[[0.2, 0.0]])
    truth = check_motion(mo, safe(1))
    assert truth.claim[0] == "T4" and truth.margin[0] == pytest.approx(-0.1)


def test_a_violation_under_a_fallback_label_is_violated_but_not_a_lie():
    mo = ground_step([[0.95, 0.0]], [[1.0, 0.0]], corridor_m=SQUARE)
    truth = check_motion(mo, np.array([1], np.int8))
    assert truth.violated[0] and not truth.lying[0]
    assert lie_violation(truth) is None


def test_the_first_rule_in_claim_order_names_the_agent():
    # out of the corridor and too fast: the corridor comes first
    mo = ground_step([[0.95, 0.0]], [[1.0, 0.0]], v1_mps=[[3.0, 0.0]], cap_mps=1.2,
                     corridor_m=SQUARE)
    truth = check_motion(mo, safe(1))
    assert truth.claim[0] == "C4"
    exc = lie_violation(truth)
    assert exc is not None and exc.claim_id == "C4" and exc.agent == 0
    assert exc.margin == pytest.approx(truth.margin[0])


def test_a_clean_world_step_on_a_rotating_platform_is_not_flagged():
    # one body at rest on a turning platform inside the corridor: curve re-built exactly (T4)
    from navproof.world import SupportSpec

    spec = SupportSpec.build("disc", "platform", SQUARE * 2, pivot_m=(0.0, 0.0),
                             omega_radps=0.05, velocity_mps=(0.05, 0.0))
    layout = Layout(corridor_m=SQUARE * 10, supports=[spec])
    with World(layout, assertions=False) as world:
        world.add_agents([[1.0, 0.5]], [[[1.0, 0.5]]])
        for _ in range(20):
            step = world.step()
            truth = check_world_step(world, step)
            assert not truth.violated.any(), (truth.claim, truth.margin)
    # the platform's edges (a 4 m square) bound a rider it carries: within 2 m of one
    assert 0.0 < truth.wall_clearance_m[0] <= 2.0


def test_assertion_mode_raises_the_independent_check_verdict(monkeypatch):
    layout = Layout(corridor_m=SQUARE * 10)
    calls = []

    def refuted(motion, label):
        truth = check_motion(motion, label)
        calls.append(truth)
        return ic.StepTruth(**{**truth.__dict__, "violated": np.ones(1, bool),
                               "lying": label == SAFE, "claim": np.array(["W1"]),
                               "margin": np.array([-0.25])})

    monkeypatch.setattr("navproof.world.world.check_motion", refuted)
    with World(layout, assertions=True) as world:
        world.add_agents([[0.0, 0.0]], [[[3.0, 0.0]]])
        with pytest.raises(ObligationViolation) as info:
            world.step()
    assert calls and info.value.claim_id == "W1" and info.value.agent == 0
    assert info.value.margin == pytest.approx(-0.25)


def test_tolerance_is_far_below_a_physical_overlap():
    assert 0.0 < TOLERANCE_M <= 1e-5


def test_b5_a_carried_body_walking_off_its_platform_is_flagged_in_the_platform_frame():
    # the platform (SQUARE, 1 m half-width) carries the body at 0.5 m/s; relative to it the body
    # walks from 0.9 m to 1.1 m of its centre, 0.1 m over its edge
    x0 = np.array([[0.9, 0.0]])
    base = ground_step(x0, [[2.0, 0.0]], end_m=x0 + np.array([[0.25, 0.0]]),
                       end_velocity_mps=[[2.5, 0.0]])
    mo = dataclasses.replace(base, support_index=np.array([0]), supports_m=(SQUARE,),
                             platform=np.array([True]),
                             pivot_velocity_mps=np.array([[0.5, 0.0]]))
    truth = check_motion(mo, safe(1))
    assert truth.claim[0] == "B5" and truth.lying[0]
    assert truth.margin[0] == pytest.approx(-0.1, abs=TOLERANCE_M)
    # the same walk on the ground (no platform under it) keeps every rule
    assert not check_motion(ground_step(x0, [[2.0, 0.0]]), safe(1)).violated[0]
    # on a support that is not a platform (a conveyor) the body is not carried: no B5
    belt = dataclasses.replace(mo, platform=np.array([False]))
    assert not check_motion(belt, safe(1)).violated[0]


def test_c4_the_second_ramp_of_a_step_split_at_a_portal_is_checked():
    # from x = 0.5 the body walks at 1 m/s for half the step, then ramps to 9 m/s: the rebuilt
    # second ramp ends at 0.5 + 0.05 + 0.05 * (1 + 9) / 2 = 0.8; a square of half-width 0.7
    # is left during the second part only
    dt = DT_S
    x0 = np.array([[0.5, 0.0]])
    end = np.array([[0.5 + 0.05 + 0.5 * (1.0 + 9.0) * 0.05, 0.0]])
    mo = dataclasses.replace(
        ground_step(x0, [[1.0, 0.0]], end_m=end, end_velocity_mps=[[9.0, 0.0]],
                    corridor_m=SQUARE * 0.7),
        split_s=np.array([0.5 * dt]), second_rel_mps=np.array([[9.0, 0.0]]),
        second_commit_s=np.array([0.5 * dt]))
    truth = check_motion(mo, safe(1))
    assert truth.claim[0] == "C4"
    assert truth.margin[0] == pytest.approx(0.7 - end[0, 0], abs=TOLERANCE_M)
    first_part = check_motion(dataclasses.replace(mo, corridor_m=SQUARE * 0.56), safe(1))
    assert first_part.claim[0] == "C4" and first_part.margin[0] < truth.margin[0]


def test_w1_a_handoff_body_moving_straight_through_another_is_flagged():
    # the handoff controller moves body 0 straight from (-1, 0) to (1, 0) through body 1 at rest
    mo = dataclasses.replace(
        ground_step([[-1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]], radius_m=0.3,
                    end_m=[[1.0, 0.0], [0.0, 0.0]], end_velocity_mps=[[0.0, 0.0], [0.0, 0.0]]),
        handoff_rows=np.array([0]))
    truth = check_motion(mo, safe(2))
    assert list(truth.claim) == ["W1", "W1"]
    assert truth.agent_clearance_m[1] == pytest.approx(-0.6, abs=TOLERANCE_M)


def _truth_bytes(truth: StepTruth) -> list[bytes]:
    return [np.asarray(getattr(truth, f.name)).tobytes() for f in dataclasses.fields(truth)]


def test_a_check_does_not_depend_on_the_checks_before_it_on_the_same_thread():
    # the curves' storage is written over from check to check: a small step checked alone,
    # after a larger one (stale values beyond its rows) and after a smaller one gives the same
    rng = np.random.default_rng(5)
    corridor = np.array([[-50.0, -50.0], [50.0, -50.0], [50.0, 50.0], [-50.0, 50.0]])

    def step(n: int) -> StepMotion:
        return ground_step(rng.uniform(-40.0, 40.0, (n, 2)), rng.normal(0.0, 1.0, (n, 2)),
                           corridor_m=corridor)

    small, large, tiny = step(300), step(900), step(40)
    alone = _truth_bytes(check_motion(small, safe(300)))
    check_motion(large, safe(900))
    assert _truth_bytes(check_motion(small, safe(300))) == alone
    check_motion(tiny, safe(40))
    assert _truth_bytes(check_motion(small, safe(300))) == alone


def test_one_thread_runs_the_pieces_of_many_threads_bit_for_bit(monkeypatch):
    # a small check calls each compiled pass once, directly; cut into pieces on every CPU
    # (PARALLEL_MIN_ITEMS lowered) it finds the same pairs and values
    rng = np.random.default_rng(5)
    n = 60
    x0 = rng.uniform(0.3, 2.7, (n, 2))
    x0[:, 1] = rng.uniform(0.3, 0.7, n)
    v0 = rng.normal(0.0, 1.5, (n, 2))
    v0[::7] = 0.0
    mo = ground_step(x0, v0, v1_mps=rng.normal(0.0, 1.5, (n, 2)), radius_m=0.05,
                     corridor_m=L_SHAPE, obstacles_m=(SQUARE * 0.1 + [1.5, 0.5],),
                     patches_m=(L_SHAPE,), patch=np.zeros(n, np.int64))
    label = safe(n)
    alone = check_motion(mo, label)
    monkeypatch.setattr(ic, "PARALLEL_MIN_ITEMS", 2)
    pieces = check_motion(mo, label)
    for field in dataclasses.fields(StepTruth):
        a, b = getattr(alone, field.name), getattr(pieces, field.name)
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), field.name
    pi, pj = candidate_pairs(x0, np.full(n, 0.2))
    assert pi.size
    monkeypatch.setattr(ic, "PARALLEL_MIN_ITEMS", 4096)
    qi, qj = candidate_pairs(x0, np.full(n, 0.2))
    assert np.array_equal(pi, qi) and np.array_equal(pj, qj)


def test_two_checks_run_at_once_by_two_threads_keep_their_own_verdicts(monkeypatch):
    # the pieces of both checks share the helper threads (PARALLEL_MIN_ITEMS lowered): each
    # piece's storage is its check's caller's, so neither check reads the other's pairs (with
    # the helper's own storage, these crowds gave one to eight wrong verdicts in 100 checks)
    import threading

    monkeypatch.setattr(ic, "PARALLEL_MIN_ITEMS", 2)
    rng = np.random.default_rng(11)
    corridor = np.array([[-155.0, -155.0], [155.0, -155.0], [155.0, 155.0], [-155.0, 155.0]])

    def step(n: int) -> StepMotion:
        return ground_step(rng.uniform(-150.0, 150.0, (n, 2)), rng.normal(0.0, 1.0, (n, 2)),
                           corridor_m=corridor)

    motions = [step(6000), step(4000)]
    alone = [_truth_bytes(check_motion(mo, safe(mo.position_m.shape[0]))) for mo in motions]
    differing = [0, 0]

    def run(k: int) -> None:
        mo = motions[k]
        for _ in range(100):
            if _truth_bytes(check_motion(mo, safe(mo.position_m.shape[0]))) != alone[k]:
                differing[k] += 1

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert differing == [0, 0]
