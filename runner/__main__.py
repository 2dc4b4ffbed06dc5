"""python -m runner: see runner.cli."""

import sys

from .cli import main

sys.exit(main())
