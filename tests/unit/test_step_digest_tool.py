"""tools/step_digest.py: the digest that shows a change kept every label, margin and position."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "circle.toml"


def _tool():
    spec = importlib.util.spec_from_file_location("step_digest", ROOT / "tools" / "step_digest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _lines(capsys, *argv: str) -> dict[str, tuple[str, str]]:
    assert _tool().main(list(argv)) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    return {name: (steps, sha) for name, steps, sha in rows}


def test_the_same_run_gives_the_same_digest_and_the_verdicts_change_it(capsys):
    plain = _lines(capsys, str(EXAMPLE), "--steps", "3")
    again = _lines(capsys, str(EXAMPLE), "--steps", "3", "--assertions")
    truth = _lines(capsys, str(EXAMPLE), "--steps", "3", "--assertions", "--truth")
    assert plain == again == {"circle.toml": ("3", plain["circle.toml"][1])}
    assert len(plain["circle.toml"][1]) == 64
    assert truth["circle.toml"][1] != plain["circle.toml"][1]


def test_bench_worlds_and_the_safe_step_are_named_by_size(capsys):
    rows = _lines(capsys, str(EXAMPLE), "--steps", "1", "--bench-worlds", "40",
                  "--safe-step", "40")
    assert rows["bench-world-40"][0] == "5" and rows["safe-step-40"][0] == "1"
    assert _lines(capsys, str(EXAMPLE), "--steps", "1", "--safe-step", "40") \
        ["safe-step-40"] == rows["safe-step-40"]


def test_truth_without_assertions_is_refused():
    with pytest.raises(SystemExit) as stop:
        _tool().main([str(EXAMPLE), "--truth"])
    assert stop.value.code == 2
