"""``python -m navproof.cli``: the same entry point as the ``navproof`` command."""

import sys

from navproof.cli import main

sys.exit(main())
