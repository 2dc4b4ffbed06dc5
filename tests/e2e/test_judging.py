"""Submissions sent over HTTP are judged by a real Celery worker process through Redis."""

import pytest

from interview.models import WorkerHeartbeat
from runner import version
from tests.e2e.conftest import finish_lines
from tests.judging_support import SOFTMAX_REFERENCE, SOFTMAX_WRONG

pytestmark = [pytest.mark.e2e, pytest.mark.sandbox, pytest.mark.slow]


def test_a_worker_judges_the_reference_accepted_and_a_wrong_solution_wrong_answer(
    api, redis_url, start_worker, web_publishes_to
):
    web_publishes_to(redis_url)
    worker = start_worker(redis_url)
    accepted_id = api.submit(SOFTMAX_REFERENCE)
    wrong_id = api.submit(SOFTMAX_WRONG)

    accepted = api.wait_judged(accepted_id, log=worker.log)
    assert (accepted["status"], accepted["verdict"], accepted["attempts"]) == ("finished", "accepted", 1)
    assert [test["status"] for test in accepted["tests"]] == ["passed"] * 3
    assert all(test["time_ms"] is not None and test["peak_bytes"] for test in accepted["tests"])
    assert accepted["device"] == "cpu" and accepted["torch_version"].startswith("2.")
    assert accepted["progress"] == {"done": 3, "total": 3}
    # The worker judged with the code in this tree, and says so where the web process can read it.
    assert accepted["judge_version"] == version.current() == WorkerHeartbeat.objects.get(name="cpu@e2e").judge_version
    assert accepted["judgements"] == 1

    wrong = api.wait_judged(wrong_id, log=worker.log)
    assert (wrong["status"], wrong["verdict"]) == ("finished", "wrong_answer")
    failing = [test for test in wrong["tests"] if test["status"] == "wrong_answer"]
    assert failing and failing[0]["message"]

    assert finish_lines(accepted_id, worker) == 1 and finish_lines(wrong_id, worker) == 1
