"""The command line's own behaviour: dispatch, exit codes, claims listing, freshness check."""

import json
import subprocess
import sys

from navproof.cli import EXIT_BAD_INPUT, main


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
    assert len(records) == 54
    by_id = {r["id"]: r for r in records}
    assert by_id["B5"]["refutable"] is True
    # z3 and sympy claims name the obligation builders that discharge them; runtime rules none.
    for rec in records:
        assert bool(rec["obligations"]) == (rec["kind"] != "runtime"), rec["id"]
    # The derivations cite their claims, and the generated runtime module carries the citation.
    assert "proofs/boundary.py" in by_id["B4"]["proved"]
    assert "runtime/_generated/formulas.py" in by_id["S3"]["enforced"]
    assert any("test_worked_examples" in path for path in by_id["A5"]["tested"])
    assert "B5" in capsys.readouterr().out


def test_importing_the_runtime_stays_lean():
    code = "import sys, navproof; print('sympy' in sys.modules, 'z3' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]
