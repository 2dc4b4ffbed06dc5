"""`python -m runner check --all`: every problem's reference and correct solutions are accepted and each
known-wrong solution gets the verdict it declares."""

import shutil
import subprocess
import sys

import pytest

from runner import JudgeOptions, SandboxOptions, load_problem
from runner.check import check_problem, said
from runner.verdict import TestResult
from runner.client import Harness

from .conftest import FIXTURE_PROBLEMS, ROOT, TEST_KEY, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, requires_bubblewrap]


# Alone on two cores it takes 13 to 25 minutes, by the machine; beside the rest of the suite, up to twice that.
@pytest.mark.takes_minutes
@pytest.mark.timeout(3300)
def test_check_all_meets_every_expectation():
    result = subprocess.run([sys.executable, "-m", "runner", "check", "--all", "--jobs", "2"], cwd=ROOT,
                            capture_output=True, text=True, timeout=3200)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all expectations met" in result.stdout


def test_check_fails_when_a_solution_does_not_get_its_declared_verdict(tmp_path):
    package = tmp_path / "stable-softmax"
    shutil.copytree(ROOT / "problems" / "stable-softmax", package,
                    ignore=shutil.ignore_patterns("wrong", "correct"))
    (package / "solutions" / "wrong").mkdir(parents=True)
    (package / "solutions" / "wrong" / "claims_too_much.py").write_text(
        "# expect: wrong_answer\n" + (package / "reference.py").read_text())
    result = subprocess.run([sys.executable, "-m", "runner", "--problems-dir", str(tmp_path), "check",
                             "stable-softmax"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 1
    assert "FAIL  solutions/wrong/claims_too_much.py: expected wrong_answer, got accepted" in result.stdout
    # Again at the end, under its problem and seed: the tail of a long run's output says what failed.
    lines = result.stdout.splitlines()
    summary = next(index for index, line in enumerate(lines) if line.endswith("expectation(s) not met:"))
    repeated = [line for line in lines[summary + 1:] if "claims_too_much.py" in line]
    assert len(repeated) == 1 and repeated[0].startswith("  stable-softmax (hidden seed ")
    assert "): solutions/wrong/claims_too_much.py: expected wrong_answer, got accepted" in repeated[0]


def test_one_reference_process_serves_every_solutions_timed_tests(tmp_path):
    """check judges a package's solutions one after another: their timed tests share one reference process,
    where each judgement alone would start its own."""
    package = tmp_path / "kit-function"
    shutil.copytree(FIXTURE_PROBLEMS / "kit-function", package)
    for path in (package / "solutions" / "wrong").glob("*.py"):
        if path.name != "shift_outside.py":  # the one [[mistakes]] names, which the package needs
            path.unlink()
    problem = load_problem("kit-function", tmp_path)
    starts = []

    def counted(*args, **kwargs):
        starts.append(1)
        return Harness(*args, **kwargs)

    found = check_problem(problem, JudgeOptions(device="cpu", sandbox=SandboxOptions(mode="bubblewrap", require=True),
                                                secret_key=TEST_KEY, start_harness=counted))
    assert [expectation.met for expectation in found] == [True, True, True]
    assert len(starts) == len(found) + 1  # a process per solution, and one reference for both


def test_a_message_header_may_quote_the_mistake_the_rule_behind_it_or_both_across_the_join():
    test = TestResult("t", "wrong_answer", "y differs. This is exactly what a default eps gives.",
                      why="ALiBi-like rules keep their capitals; others get one.")
    words = said(test)
    assert any("a default eps gives: ALiBi-like rules" in text for text in words)
    assert any("gives: aLiBi-like" in text for text in words)  # a rule that began in lower case
    assert said(TestResult("t", "wrong_answer", "y differs.")) == ("y differs.",)
