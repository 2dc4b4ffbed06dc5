"""The embedded queue wakes an idle worker as a message lands, instead of leaving it for the next poll.

A real `celery worker` process waits on a folder queue of the test's own; messages are published as the web
process publishes them, and the test times how long each stays in the folder before the worker takes it (a
rename into processed/). Each names a submission that does not exist, so the worker has nothing to judge
and is idle again at once.
"""

import time

import pytest

from interview.judge.queues import publish
from tests.judging_support import filesystem_broker, wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.sandbox]

# kombu's file-system transport looked again a second after finding nothing, so a message waited half a second
# on average, and up to a second: three of four within a tenth of one would happen by chance once in 270 runs.
# Woken by the kernel, a worker takes each in milliseconds; beside the suite's heaviest tests one wake in four
# has taken a third of a second, which the bound on the others leaves room for.
TAKEN_WITHIN_S = 0.1
OLD_POLL_S = 1.0
NO_SUCH_SUBMISSION = 10**9


def test_a_message_on_the_folder_queue_reaches_an_idle_worker_well_within_the_old_poll(tmp_path, start_worker,
                                                                                      web_publishes_to):
    queue_dir = tmp_path / "queue"
    url, options = filesystem_broker(queue_dir)
    web_publishes_to(url, options)
    start_worker(url, queue_dir=queue_dir)
    waiting = queue_dir / "messages"
    taken_after = []
    for offset in range(4):
        time.sleep(0.4)  # the worker is idle, waiting, when the message lands
        published = time.monotonic()
        assert publish(submission_id=NO_SUCH_SUBMISSION + offset, queue="cpu", wall_seconds=10)
        wait_for(lambda: not any(waiting.glob("*.cpu.msg")), timeout=5, interval=0.002,
                 what="the worker to take the message")
        taken_after.append(time.monotonic() - published)
    assert sorted(taken_after)[2] < TAKEN_WITHIN_S and max(taken_after) < OLD_POLL_S, taken_after
