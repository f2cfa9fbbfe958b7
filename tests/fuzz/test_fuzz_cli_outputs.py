"""Output paths, input files and closed streams at every command (issue 20, items 8 and 9).

Every output option is checked before the command runs: a path that cannot be written, that is
one of the run's inputs (the scenario file, its profile, the record, explain's JSON) or that
another option also names is exit 3 with one line naming the option and the reason, and
nothing is written (the inputs keep their bytes, no picture is left behind). Non-UTF-8 input
files are exit 3 naming the file; a closed stdout never gives a traceback and never changes the
command's verdict.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navproof.cli import EXIT_BAD_INPUT, main
from navproof.cli.output import check_output_paths
from navproof.core.errors import InvalidInput
from navproof.specs.profile import DEFAULT_PROFILE_PATH

AGENT = '[[agents]]\nposition = [0.0, 0.0]\ngoal = [1.0, 0.0]\n'
EXPLAIN = '{"agents": [{"position": [0, 0], "pref_velocity": [1, 0]}, {"position": [3, 0]}]}'

CASES = [
    # (case id, files, argv, option named, words of the rule)
    ("json is the scenario", {"s.toml": AGENT},
     ["simulate", "s.toml", "--steps", "2", "--json", "s.toml"], "--json", "input of this run"),
    ("json is the profile", {"s.toml": '[scenario]\nprofile = "p.toml"\n' + AGENT,
                             "p.toml": DEFAULT_PROFILE_PATH.read_text(encoding="utf-8")},
     ["simulate", "s.toml", "--steps", "2", "--json", "p.toml"], "--json", "input of this run"),
    ("plot is the scenario", {"s.toml": AGENT},
     ["simulate", "s.toml", "--steps", "2", "--plot", "./s.toml"], "--plot", ""),
    ("json is the plot", {"s.toml": AGENT},
     ["simulate", "s.toml", "--steps", "2", "--json", "p.png", "--plot", "p.png"], "--plot",
     "also the path of --json"),
    ("gif is the json", {"s.toml": AGENT},
     ["simulate", "s.toml", "--steps", "2", "--json", "a.gif", "--gif", "a.gif"], "--gif",
     "also the path of --json"),
    ("json in a missing folder", {"s.toml": AGENT},
     ["simulate", "s.toml", "--steps", "2", "--plot", "p.png", "--json", "nodir/o.json"],
     "--json", "does not exist"),
    ("json is a folder", {"s.toml": AGENT, "d/x": "x"},
     ["simulate", "s.toml", "--steps", "2", "--json", "d"], "--json", "is a directory"),
    ("frames is a file", {"s.toml": AGENT},
     ["simulate", "s.toml", "--steps", "2", "--frames", "s.toml"], "--frames", "not a folder"),
    ("pq json is the record", {},
     ["simulate", "pq-handoff", "--db", "r.db", "--json", "r.db"], "--json", "input"),
    ("pq data file non-UTF-8", {"d.toml": b'name = "caf\xe9"\n'},
     ["simulate", "pq-handoff", "--scenario-file", "d.toml"], "--scenario-file", "not UTF-8"),
    ("explain json is the scenario", {"e.json": EXPLAIN},
     ["explain", "e.json", "--json", "e.json"], "--json", "input of this run"),
    ("explain svg is the json", {"e.json": EXPLAIN},
     ["explain", "e.json", "--json", "o.svg", "--svg", "o.svg"], "--svg", "also the path"),
    ("explain output is the svg", {"e.json": EXPLAIN},
     ["explain", "e.json", "-o", "o.svg", "--svg", "o.svg"], "--svg", "also the path"),
    ("explain output in a missing folder", {"e.json": EXPLAIN},
     ["explain", "e.json", "--json", "o.json", "-o", "nodir/o.png"], "--output",
     "does not exist"),
    ("explain non-UTF-8", {"e.json": b'{"agents": [{"position": [0, 0]}], "x": "caf\xe9"}'},
     ["explain", "e.json"], "e.json", "not UTF-8"),
    ("explain bad JSON", {"e.json": '{"agents": ['}, ["explain", "e.json"], "e.json",
     "line 1 column 13"),
    ("explain bad value", {"e.json": '{"agents": 3}'}, ["explain", "e.json"], "e.json: agents",
     "must be a list"),
    ("explain agent value", {"e.json": '{"agents": [{"position": "ab"}]}'},
     ["explain", "e.json"], "e.json: agents[0].position", "numeric"),
    ("explain default value", {"e.json": '{"defaults": {"radius": "x"}, "agents": '
                                         '[{"position": [0, 0]}]}'},
     ["explain", "e.json"], "e.json: defaults.radius", "numeric"),
    ("explain boolean time step", {"e.json": '{"time_step": true, "agents": []}'},
     ["explain", "e.json"], "e.json: time_step", "must be a number"),
    ("explain obstacles not a list", {"e.json": '{"agents": [{"position": [0, 0]}], '
                                                '"obstacles": 3}'},
     ["explain", "e.json"], "e.json: obstacles", "must be a list"),
    ("prove json is the profile", {"p.toml": DEFAULT_PROFILE_PATH.read_text(encoding="utf-8")},
     ["prove", "--profile", "p.toml", "--claims", "B1", "--json", "p.toml"], "--json",
     "input of this run"),
    ("prove junit is the markdown", {},
     ["prove", "--claims", "B1", "--junit", "r.txt", "--markdown", "r.txt"], "--markdown",
     "also the path of --junit"),
    ("audit json is the candidate", {"c.toml": DEFAULT_PROFILE_PATH.read_text(encoding="utf-8")},
     ["audit", "--candidate", "c.toml", "--claims", "B1", "--json", "c.toml"], "--json",
     "input of this run"),
    ("prove markdown in a missing folder", {},
     ["prove", "--claims", "B1", "--markdown", "nodir/r.md"], "--markdown", "does not exist"),
]


def _files(tmp_path, files):
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}


@pytest.mark.parametrize(("files", "argv", "option", "rule"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_a_bad_output_or_input_is_exit_3_naming_it_and_nothing_is_written(
        tmp_path, capsys, monkeypatch, files, argv, option, rule):
    before = _files(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    err = capsys.readouterr().err
    assert code == EXIT_BAD_INPUT, err
    assert err.strip().count("\n") == 0, err
    assert option in err and rule in err, err
    assert "Traceback" not in err and "internal error" not in err
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before


def test_check_output_paths_sees_a_link_to_an_input(tmp_path):
    source = tmp_path / "s.toml"
    source.write_text(AGENT)
    (tmp_path / "link.json").symlink_to(source)
    os.link(source, tmp_path / "hard.json")
    for path in ("link.json", "hard.json"):
        with pytest.raises(InvalidInput, match="input of this run") as info:
            check_output_paths({"--json": tmp_path / path}, inputs=[source])
        assert info.value.field == "--json"
    check_output_paths({"--json": tmp_path / "new.json", "--plot": None}, inputs=[source, None])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard.json", "link.json", "s.toml"]


def _navproof(args, tmp_path, *, stdout):
    return subprocess.run([sys.executable, "-m", "navproof.cli", *args], cwd=tmp_path,
                          stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=300)


@pytest.mark.parametrize("closed", ["before the start", "reader gone"])
def test_a_closed_stdout_keeps_the_verdict_and_gives_no_traceback(tmp_path, closed):
    # the agent cannot arrive in 3 steps: --assert fails the [expect] table, exit 1
    (tmp_path / "s.toml").write_text('[[agents]]\nposition = [0.0, 0.0]\ngoal = [10.0, 0.0]\n'
                                     '[expect]\narrived = "all"\n')
    args = ["simulate", "s.toml", "--steps", "3", "--assert"]
    if closed == "before the start":
        proc = subprocess.run([sys.executable, "-c",
                               "import os, sys; os.close(1); from navproof.cli import main; "
                               f"sys.exit(main({args!r}))"],
                              cwd=tmp_path, stderr=subprocess.PIPE, text=True, timeout=300)
    else:
        read, write = os.pipe()
        os.close(read)
        try:
            proc = _navproof(args, tmp_path, stdout=write)
        finally:
            os.close(write)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


JSON_VALUE = st.sampled_from(['"x"', "true", "null", "-1", "1e308", "[]", "{}", "[1]",
                              "[[0, 0]]", "3"])


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spot=st.integers(0, 5), value=JSON_VALUE)
def test_a_mutated_explain_file_is_explained_or_refused_in_one_line_naming_it(
        tmp_path_factory, capsys, spot, value) -> None:
    template = ('{"time_step": %s, "defaults": {"radius": %s}, "agents": [{"position": %s, '
                '"pref_velocity": %s}, {"position": [3, 0], "max_speed": %s}], '
                '"obstacles": %s}')
    values = ["0.25", "0.5", "[0, 0]", "[1, 0]", "1.5", "[]"]
    values[spot] = value
    tmp_path = tmp_path_factory.mktemp("explain")
    path = tmp_path / "e.json"
    path.write_text(template % tuple(values), encoding="utf-8")
    code = main(["explain", str(path)])
    err = capsys.readouterr().err
    assert code in (0, EXIT_BAD_INPUT), err
    assert "Traceback" not in err and "internal error" not in err
    if code == EXIT_BAD_INPUT:
        assert err.count("\n") == 1 and "e.json" in err, err
