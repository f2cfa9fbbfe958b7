"""The command line's own behaviour: dispatch, exit codes, claims listing, freshness check."""

import json
import subprocess
import sys

import pytest

from navproof.cli import EXIT_BAD_INPUT, EXIT_INTERNAL, main


def test_unknown_command_and_bad_flags_exit_with_bad_input(capsys):
    assert main(["no-such-command"]) == EXIT_BAD_INPUT
    assert main(["generate", "--no-such-flag"]) == EXIT_BAD_INPUT


def test_generate_check_passes_on_the_committed_module(capsys):
    assert main(["generate", "--check"]) == 0
    assert "fresh" in capsys.readouterr().out


def test_claims_lists_every_claim_with_locations(tmp_path, capsys):
    out = tmp_path / "claims.json"
    assert main(["claims", "--json", str(out)]) == 0
    records = json.loads(out.read_text())
    assert len(records) == 56
    by_id = {r["id"]: r for r in records}
    assert by_id["B5"]["refutable"] is True
    # z3 and sympy claims name the obligation builders that discharge them; runtime rules none,
    # except B6, whose run-time check evaluates formulas that obligations pin.
    for rec in records:
        assert bool(rec["obligations"]) == (rec["kind"] != "runtime" or rec["id"] == "B6"), rec["id"]
    assert "navproof.proofs.obligations.rigid.b6_second_derivative" in by_id["B6"]["obligations"]
    # The derivations cite their claims, and the generated runtime module carries the citation.
    assert "proofs/boundary.py" in by_id["B4"]["proved"]
    assert "runtime/_generated/formulas.py" in by_id["S3"]["enforced"]
    assert any("test_worked_examples" in path for path in by_id["A5"]["tested"])
    assert "B5" in capsys.readouterr().out


def test_importing_the_runtime_stays_lean():
    code = "import sys, navproof; print('sympy' in sys.modules, 'z3' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


def _main_in_subprocess(argv: list[str], *, prelude: str = "") -> subprocess.CompletedProcess:
    code = (
        "import contextlib, io, sys\n"
        f"{prelude}\n"
        "from navproof.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main({argv!r})\n"
        "print(code, 'sympy' in sys.modules, 'z3' in sys.modules)\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)


@pytest.mark.parametrize("argv", [["--help"], ["simulate", "pq-handoff"],
                                  ["explain", "--builtin", "crossing"], ["claims"]])
def test_commands_that_do_not_prove_load_neither_sympy_nor_z3(argv):
    result = _main_in_subprocess(argv)
    assert result.stdout.split() == ["0", "False", "False"], result.stderr


def test_claims_reads_the_obligation_registry_as_the_prover_imports_it():
    from navproof.cli.claims import proof_locations as read_from_source
    from navproof.proofs.obligations import proof_locations as imported
    from navproof.specs import load_claims

    for cid in load_claims():
        assert read_from_source(cid) == imported(cid), cid


def test_an_internal_error_exits_4_with_one_line_and_the_traceback_only_with_debug(monkeypatch,
                                                                                   capsys):
    import navproof.cli.claims as claims_command

    def broken() -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(claims_command, "claim_locations", broken)
    assert main(["claims"]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "RuntimeError: disk on fire" in err
    assert "Traceback" not in err
    assert main(["--debug", "claims"]) == EXIT_INTERNAL
    assert "Traceback" in capsys.readouterr().err
    assert main(["claims", "--debug"]) == EXIT_INTERNAL
    assert "Traceback" in capsys.readouterr().err


def test_output_piped_into_a_closed_reader_ends_quietly():
    # `navproof claims | head -1`: the reader is gone before the listing is written
    proc = subprocess.Popen([sys.executable, "-m", "navproof.cli", "claims"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait() == 0, err
    assert err == ""


@pytest.mark.parametrize("argv", [
    ["claims", "--json", "{missing}/claims.json"],
    ["claims", "--json", "{dir}"],
    ["explain", "--builtin", "crossing", "--json", "{missing}/x.json"],
    ["explain", "--builtin", "crossing", "--svg", "{missing}/x.svg"],
    ["simulate", "pq-handoff", "--json", "{missing}/x.json"],
])
def test_an_unwritable_report_path_is_bad_input_with_one_line(argv, tmp_path, capsys):
    argv = [a.format(missing=tmp_path / "no-such-folder", dir=tmp_path) for a in argv]
    assert main(argv) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad input" in err and argv[-2] in err
