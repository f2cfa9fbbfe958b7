"""A weakened safe step (tests/campaigns/campaign_plant.py: the solve sees every wall 0.1 m
further out) is found by the cross-entropy search and shrunk to a scenario file that
``navproof simulate FILE --assert`` fails on; random sampling with the same budget finds far
fewer lying runs."""

from __future__ import annotations

import tomllib
from pathlib import Path

from campaign_plant import weakened_wall_margin
from conftest import WALKER, write_spec

from navproof.campaigns.driver import run_campaign, shrink_lies
from navproof.campaigns.executors import InProcess
from navproof.campaigns.results import ResultsStore
from navproof.campaigns.spec import load_spec
from navproof.cli import main

VARY = """
[[vary]]
key = "agents[0].goal[1]"
uniform = [0.0, 2.11]

[[vary]]
key = "agents[0].max_speed_mps"
uniform = [1.0, 2.0]
"""


def campaign(folder: Path, search: str, runs: int) -> tuple[ResultsStore, dict]:
    folder.mkdir()
    spec = load_spec(write_spec(folder, runs=runs, steps=60, seed=3, search=search,
                                vary=VARY, base=WALKER,
                                extra="batch = 12\nelite_fraction = 0.2"))
    store = ResultsStore.open(folder / "r.sqlite", spec.digest, {}, resume=False)
    return store, (spec, run_campaign(spec, store, InProcess()))


def test_cross_entropy_finds_and_shrinks_a_planted_lie(tmp_path: Path) -> None:
    with weakened_wall_margin():
        store, (spec, results) = campaign(tmp_path / "cem", "cross-entropy", 96)
        lying = sorted(i for i, r in results.items() if r["lying"])
        assert lying, "the adaptive search missed the weakened wall margin"
        shrunk = shrink_lies(spec, store, results, tmp_path / "cem", "r", limit=1)
        assert len(shrunk) == 1 and shrunk[0]["reproduces_with_assert"] is True
        path = Path(shrunk[0]["path"])
        doc = tomllib.loads(path.read_text())
        assert len(doc["agents"]) == 1 and doc["scenario"]["steps"] <= 60
        assert main(["simulate", str(path), "--assert"]) == 1
        rstore, (_, random_results) = campaign(tmp_path / "random", "random", 96)
        random_lying = sum(1 for r in random_results.values() if r["lying"])
        store.close()
        rstore.close()
    # without the weakening the shrunk file is clean
    assert main(["simulate", str(path), "--assert"]) == 0
    assert len(lying) > 2 * random_lying
