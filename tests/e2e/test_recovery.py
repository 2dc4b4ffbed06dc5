"""Nothing gets stuck: workers killed mid-judge, a broker that was down, a worker that fails its self-check.

Each test runs real `celery worker` processes against a redis-server (or folder queue) of its own, on the
test database, and ends only when the submission is judged, checking it finished exactly once.
"""

import os
import signal

import pytest

from interview.models import Status, WorkerHeartbeat, WorkerState
from interview.judge.queues import depths, embedded_queue_folders
from tests.e2e.conftest import finish_lines, submission
from tests.judging_support import SOFTMAX, SOFTMAX_REFERENCE, content_with, filesystem_broker, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.sandbox, pytest.mark.slow]

# The reference, three seconds slow to load: a judge long enough to be killed in the middle of.
SLOW_REFERENCE = "import time\n\ntime.sleep(3)\n\n" + SOFTMAX_REFERENCE


def running_in(pk: int) -> int:
    """Once the submission is being judged, the pid of the process judging it."""
    judging = wait_for(lambda: submission(pk).status == Status.RUNNING and submission(pk), timeout=120,
                       what=f"submission {pk} to be running", interval=0.05)
    return int(judging.worker.rsplit(" ", 1)[1])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def assert_judged_once(result: dict, pk: int, *workers) -> None:
    assert (result["status"], result["verdict"]) == ("finished", "accepted"), result
    assert result["attempts"] == 2  # the killed attempt, then the one that finished
    assert [test["status"] for test in result["tests"]] == ["passed"] * 3
    assert finish_lines(pk, *workers) == 1


def test_a_pool_process_killed_mid_judge_leaves_nothing_stuck(api, private_redis, start_worker, web_publishes_to):
    web_publishes_to(private_redis.url)
    worker = start_worker(private_redis.url)
    pk = api.submit(SLOW_REFERENCE)
    child = running_in(pk)
    assert child != worker.process.pid
    os.kill(child, signal.SIGKILL)

    result = api.wait_judged(pk, log=worker.log)
    assert_judged_once(result, pk, worker)
    assert worker.process.poll() is None, "the worker's main process survives its pool process"
    assert "stopped renewing its lease" in worker.log()


def test_a_worker_main_process_killed_mid_judge_leaves_nothing_stuck(
    api, private_redis, start_worker, web_publishes_to
):
    web_publishes_to(private_redis.url)
    first = start_worker(private_redis.url, name="first@e2e")
    pk = api.submit(SLOW_REFERENCE)
    child = running_in(pk)
    first.kill()
    # The pool process and its sandbox die with the main process: nothing of the first attempt lives on.
    wait_for(lambda: not alive(child), timeout=10, what="the orphaned pool process to die")
    assert submission(pk).status == Status.RUNNING

    second = start_worker(private_redis.url, name="second@e2e")
    result = api.wait_judged(pk, log=second.log)
    assert_judged_once(result, pk, first, second)


def test_a_submission_committed_while_the_broker_is_down_is_judged_once_it_is_back(
    api, private_redis, start_worker, web_publishes_to
):
    web_publishes_to(private_redis.url)
    worker = start_worker(private_redis.url)
    private_redis.stop()
    pk = api.submit(SOFTMAX_REFERENCE)  # accepted: the row is committed though no message could be sent
    assert submission(pk).status == Status.QUEUED

    private_redis.start()
    result = api.wait_judged(pk, log=worker.log)
    assert (result["status"], result["verdict"], result["attempts"]) == ("finished", "accepted", 1)
    assert finish_lines(pk, worker) == 1
    assert "queued submission(s) sent again" in worker.log()


def test_a_worker_whose_self_check_fails_refuses_its_queue(api, start_worker, web_publishes_to, tmp_path):
    queue_dir = tmp_path / "queue"
    web_publishes_to(*filesystem_broker(queue_dir))
    embedded_queue_folders()
    pk = api.submit(SOFTMAX_REFERENCE)
    broken = content_with(tmp_path / "broken", SOFTMAX)
    (broken / SOFTMAX / "reference.py").write_text("def softmax(x, dim=-1):\n    raise OSError('no device')\n")

    worker = start_worker(filesystem_broker(queue_dir)[0], queue_dir=queue_dir, content_dir=broken, wait=False)
    assert worker.process.wait(timeout=180) == 3
    assert "SELF-CHECK FAILED" in worker.log() and f"FAIL cpu {SOFTMAX}: internal_error" in worker.log()
    assert WorkerHeartbeat.objects.get(name=worker.name).state == WorkerState.REFUSED
    assert submission(pk).status == Status.QUEUED and submission(pk).attempts == 0
    assert depths()["cpu"] == 1  # its message is still waiting for a worker that can judge it
