"""Running a campaign: draw the tasks (:mod:`.search`), validate them, run them on an executor,
record each result as it arrives (:mod:`.results`), shrink the lying runs (:mod:`.shrink`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from navproof.campaigns.results import ResultsStore
from navproof.campaigns.search import Distribution, distribution_for, make_task
from navproof.campaigns.spec import CampaignSpec, validate

Progress = Callable[[int, int], None]


def generations(spec: CampaignSpec) -> list[range]:
    """The run indices of each generation (one generation for random sampling)."""
    if spec.search != "cross-entropy":
        return [range(spec.runs)]
    return [range(g * spec.batch, min((g + 1) * spec.batch, spec.runs))
            for g in range(math.ceil(spec.runs / spec.batch))]


def validate_spec(spec: CampaignSpec) -> None:
    """Validate, as scenario files, every scenario drawn before the first run: all of them
    for random sampling; for the cross-entropy method the first generation and every varied
    parameter at both ends of its range (later draws stay inside those ranges)."""
    dist = Distribution()
    for i in generations(spec)[0]:
        task = make_task(spec, i, dist)
        validate(spec, task["values"], f"run {i} (seed {spec.seed})")
    if spec.search == "cross-entropy":
        base = make_task(spec, 0, dist)["values"]
        for v in spec.vary:
            ends = v.options if v.kind == "choice" else (v.low, v.high)
            for end in ends:
                value = (int(end) if v.integer else end)
                validate(spec, {**base, v.key: value}, f"{v.key} = {value}")


def run_campaign(spec: CampaignSpec, store: ResultsStore, executor: Any, *,
                 progress: Progress | None = None) -> dict[int, dict[str, Any]]:
    """Run every run of the campaign not yet in ``store``; returns all results by index."""
    results = store.results()
    done = len(results)
    if progress is not None:
        progress(done, spec.runs)
    for g, indices in enumerate(generations(spec)):
        todo = [i for i in indices if i not in results]
        if not todo:
            continue
        dist = distribution_for(spec, g, results) if spec.search == "cross-entropy" \
            else Distribution()
        tasks = [make_task(spec, i, dist) for i in todo]
        for result in executor.run(tasks):
            if store.add(result):
                results[result["index"]] = result
                done += 1
                if progress is not None:
                    progress(done, spec.runs)
    return results


def shrink_lies(spec: CampaignSpec, store: ResultsStore, results: dict[int, dict[str, Any]],
                folder: Path, stem: str, *, limit: int = 3) -> list[dict[str, Any]]:
    """Shrink up to ``limit`` lying runs (the first ones) into scenario files in ``folder``."""
    from navproof.campaigns.shrink import (
        agent_count,
        reproduces_with_assert,
        shrink,
        write_counterexample,
    )

    known = {c["run"] for c in store.counterexamples()}
    lying = [i for i in sorted(results) if results[i]["lying"] and not results[i]["error"]]
    for i in lying[:limit]:
        if i in known:
            continue
        r = results[i]
        dist = distribution_for(spec, r["generation"], results) \
            if spec.search == "cross-entropy" else Distribution()
        task = make_task(spec, i, dist)
        found = shrink(task["scenario"], task["profile"], task["steps"])
        if found is None:
            continue
        doc, steps = found
        n = agent_count(doc)
        note = (f"counterexample of campaign {spec.name!r} run {i} (seed {r['seed']}): a step "
                f"labelled safe that the truth check finds violated; shrunk from "
                f"{r['agents']} agents, {r['steps']} steps")
        path = write_counterexample(doc, steps, task["profile"], folder,
                                    f"{stem}.counterexample-{i}", note)
        store.add_counterexample(i, str(path), n, steps, reproduces_with_assert(path))
    return store.counterexamples()
