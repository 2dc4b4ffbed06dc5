"""The judge queues on the broker: sending a submission to one, and asking how deep they are.

Messages name the task and carry only the submission's id. The web process sends them by name, so it never
imports the task module (and, through it, the judge engine and PyTorch).
"""

import logging
import time
from pathlib import Path

from kombu.exceptions import KombuError

from interview.celery import app
from interview.models import Queue

logger = logging.getLogger(__name__)

# The name messages carry (the web process sends by name). It is older than the module's move into
# interview/judge/, and kept, so messages queued before an upgrade still find their task.
JUDGE_TASK = "interview.tasks.judge_submission"
# Above the problem's own wall-clock budget: the judge ends every run itself; Celery's limits are the backstop
# for a judge that hangs. The soft limit raises inside the task, the hard one kills the pool process.
SOFT_LIMIT_MARGIN_S = 60
HARD_LIMIT_MARGIN_S = 30
BROKER_ERRORS = (KombuError, OSError)


def embedded() -> bool:
    """Whether the broker is the embedded queue (files in a folder) rather than Redis."""
    return app.conf.broker_url.startswith("filesystem:")


def _folder(name: str) -> Path:
    return Path(app.conf.broker_transport_options[name])


def embedded_queue_folders() -> None:
    """Create the folders of the embedded (file-system) queue; a no-op with Redis."""
    if embedded():
        for name in ("data_folder_in", "data_folder_out", "control_folder", "processed_folder"):
            _folder(name).mkdir(parents=True, exist_ok=True)


def publish(*, submission_id: int, queue: str, wall_seconds: float, countdown: float | None = None) -> bool:
    """Send the judge task for a submission; False (and a warning) when the broker cannot be reached.

    Losing a message is safe: the row stays queued, and the sweep sends it again.
    """
    soft = wall_seconds + SOFT_LIMIT_MARGIN_S
    try:
        embedded_queue_folders()
        app.send_task(JUDGE_TASK, args=[submission_id], queue=queue, countdown=countdown,
                      soft_time_limit=soft, time_limit=soft + HARD_LIMIT_MARGIN_S)
    except BROKER_ERRORS as error:
        logger.warning("Submission %s stays queued: the broker is unreachable (%s); the sweep will resend it",
                       submission_id, error)
        return False
    return True


def broker_problem() -> str | None:
    """Why the broker cannot be used right now, or None when it answers."""
    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=1, timeout=2)
            if embedded():
                embedded_queue_folders()
                _check_writable(_folder("data_folder_out"))
    except BROKER_ERRORS as error:
        return f"{type(error).__name__}: {error}"
    return None


def _check_writable(folder: Path) -> None:
    probe = folder / ".healthz"
    probe.write_bytes(b"")
    probe.unlink()


def depths() -> dict[str, int | None]:
    """Messages waiting in each judge queue on the broker (None where the broker did not say)."""
    found: dict[str, int | None] = {}
    try:
        with app.connection_for_read() as connection:
            channel = connection.default_channel
            for queue in Queue.values:
                # Declaring is idempotent (workers declare the same queues) and, unlike a passive declare, does
                # not fail on Redis for a queue that is merely empty.
                found[queue] = channel.queue_declare(queue=queue, durable=True, auto_delete=False).message_count
    except BROKER_ERRORS as error:
        logger.warning("Could not read the queue depths: %s", error)
    return {queue: found.get(queue) for queue in Queue.values}


def prune_processed(*, older_than_s: float) -> int:
    """Delete messages the embedded queue delivered more than older_than_s ago; how many went."""
    if not embedded():
        return 0
    folder = _folder("processed_folder")
    cutoff = time.time() - older_than_s
    removed = 0
    for path in folder.glob("*.msg"):
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
                removed += 1
        except FileNotFoundError:
            continue
    return removed
