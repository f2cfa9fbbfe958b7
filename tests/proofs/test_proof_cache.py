"""The proof cache: unchanged obligations are not decided again; anything else is."""

import contextlib
import io
import json

from navproof import cli
from navproof.proofs import engine, stop_envelope
from navproof.proofs.cache import SCHEMA, ProofCache
from navproof.specs.profile import load_profile

CLAIMS = "B1,S3,A5"


def _prove(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["prove", "--claims", CLAIMS, "-j", "1", *argv])
    return code, out.getvalue(), err.getvalue()


def _records(path):
    return {r["id"]: r for r in json.loads(path.read_text())["obligations"]}


def test_a_warm_run_reuses_every_verdict_and_reports_the_same(tmp_path):
    cache = tmp_path / "cache.json"
    code, _, err = _prove("--cache", str(cache), "--json", str(tmp_path / "cold.json"))
    assert code == 0 and "0 reused, 4 decided" in err
    code, _, err = _prove("--cache", str(cache), "--json", str(tmp_path / "warm.json"))
    assert code == 0 and "4 reused, 0 decided" in err
    cold, warm = _records(tmp_path / "cold.json"), _records(tmp_path / "warm.json")
    assert cold.keys() == warm.keys()
    for oid, record in warm.items():
        assert record["cached"] is True and cold[oid]["cached"] is False
        for key in ("status", "ok", "witness", "counterexample", "fingerprint", "endpoints"):
            assert record[key] == cold[oid][key], (oid, key)


def test_no_cache_decides_everything(tmp_path):
    cache = tmp_path / "cache.json"
    _prove("--cache", str(cache))
    code, _, err = _prove("--cache", str(cache), "--no-cache")
    assert code == 0 and "0 reused, 4 decided" in err


def test_a_corrupt_or_foreign_cache_is_ignored_with_a_warning(tmp_path):
    cache = tmp_path / "cache.json"
    for text in ("{ not json", json.dumps({"schema": "other/1", "entries": {}}), "\xff\xfe"):
        cache.write_bytes(text.encode("latin-1"))
        code, _, err = _prove("--cache", str(cache))
        assert code == 0 and "ignoring the proof cache" in err and "0 reused, 4 decided" in err
        assert json.loads(cache.read_text())["schema"] == SCHEMA


def test_a_changed_range_redecides_only_the_obligations_that_use_it(tmp_path):
    profile = load_profile()
    cache = ProofCache(tmp_path / "cache.json")
    ids = ["B1", "S3", "T2"]
    engine.run_obligations(ids, profile, cache=cache)
    source = profile.source
    text = open(source, encoding="utf-8").read()
    # widen the arrival threshold's range only (no obligation of B1 or S3 reads it)
    candidate = tmp_path / "candidate.toml"
    assert "[parameters.arrival_velocity_threshold_mps]" in text
    head, rest = text.split("[parameters.arrival_velocity_threshold_mps]", 1)
    block, tail = rest.split("\n[", 1)
    block = block.replace("default =", "# widened\ndefault =", 1)
    candidate.write_text(head + "[parameters.arrival_velocity_threshold_mps]" + block + "\n["
                         + tail, encoding="utf-8")
    cand = load_profile(candidate)
    again = ProofCache(cache.path, cache.entries)
    results = engine.run_obligations(ids, cand, cache=again)
    assert all(r.ok for r in results)
    assert again.hits == 3 and again.misses == 0
    # a changed range that the statements read is a miss for every obligation reading it
    bigger = ProofCache(cache.path, cache.entries)
    wider = text.replace("[parameters.step_s]", "[parameters.step_s]\n# widened", 1)
    assert wider != text
    wider_path = tmp_path / "step.toml"
    wider_path.write_text(wider.replace("max = 0.1", "max = 0.2", 1), encoding="utf-8")
    engine.run_obligations(ids, load_profile(wider_path), cache=bigger)
    assert bigger.misses >= 1


def test_a_derivation_replaced_at_run_time_is_never_answered_from_the_cache(
    monkeypatch, tmp_path
):
    cache = tmp_path / "cache.json"
    code, _, err = _prove("--claims", "S3", "--cache", str(cache))
    assert code == 0 and "0 reused" in err
    doubled = 2 * stop_envelope.LINEAR_ENVELOPE_BOUND
    monkeypatch.setattr(stop_envelope, "LINEAR_ENVELOPE_BOUND", doubled)
    code, out, err = _prove("--claims", "S3", "--cache", str(cache))
    assert code == 1, out
    assert "0 reused" in err


def test_a_replaced_solver_strategy_is_never_answered_from_the_cache(monkeypatch, tmp_path):
    import z3

    cache = tmp_path / "cache.json"
    assert _prove("--cache", str(cache))[0] == 0
    monkeypatch.setattr(engine, "STRATEGIES", (("skip", lambda: z3.Tactic("skip").solver()),))
    code, _, err = _prove("--cache", str(cache))
    assert code == 2 and "0 reused" in err
