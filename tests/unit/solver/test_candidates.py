"""The candidate enumeration of the closest-point problem: one compiled pass per row, equal to
the numpy expressions it replaced (Claim O2, V1, V2)."""

import numpy as np

from navproof.solver import candidates as cd

SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 1e-310, -1e-310, 1e300, -1e300, np.inf, -np.inf,
                    np.nan, 0.5, 3.0, 1e-20])


def _bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def test_dot_is_numpys_einsum_to_the_bit():
    rng = np.random.default_rng(1)
    m, k = 4000, 6
    n = rng.normal(size=(m, k, 2)) * 10.0 ** rng.integers(-5, 5, (m, k, 2))
    p = rng.normal(size=(m, 2)) * 10.0 ** rng.integers(-5, 5, (m, 2))
    mask = rng.random(n.shape) < 0.3
    n[mask] = rng.choice(SPECIAL, mask.sum())
    mask = rng.random(p.shape) < 0.3
    p[mask] = rng.choice(SPECIAL, mask.sum())
    ours = np.array([[cd._dot(n[r, i, 0], n[r, i, 1], p[r, 0], p[r, 1]) for i in range(k)]
                     for r in range(m)])
    assert np.array_equal(_bits(ours), _bits(np.einsum("mkj,mj->mk", n, p)))
    centre = np.stack([p, p[::-1]], axis=1)
    ours = np.array([[[cd._dot(n[r, i, 0], n[r, i, 1], centre[r, a, 0], centre[r, a, 1])
                       for a in range(2)] for i in range(k)] for r in range(m)])
    assert np.array_equal(_bits(ours), _bits(np.einsum("mkj,mdj->mkd", n, centre)))


def _numpy_drop_redundant(hp_normal, hp_offset, hp_valid, disk_centre, disk_radius,
                          disk_valid):
    """The numpy expressions the compiled pass replaced: the redundant constraints cleared,
    the remaining half-planes packed to the front of each row."""
    hv = hp_valid.copy()
    for a in range(disk_valid.shape[1]):
        reach = np.einsum("mkj,mj->mk", hp_normal, disk_centre[:, a]) + disk_radius[:, a, None]
        hv &= ~(disk_valid[:, a, None] & (reach <= hp_offset))
    dv = disk_valid.copy()
    for a in range(dv.shape[1]):
        for c in range(dv.shape[1]):
            if a == c:
                continue
            gap = np.linalg.norm(disk_centre[:, a] - disk_centre[:, c], axis=1)
            inner = disk_valid[:, c] & (gap + disk_radius[:, c] <= disk_radius[:, a])
            same = inner & (gap + disk_radius[:, a] <= disk_radius[:, c])
            dv[:, a] &= ~(inner & ~(same & (a < c)))
    order = np.argsort(~hv, axis=1, kind="stable")
    order = order[:, :int(hv.sum(axis=1).max(initial=0))]
    return (np.take_along_axis(hp_normal, order[..., None], 1),
            np.take_along_axis(hp_offset, order, 1), np.take_along_axis(hv, order, 1), dv)


def _random_problems(seed, m=3000, k=9):
    rng = np.random.default_rng(seed)
    angle = rng.uniform(0.0, 2.0 * np.pi, (m, k))
    normal = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    # repeated and opposite normals: parallel lines and equal vertices
    normal[::5, 1] = normal[::5, 0]
    normal[::7, 2] = -normal[::7, 0]
    normal[::11, 3] = [0.0, -0.0]
    offset = rng.normal(0.5, 1.0, (m, k))
    offset[::13, 4] = 1e6
    valid = rng.random((m, k)) < 0.8
    centre = np.zeros((m, 2, 2))
    centre[:, 1] = rng.normal(0.0, 0.5, (m, 2))
    radius = rng.uniform(0.1, 2.0, (m, 2))
    # nested, identical and apart disks
    radius[::3, 0] = 5.0
    centre[::4, 1], radius[::4, 1] = 0.0, radius[::4, 0]
    disk_valid = rng.random((m, 2)) < 0.9
    preferred = rng.normal(0.0, 1.5, (m, 2))
    preferred[::17] = -0.0
    preferred[::19, 0] = np.nan
    return preferred, normal, offset, valid, centre, radius, disk_valid


def test_best_candidates_equal_the_numpy_dropped_and_packed_enumeration():
    for seed in range(3):
        preferred, normal, offset, valid, centre, radius, disk_valid = _random_problems(seed)
        hn, ho, hv, dv = _numpy_drop_redundant(normal, offset, valid, centre, radius,
                                               disk_valid)
        expected = cd.closest_candidates(preferred, hn, ho, hv, centre, radius, dv, count=4)
        got = cd.best_candidates(preferred, normal, offset, valid, centre, radius, disk_valid, 4)
        assert np.array_equal(_bits(got[0]), _bits(expected[0]))
        assert np.array_equal(_bits(got[1]), _bits(expected[1]))
        assert 0.2 < np.isfinite(got[1][:, 0]).mean() < 1.0


def test_no_rows_or_no_half_planes():
    for m, k in ((0, 3), (4, 0)):
        out, dist = cd.best_candidates(np.ones((m, 2)), np.zeros((m, k, 2)), np.zeros((m, k)),
                                       np.ones((m, k), bool), np.zeros((m, 2, 2)),
                                       np.ones((m, 2)), np.ones((m, 2), bool), 2)
        assert out.shape == (m, 2, 2) and dist.shape == (m, 2)
        if m:
            assert np.all(np.isfinite(dist[:, 0]))


def test_the_first_feasible_candidates_are_a_prefix_of_every_feasible_one_nearest_first():
    # the pass keeps the first ``count`` feasible candidates as it meets them, nearest first
    # (of equal distances the earlier in the fixed order): with room for every candidate it
    # lists every feasible one in that order, and fewer places keep a prefix of that list
    preferred, normal, offset, valid, centre, radius, disk_valid = _random_problems(7, m=800)
    # equal distances: the preferred velocity at a disk's centre ties its circle's points
    preferred[::23] = centre[::23, 1]
    k, d = normal.shape[1], centre.shape[1]
    total = 1 + k + d + k * (k - 1) // 2 + 2 * k * d + d * (d - 1)
    every, every_dist = cd.closest_candidates(preferred, normal, offset, valid, centre, radius,
                                              disk_valid, count=total)
    finite = np.isfinite(every_dist)
    # listed first, nearest first
    assert np.all(finite[:, :-1] | ~finite[:, 1:])
    with np.errstate(invalid="ignore"):
        step = np.diff(np.where(finite, every_dist, np.inf), axis=1)
    assert np.all(step[finite[:, 1:]] >= 0.0)
    # each listed candidate is feasible and at its distance from the preferred velocity
    tol = 0.5 * cd.EPS
    for r, i in zip(*np.nonzero(finite), strict=True):
        v = every[r, i]
        assert np.all((normal[r] @ v - offset[r] <= tol) | ~valid[r])
        gap = np.hypot(*(v - centre[r]).T)
        assert np.all((gap <= radius[r] + tol) | ~disk_valid[r])
        assert every_dist[r, i] == np.hypot(*(v - preferred[r]))
    assert finite[:, 1].mean() > 0.2
    for count in (1, 2, 4):
        out, dist = cd.closest_candidates(preferred, normal, offset, valid, centre, radius,
                                          disk_valid, count=count)
        assert np.array_equal(_bits(dist), _bits(every_dist[:, :count]))
        assert np.array_equal(_bits(out[finite[:, :count]]),
                              _bits(every[:, :count][finite[:, :count]]))
        assert np.all(out[~finite[:, :count]] == 0.0)


def _listed_in_order(preferred, normal, offset, valid, centre, radius, disk_valid):
    """Every feasible candidate of one row as the enumeration defines them, written out with
    numpy's scalars: the preferred velocity, its projection on each valid line and circle, the
    line-line vertices (lines i < j, not parallel), each line's + then - points on every circle
    and the circles' crossings; the feasible ones of finite distance, nearest first (a stable
    sort). Returns (points, distances)."""
    px, py = preferred
    lines = [i for i in range(valid.size) if valid[i]]
    disks = [a for a in range(disk_valid.size) if disk_valid[a]]
    points = [(px, py)]
    for i in lines:
        nx, ny = normal[i]
        v = ((0.0 + nx * px) + ny * py) - offset[i]
        points.append((px - v * nx, py - v * ny))
    for a in disks:
        wx, wy = px - centre[a, 0], py - centre[a, 1]
        wl = np.hypot(wx, wy)
        ux, uy = (wx / wl, wy / wl) if wl > 0.0 else (1.0, 0.0)
        points.append((centre[a, 0] + radius[a] * ux, centre[a, 1] + radius[a] * uy))
    for t, i in enumerate(lines):
        for j in lines[t + 1:]:
            (nix, niy), (njx, njy) = normal[i], normal[j]
            det = nix * njy - niy * njx
            if abs(det) > cd.PARALLEL_DET:
                inv = 1.0 / det
                points.append(((offset[i] * njy - offset[j] * niy) * inv,
                               (nix * offset[j] - njx * offset[i]) * inv))
    for i in lines:
        nx, ny = normal[i]
        for sign in (1.0, -1.0):
            for a in disks:
                along = offset[i] - ((0.0 + nx * centre[a, 0]) + ny * centre[a, 1])
                half_sq = radius[a] * radius[a] - along * along
                if half_sq >= 0.0:
                    half = np.sqrt(half_sq)
                    foot_x, foot_y = centre[a, 0] + along * nx, centre[a, 1] + along * ny
                    points.append((foot_x + half * -ny, foot_y + half * nx) if sign > 0 else
                                  (foot_x - half * -ny, foot_y - half * nx))
    for t, a in enumerate(disks):
        for b in disks[t + 1:]:
            out = np.zeros(4)
            if cd.circle_crossing(*centre[a], radius[a], *centre[b], radius[b], out):
                points += [(out[0], out[1]), (out[2], out[3])]
    tol = 0.5 * cd.EPS
    kept = []
    for cx, cy in points:
        if not (np.isfinite(cx) and np.isfinite(cy)):
            continue
        if not all((cx * normal[i, 0] + cy * normal[i, 1]) - offset[i] <= tol for i in lines):
            continue
        if not all(np.hypot(cx - centre[a, 0], cy - centre[a, 1]) <= radius[a] + tol
                   for a in disks):
            continue
        gap = np.hypot(cx - px, cy - py)
        if np.isfinite(gap):
            kept.append((gap, cx, cy))
    kept.sort(key=lambda item: item[0])
    return np.array([[cx, cy] for _, cx, cy in kept]).reshape(-1, 2), \
        np.array([gap for gap, _, _ in kept])


def test_every_candidate_in_the_defined_order_to_the_bit():
    # the pass visits only the row's valid half-planes: the same candidates, values and order
    # as the definition over every slot, on rows with parallel, opposite and invalid slots
    preferred, normal, offset, valid, centre, radius, disk_valid = _random_problems(5, m=300)
    # equal distances: the preferred velocity at a disk's centre ties its circle's points
    preferred[::23] = centre[::23, 1]
    k, d = normal.shape[1], centre.shape[1]
    total = 1 + k + d + k * (k - 1) // 2 + 2 * k * d + d * (d - 1)
    out, dist = cd.closest_candidates(preferred, normal, offset, valid, centre, radius,
                                      disk_valid, count=total)
    listed = 0
    for r in range(preferred.shape[0]):
        points, gaps = _listed_in_order(preferred[r], normal[r], offset[r], valid[r],
                                        centre[r], radius[r], disk_valid[r])
        found = gaps.size
        assert np.array_equal(_bits(dist[r, :found]), _bits(gaps))
        assert np.array_equal(_bits(out[r, :found]), _bits(points))
        assert np.all(dist[r, found:] == np.inf)
        listed += found
    assert listed > 300
