"""Which scenarios a campaign runs: plain random sampling, or the cross-entropy method that
moves the sampling distribution of the varied parameters toward small margins.

Both are deterministic functions of the spec's seed and of the results of earlier runs, so a
resumed campaign draws exactly the runs it would have drawn: run ``i`` always uses the random
stream ``(seed, i)``; the cross-entropy method draws generation ``g`` (runs ``g*batch`` to
``(g+1)*batch - 1``) from the distribution fitted to the elite (smallest-margin) runs of the
generations before it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from navproof.campaigns.spec import CampaignSpec, Vary, scenario_texts

SMOOTHING = 0.9
"""Weight of the elite fit against the previous distribution (cross-entropy)."""
STD_FLOOR = 0.05
"""Smallest standard deviation, as a fraction of the parameter's range (keeps exploring)."""


def run_seed(seed: int, index: int) -> int:
    """The seed of run ``index`` (63-bit), from the campaign seed."""
    return int(np.random.SeedSequence([seed, index]).generate_state(2, np.uint64)[0] >> 1)


@dataclass
class Distribution:
    """The sampling distribution of one generation: per varied key a (mean, std) or, for a
    choice, the probabilities of its options; ``None`` entries draw from the spec itself."""

    params: list[tuple[float, float] | np.ndarray | None] = field(default_factory=list)

    def draw(self, spec: CampaignSpec, rng: np.random.Generator) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for v, p in zip(spec.vary, self.params or [None] * len(spec.vary), strict=True):
            if p is None:
                values[v.key] = v.draw(rng)
            elif isinstance(p, np.ndarray):
                values[v.key] = v.draw(rng, probs=p)
            else:
                values[v.key] = v.draw(rng, mean=p[0], std=p[1])
        return values


def score(result: dict[str, Any]) -> float:
    """How close a run came to a lie (m, smaller is closer): minus the lying agent-steps when
    it lied, else its smallest margin over the agent-steps labelled SAFE (+inf: none)."""
    if result.get("error"):
        return math.inf
    if result["lying"]:
        return -float(result["lying"])
    margin = result["min"]["safe_margin_m"]
    return math.inf if margin is None else float(margin)


def _span(v: Vary) -> float:
    if math.isfinite(v.low) and math.isfinite(v.high):
        return max(v.high - v.low, 1e-12)
    return max(v.std, 1e-12)


def next_distribution(spec: CampaignSpec, dist: Distribution,
                      results: list[dict[str, Any]]) -> Distribution:
    """The cross-entropy update: fit the elite (the ``elite_fraction`` of a batch with the
    smallest scores) of ``results`` (every run so far: the best ones found are kept), smoothed
    with the previous distribution."""
    ok = [r for r in results if math.isfinite(score(r))]
    if not ok:
        return dist
    ok.sort(key=lambda r: (score(r), r["index"]))
    elite = ok[:max(2, int(math.ceil(spec.elite_fraction * spec.batch)))]
    params: list[tuple[float, float] | np.ndarray | None] = []
    old = dist.params or [None] * len(spec.vary)
    for v, p in zip(spec.vary, old, strict=True):
        xs = [r["values"][v.key] for r in elite]
        if v.kind == "choice":
            counts = np.array([sum(1 for x in xs if x == o) for o in v.options], float)
            fit = counts / counts.sum()
            prev = np.full(len(v.options), 1.0 / len(v.options)) if p is None else p
            probs = SMOOTHING * fit + (1 - SMOOTHING) * np.asarray(prev)
            params.append(probs / probs.sum())
            continue
        mean0, std0 = (v.mean, v.std) if p is None else p
        arr = np.asarray(xs, float)
        mean = SMOOTHING * float(arr.mean()) + (1 - SMOOTHING) * mean0
        std = SMOOTHING * float(arr.std()) + (1 - SMOOTHING) * std0
        params.append((mean, max(std, STD_FLOOR * _span(v))))
    return Distribution(params)


def generation_of(spec: CampaignSpec, index: int) -> int:
    """The generation of run ``index`` (0 for random sampling)."""
    return index // spec.batch if spec.search == "cross-entropy" else 0


def make_task(spec: CampaignSpec, index: int, dist: Distribution) -> dict[str, Any]:
    """The self-contained task of run ``index`` drawn from ``dist`` (see :mod:`.worker`)."""
    rng = np.random.default_rng([spec.seed, index])
    values = dist.draw(spec, rng)
    scenario, profile = scenario_texts(spec, values)
    return {"index": index, "seed": run_seed(spec.seed, index), "values": values,
            "generation": generation_of(spec, index), "scenario": scenario,
            "profile": profile, "steps": spec.steps}


def distribution_for(spec: CampaignSpec, generation: int,
                     results: dict[int, dict[str, Any]]) -> Distribution:
    """The distribution of ``generation``, replayed from the stored results of the earlier
    generations (each must be complete)."""
    dist = Distribution()
    for g in range(generation):
        rows = [results[i] for i in range(min((g + 1) * spec.batch, spec.runs))]
        dist = next_distribution(spec, dist, rows)
    return dist
