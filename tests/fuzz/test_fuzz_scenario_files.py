"""Bad scenario files at ``navproof simulate FILE.toml``: exit 3, one line naming the key, and
nothing written; never a traceback, exit 4 or a silent change of the physics (issue 20, items
7, 9 and 10).

Every case asserts the exit code, that the one line on stderr names the schema's key with its
index, and that neither the ``--json`` output nor anything else was written. A hypothesis test
then mutates a valid file (a key renamed, a value replaced by another type) and checks that
every outcome is exit 0 or a one-line exit 3.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navproof.cli import EXIT_BAD_INPUT, main

AGENT = '[[agents]]\nposition = [0.0, 0.0]\ngoal = [1.0, 0.0]\n'
SQUARE = "[[-5.0, -5.0], [5.0, -5.0], [5.0, 5.0], [-5.0, 5.0]]"
BELT = "[[-5.0, -1.0], [5.0, -1.0], [5.0, 1.0], [-5.0, 1.0]]"

CASES = [
    # (case id, file text, key named, words of the rule)
    ("patch typo", AGENT + f'[[patches]]\nname = "P"\nvertices = {SQUARE}\n'
                           'gradiant = [0.1, 0.0]\n', "patches[0].gradiant", "unknown key"),
    ("support typo", AGENT + f'[[supports]]\nname = "b"\nkind = "conveyor"\nvertices = {BELT}\n'
                             'velocity = [0.3, 0.0]\n', "supports[0].velocity", "unknown key"),
    ("obstacle typo", AGENT + '[[obstacles]]\nvertices = [[3.0, 3.0], [4.0, 3.0], [4.0, 4.0]]\n'
                              'vertex = [[0.0, 0.0]]\n', "obstacles[0].vertex", "unknown key"),
    ("corridor typo", AGENT + f'[corridor]\nvertices = {SQUARE}\nwalls = 1\n',
     "corridor.walls", "unknown key"),
    ("time step string", '[scenario]\ntime_step_s = "abc"\n' + AGENT, "scenario.time_step_s",
     "must be a number"),
    ("time step list", '[scenario]\ntime_step_s = [0.1]\n' + AGENT, "scenario.time_step_s",
     "must be a number"),
    ("time step boolean", '[scenario]\ntime_step_s = true\n' + AGENT, "scenario.time_step_s",
     "must be a number"),
    ("profile number", '[scenario]\nprofile = 42\n' + AGENT, "scenario.profile",
     "must be a non-empty string"),
    ("name number", '[scenario]\nname = 42\n' + AGENT, "scenario.name", "must be a string"),
    ("description table", '[scenario]\ndescription = {a = 1}\n' + AGENT,
     "scenario.description", "must be a string"),
    ("steps boolean", '[scenario]\nsteps = true\n' + AGENT, "scenario.steps", "must be a number"),
    ("arrived negative", AGENT + '[expect]\narrived = -3\n', "expect.arrived",
     "whole number of agents in [0, 1]"),
    ("arrived above the agents", AGENT + '[expect]\narrived = 2\n', "expect.arrived",
     "whole number of agents in [0, 1]"),
    ("arrived word", AGENT + '[expect]\narrived = "most"\n', "expect.arrived", '"all"'),
    ("obstacle repeated vertex", AGENT + '[[obstacles]]\nvertices = [[3.0, 3.0], [3.0, 3.0], '
                                         '[4.0, 4.0]]\n', "obstacles[0].vertices[", "vertices"),
    ("obstacle one vertex", AGENT + '[[obstacles]]\nvertices = [[3.0, 3.0]]\n',
     "obstacles[0].vertices", "at least 2 points"),
    ("second obstacle bow-tie", AGENT + '[[obstacles]]\nvertices = [[3.0, 3.0], [4.0, 3.0]]\n'
                                        '[[obstacles]]\nvertices = [[0.0, 5.0], [2.0, 7.0], '
                                        '[2.0, 5.0], [0.0, 7.0]]\n', "obstacles[1].vertices",
     ""),
    ("support collinear", AGENT + '[[supports]]\nname = "b"\nkind = "conveyor"\n'
                                  'vertices = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]]\n',
     "supports[0].vertices =", "convex"),
    ("support kind number", AGENT + f'[[supports]]\nname = "b"\nkind = 3\nvertices = {BELT}\n',
     "supports[0].kind", "must be a string"),
    ("support name number", AGENT + f'[[supports]]\nname = 3\nkind = "conveyor"\n'
                                    f'vertices = {BELT}\n', "supports[0].name", "string"),
    ("second patch concave", AGENT + f'[[patches]]\nname = "P"\nvertices = {SQUARE}\n'
                                     '[[patches]]\nname = "Q"\nvertices = [[0.0, 0.0], '
                                     '[4.0, 0.0], [1.0, 1.0], [0.0, 4.0]]\n',
     "patches[1].vertices", "convex"),
    ("agent radius outside the profile", AGENT + 'radius_m = 50.0\n', "agents[0].radius_m",
     "profile"),
    ("second agent neighbour distance", AGENT + AGENT + 'neighbor_dist_m = 1e9\n',
     "agents[1].neighbor_dist_m", ""),
    ("ring radius outside the profile", AGENT + '[[rings]]\ncount = 4\nring_radius_m = 5.0\n'
                                                'radius_m = 50.0\n', "rings[0].radius_m",
     "profile"),
    ("block speed outside the profile", '[[blocks]]\nrows = 2\ncols = 2\nspacing_m = 2.0\n'
                                        'goal_offset = [3.0, 0.0]\nmax_speed_mps = 99.0\n',
     "blocks[0].max_speed_mps", "profile"),
    ("ring of 10^8 agents", '[[rings]]\ncount = 100000000\nring_radius_m = 1000.0\n',
     "rings[0].count", "GiB"),
    ("block of 10^10 agents", '[[blocks]]\nrows = 100000\ncols = 100000\nspacing_m = 1.0\n'
                              'goal_offset = [1.0, 0.0]\n', "blocks[0].rows", "GiB"),
    ("max neighbours negative", AGENT + 'max_neighbors = -1\n', "agents[0].max_neighbors",
     ">= 0"),
]


def _simulate(tmp_path, capsys, text: str | bytes, *extra: str):
    scenario = tmp_path / "s.toml"
    if isinstance(text, bytes):
        scenario.write_bytes(text)
    else:
        scenario.write_text(text, encoding="utf-8")
    before = scenario.read_bytes()
    out = tmp_path / "out.json"
    code = main(["simulate", str(scenario), "--steps", "2", "--json", str(out), *extra])
    err = capsys.readouterr().err
    assert scenario.read_bytes() == before
    return code, err, sorted(p.name for p in tmp_path.iterdir() if p.name != "s.toml")


@pytest.mark.parametrize(("text", "key", "rule"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_a_bad_scenario_file_is_exit_3_naming_its_key_and_nothing_is_written(
        tmp_path, capsys, text, key, rule):
    code, err, written = _simulate(tmp_path, capsys, text)
    assert code == EXIT_BAD_INPUT, err
    assert err.count("\n") == 1, err
    assert f"s.toml: {key}" in err and rule in err, err
    assert "Traceback" not in err and "internal error" not in err
    assert written == []


def test_a_non_utf8_scenario_file_is_exit_3_naming_the_file(tmp_path, capsys):
    code, err, written = _simulate(tmp_path, capsys,
                                   ('[scenario]\nname = "caf\xe9"\n' + AGENT).encode("latin-1"))
    assert code == EXIT_BAD_INPUT
    assert err.count("\n") == 1 and "s.toml" in err and "not UTF-8" in err and "0xe9" in err
    assert written == []


def test_a_non_utf8_profile_is_exit_3_naming_the_profile(tmp_path, capsys):
    (tmp_path / "p.toml").write_bytes(b'[profile]\nname = "caf\xe9"\n')
    code, err, written = _simulate(tmp_path, capsys, '[scenario]\nprofile = "p.toml"\n' + AGENT)
    assert code == EXIT_BAD_INPUT
    assert err.count("\n") == 1 and "p.toml" in err and "UTF-8" in err
    assert written == ["p.toml"]


def test_the_scenario_keys_in_errors_exist_in_the_schema(tmp_path, capsys):
    # issue 20 item 10: keys the file does not have (vertices_m, radius) were named
    for text in (CASES[17][1], CASES[21][1]):
        _, err, _ = _simulate(tmp_path, capsys, text)
        assert "vertices_m" not in err and ".radius =" not in err, err


VALID = (
    '[scenario]\nname = "fuzz"\nsteps = 3\ntime_step_s = 0.1\n'
    '[agent_defaults]\nradius_m = 0.4\n'
    '[[agents]]\nposition = [0.0, 0.0]\ngoal = [3.0, 0.0]\n'
    '[[rings]]\ncount = 3\nring_radius_m = 4.0\n'
    '[[obstacles]]\nvertices = [[6.0, 6.0], [7.0, 6.0], [7.0, 7.0]]\n'
    f'[[patches]]\nname = "P"\nvertices = {SQUARE}\ngradient = [0.0, 0.0]\n'
    f'[[supports]]\nname = "b"\nkind = "conveyor"\nvertices = {BELT}\n'
    'velocity_mps = [0.1, 0.0]\n'
    '[expect]\narrived = 0\nmin_wall_clearance_m = -100.0\n'
)
VALUE = st.sampled_from(['"abc"', "[0.1]", "true", "-3", "0", "1e308", "nan", "inf",
                         "{a = 1}", "[[1.0, 2.0]]", '""', "42"])


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.integers(0, VALID.count("\n") - 1), value=VALUE, rename=st.booleans())
def test_a_mutated_scenario_file_runs_or_is_refused_in_one_line(tmp_path_factory, capsys, line,
                                                                 value, rename) -> None:
    lines = VALID.splitlines()
    if " = " in lines[line]:
        key, _ = lines[line].split(" = ", 1)
        lines[line] = f"{key}x = {value}" if rename else f"{key} = {value}"
    tmp_path = tmp_path_factory.mktemp("mutated")
    code, err, written = _simulate(tmp_path, capsys, "\n".join(lines) + "\n")
    assert code in (0, EXIT_BAD_INPUT), err
    assert "Traceback" not in err and "internal error" not in err
    if code == EXIT_BAD_INPUT:
        assert err.count("\n") == 1 and "s.toml: " in err, err
        assert written == []
    if rename and " = " in lines[line]:
        # a renamed key is never ignored
        assert code == EXIT_BAD_INPUT and "unknown" in err, err

