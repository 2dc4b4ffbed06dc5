"""The command-line client as a user runs it, a program of its own, against the site over HTTP and a real worker
judging through Redis: log in, pull a problem, run it, submit an accepted and a wrong solution."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from interview.models import Submission
from interview.services.accounts import api_token_create
from tests.judging_support import ROOT, SOFTMAX, SOFTMAX_REFERENCE, SOFTMAX_WRONG

pytestmark = [pytest.mark.e2e, pytest.mark.sandbox, pytest.mark.slow]


def test_log_in_pull_run_and_submit_from_a_terminal_with_the_exit_status_saying_whether_it_was_accepted(
    live_server, content, redis_url, start_worker, web_publishes_to, django_user_model, tmp_path
):
    web_publishes_to(redis_url)
    worker = start_worker(redis_url)
    token = api_token_create(user=django_user_model.objects.create_user("grace"), name="terminal").token
    home = tmp_path / "home"
    home.mkdir()
    environment = {**os.environ, "XDG_CONFIG_HOME": str(home / ".config"), "PYTHONPATH": str(ROOT)}

    def interview(*argv: str, stdin: str = "") -> subprocess.CompletedProcess:
        ran = subprocess.run([sys.executable, "-m", "interview.cli", *argv], input=stdin, capture_output=True,
                             text=True, cwd=home, env=environment, timeout=240)
        print(ran.stdout, ran.stderr, sep="\n")  # shown with a failure, beside the worker's log
        return ran

    logged_in = interview("login", live_server.url, stdin=token + "\n")
    assert logged_in.returncode == 0, logged_in.stderr
    assert "as grace" in logged_in.stdout

    pulled = interview("pull", SOFTMAX)
    assert pulled.returncode == 0, pulled.stderr
    folder = home / SOFTMAX
    assert (folder / "README.md").read_text().startswith("# Numerically stable softmax")
    assert (folder / "solution.py").read_text() == (ROOT / "problems" / SOFTMAX / "starter.py").read_text()

    solution = Path(SOFTMAX, "solution.py")
    (home / solution).write_text(SOFTMAX_REFERENCE)
    ran = interview("run", SOFTMAX, str(solution))
    assert ran.returncode == 0, f"{ran.stderr}\n--- worker ---\n{worker.log()[-6000:]}"
    sample = Submission.objects.latest("pk")
    judged_tests = list(sample.judgement.tests.values_list("name", flat=True))
    assert [line.split()[1] for line in ran.stdout.splitlines() if line.startswith("  passed ")] == judged_tests
    assert f"Accepted: all {len(judged_tests)} tests passed." in ran.stdout
    assert ran.stdout.rstrip().endswith(f"{live_server.url}/submissions/{sample.pk}/")

    submitted = interview("submit", SOFTMAX, str(solution))
    assert submitted.returncode == 0, f"{submitted.stderr}\n--- worker ---\n{worker.log()[-6000:]}"
    accepted = Submission.objects.latest("pk")
    assert (accepted.suite, accepted.judgement.verdict) == ("all", "accepted")
    lines = submitted.stdout.splitlines()
    assert sum(line.startswith("  passed ") for line in lines) == accepted.judgement.tests.count() > len(judged_tests)
    assert f"Accepted: all {accepted.tests_total} tests passed." in lines
    assert any(line.startswith("Time: ") and "the reference's" in line for line in lines)
    assert lines[-1] == f"{live_server.url}/submissions/{accepted.pk}/"

    (home / solution).write_text(SOFTMAX_WRONG)
    wrong = interview("submit", SOFTMAX, str(solution))
    assert wrong.returncode == 1, wrong.stderr
    assert "Wrong answer: " in wrong.stdout and "; first failure: " in wrong.stdout
    assert any(line.startswith("  wrong answer ") for line in wrong.stdout.splitlines())
    assert Submission.objects.latest("pk").judgement.verdict == "wrong_answer"
