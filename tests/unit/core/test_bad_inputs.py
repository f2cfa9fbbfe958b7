"""Every bad input reported against the public entries, one row each: a typed error naming the
field and the rule, raised before anything changed -- or, where the input is legal, a correct
answer. Rows follow the report's order (crowd, compatibility API, safe step, profile loader,
command line); the record's rows live with the handoff record tests."""

from __future__ import annotations

import copy
from collections.abc import Callable

import numpy as np
import pytest

import navproof.boundary as b
from navproof import step as ss
from navproof.cli import EXIT_BAD_INPUT, main
from navproof.core.errors import InvalidInput
from navproof.orca.compat import RVOSimulator
from navproof.orca.crowd import Crowd
from navproof.orca.halfplanes import line_violation
from navproof.specs import SpecError, load_profile


def _crowd() -> Crowd:
    crowd = Crowd(0.25, assertions=True)
    crowd.add_agents([(0.0, 0.0), (3.0, 0.0)], radius=0.5, max_speed=2.0, neighbor_dist=5.0,
                     max_neighbors=4, time_horizon=2.0, time_horizon_obst=2.0)
    crowd.set_pref_velocities([(1.0, 0.0), (-1.0, 0.0)])
    return crowd


def _state(crowd: Crowd) -> dict[str, object]:
    names = ("position", "velocity", "pref_velocity", "radius", "max_speed", "neighbor_dist",
             "time_horizon", "time_horizon_obst", "max_neighbors")
    return {**{n: getattr(crowd, n).copy() for n in names},
            "polygons": [p.copy() for p in crowd.obstacles.polygons]}


CROWD_ROWS: list[tuple[str, Callable[[Crowd], object], str]] = [
    ("max_neighbors 1e20 (was stored as the int64 minimum)",
     lambda c: c.add_agents([(9.0, 9.0)], max_neighbors=1e20), "max_neighbors"),
    ("max_neighbors 3e9 (asked for 44.7 GiB)",
     lambda c: c.set_agent_scalar("max_neighbors", 0, 3e9), "max_neighbors"),
    ("neighbor_dist 1e-300 (overflowed the grid index)",
     lambda c: c.add_agents([(9.0, 9.0)], neighbor_dist=1e-300), "neighbor_dist"),
    ("preferred velocities of 1e154 (silently chose (0, 0))",
     lambda c: c.set_pref_velocities([(1e154, 0.0), (0.0, 1e154)]), "pref_velocity"),
    ("one preferred velocity of 1e154",
     lambda c: c.set_agent_vector("pref_velocity", 1, (1e154, 1e154)), "pref_velocity"),
    ("time horizon 1e-300 (1/tau overflows)",
     lambda c: c.set_agent_scalar("time_horizon", 0, 1e-300), "time_horizon"),
    ("bow-tie polygon",
     lambda c: c.add_obstacle([(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)]), "vertices"),
    ("collinear polygon",
     lambda c: c.add_obstacle([(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)]), "vertices"),
    ("polygon folding back on itself",
     lambda c: c.add_obstacle([(0.0, 0.0), (2.0, 0.0), (1.0, 0.0), (1.0, 1.0)]), "vertices"),
]


@pytest.mark.parametrize("what, call, field", CROWD_ROWS, ids=[r[0] for r in CROWD_ROWS])
def test_crowd_refuses_and_keeps_working(what, call, field) -> None:
    crowd = _crowd()
    before = _state(crowd)
    with pytest.raises(InvalidInput) as err:
        call(crowd)
    assert err.value.field.startswith(field) and err.value.rule
    after = _state(crowd)
    for name, value in before.items():
        if name == "polygons":
            assert len(after[name]) == len(value)
        else:
            np.testing.assert_array_equal(after[name], value, err_msg=name)
    # the crowd is not broken for good: it still steps, finite, with its monitor on
    for _ in range(3):
        crowd.step()
    assert np.isfinite(crowd.position).all() and np.isfinite(crowd.velocity).all()


def test_valid_simple_polygons_in_both_orientations_are_still_accepted() -> None:
    crowd = _crowd()
    crowd.add_obstacle([(5.0, 5.0), (6.0, 5.0), (6.0, 6.0), (5.0, 6.0)])      # CCW solid
    crowd.add_obstacle([(-9.0, -9.0), (-9.0, 9.0), (9.0, 9.0), (9.0, -9.0)])  # CW boundary
    crowd.add_obstacle([(7.0, 0.0), (8.0, 0.0), (9.0, 0.0), (8.0, 1.0)])      # straight vertex
    crowd.add_obstacle([(-3.0, 3.0), (-2.0, 3.0)])                            # segment
    crowd.step()
    assert np.isfinite(crowd.velocity).all()


def test_compat_add_agent_with_some_parameters_is_refused_not_ignored() -> None:
    sim = RVOSimulator(0.25, 5.0, 4, 2.0, 2.0, 1.5, 2.0)
    with pytest.raises(InvalidInput, match="missing"):
        sim.addAgent((0.0, 0.0), radius=3.0)
    assert sim.getNumAgents() == 0
    sim.addAgent((0.0, 0.0), 5.0, 4, 2.0, 2.0, 3.0, 2.0, (0.0, 0.0))
    assert sim.getAgentRadius(0) == 3.0


@pytest.mark.parametrize("radius", [float("nan"), -1.0, float("inf")])
def test_compat_query_visibility_refuses_a_bad_radius(radius) -> None:
    sim = RVOSimulator(0.25, 5.0, 4, 2.0, 2.0, 1.5, 2.0)
    sim.addObstacle([(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)])
    with pytest.raises(InvalidInput, match="radius"):
        sim.queryVisibility((-5.0, 5.0), (5.0, 5.0), radius)
    assert sim.queryVisibility((-5.0, 5.0), (5.0, 5.0), 1.0) is True
    assert sim.queryVisibility((-5.0, 5.0), (5.0, 5.0), 4.5) is False


def _step_input(direction: tuple[float, float]) -> ss.StepInput:
    edges = b.EdgeSet.build(np.array([[(1.0, 0.0)]]), np.array([[5.0]]))
    return ss.StepInput(np.zeros((1, 2)), np.zeros((1, 2)), np.array([[0.0, 0.0]]), 0.1,
                        b.Support.translating(np.zeros((1, 2))), edges, np.array([2.0]),
                        np.array([1.0]), np.array([0.3]),
                        orca_point=np.array([[(0.02, 0.0)]]),
                        orca_direction=np.array([[direction]], float),
                        orca_valid=np.ones((1, 1), bool))


@pytest.mark.parametrize("direction", [(0.0, 10.0), (0.0, 0.0), (0.0, 0.5)])
def test_safe_step_refuses_non_unit_or_zero_orca_directions(direction) -> None:
    # (0, 10) with point (0.02, 0) once returned a velocity 0.66 m/s outside the line, labelled
    # SAFE; a zero direction silently dropped the line
    inp = _step_input(direction)
    kept = copy.deepcopy(inp.__dict__)
    with pytest.raises(InvalidInput, match="orca_direction"):
        ss.solve_safe_step(inp, assertions=True)
    for name, value in kept.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(getattr(inp, name), value)


def test_safe_step_with_the_same_line_normalised_honours_it() -> None:
    inp = _step_input((0.0, 1.0))
    res = ss.solve_safe_step(inp, assertions=True)
    viol = line_violation(res.velocity_mps, inp.orca_point, inp.orca_direction, inp.orca_valid)
    assert res.label_names() == ["safe"] and viol.max() <= 1e-9


@pytest.mark.parametrize("field", ["pivot_m", "velocity_mps", "omega_radps"])
def test_safe_step_refuses_a_support_built_directly_with_nan(field) -> None:
    inp = _step_input((0.0, 1.0))
    motion = inp.support.motion
    parts = {"pivot_m": motion.pivot_m.copy(), "velocity_mps": motion.velocity_mps.copy(),
             "omega_radps": motion.omega_radps.copy(), "version": motion.version}
    parts[field][0] = np.nan
    bad = ss.StepInput(**{**inp.__dict__, "support": b.Support(b.Motion(**parts))})
    with pytest.raises(InvalidInput, match=f"support.motion.{field}"):
        ss.solve_safe_step(bad, assertions=True)


@pytest.mark.parametrize("content, where", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\xff", "not UTF-8"),
    ('[profile]\nname = "café"\n'.encode("latin-1"), "not UTF-8"),
    (b'profile = "x"\n', "must be a table"),
])
def test_profile_loader_names_the_file_and_the_rule(tmp_path, capsys, content, where) -> None:
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    with pytest.raises(SpecError, match=where):
        load_profile(path)
    assert main(["audit", "--candidate", str(path)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert where in err and "Traceback" not in err


def test_simulate_with_corrupt_record_pages_is_bad_input(tmp_path, capsys) -> None:
    db = tmp_path / "run.db"
    assert main(["simulate", "pq-handoff", "--db", str(db)]) == 0
    capsys.readouterr()
    data = bytearray(db.read_bytes())
    for at in range(4096, len(data), 4096):        # every page after the header page
        data[at:at + 64] = b"\xa5" * 64
    db.write_bytes(bytes(data))
    for wal in (tmp_path / "run.db-wal", tmp_path / "run.db-shm"):
        wal.unlink(missing_ok=True)
    assert main(["simulate", "pq-handoff", "--db", str(db), "--resume"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--db" in err and "Traceback" not in err


def test_a_record_of_a_newer_schema_is_refused_without_leaving_files(tmp_path, capsys) -> None:
    import sqlite3

    from navproof.handoff.record import APPLICATION_ID, SCHEMA_VERSION

    db = tmp_path / "new.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (x)")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["simulate", "pq-handoff", "--db", str(db), "--resume"]) == EXIT_BAD_INPUT
    assert "newer" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


@pytest.mark.skipif(hasattr(__import__("os"), "geteuid") and __import__("os").geteuid() == 0,
                    reason="file permissions do not bind the superuser")
@pytest.mark.parametrize("what", ["folder", "file"])
def test_a_read_only_record_or_folder_is_named_as_such(tmp_path, capsys, what) -> None:
    db = tmp_path / "run.db"
    assert main(["simulate", "pq-handoff", "--db", str(db)]) == 0
    for extra in (tmp_path / "run.db-wal", tmp_path / "run.db-shm"):
        extra.unlink(missing_ok=True)
    capsys.readouterr()
    target = tmp_path if what == "folder" else db
    mode = target.stat().st_mode
    target.chmod(0o555 if what == "folder" else 0o444)
    try:
        assert main(["simulate", "pq-handoff", "--db", str(db), "--resume"]) == EXIT_BAD_INPUT
    finally:
        target.chmod(mode)
    err = capsys.readouterr().err
    assert "read-only" in err and "not a SQLite database" not in err
