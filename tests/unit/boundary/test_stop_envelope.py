"""Stop envelopes (claims S1-S6), with the P/Q numbers of seed 000."""

import numpy as np
import pytest

from navproof._generated import formulas
from navproof._generated.formulas import brake_envelope_factor_scalar
from navproof.boundary import stop_envelope as se
from navproof.core.errors import InvalidInput
from navproof.core.jit import compiled_loop

DT = 0.1
X_NORMAL = np.array([[[1.0, 0.0]]])


def test_pq_necessary_bound_and_linear_envelope():
    s = np.array([[0.1]])
    a = np.array([1.0])
    assert se.necessary_bound_mps(s, DT, a)[0, 0] == pytest.approx(np.sqrt(0.21) - 0.1)
    assert se.necessary_bound_mps(s, DT, a)[0, 0] == pytest.approx(0.358, abs=5e-4)
    cmax = se.envelope_speed_cap_mps(np.array([2.0]), np.zeros((1, 2)), np.zeros((1, 2)))
    assert cmax[0] == pytest.approx(2.0)
    assert se.linear_envelope_mps(s, DT, a, cmax)[0, 0] == pytest.approx(0.1 / 1.1)


def test_pq_velocity_along_the_edge_stays_in_p_and_two_mps_towards_q_is_rejected():
    a = np.array([1.0])
    v = np.array([[0.08, 1.8]])
    disp = se.normal_stop_displacement_m(X_NORMAL, v, DT, a)[0, 0]
    assert disp == pytest.approx(0.08 * (0.1 + np.hypot(0.08, 1.8) / 2.0))
    assert disp == pytest.approx(0.0801, abs=1e-4)
    assert disp < 0.1
    s, cmax = np.array([[0.1]]), np.array([2.0])
    assert se.envelope_margin_m(X_NORMAL, s, v, DT, a, cmax)[0, 0] >= 0.0
    toward_q = np.array([[2.0, 0.0]])
    assert se.envelope_margin_m(X_NORMAL, s, toward_q, DT, a, cmax)[0, 0] < 0.0
    assert se.normal_stop_displacement_m(X_NORMAL, toward_q, DT, a)[0, 0] > 0.1


def test_s1_displacement_is_monotone_along_c():
    speeds = np.linspace(0.0, 4.0, 101)
    dist = formulas.stop_distance(speed=speeds, dt=DT, a=1.0)
    assert np.all(np.diff(dist) > 0.0)
    assert se.stop_displacement_m(np.array([[3.0, 4.0]]), DT, np.array([2.0]))[0] == \
        pytest.approx(5.0 * 0.1 + 25.0 / 4.0)


def test_s3_and_s5_envelope_never_exceeds_the_necessary_bound():
    rng = np.random.default_rng(1)
    n = 2000
    s = rng.uniform(0.0, 10.0, (n, 1))
    a = rng.uniform(0.5, 20.0, n)
    vh = rng.uniform(0.3, 8.0, n)
    u = rng.uniform(-0.3, 0.3, (n, 2))
    cmax = se.envelope_speed_cap_mps(vh, u, np.zeros((n, 2)))
    lin = se.linear_envelope_mps(s, DT, a, cmax)
    # S5: a normal speed the envelope admits under |c| <= Cmax is never forbidden by S2
    admitted = np.minimum(lin, cmax[:, None])
    assert np.all(admitted <= se.necessary_bound_mps(s, DT, a) + 1e-12)
    # S3: any |c| <= Cmax meeting the envelope stops within s
    ang = rng.uniform(0, 2 * np.pi, n)
    speed = rng.uniform(0, 1, n) * cmax
    c = np.stack([np.cos(ang), np.sin(ang)], axis=1) * speed[:, None]
    meets = se.envelope_margin_m(X_NORMAL.repeat(n, 0), s, c, DT, a, cmax)[:, 0] >= 0.0
    disp = se.normal_stop_displacement_m(X_NORMAL.repeat(n, 0), c, DT, a)[:, 0]
    assert np.all(disp[meets] <= s[meets, 0] + 1e-12)
    assert meets.any() and (~meets).any()


def test_s6_zero_margin_still_allows_retreat_and_sliding():
    s, a, cmax = np.array([[0.0]]), np.array([1.0]), np.array([2.0])
    assert se.linear_envelope_mps(s, DT, a, cmax)[0, 0] == 0.0
    for c in ([-0.5, 0.0], [0.0, 1.5]):
        assert se.envelope_margin_m(X_NORMAL, s, np.array([c]), DT, a, cmax)[0, 0] >= 0.0


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, np.inf])
def test_s6_zero_or_bad_budget_never_reaches_a_division(bad):
    with pytest.raises(InvalidInput) as err:
        se.linear_envelope_mps(np.array([[0.1]]), DT, np.array([bad]), np.array([2.0]))
    assert "a_mps2" in err.value.field


def test_s6_non_finite_velocity_is_refused():
    with pytest.raises(InvalidInput, match="c_mps"):
        se.normal_stop_displacement_m(X_NORMAL, np.array([[np.nan, 0.0]]), DT, np.array([1.0]))


def test_end_stop_half_plane_covers_braking_from_the_step_end():
    # decelerating along n: the hold-c envelope is not enough, the end-stop plane is
    s = np.array([[0.2]])
    zero = np.zeros((1, 2))
    v0 = np.array([[1.0, 0.0]])
    a, cmax = np.array([1.0]), np.array([2.0])
    q = se.end_stop_offset_mps(X_NORMAL, s, DT, a, cmax, np.zeros((1, 1)), zero, zero, v0)
    v1 = np.array([[q[0, 0], 0.0]])
    end = formulas.accel_margin(s=0.2, t=DT, dt=DT, n_dot_e=0.0, n_dot_u=0.0, n_dot_v0=1.0,
                                n_dot_v1=q[0, 0])
    assert se.end_stop_margin_m(np.array([[end]]), X_NORMAL, v1, a)[0, 0] >= -1e-12
    assert se.hold_is_safe(X_NORMAL, zero, np.zeros((1, 1, 2)), np.ones((1, 1), bool))[0]


SPECIAL = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1e-300, 1e300, -1e300,
                    0.1, 1.0, 2.0])


def _special_columns(rng, n, *, positive):
    """``n`` random values over many magnitudes, with special values and ties mixed in."""
    col = rng.choice([1e-3, 0.1, 1.0, 10.0, 1e6], n) * rng.random(n)
    if not positive:
        col = np.where(rng.random(n) < 0.3, -col, col)
        picks = rng.random(n) < 0.2
        col[picks] = rng.choice(SPECIAL, picks.sum())
    return col


@compiled_loop
def _scalar_brake_factor_rows(cmax, dt, a, out):
    """The generated scalar form of the braking factor per row, from a compiled loop."""
    for i in range(out.shape[0]):
        out[i] = brake_envelope_factor_scalar(cmax=cmax[i], dt=dt[i], a=a[i])


def test_brake_envelope_factor_scalar_form_equals_numpy_form_bit_for_bit():
    rng = np.random.default_rng(3)
    n = 20000
    cmax, dt = _special_columns(rng, n, positive=False), _special_columns(rng, n, positive=False)
    a = _special_columns(rng, n, positive=True) + 1e-12
    a[:50] = np.array([5e-324, 1e-300, 1e300, 1.0, 10.0]).repeat(10)
    ties = rng.random(n) < 0.1
    cmax[ties] = a[ties] * dt[ties]  # exactly at the switch
    with np.errstate(all="ignore"):
        want = np.asarray(formulas.brake_envelope_factor(cmax=cmax, dt=dt, a=a), np.float64)
        got = np.empty(n)
        _scalar_brake_factor_rows(cmax, dt, a, got)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("scalar_step", [False, True])
def test_envelope_cap_and_brake_factor_equals_cap_then_factor_bit_for_bit(scalar_step):
    rng = np.random.default_rng(9)
    n = 6000
    vh = _special_columns(rng, n, positive=False)
    u = np.stack([_special_columns(rng, n, positive=False) for _ in range(2)], axis=1)
    r = np.where(rng.random((n, 1)) < 0.3, u, np.stack(
        [_special_columns(rng, n, positive=False) for _ in range(2)], axis=1))
    dt = 0.1 if scalar_step else _special_columns(rng, n, positive=False)
    a = _special_columns(rng, n, positive=True) + 1e-12
    with np.errstate(all="ignore"):
        want_cmax = se.envelope_speed_cap_mps(vh, u, r)
        want_k = se.brake_envelope_factor_s(want_cmax, dt, a)
        cmax, kfac = se.envelope_cap_and_brake_factor(vh, u, r, dt, a)
    assert cmax.tobytes() == want_cmax.tobytes()
    assert kfac.tobytes() == want_k.tobytes()


def test_envelope_cap_and_brake_factor_refuses_a_zero_budget():
    with pytest.raises(InvalidInput):
        se.envelope_cap_and_brake_factor(np.ones(2), np.zeros((2, 2)), np.zeros((2, 2)), 0.1,
                                         np.array([1.0, 0.0]))
