"""The step input's validation: the compiled pass that clears the usual input returns exactly
what the exact checks return, and every broken rule leaves it for the exact checks, which name
the offending field."""

import dataclasses

import numpy as np
import pytest

from navproof import boundary as b
from navproof import step as ss
from navproof.boundary.motion import Motion, Support
from navproof.core.errors import InvalidInput
from navproof.step import inputs

N, K, L, J = 40, 4, 3, 5


def _input(*, dt_s: float | np.ndarray = 0.1) -> ss.StepInput:
    rng = np.random.default_rng(7)
    angle = rng.uniform(0.0, 2.0 * np.pi, (N, K))
    normal = np.stack([np.cos(angle), np.sin(angle)], axis=-1)
    valid = rng.random((N, K)) < 0.8
    edges = b.EdgeSet.build(normal, rng.uniform(1.0, 5.0, (N, K)), valid=valid,
                            edge_velocity_mps=rng.normal(0.0, 0.2, (N, K, 2)))
    heading = rng.uniform(0.0, 2.0 * np.pi, (N, L))
    nb_valid = rng.random((N, J)) < 0.7
    neighbors = ss.Neighbors(rng.uniform(-50.0, 50.0, (N, J, 2)), rng.normal(0.0, 1.0, (N, J, 2)),
                             rng.uniform(0.2, 0.6, (N, J)), nb_valid)
    return ss.StepInput(rng.uniform(-50.0, 50.0, (N, 2)), rng.normal(0.0, 1.0, (N, 2)),
                        rng.normal(0.0, 1.0, (N, 2)), dt_s,
                        Support.translating(rng.normal(0.0, 0.3, (N, 2))), edges,
                        np.full(N, 2.0), rng.uniform(0.0, 2.0, N), np.full(N, 0.4),
                        orca_point=rng.normal(0.0, 1.0, (N, L, 2)),
                        orca_direction=np.stack([np.cos(heading), np.sin(heading)], axis=-1),
                        orca_valid=rng.random((N, L)) < 0.6, neighbors=neighbors,
                        orca_num_hard=rng.integers(0, L + 1, N).astype(float))


def _exact(inp: ss.StepInput, monkeypatch: pytest.MonkeyPatch) -> ss.StepInput:
    """The input as the exact checks alone return it."""
    with monkeypatch.context() as m:
        m.setattr(inputs, "_clearly_valid_step_input", lambda _: None)
        return ss.check_valid_step_input(inp)


def _same(a: object, b_: object) -> bool:
    if dataclasses.is_dataclass(a):
        return type(a) is type(b_) and all(
            _same(getattr(a, f.name), getattr(b_, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, np.ndarray):
        return (isinstance(b_, np.ndarray) and a.dtype == b_.dtype and a.shape == b_.shape
                and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b_).tobytes())
    return a is b_ or a == b_


@pytest.mark.parametrize("dt_s", [0.1, np.linspace(0.02, 0.1, N)])
def test_the_usual_input_is_cleared_by_one_pass_and_returned_as_the_exact_checks_return_it(
        dt_s: float | np.ndarray, monkeypatch: pytest.MonkeyPatch) -> None:
    inp = _input(dt_s=dt_s)
    fast = inputs._clearly_valid_step_input(inp)
    assert fast is not None
    assert _same(fast, _exact(inp, monkeypatch))
    assert _same(ss.check_valid_step_input(inp), fast)


def test_defaults_are_filled_in_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    inp = dataclasses.replace(_input(), orca_point=np.zeros((0, 0, 2)),
                              orca_direction=np.zeros((0, 0, 2)),
                              orca_valid=np.zeros((0, 0), bool), orca_num_hard=None,
                              neighbors=None, vh_mps=2.0, accel_mps2=1.0, radius_m=0.4)
    fast = inputs._clearly_valid_step_input(inp)
    assert fast is not None
    assert _same(fast, _exact(inp, monkeypatch))


def test_arrays_of_other_types_are_converted_as_the_exact_checks_convert_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    base = _input()
    inp = dataclasses.replace(
        base, position_m=base.position_m.tolist(), velocity_mps=base.velocity_mps.astype(
            np.float32), preferred_mps=np.asfortranarray(base.preferred_mps),
        vh_mps=base.vh_mps.astype(np.float32), accel_mps2=base.accel_mps2[::-1][::-1].copy(),
        radius_m=0.4, orca_point=base.orca_point.astype(">f8"),
        orca_num_hard=np.asarray(base.orca_num_hard, np.int64), dt_s=np.float64(0.1))
    fast = inputs._clearly_valid_step_input(inp)
    assert fast is not None
    assert _same(fast, _exact(inp, monkeypatch))


def test_junk_in_slots_that_are_not_valid_is_no_offence() -> None:
    inp = _input()
    edges, nb = inp.edges, inp.neighbors
    assert nb is not None
    off, nor = edges.offset_m.copy(), edges.normal.copy()
    off[~edges.valid], nor[~edges.valid] = np.nan, 3.0
    point, direction = inp.orca_point.copy(), inp.orca_direction.copy()
    point[~inp.orca_valid], direction[~inp.orca_valid] = np.inf, 0.0
    radius = nb.radius_m.copy()
    radius[~nb.valid] = -1.0
    junk = dataclasses.replace(inp, edges=dataclasses.replace(edges, offset_m=off, normal=nor),
                               orca_point=point, orca_direction=direction,
                               neighbors=dataclasses.replace(nb, radius_m=radius))
    assert inputs._clearly_valid_step_input(junk) is not None


def _first(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _broken(name: str) -> tuple[ss.StepInput, str]:
    """The usual input with one rule broken, and the field the exact checks name."""
    inp = _input()
    rep = dataclasses.replace
    edges, nb = inp.edges, inp.neighbors
    assert nb is not None
    e_at, o_at, n_at = _first(edges.valid), _first(inp.orca_valid), _first(nb.valid)

    def changed(arr: np.ndarray, at: tuple[int, ...], value: object) -> np.ndarray:
        out = np.array(arr, dtype=np.float64)
        out[at] = value
        return out

    cases = {
        "position_nan": (rep(inp, position_m=changed(inp.position_m, (3, 0), np.nan)),
                         "position_m"),
        "position_far": (rep(inp, position_m=changed(inp.position_m, (3, 1), 2e6)),
                         "position_m"),
        "velocity_inf": (rep(inp, velocity_mps=changed(inp.velocity_mps, (5, 0), np.inf)),
                         "velocity_mps"),
        "preferred_fast": (rep(inp, preferred_mps=changed(inp.preferred_mps, (5, 1), 2e6)),
                           "preferred_mps"),
        "vh_zero": (rep(inp, vh_mps=changed(inp.vh_mps, (2,), 0.0)), "vh_mps"),
        "budget_negative": (rep(inp, accel_mps2=changed(inp.accel_mps2, (2,), -1.0)),
                            "accel_mps2"),
        "radius_nan": (rep(inp, radius_m=changed(inp.radius_m, (2,), np.nan)), "radius_m"),
        "dt_rows_zero": (rep(inp, dt_s=changed(np.full(N, 0.1), (4,), 0.0)), "dt_s"),
        "normal_long": (rep(inp, edges=rep(edges, normal=changed(edges.normal, e_at, 0.9))),
                        "edges.normal"),
        "offset_nan": (rep(inp, edges=rep(edges, offset_m=changed(edges.offset_m, e_at,
                                                                   np.nan))),
                       "edges.offset_m"),
        "edge_motion_nan": (rep(inp, edges=rep(edges, motion=Motion(
            edges.motion.pivot_m, changed(edges.motion.velocity_mps, e_at, np.nan),
            edges.motion.omega_radps, edges.motion.version,
            edges.motion.acceleration_mps2))), "edges.motion.velocity_mps"),
        "support_omega_inf": (rep(inp, support=Support(Motion(
            inp.support.motion.pivot_m, inp.support.motion.velocity_mps,
            changed(inp.support.motion.omega_radps, (1,), np.inf),
            inp.support.motion.version, inp.support.motion.acceleration_mps2))),
            "support.motion.omega_radps"),
        "orca_point_nan": (rep(inp, orca_point=changed(inp.orca_point, o_at, np.nan)),
                           "orca_point"),
        "orca_direction_zero": (rep(inp, orca_direction=changed(inp.orca_direction, o_at,
                                                                0.0)),
                                "orca_direction"),
        "num_hard_fraction": (rep(inp, orca_num_hard=changed(inp.orca_num_hard, (0,), 0.5)),
                              "orca_num_hard"),
        "num_hard_too_many": (rep(inp, orca_num_hard=changed(inp.orca_num_hard, (0,), L + 1)),
                              "orca_num_hard"),
        "neighbour_radius_negative": (rep(inp, neighbors=rep(nb, radius_m=changed(
            nb.radius_m, n_at, -0.1))), "neighbors.radius_m"),
        "neighbour_velocity_inf": (rep(inp, neighbors=rep(nb, velocity_mps=changed(
            nb.velocity_mps, n_at, np.inf))), "neighbors.velocity_mps"),
        "velocity_shape": (rep(inp, velocity_mps=np.zeros(2)), "velocity_mps"),
    }
    return cases[name]


def _read_only(value: object) -> object:
    """``value`` with every array it holds copied into memory of its own, made read-only."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{f.name: _read_only(getattr(value, f.name))
                                             for f in dataclasses.fields(value) if f.init})
    if isinstance(value, np.ndarray):
        own = value.copy()
        own.flags.writeable = False
        return own
    return value


def test_read_only_edges_are_read_again_at_every_step() -> None:
    """A read-only array that owns its memory is not frozen: numpy lets its owner make it
    writable again, so edges served unchanged step after step are still checked every step."""
    inp = _input()
    served = dataclasses.replace(inp, edges=_read_only(inp.edges))
    for _ in range(2):
        assert inputs._clearly_valid_step_input(served) is not None
    offset = served.edges.offset_m
    row, col = _first(served.edges.valid)
    offset.flags.writeable = True
    offset[row, col] = np.nan
    offset.flags.writeable = False
    assert inputs._clearly_valid_step_input(served) is None
    with pytest.raises(InvalidInput) as err:
        ss.check_valid_step_input(served)
    assert "offset" in str(err.value)


@pytest.mark.parametrize("name", [
    "position_nan", "position_far", "velocity_inf", "preferred_fast", "vh_zero",
    "budget_negative", "radius_nan", "dt_rows_zero", "normal_long", "offset_nan",
    "edge_motion_nan", "support_omega_inf", "orca_point_nan", "orca_direction_zero",
    "num_hard_fraction", "num_hard_too_many", "neighbour_radius_negative",
    "neighbour_velocity_inf", "velocity_shape"])
def test_a_broken_rule_is_left_to_the_exact_checks_which_name_it(name: str) -> None:
    inp, field = _broken(name)
    assert inputs._clearly_valid_step_input(inp) is None
    with pytest.raises(InvalidInput) as err:
        ss.check_valid_step_input(inp)
    assert field in str(err.value)


def _numpy_gather(index: np.ndarray, position: np.ndarray, velocity: np.ndarray,
                  radius: np.ndarray) -> ss.Neighbors:
    """Neighbors.gather as numpy's fancy indexing and where compute it."""
    valid = index >= 0
    safe = np.where(valid, index, 0)
    return ss.Neighbors(position[safe], np.where(valid[..., None], velocity[safe], 0.0),
                        radius[safe], valid)


@pytest.mark.parametrize("n, m, j", [(0, 3, 4), (5, 1, 0), (7, 9, 3), (300, 300, 12),
                                     (5000, 5000, 6)])
def test_gather_reads_the_slots_as_numpy_fancy_indexing_does(n: int, m: int, j: int) -> None:
    rng = np.random.default_rng(n + m + j)
    index = rng.integers(-3, m, (n, j))
    special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -1e300, 1e-300])
    position = rng.normal(0.0, 30.0, (m, 2))
    velocity = rng.normal(0.0, 1.0, (m, 2))
    radius = rng.uniform(0.0, 1.0, m)
    for arr in (position.reshape(-1), velocity.reshape(-1), radius):
        hit = rng.random(arr.size) < 0.3
        arr[hit] = rng.choice(special, int(hit.sum()))
    for pos, vel in ((position, velocity), (position[::-1], velocity[::-1])):
        assert _same(ss.Neighbors.gather(index, pos, vel, radius),
                     _numpy_gather(index, pos, vel, radius))


@pytest.mark.parametrize("index, m", [(np.array([[0, 3]]), 3), (np.array([[-1]]), 0)])
def test_gather_refuses_an_index_beyond_the_bodies(index: np.ndarray, m: int) -> None:
    with pytest.raises(IndexError):
        _numpy_gather(index, np.zeros((m, 2)), np.zeros((m, 2)), np.zeros(m))
    with pytest.raises(IndexError):
        ss.Neighbors.gather(index, np.zeros((m, 2)), np.zeros((m, 2)), np.zeros(m))
