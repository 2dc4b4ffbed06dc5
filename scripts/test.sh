#!/usr/bin/env bash
# Sets up (or updates) .venv/ and the system packages the suite needs, then runs the whole test suite.
# Extra arguments go to pytest, e.g. scripts/test.sh -m "not slow" tests/interview
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/bootstrap.sh test
exec .venv/bin/python -m pytest "$@"
