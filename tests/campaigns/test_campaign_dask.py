"""The same campaign on a real two-worker ``distributed.LocalCluster`` (no mocks) gives the
results of the in-process run for a fixed seed; a worker killed mid-campaign has its run
retried and recorded once."""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from conftest import write_spec
from test_campaign_cli import rows

from navproof.cli import main

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():  # type: ignore[no-untyped-def]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c


def test_cluster_and_pool_give_the_same_results(tmp_path: Path, cluster) -> None:  # type: ignore[no-untyped-def]
    spec = write_spec(tmp_path, runs=8, steps=15, seed=21)
    reference = tmp_path / "pool.sqlite"
    assert main(["campaign", str(spec), "--results", str(reference), "--workers", "2"]) == 0
    db = tmp_path / "dask.sqlite"
    assert main(["campaign", str(spec), "--results", str(db),
                 "--scheduler", cluster.scheduler_address]) == 0
    assert rows(db) == rows(reference)
    assert len(rows(db)) == 8


def count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        # read-only: polling must never create the file before the campaign does
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return conn.execute("SELECT count(*) FROM runs").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


def test_a_killed_worker_has_its_run_retried_and_recorded_once(tmp_path: Path,
                                                               cluster) -> None:  # type: ignore[no-untyped-def]
    spec = write_spec(tmp_path, runs=16, steps=60, seed=8)
    reference = tmp_path / "reference.sqlite"
    assert main(["campaign", str(spec), "--results", str(reference), "--workers", "0"]) == 0
    db = tmp_path / "dask.sqlite"
    codes: list[int] = []
    runner = threading.Thread(target=lambda: codes.append(main(
        ["campaign", str(spec), "--results", str(db), "--scheduler",
         cluster.scheduler_address])))
    with distributed.Client(cluster.scheduler_address) as client:
        pids = client.run(os.getpid)
        runner.start()
        deadline = time.monotonic() + 120
        while count(db) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        done_at_kill = count(db)
        os.kill(next(iter(pids.values())), signal.SIGKILL)
        runner.join(timeout=300)
        client.wait_for_workers(2, timeout=60)
    assert codes == [0]
    assert done_at_kill < 16  # the kill struck while runs were still in flight
    assert rows(db) == rows(reference)
