"""No false time or memory verdict beside a neighbour.

`runner check --all --jobs 2` (test_check.py) already judges every correct solution of every problem with all
tests while another judge runs beside it, and the suite's other tests load the machine further; this test
keeps bench/neighbour_check.py itself working, on the quickest problem (the full check judges every correct
solution twenty times beside a judge of the same problem)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .conftest import ROOT, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, requires_bubblewrap]


@pytest.mark.timeout(600)
def test_the_reference_is_accepted_twice_beside_a_neighbour():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "neighbour_check.py"), "--problem", "stable-softmax",
                           "--rounds", "2", "--reference-only"], capture_output=True, text=True, timeout=550)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "every round accepted" in done.stdout
