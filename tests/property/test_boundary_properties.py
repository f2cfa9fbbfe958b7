"""Properties of the committed step over random edges, supports, budgets and velocities
(claims B2, B5, B6, S1, S3, R3, V2, W1): checked against an independent dense evaluation."""

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from navproof import boundary as b
from navproof import step as ss

DT = 0.1
N, K = 24, 3
TOL = 1e-9


def random_world(seed, a_mps2, margin_scale, speed_scale, preferred_scale):
    rng = np.random.default_rng(seed)
    ang = rng.uniform(0, 2 * np.pi, (N, K))
    normal = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    offset = margin_scale * rng.uniform(0.0, 1.0, (N, K))
    u = rng.uniform(-0.3, 0.3, (N, 2))
    kind = rng.integers(0, 3, (N, K))     # fixed, co-moving, own translation
    own = rng.uniform(-0.3, 0.3, (N, K, 2))
    e = np.where((kind == 0)[..., None], 0.0, np.where((kind == 1)[..., None], u[:, None], own))
    edges = b.EdgeSet.build(normal, offset, edge_velocity_mps=e)
    vh = rng.uniform(0.5, 4.0, N)
    v0 = rng.normal(size=(N, 2)) * speed_scale
    pref = rng.normal(size=(N, 2)) * preferred_scale
    inp = ss.StepInput(np.zeros((N, 2)), v0, pref, DT, b.Support.translating(u), edges, vh,
                       np.full(N, a_mps2), np.full(N, 0.3))
    return inp, u, e


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), a_mps2=st.floats(0.5, 20.0),
       margin_scale=st.floats(0.0, 1.0), speed_scale=st.floats(0.0, 1.5),
       preferred_scale=st.floats(0.0, 3.0))
@example(seed=1, a_mps2=1.0, margin_scale=0.0, speed_scale=0.0, preferred_scale=1.0)
@example(seed=2, a_mps2=1.0, margin_scale=0.3, speed_scale=0.0, preferred_scale=0.0)
@example(seed=3, a_mps2=20.0, margin_scale=0.05, speed_scale=1.5, preferred_scale=3.0)
def test_committed_step_never_leaves_and_its_stop_never_crosses(seed, a_mps2, margin_scale,
                                                                speed_scale, preferred_scale):
    inp, u, e = random_world(seed, a_mps2, margin_scale, speed_scale, preferred_scale)
    res = ss.solve_safe_step(inp, assertions=True)
    v0, v1 = inp.velocity_mps, res.velocity_mps
    n, b0 = inp.edges.normal, inp.edges.offset_m
    kept = res.label <= ss.DYNAMIC_AVOIDANCE_FAILED
    # whole step, every instant: margin b0 + t n.e - n.x(t) on a dense grid
    t = np.linspace(0.0, DT, 2001)[:, None, None]
    x = ((u + v0)[None] * t + (v1 - v0)[None] * t ** 2 / (2 * DT))
    margin = b0[None] + t * np.einsum("nkj,nkj->nk", n, e)[None] - np.einsum("nkj,tnj->tnk", n, x)
    assert np.all(margin[:, kept] >= -TOL)
    # V2 always holds
    assert np.all(np.linalg.norm(v1 - v0, axis=1) <= a_mps2 * DT + TOL)
    # safe steps: braking at a from the step end towards r never crosses, holding at r is safe
    safe = (res.label == ss.SAFE) & res.reference.exists
    r = res.reference.r_mps
    c1 = u + v1 - r
    speed = np.linalg.norm(c1, axis=1)
    t_stop = speed / a_mps2
    tau = np.linspace(0.0, 1.0, 2001)[:, None] * t_stop[None]
    unit = np.where(speed[:, None] > 0, c1 / np.where(speed > 0, speed, 1.0)[:, None], 0.0)
    disp = (r[None] + c1[None]) * tau[..., None] - unit[None] * (a_mps2 * tau ** 2 / 2)[..., None]
    end = margin[-1]
    brake = end[None] + tau[..., None] * np.einsum("nkj,nkj->nk", n, e)[None] - np.einsum(
        "nkj,tnj->tnk", n, disp)
    assert np.all(brake[:, safe] >= -TOL)
    drift = np.einsum("nkj,nkj->nk", n, e - r[:, None, :])
    assert np.all(drift[safe] >= -TOL)
    # labels are never invented: an unreachable stop target is never safe
    assert not np.any((res.label == ss.SAFE) & ~res.reference.reachable)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), omega=st.floats(-3.0, 3.0))
@example(seed=0, omega=0.0)
@example(seed=1, omega=3.0)
def test_body_at_rest_on_a_rotating_platform_keeps_constant_margins(seed, omega):
    rng = np.random.default_rng(seed)
    pivot = rng.normal(size=(N, 2))
    ang = rng.uniform(0, 2 * np.pi, (N, K))
    normal = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    x0 = rng.normal(size=(N, 2))
    offset = np.einsum("nkj,nj->nk", normal, x0) + rng.uniform(0.0, 1.0, (N, K))
    motion = b.Motion.rotating(np.broadcast_to(pivot[:, None], (N, K, 2)).copy(),
                               np.full((N, K), omega))
    edges = b.EdgeSet.build(normal, offset, motion=motion)
    support = b.Support(b.Motion.rotating(pivot, np.full(N, omega)))
    zero = np.zeros((N, 2))
    f = b.local_frame_excess_m(edges, support, x0, zero, zero, DT, np.linspace(0.0, DT, 11))
    assert np.all(np.ptp(f, axis=0) == 0.0)
    s = edges.initial_margin_m(x0)
    assert np.allclose(b.curve_min_margin_m(edges, support, x0, zero, zero, DT), s, atol=1e-12)
    inp = ss.StepInput(x0, zero, zero, DT, support, edges, np.full(N, 2.0), np.full(N, 1.0),
                       np.full(N, 0.3))
    res = ss.solve_safe_step(inp, assertions=True)
    assert np.allclose(res.velocity_mps, 0.0)
    assert np.allclose(res.margins.edge_curve_m, s, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), omega=st.floats(-3.0, 3.0),
       speed=st.floats(0.0, 2.0))
@example(seed=0, omega=2.0, speed=0.0)
def test_rotating_edges_certified_margin_is_a_lower_bound(seed, omega, speed):
    rng = np.random.default_rng(seed)
    ang = rng.uniform(0, 2 * np.pi, (N, K))
    normal = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    edges = b.EdgeSet.build(normal, rng.uniform(0.0, 1.0, (N, K)),
                            motion=b.Motion.rotating(rng.normal(size=(N, K, 2)),
                                                     np.full((N, K), omega)))
    support = b.Support.translating(rng.uniform(-0.3, 0.3, (N, 2)))
    x0 = np.zeros((N, 2))
    v0, v1 = rng.normal(size=(N, 2)) * speed, rng.normal(size=(N, 2)) * speed
    bound = b.curve_min_margin_m(edges, support, x0, v0, v1, DT)
    dense = -b.local_frame_excess_m(edges, support, x0, v0, v1, DT,
                                    np.linspace(0.0, DT, 2001)).max(axis=0)
    assert np.all(bound <= dense + 1e-12)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), a_mps2=st.floats(0.5, 20.0))
@example(seed=0, a_mps2=1.0)
@example(seed=5, a_mps2=20.0)
def test_portal_sub_steps_compose_coverage(seed, a_mps2):
    from navproof.step import corridor as cor

    rng = np.random.default_rng(seed)
    flat = np.zeros(2)
    here = cor.Region.build(1, np.array([[-2, -1], [0, -1], [0, 1], [-2, 1]], float), flat)
    there = cor.Region.build(2, np.array([[0, -0.6], [3, -0.6], [3, 0.6], [0, 0.6]], float),
                             flat)
    patch = b.make_patch(7, np.array([[-3, -2], [4, -2], [4, 2], [-3, 2]], float), flat)
    cur = cor.region_edges([here] * N, [patch] * N, portal_mask=[np.array([0, 1, 0, 0])] * N)
    current = b.EdgeSet(cur.normal, cur.offset_m, cur.valid & cur.wall, cur.edge_id, cur.owner,
                        cur.motion, cur.kind)
    nxt = cor.region_edges([there] * N, [patch] * N)
    x0 = np.stack([rng.uniform(-0.3, -0.01, N), rng.uniform(-0.5, 0.5, N)], axis=1)
    v0 = np.stack([rng.uniform(0.0, 1.5, N), rng.uniform(-0.5, 0.5, N)], axis=1)
    pref = np.stack([rng.uniform(0.5, 2.0, N), rng.uniform(-1.0, 1.0, N)], axis=1)
    inp = ss.StepInput(x0, v0, pref, DT, b.Support.translating(np.zeros((N, 2))), current,
                       np.full(N, 2.0), np.full(N, a_mps2), np.full(N, 0.3))
    out = cor.step_with_portal(inp, region_id=np.ones(N, int),
                               portal_normal=np.tile([1.0, 0.0], (N, 1)),
                               portal_offset_m=np.zeros(N), portal_valid=np.ones(N, bool),
                               next_region_id=np.full(N, 2), next_edges=nxt, assertions=True)
    first_ok = out.first.label <= ss.DYNAMIC_AVOIDANCE_FAILED
    t_p = out.split_time_s
    # piece 1 on [0, t_p] inside the current region's walls
    frac = np.linspace(0.0, 1.0, 801)
    t1 = frac[:, None] * t_p[None]
    v1 = out.first.velocity_mps
    x1 = x0[None] + v0[None] * t1[..., None] + (v1 - v0)[None] * (t1 ** 2 / (2 * DT))[..., None]
    m1 = current.offset_m[None] - np.einsum("nkj,tnj->tnk", current.normal, x1)
    m1 = np.where(current.valid[None], m1, np.inf)
    assert np.all(m1[:, first_ok] >= -TOL)
    # piece 2 on [t_p, dt] inside the next region (rows that switched)
    rows = out.second_rows
    if rows.size:
        switched = out.region_id[rows] == 2
        ok2 = (out.second.label <= ss.DYNAMIC_AVOIDANCE_FAILED) & switched & first_ok[rows]
        tp = t_p[rows]
        start = x0[rows] + v0[rows] * tp[:, None] + (v1[rows] - v0[rows]) * (
            tp ** 2 / (2 * DT))[:, None]
        vs = v0[rows] + (v1[rows] - v0[rows]) * (tp / DT)[:, None]
        rem = DT - tp
        t2 = frac[:, None] * rem[None]
        v2 = out.second.velocity_mps
        x2 = start[None] + vs[None] * t2[..., None] + (v2 - vs)[None] * (
            t2 ** 2 / (2 * rem))[..., None]
        ne = b.take_edges(nxt, rows)
        m2 = ne.offset_m[None] - np.einsum("nkj,tnj->tnk", ne.normal, x2)
        m2 = np.where(ne.valid[None], m2, np.inf)
        assert np.all(m2[:, ok2] >= -TOL)
        assert np.allclose(out.position_m[rows][switched], x2[-1][switched])


def _rot(angle, x, y):
    c, s = np.cos(angle), np.sin(angle)
    return c * x - s * y, s * x + c * y


def _dense_stop_excess(edges, support, x0, v0, v1, a, tau):
    """f (T, N, K) of the stop after the step at times DT + tau (T, N), written out here: hold v1
    relative to the support for DT, brake at a to rest on it, then rest on it (S1, B6)."""
    speed = np.hypot(v1[:, 0], v1[:, 1])
    unit = np.where(speed > 0.0, speed, 1.0)
    brake = speed / a
    with np.errstate(over="ignore"):    # a tiny |v1| overflows only in the unused branch
        dist = np.where(tau <= DT, tau,
                        np.where(tau <= DT + brake, tau - a * (tau - DT) ** 2 / (2.0 * unit),
                                 DT + brake / 2.0))
    y = x0 + (v0 + v1) * DT / 2.0 + v1 * dist[..., None]            # (T, N, 2)
    t = (DT + tau)[..., None]                                        # (T, N, 1)
    ms, me = support.motion, edges.motion
    cs, ws, os_ = ms.pivot_m[:, None, :], ms.velocity_mps[:, None, :], ms.omega_radps[:, None]
    rx, ry = _rot(os_ * t, y[..., None, 0] - cs[..., 0], y[..., None, 1] - cs[..., 1])
    wx, wy = cs[..., 0] + ws[..., 0] * t + rx, cs[..., 1] + ws[..., 1] * t + ry
    ce, we = me.pivot_m, me.velocity_mps
    lx, ly = _rot(-me.omega_radps * t, wx - ce[..., 0] - we[..., 0] * t,
                  wy - ce[..., 1] - we[..., 1] * t)
    n = edges.normal
    return n[..., 0] * (lx + ce[..., 0]) + n[..., 1] * (ly + ce[..., 1]) - edges.offset_m


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), omega=st.floats(-3.0, 3.0), speed=st.floats(0.0, 2.0),
       a_mps2=st.floats(0.5, 10.0), drift=st.booleans())
@example(seed=0, omega=2.0, speed=0.0, a_mps2=1.0, drift=False)
@example(seed=3, omega=0.0, speed=1.5, a_mps2=0.5, drift=True)
def test_rotating_stop_certified_margin_is_a_lower_bound(seed, omega, speed, a_mps2, drift):
    """B6/S1/R3: the certified stop bound and the hold bound (when finite) lie below the dense
    margins of the true stop trajectory and of a long hold at rest on the support."""
    rng = np.random.default_rng(seed)
    ang = rng.uniform(0, 2 * np.pi, (N, K))
    normal = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    edge_w = rng.normal(size=(N, K, 2)) * 0.2 if drift else np.zeros((N, K, 2))
    edges = b.EdgeSet.build(normal, rng.uniform(0.0, 3.0, (N, K)),
                            motion=b.Motion.rotating(rng.normal(size=(N, K, 2)),
                                                     rng.uniform(-1.0, 1.0, (N, K)) * omega,
                                                     velocity_mps=edge_w))
    support = b.Support(b.Motion.rotating(rng.normal(size=(N, 2)),
                                          rng.uniform(-1.0, 1.0, N) * (3.0 - abs(omega))))
    x0 = rng.normal(size=(N, 2))
    v0, v1 = rng.normal(size=(N, 2)) * speed, rng.normal(size=(N, 2)) * speed
    a = np.full(N, a_mps2)
    stop, hold = b.rotating_stop_margin_bound_m(edges, support, x0, v0, v1, DT, a)
    length = DT + np.hypot(v1[:, 0], v1[:, 1]) / a_mps2
    tau = np.linspace(0.0, 1.0, 4001)[:, None] * length[None, :]
    dense_stop = -_dense_stop_excess(edges, support, x0, v0, v1, a_mps2, tau).max(axis=0)
    assert np.all(stop <= dense_stop + 1e-12)
    tau_hold = length[None, :] + np.linspace(0.0, 60.0, 20001)[:, None]
    dense_hold = -_dense_stop_excess(edges, support, x0, v0, v1, a_mps2, tau_hold).max(axis=0)
    assert np.all(hold <= dense_hold + 1e-12)
    if not drift:
        assert np.all(np.isfinite(hold))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), omega=st.floats(-1.5, 1.5), a_mps2=st.floats(0.5, 5.0))
@example(seed=0, omega=1.0, a_mps2=1.0)
def test_safe_agents_on_rotating_platforms_stop_and_hold_inside_every_wall(seed, omega, a_mps2):
    """B6/S3/R3/F2: an agent labelled safe on a rotating platform beside fixed walls stays inside
    over the dense true stop trajectory and a long hold at rest on the platform; the others carry
    no safe label."""
    rng = np.random.default_rng(seed)
    ang = rng.uniform(0, 2 * np.pi, (N, K))
    normal = np.stack([np.cos(ang), np.sin(ang)], axis=-1)
    x0 = rng.uniform(-1.0, 1.0, (N, 2))
    offset = np.einsum("nkj,nj->nk", normal, x0) + rng.uniform(0.05, 4.0, (N, K))
    edges = b.EdgeSet.build(normal, offset)
    support = b.Support(b.Motion.rotating(rng.uniform(-0.5, 0.5, (N, 2)), np.full(N, omega)))
    v0 = rng.normal(size=(N, 2)) * 0.5
    pref = rng.normal(size=(N, 2))
    inp = ss.StepInput(x0, v0, pref, DT, support, edges, np.full(N, 2.0), np.full(N, a_mps2),
                       np.full(N, 0.3))
    res = ss.solve_safe_step(inp, assertions=True)
    safe = res.label == ss.SAFE
    v1 = res.velocity_mps
    length = DT + np.hypot(v1[:, 0], v1[:, 1]) / a_mps2
    tau = np.concatenate([np.linspace(0.0, 1.0, 2001)[:, None] * length[None, :],
                          length[None, :] + np.linspace(0.0, 30.0, 6001)[:, None]])
    f = _dense_stop_excess(edges, support, x0, v0, v1, a_mps2, tau).max(axis=0)
    assert np.all(f[safe] <= TOL)
    flagged = (res.flags & ss.FLAG_ROTATING_STOP_UNCERTIFIED) != 0
    assert not np.any(flagged & safe)
