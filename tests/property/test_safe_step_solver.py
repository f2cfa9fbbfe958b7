"""The incremental closest-point solver of the safe step against the enumeration of every
candidate (projections, line-line, line-circle and circle-circle points) on random instances:
the same optimum, found on the same rows (claims O2, V1, V2)."""

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from navproof.core.tolerances import PARALLEL_DET
from navproof.solver.candidates import closest_candidates
from navproof.solver.closest import closest_in_disks
from navproof.solver.halfplanes import Disks, HalfPlanes
from navproof.step.search import SOLVE_TOL_MPS

M = 64
TOL = 1e-9


def random_instance(seed, k, offset_low, reach_radius, speed_disk, parallel_triples):
    rng = np.random.default_rng(seed)
    ang = rng.uniform(0, 2 * np.pi, (M, k))
    if parallel_triples and k >= 3:
        # the B4, S3 and stop-from-end half-planes of one edge share its normal
        ang[:, 1:3] = ang[:, :1]
    normal = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    offset = rng.uniform(offset_low, 2.0, (M, k))
    valid = rng.random((M, k)) < 0.9
    pref = rng.normal(size=(M, 2)) * 2.0
    v0 = rng.normal(size=(M, 2))
    centre = np.stack([np.zeros((M, 2)), v0], axis=1)
    radius = np.stack([np.full(M, 2.0), np.full(M, reach_radius)], axis=1)
    disk_valid = np.stack([np.full(M, speed_disk), np.ones(M, bool)], axis=1)
    return pref, normal, offset, valid, centre, radius, disk_valid


def incremental(args):
    """The safe step's solve of an instance: (optimum (M, 2), found (M,))."""
    pref, normal, offset, valid, centre, radius, disk_valid = args
    res = closest_in_disks(pref, HalfPlanes(normal, offset, valid),
                           Disks(centre, radius, disk_valid), tol_mps=SOLVE_TOL_MPS,
                           parallel_det=PARALLEL_DET)
    return res.velocity, res.feasible


def check_same_optimum(args, *, same_point=True):
    """Both find a point on the same rows, at the same distance; the same point unless the
    feasible set is a single point, where both may pick different points within the tolerance.
    """
    v, found = incremental(args)
    cand, dist = closest_candidates(*args)
    assert found.tolist() == np.isfinite(dist[:, 0]).tolist()
    pref, normal, offset, valid, centre, radius, disk_valid = args
    assert np.allclose(np.linalg.norm(v[found] - pref[found], axis=1), dist[found, 0],
                       rtol=0.0, atol=TOL)
    if same_point:
        assert np.all(np.linalg.norm(v[found] - cand[found, 0], axis=1) <= TOL)
    # the optimum is feasible (to rounding)
    over = np.einsum("mkj,mj->mk", normal, v) - offset
    assert np.all(~found[:, None] | ~valid | (over <= TOL))
    gap = np.linalg.norm(v[:, None, :] - centre, axis=-1) - radius
    assert np.all(~found[:, None] | ~disk_valid | (gap <= TOL))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(0, 40), offset_low=st.floats(-0.5, 1.5),
       reach_radius=st.floats(0.05, 3.0), speed_disk=st.booleans(),
       parallel_triples=st.booleans())
@example(seed=0, k=0, offset_low=0.0, reach_radius=0.1, speed_disk=True, parallel_triples=False)
@example(seed=1, k=3, offset_low=0.0, reach_radius=0.1, speed_disk=False, parallel_triples=True)
@example(seed=2, k=40, offset_low=1.5, reach_radius=3.0, speed_disk=True, parallel_triples=True)
@example(seed=3, k=12, offset_low=-0.5, reach_radius=0.05, speed_disk=True, parallel_triples=False)
def test_incremental_solver_matches_the_enumeration(seed, k, offset_low, reach_radius,
                                                     speed_disk, parallel_triples):
    check_same_optimum(random_instance(seed, k, offset_low, reach_radius, speed_disk,
                                       parallel_triples))


@given(gap=st.sampled_from([0.0, 1e-12, 0.5, 2.0]), pref=st.tuples(st.floats(-5.0, 5.0),
                                                                    st.floats(-5.0, 5.0)))
@example(gap=0.0, pref=(5.0, 0.0))
@example(gap=0.0, pref=(0.0, 5.0))
@example(gap=0.0, pref=(1.5, 1e-6))
def test_touching_and_nested_disks(gap, pref):
    """Disks touching from outside (one common point: the tolerance admits a sliver around it),
    apart, and one inside the other."""
    centre = np.array([[[0.0, 0.0], [2.0 + gap, 0.0]], [[0.0, 0.0], [0.5, 0.0]]])
    radius = np.array([[1.0, 1.0], [2.0, 0.5]])
    args = (np.array([pref, pref]), np.zeros((2, 0, 2)), np.zeros((2, 0)), np.zeros((2, 0), bool),
            centre, radius, np.ones((2, 2), bool))
    check_same_optimum(args, same_point=gap > 1e-9)
