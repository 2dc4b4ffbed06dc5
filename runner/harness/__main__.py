"""Entry point inside the sandbox: python -m harness <request fd> <response fd> <cpu|cuda>."""

import sys

from .serve import main

main(sys.argv[1:])
