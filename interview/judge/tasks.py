"""Celery tasks: each takes ids, never rows, and calls one service."""

from celery import shared_task

from interview.judge import engine, runs
from interview.judge.queues import JUDGE_TASK


@shared_task(bind=True, name=JUDGE_TASK)
def judge_submission(self, submission_id: int) -> None:
    """Judge one submission; a repeated delivery of the same message finds it taken and does nothing."""
    delivery = self.request.delivery_info or {}
    # The warm pool's refill waits until the verdict is written, so it never competes with this judge.
    with engine.pool_held():
        runs.submission_judge(submission_id=submission_id, queue=delivery.get("routing_key"))
