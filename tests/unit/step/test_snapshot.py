"""Prediction snapshot discipline (claim P1)."""

import numpy as np
import pytest

from navproof import boundary as b
from navproof import step as ss
from navproof.core.errors import InvalidInput
from navproof.step import snapshot as snap

DT = 0.1


def crowd(u):
    n = 2
    edges = b.EdgeSet.build(np.array([[[1.0, 0.0]]] * n), np.array([[0.0]] * n))
    support = b.Support.translating(np.array(u, float), version=np.array([3, 3]))
    inp = ss.StepInput(np.array([[-1.0, 0.0], [-1.0, 0.0]]), np.zeros((n, 2)),
                       np.array([[0.5, 0.0], [0.5, 0.0]]), DT, support, edges, np.full(n, 2.0),
                       np.full(n, 1.0), np.full(n, 0.3))
    return inp


def test_matching_snapshot_commits_the_candidate_unchanged():
    inp = crowd([[0.0, 0.0], [0.0, 0.0]])
    shot = snap.take_snapshot(4.0, inp.support, inp.edges)
    res = ss.solve_safe_step(inp)
    actual = snap.ActualState(4.0, inp.position_m, inp.velocity_mps, inp.support, inp.edges)
    out, mismatch = snap.commit_step(shot, inp, res, actual)
    assert not mismatch.any()
    assert out is res


def test_support_version_change_rebuilds_from_the_actual_state_only_for_that_agent():
    inp = crowd([[0.0, 0.0], [0.0, 0.0]])
    shot = snap.take_snapshot(4.0, inp.support, inp.edges)
    res = ss.solve_safe_step(inp)
    # agent 1's platform changed: now it carries 1 m/s towards the fixed wall, version 4
    new_support = b.Support.translating(np.array([[0.0, 0.0], [1.0, 0.0]]),
                                        version=np.array([3, 4]))
    actual_pos = np.array([[-1.0, 0.0], [-0.3, 0.0]])
    actual = snap.ActualState(4.0, actual_pos, np.zeros((2, 2)), new_support, inp.edges)
    out, mismatch = snap.commit_step(shot, inp, res, actual, assertions=True)
    assert mismatch.tolist() == [False, True]
    assert out.velocity_mps[0].tolist() == res.velocity_mps[0].tolist()
    # rebuilt against the new carry: the old (zero) platform velocity is not reused
    assert out.reference.r_mps[1].tolist() == pytest.approx([0.0, 0.0])
    assert out.reference.v_stop_mps[1].tolist() == pytest.approx([-1.0, 0.0])
    assert out.velocity_mps[1, 0] < 0.0


def test_edge_version_or_time_origin_change_is_a_mismatch():
    inp = crowd([[0.0, 0.0], [0.0, 0.0]])
    shot = snap.take_snapshot(4.0, inp.support, inp.edges)
    moved = b.EdgeSet(inp.edges.normal, inp.edges.offset_m, inp.edges.valid, inp.edges.edge_id,
                      inp.edges.owner, b.Motion.translating(np.zeros((2, 1, 2)),
                                                            version=np.array([[0], [7]])))
    assert snap.snapshot_mismatch(shot, 4.0, inp.support, moved).tolist() == [False, True]
    assert snap.snapshot_mismatch(shot, 4.1, inp.support, inp.edges).tolist() == [True, True]
    with pytest.raises(InvalidInput, match="time_origin_s"):
        snap.take_snapshot(np.nan, inp.support, inp.edges)


def test_an_edge_version_changed_in_place_after_the_snapshot_is_a_mismatch():
    """A read-only version array that owns its memory can be made writable again by its owner:
    the snapshot holds the versions it was given, not the array that may change later."""
    inp = crowd([[0.0, 0.0], [0.0, 0.0]])
    edges = b.EdgeSet(inp.edges.normal, inp.edges.offset_m, inp.edges.valid, inp.edges.edge_id,
                      inp.edges.owner, b.Motion.translating(np.zeros((2, 1, 2)),
                                                            version=np.array([[0], [0]])))
    version = edges.motion.version
    version.flags.writeable = False
    assert version.flags.owndata
    shot = snap.take_snapshot(4.0, inp.support, edges)
    version.flags.writeable = True
    version[1, 0] = 7
    version.flags.writeable = False
    assert snap.snapshot_mismatch(shot, 4.0, inp.support, edges).tolist() == [False, True]


@pytest.mark.parametrize("n, k", [(0, 3), (1, 0), (7, 4), (2000, 6)])
def test_the_mismatch_pass_is_the_numpy_expression(n, k):
    rng = np.random.default_rng(n + k)
    support_version = rng.integers(0, 3, n)
    edge_version = rng.integers(0, 3, (n, k))
    edge_valid = rng.random((n, k)) < 0.7
    shot = snap.PredictionSnapshot(1.5, rng.integers(0, 3, n), rng.integers(0, 3, (n, k)),
                                   rng.random((n, k)) < 0.7)
    support = b.Support.translating(np.zeros((n, 2)), version=support_version)
    edges = b.EdgeSet(np.zeros((n, k, 2)), np.zeros((n, k)), edge_valid, np.zeros((n, k), int),
                      np.zeros((n, k), int),
                      b.Motion.translating(np.zeros((n, k, 2)), version=edge_version))
    want = (support_version != shot.support_version) | (
        (edge_valid != shot.edge_valid)
        | (edge_valid & (edge_version != shot.edge_version))).any(axis=1)
    got = snap.snapshot_mismatch(shot, 1.5, support, edges)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
