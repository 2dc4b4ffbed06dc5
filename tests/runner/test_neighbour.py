"""No false time or memory verdict beside a neighbour: each CPU problem's reference, judged twice while
another judge of it runs, is accepted both times (bench/neighbour_check.py; the full check judges every
correct solution twenty times)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from runner import list_problems

from .conftest import ROOT, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, pytest.mark.takes_minutes, requires_bubblewrap]

CPU_PROBLEMS = [problem.slug for problem in list_problems() if problem.needs != "cuda"]


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("slug", CPU_PROBLEMS)
def test_the_reference_is_accepted_twice_beside_a_neighbour(slug):
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "neighbour_check.py"), "--problem", slug,
                           "--rounds", "2", "--reference-only"], capture_output=True, text=True, timeout=1150)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "every round accepted" in done.stdout
