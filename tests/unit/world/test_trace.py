"""The run trace (``navproof.world.trace``, ``simulate --trace``): one SQLite file with the
scenario text, run metadata and every agent's executed state, label and independent check per
step, written as the run goes; a bad ``--trace`` path is refused before anything runs (exit 3,
nothing written). ``[expect] min_agent_clearance_m`` is checked by ``--assert``. Claim: T4, W1."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from navproof.cli import main as cli_main
from navproof.scenario import Expectations, check_expectations, load_scenario
from navproof.world import Layout, World
from navproof.world.trace import BATCH_STEPS, RunTrace

CROSSING = """
[scenario]
name = "crossing"
steps = 30

[agent_defaults]
radius_m = 0.4
max_speed_mps = 1.0

[corridor]
vertices = [[-6.0, -3.0], [6.0, -3.0], [6.0, 3.0], [-6.0, 3.0]]

[[agents]]
position = [-2.0, 0.0]
goal = [2.0, 0.2]

[[agents]]
position = [2.0, 0.0]
goal = [-2.0, -0.2]
"""


def _write(tmp_path, text, name="s.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_simulate_trace_writes_frames_and_the_scenario_it_came_from(tmp_path, capsys):
    scenario = _write(tmp_path, CROSSING)
    trace = tmp_path / "run.sqlite"
    assert cli_main(["simulate", str(scenario), "--trace", str(trace), "--steps", "12"]) == 0
    db = sqlite3.connect(trace)
    name, path, text, agents, steps, dt, written, finished, version = db.execute(
        "SELECT scenario_name, scenario_path, scenario_text, agents, steps_requested, "
        "time_step_s, steps_written, finished_utc, navproof_version FROM run").fetchone()
    assert (name, path, text, agents, steps, written) == ("crossing", str(scenario), CROSSING,
                                                          2, 12, 12)
    assert dt > 0 and finished and version
    frames = db.execute("SELECT step, agent, t_s, x_m, y_m, vx_mps, vy_mps, label, check_claim "
                        "FROM frames ORDER BY step, agent").fetchall()
    assert len(frames) == 2 * 13
    assert frames[0][:5] == (0, 0, 0.0, -2.0, 0.0) and frames[0][7] is None
    last = frames[-1]
    assert last[0] == 12 and last[2] == pytest.approx(12 * dt)
    # the executed positions replay: each step moves by at most the cap
    xy = np.array([f[3:5] for f in frames]).reshape(13, 2, 2)
    assert np.all(np.hypot(*np.diff(xy, axis=0).transpose(2, 0, 1)) <= 1.0 * dt + 1e-9)
    assert {f[7] for f in frames[2:]} <= {r[0] for r in db.execute("SELECT label FROM labels")}
    assert all(f[8] == "" for f in frames[2:])


def test_trace_is_written_in_batches_as_the_run_goes(tmp_path):
    layout = Layout()
    path = tmp_path / "t.sqlite"
    with World(layout, assertions=False) as world:
        world.add_agents([[0.0, 0.0]], [[[50.0, 0.0]]])
        trace = RunTrace(path, world, scenario_name="api")
        for _ in range(BATCH_STEPS + 3):
            trace.add(world.step())
        # a reader sees every committed batch while the run still goes on
        seen = sqlite3.connect(path).execute("SELECT steps_written, finished_utc FROM run")
        assert seen.fetchone() == (BATCH_STEPS, None)
        trace.close()
    rows = sqlite3.connect(path).execute("SELECT COUNT(*), MAX(step) FROM frames").fetchone()
    assert rows == (BATCH_STEPS + 4, BATCH_STEPS + 3)


@pytest.mark.parametrize("bad, reason", [
    ("missing/run.sqlite", "does not exist"),
    (".", "is a folder"),
    ("SCENARIO", "same file as the scenario file"),
])
def test_a_bad_trace_path_exits_3_before_the_run_and_writes_nothing(tmp_path, capsys, bad,
                                                                    reason):
    scenario = _write(tmp_path, CROSSING)
    target = str(scenario) if bad == "SCENARIO" else str(tmp_path / bad)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert cli_main(["simulate", str(scenario), "--trace", target]) == 3
    err = capsys.readouterr().err
    assert "--trace" in err and reason in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert scenario.read_text() == CROSSING


def test_trace_is_refused_for_a_named_scenario(tmp_path, capsys):
    assert cli_main(["simulate", "pq-handoff", "--trace", str(tmp_path / "t.sqlite")]) == 3
    assert "--trace" in capsys.readouterr().err
    assert not (tmp_path / "t.sqlite").exists()


def test_expect_min_agent_clearance_is_read_and_checked(tmp_path):
    text = CROSSING + "\n[expect]\narrived = 0\nmin_agent_clearance_m = 0.25\n"
    scenario = load_scenario(_write(tmp_path, text))
    scenario.world.close()
    assert scenario.expect.min_agent_clearance_m == 0.25
    summary = {"agents": 2, "arrived": 2, "min_wall_clearance_m": 1.0,
               "min_agent_clearance_m": 0.1}
    assert check_expectations(scenario.expect, summary) == [
        "min agent clearance 0.1 m < 0.25 m"]
    assert check_expectations(scenario.expect, {**summary, "min_agent_clearance_m": 0.3}) == []
    # not given: not checked (bodies may start overlapping, O6); no pair within reach: it holds
    assert check_expectations(Expectations(), {**summary, "min_agent_clearance_m": -1.0}) == []
    assert check_expectations(scenario.expect, {**summary, "min_agent_clearance_m": None}) == []


def test_expect_min_agent_clearance_must_be_a_number(tmp_path):
    from navproof.scenario import ScenarioError

    with pytest.raises(ScenarioError, match="expect.min_agent_clearance_m"):
        load_scenario(_write(tmp_path, CROSSING + '\n[expect]\nmin_agent_clearance_m = "x"\n'))


def test_simulate_assert_fails_a_missed_agent_clearance(tmp_path, capsys):
    close = CROSSING.replace("[-2.0, 0.0]", "[-0.5, 0.0]").replace("[2.0, 0.0]", "[0.5, 0.0]")
    text = close + "\n[expect]\narrived = 0\nmin_agent_clearance_m = 0.5\n"
    assert cli_main(["simulate", str(_write(tmp_path, text)), "--assert", "--steps", "5"]) == 1
    assert "min agent clearance" in capsys.readouterr().out
