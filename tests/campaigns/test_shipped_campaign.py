"""The shipped campaign (`examples/conveyor_campaign.toml`, 1,000 runs) is a valid spec, and
its first runs are clean: no step labelled safe that the independent check finds unsafe."""

from __future__ import annotations

from pathlib import Path

from navproof.campaigns.driver import run_campaign, validate_spec
from navproof.campaigns.executors import InProcess
from navproof.campaigns.results import ResultsStore
from navproof.campaigns.spec import load_spec

SHIPPED = Path(__file__).resolve().parents[2] / "examples" / "conveyor_campaign.toml"


def test_the_shipped_campaign_has_at_least_1000_runs_and_a_valid_spec():
    spec = load_spec(SHIPPED)
    assert spec.runs >= 1000
    validate_spec(spec)


def test_the_first_runs_of_the_shipped_campaign_tell_no_lie(tmp_path):
    spec = load_spec(SHIPPED, runs=6)
    store = ResultsStore.open(tmp_path / "r.sqlite", spec.digest, {}, resume=False)
    results = run_campaign(spec, store, InProcess())
    assert len(results) == 6
    for result in results.values():
        assert result.get("error") is None, result
        assert result["lying"] == 0, result
        assert sum(result["labels"].values()) > 0
