"""Test-suite settings shared by every folder.

Hypothesis runs are reproducible: no wall-clock deadline (speed is measured in bench/, never
asserted here), and one seed per test run, printed in the header and again after a failure
(rerun with ``NAVPROOF_HYPOTHESIS_SEED=N`` or ``pytest --hypothesis-seed=N``; parallel workers
share it). Each failure also prints its ``@reproduce_failure`` blob. With ``CI`` set the runs
are derandomised: every machine draws the same examples.
"""

import os
import random

import hypothesis.core
import pytest
from hypothesis import settings

settings.register_profile("navproof", deadline=None, print_blob=True)
settings.register_profile("navproof-ci", deadline=None, print_blob=True, derandomize=True)
settings.load_profile("navproof-ci" if os.environ.get("CI") else "navproof")

_SEED_VARIABLE = "NAVPROOF_HYPOTHESIS_SEED"


def pytest_configure(config):
    seed = config.getoption("hypothesis_seed", default=None)
    if os.environ.get("CI"):
        seed = "derandomised"
    elif seed is None:
        # the controller picks the seed; parallel workers inherit it through the environment
        seed = os.environ.setdefault(_SEED_VARIABLE, str(random.randrange(2**32)))
        hypothesis.core.global_force_seed = int(seed)
    config._navproof_seed = seed


def pytest_report_header(config):
    return f"hypothesis seed: {config._navproof_seed} (rerun with {_SEED_VARIABLE}=" \
           f"{config._navproof_seed})"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if exitstatus and not os.environ.get("CI"):
        terminalreporter.write_line(
            f"hypothesis seed of this run: {config._navproof_seed} (rerun with "
            f"{_SEED_VARIABLE}={config._navproof_seed})")


@pytest.fixture(autouse=True)
def _own_proof_cache(tmp_path_factory, monkeypatch):
    """Every test starts with an empty proof cache of its own (``NAVPROOF_CACHE_DIR``, inherited
    by the commands it starts): a verdict recorded by another test, or by the user's own runs,
    never answers for this test's code."""
    monkeypatch.setenv("NAVPROOF_CACHE_DIR", str(tmp_path_factory.mktemp("proof-cache")))
