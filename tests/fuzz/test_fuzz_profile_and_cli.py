"""Fuzzing the profile loader and every command: a typed error or exit 3, never a traceback.

The profile loader gets arbitrary bytes and arbitrary TOML: it returns a Profile or raises
SpecError. Each command gets arbitrary words and option values: it exits 0-3 (never 4, the
internal-error code) and writes at most one line to stderr when it refuses.
"""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from navproof.cli import EXIT_BAD_INPUT, EXIT_INTERNAL, main
from navproof.specs import SpecError, load_profile
from navproof.specs.profile import DEFAULT_PROFILE_PATH

DEFAULT_TEXT = DEFAULT_PROFILE_PATH.read_text(encoding="utf-8")
WORD = st.one_of(st.text(max_size=12), st.sampled_from(
    ["--json", "--svg", "--agent", "--steps", "--builtin", "crossing", "wall", "-1", "nan",
     "1e308", "--db", "--resume", "--crash-at", "--profile", "--claims", "-j", "0", "B1",
     "--candidate", "/", "/nonexistent/x", "pq-handoff"]))


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(st.binary(max_size=200),
                      st.text(max_size=200).map(lambda t: t.encode("utf-8")),
                      st.tuples(st.integers(0, len(DEFAULT_TEXT)), st.text(max_size=20)).map(
                          lambda cut: (DEFAULT_TEXT[:cut[0]] + cut[1]
                                       + DEFAULT_TEXT[cut[0]:]).encode("utf-8"))))
@example(data=b"\xff\xfe\x00binary")
@example(data='[profile]\nname = "café"\n'.encode("latin-1"))
@example(data=b'profile = "x"\n')
def test_profile_loader_raises_spec_error_or_loads(tmp_path_factory, data) -> None:
    path = tmp_path_factory.mktemp("profile") / "p.toml"
    path.write_bytes(data)
    try:
        profile = load_profile(path)
    except SpecError as exc:
        assert str(path) in str(exc)
    else:
        assert profile.name


@settings(max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(["explain", "claims", "simulate", "nonsense", "--help"]),
       words=st.lists(WORD, max_size=5))
@example(command="explain", words=["--builtin", "crossing", "--json", "/"])
@example(command="simulate", words=["pq-handoff", "--crash-at", "nan"])
@example(command="explain", words=["\x00"])
@example(command="simulate", words=["pq-handoff", "--db", "a\x00"])
def test_every_command_exits_with_a_documented_code(tmp_path_factory, capsys, command,
                                                   words) -> None:
    # random words can name an output file (``--json pq-handoff``): it goes to a scratch
    # folder, never into the tree the tests run from
    with contextlib.chdir(tmp_path_factory.mktemp("cwd")):
        code = main([command, *words])
    assert code in (0, 1, 2, EXIT_BAD_INPUT), code
    assert code != EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" not in err


@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(["prove", "audit"]), junk=st.binary(max_size=60),
       words=st.lists(WORD, max_size=3))
def test_proof_commands_refuse_a_bad_profile_with_exit_3(tmp_path_factory, capsys, command,
                                                         junk, words) -> None:
    path = tmp_path_factory.mktemp("bad") / "bad.toml"
    path.write_bytes(b"[parameters]\n" + junk)
    flag = "--profile" if command == "prove" else "--candidate"
    code = main([command, flag, str(path), *words])
    assert code == EXIT_BAD_INPUT
    assert "Traceback" not in capsys.readouterr().err
