"""Campaign throughput: runs per second of one campaign (the corridor-with-conveyor spec of
``examples/conveyor_campaign.toml``, a reduced run count) with 1 and 2 local workers and on a
two-worker ``distributed.LocalCluster``, and the truth check's share of a run.

    .venv/bin/python bench/campaign_bench.py [--runs N]

Each executor is warmed first (the workers' start and compile-cache load are not counted).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from navproof.campaigns.driver import run_campaign
from navproof.campaigns.executors import DaskCluster, InProcess, LocalPool
from navproof.campaigns.results import ResultsStore
from navproof.campaigns.search import Distribution, make_task
from navproof.campaigns.spec import load_spec
from navproof.campaigns.worker import run_task

SPEC = Path(__file__).resolve().parent.parent / "examples" / "conveyor_campaign.toml"


def timed(executor, runs: int, folder: Path, name: str) -> float:  # type: ignore[no-untyped-def]
    spec = load_spec(SPEC, runs=runs)
    warm = [make_task(spec, i, Distribution()) for i in range(2 * executor.workers)]
    list(executor.run(warm))
    store = ResultsStore.open(folder / f"{name}.sqlite", spec.digest, {}, resume=False)
    start = time.perf_counter()
    run_campaign(spec, store, executor)
    seconds = time.perf_counter() - start
    store.close()
    return runs / seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args(argv)
    spec = load_spec(SPEC, runs=args.runs)
    # truth-check overhead: the same runs in this process with and without the check
    tasks = [make_task(spec, i, Distribution()) for i in range(40)]
    run_task(tasks[0])
    with_truth = [run_task(t) for t in tasks]
    plain = [run_task({**t, "truth": False}) for t in tasks]
    step_s = sum(r["step_seconds"] for r in with_truth)
    truth_s = sum(r["truth_seconds"] for r in with_truth)
    total_truth = sum(r["seconds"] for r in with_truth)
    total_plain = sum(r["seconds"] for r in plain)
    print(f"truth check: {truth_s / step_s:.1%} of the World steps' time; a run takes "
          f"{total_truth / total_plain - 1:+.1%} with it ({total_truth / 40 * 1e3:.1f} ms vs "
          f"{total_plain / 40 * 1e3:.1f} ms per run)")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        rates = {}
        rates["in-process"] = timed(InProcess(), args.runs, out, "inproc")
        for n in (1, 2):
            pool = LocalPool(n)
            rates[f"pool x{n}"] = timed(pool, args.runs, out, f"pool{n}")
            pool.close()
        try:
            from distributed import LocalCluster

            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                              dashboard_address=None) as cluster:
                dask = DaskCluster(cluster.scheduler_address)
                rates["LocalCluster x2"] = timed(dask, args.runs, out, "dask")
                dask.close()
        except ImportError:
            print("distributed not installed: no cluster figure", file=sys.stderr)
    for name, rate in rates.items():
        print(f"{name:>16}: {rate:6.1f} runs/s")
    if "pool x1" in rates:
        print(f"2 workers / 1 worker: {rates['pool x2'] / rates['pool x1']:.2f}x; "
              f"cluster / pool x2: {rates.get('LocalCluster x2', 0) / rates['pool x2']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
