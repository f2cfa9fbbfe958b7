"""Test-suite settings shared by every folder."""

import os

from hypothesis import settings

# Wall-clock deadlines make property tests flaky on a loaded 2-core machine; speed is measured
# in bench/, never asserted here. CI runs derandomised, so a failure there reproduces exactly.
settings.register_profile("navproof", deadline=None)
settings.register_profile("navproof-ci", deadline=None, derandomize=True)
settings.load_profile("navproof-ci" if os.environ.get("CI") else "navproof")
