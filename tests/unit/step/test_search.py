"""The closest verified velocity's search: where the B5 cutting planes go."""

import numpy as np

from navproof.step import search


def test_interior_dips_equal_numpys_expression() -> None:
    rng = np.random.default_rng(9)
    a, k = 300, 4
    exact = rng.normal(0.0, 1.0, (a, k))
    dt = rng.uniform(0.05, 0.1, a)
    t_min = rng.uniform(-0.02, 0.12, (a, k))
    t_min[::7, 1], t_min[::5, 2] = 0.0, dt[::5]
    exact[::11, 3], t_min[::13, 0] = np.nan, np.nan
    accepted = rng.random(a) < 0.3
    outcome = search._RoundOutcome(accepted, np.zeros((a, 2)), exact, t_min)
    dips, rows = search._interior_dips(outcome, dt)
    expect = ((exact < 0.0) & (t_min > 0.0) & (t_min < dt[:, None]) & ~accepted[:, None])
    assert np.array_equal(dips, expect)
    assert np.array_equal(rows, expect.any(axis=1))


def test_a_round_that_accepts_every_row_has_no_dip() -> None:
    # closest_verified ends the rounds there without looking for dips
    rng = np.random.default_rng(10)
    a, k = 300, 4
    exact = rng.normal(0.0, 1.0, (a, k))
    exact[::11, 3] = np.nan
    dt = rng.uniform(0.05, 0.1, a)
    t_min = rng.uniform(-0.02, 0.12, (a, k))
    outcome = search._RoundOutcome(np.ones(a, bool), np.zeros((a, 2)), exact, t_min)
    dips, rows = search._interior_dips(outcome, dt)
    assert not dips.any() and not rows.any()


def test_cuts_follow_the_planes_and_leave_them_alone_until_one_is_finite() -> None:
    from navproof.core.tolerances import EPS, PARALLEL_DET
    from navproof.solver.closest import closest_in_disks
    from navproof.solver.halfplanes import Disks, HalfPlanes

    rng = np.random.default_rng(4)
    r, s, k = 200, 6, 3
    ang = rng.uniform(0.0, 2.0 * np.pi, (r, s))
    planes = HalfPlanes(np.stack([np.cos(ang), np.sin(ang)], axis=-1),
                        rng.uniform(-0.5, 1.0, (r, s)), rng.random((r, s)) < 0.8)
    edge_ang = rng.uniform(0.0, 2.0 * np.pi, (r, k))
    normal = np.stack([np.cos(edge_ang), np.sin(edge_ang)], axis=-1)
    none = np.full((r, k), np.inf)
    assert search._with_cuts(planes, normal, none) is planes
    cuts = np.where(rng.random((r, k)) < 0.4, rng.uniform(-0.5, 1.0, (r, k)), np.inf)
    cut = search._with_cuts(planes, normal, cuts)
    assert cut.normal.tobytes() == np.concatenate([planes.normal, normal], axis=1).tobytes()
    assert cut.offset[:, :s].tobytes() == planes.offset.tobytes()
    assert np.array_equal(cut.valid[:, s:], np.isfinite(cuts))
    assert cut.offset[:, s:][np.isfinite(cuts)].tobytes() == (cuts - EPS)[np.isfinite(cuts)].tobytes()
    # cut slots that are not valid change nothing of the solve
    disks = Disks(np.zeros((r, 2, 2)), np.full((r, 2), 2.0), np.ones((r, 2), bool))
    preferred = rng.normal(0.0, 1.5, (r, 2))
    empty = HalfPlanes(np.concatenate([planes.normal, normal], axis=1),
                       np.concatenate([planes.offset, none], axis=1),
                       np.concatenate([planes.valid, np.zeros((r, k), bool)], axis=1))
    narrow = closest_in_disks(preferred, planes, disks, tol_mps=search.SOLVE_TOL_MPS,
                              parallel_det=PARALLEL_DET)
    wide = closest_in_disks(preferred, empty, disks, tol_mps=search.SOLVE_TOL_MPS,
                            parallel_det=PARALLEL_DET)
    assert narrow.velocity.tobytes() == wide.velocity.tobytes()
    assert np.array_equal(narrow.feasible, wide.feasible)


def test_disks_are_the_numpy_expressions() -> None:
    import dataclasses

    from navproof.boundary.edges import EdgeSet
    from navproof.boundary.motion import Support
    from navproof.step.inputs import StepInput

    rng = np.random.default_rng(21)
    n = 300
    inp = StepInput(rng.normal(size=(n, 2)), rng.choice([0.0, -0.0, 1.5, -0.3], (n, 2)),
                    np.zeros((n, 2)), rng.uniform(0.05, 0.1, n),
                    Support.translating(np.zeros((n, 2))),
                    EdgeSet.build(np.tile([[[1.0, 0.0]]], (n, 1, 1)), np.ones((n, 1))),
                    rng.uniform(0.5, 2.0, n), rng.choice([0.0, 1e-300, 1.0, 3.0], n),
                    np.full(n, 0.3))
    inp = dataclasses.replace(inp, dt_s=np.asarray(inp.dt_s))
    for agents in (np.arange(n), rng.choice(n, 40, replace=False)):
        for speed_disk in (True, False):
            disks = search._disks(inp, agents, speed_disk=speed_disk)
            centre = np.zeros((agents.size, 2, 2))
            centre[:, 1] = inp.velocity_mps[agents]
            radius = np.stack([inp.vh_mps[agents],
                               inp.accel_mps2[agents] * inp.dt_per_agent_s[agents]], axis=1)
            valid = np.ones((agents.size, 2), bool)
            valid[:, 0] = speed_disk
            assert disks.centre.tobytes() == centre.tobytes()
            assert disks.radius.tobytes() == radius.tobytes()
            assert np.array_equal(disks.valid, valid)


def test_stand_ins_and_void_rows_are_the_numpy_expressions() -> None:
    rng = np.random.default_rng(31)
    a, k, n = 300, 4, 500
    edge = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -1e308, 1.5])
    solved = rng.random(a) < 0.7
    agents = rng.permutation(n)[:a]
    nearest, velocity = rng.choice(edge, (a, 2)), rng.choice(edge, (n, 2))
    exact, t_min = rng.choice(edge, (a, k)), rng.choice(edge, (a, k))
    ok = rng.random(a) < 0.5
    cand = np.empty((a, 2))
    search._stand_in_rows(solved, nearest, velocity, agents, cand)
    assert cand.tobytes() == np.where(solved[:, None], nearest, velocity[agents]).tobytes()
    accepted, exact_out, t_out = np.empty(a, bool), np.empty((a, k)), np.empty((a, k))
    search._void_unsolved_rows(solved, ok, exact, t_min, accepted, exact_out, t_out)
    assert accepted.tobytes() == (ok & solved).tobytes()
    assert exact_out.tobytes() == np.where(solved[:, None], exact, np.inf).tobytes()
    assert t_out.tobytes() == np.where(solved[:, None], t_min, 0.0).tobytes()


def test_retried_rows_merge_as_the_numpy_expressions() -> None:
    rng = np.random.default_rng(37)
    a, k = 300, 4
    edge = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -1e308, 1.5])
    retry = np.flatnonzero(rng.random(a) < 0.4)
    r = retry.size
    solved, more_accepted = rng.random(a) < 0.6, rng.random(r) < 0.5
    more_velocity = rng.choice(edge, (r, 2))
    more_exact, more_t = rng.choice(edge, (r, k)), rng.choice(edge, (r, k))
    accepted, velocity = rng.random(a) < 0.5, rng.choice(edge, (a, 2))
    exact, t_min = rng.choice(edge, (a, k)), rng.choice(edge, (a, k))
    want = [x.copy() for x in (accepted, velocity, exact, t_min)]
    want[0][retry] = more_accepted
    want[1][retry] = np.where(more_accepted[:, None], more_velocity, want[1][retry])
    tried = solved[retry]
    want[2][retry] = np.where(tried[:, None], want[2][retry], more_exact)
    want[3][retry] = np.where(tried[:, None], want[3][retry], more_t)
    search._merge_retried_rows(retry, solved, more_accepted, more_velocity, more_exact, more_t,
                               accepted, velocity, exact, t_min)
    for got, expect in zip((accepted, velocity, exact, t_min), want, strict=True):
        assert got.tobytes() == expect.tobytes()


def test_trying_and_verified_rows_are_the_numpy_expressions() -> None:
    rng = np.random.default_rng(41)
    a, k, c = 300, 4, 3
    edge = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -1e308, 1.5])
    agents = rng.permutation(1000)[:a]
    cand, dist = rng.choice(edge, (a, c, 2)), rng.choice(edge, (a, c))
    optimum_tried = rng.random(a) < 0.5
    for j in range(c):
        accepted = rng.random(a) < 0.3
        velocity, exact, t_min = (rng.choice(edge, shape) for shape in ((a, 2), (a, k), (a, k)))
        at, at_agents, at_cand = np.empty(a, np.int64), np.empty(a, agents.dtype), np.empty((a, 2))
        tries = search._trying_rows(accepted, dist, cand, agents, optimum_tried, j, at,
                                    at_agents, at_cand)
        want_at = np.flatnonzero(~accepted & np.isfinite(dist[:, j])
                                 & ((j > 0) | ~optimum_tried))
        assert tries == want_at.size > 0
        assert at[:tries].tobytes() == want_at.tobytes()
        assert at_agents[:tries].tobytes() == agents[want_at].tobytes()
        assert at_cand[:tries].tobytes() == cand[want_at, j].tobytes()
        ok = rng.random(tries) < 0.5
        checked_exact, checked_t = rng.choice(edge, (tries, k)), rng.choice(edge, (tries, k))
        want = [x.copy() for x in (accepted, velocity, exact, t_min)]
        if j == 0:
            want[2][want_at], want[3][want_at] = checked_exact, checked_t
        want[1][want_at[ok]] = cand[want_at[ok], j]
        want[0][want_at[ok]] = True
        search._take_verified_rows(at[:tries], ok, cand, j, checked_exact, checked_t, j == 0,
                                   accepted, velocity, exact, t_min)
        for got, expect in zip((accepted, velocity, exact, t_min), want, strict=True):
            assert got.tobytes() == expect.tobytes()
