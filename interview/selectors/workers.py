"""Reads of the judge workers' heartbeats: who is up, and where a problem's submissions go."""

from django.conf import settings

from interview.models import Needs, Problem, Queue, WorkerHeartbeat, WorkerState


def fresh_workers() -> list[WorkerHeartbeat]:
    """Workers heard from recently, whatever their state."""
    return list(WorkerHeartbeat.objects.fresh(interval_seconds=settings.JUDGE_SWEEP_SECONDS))


def consuming(queue: str) -> list[WorkerHeartbeat]:
    """Workers that passed their self-check and consume `queue`, heard from recently."""
    return [worker for worker in fresh_workers() if worker.state == WorkerState.READY and queue in worker.queues]


def current_judge_versions() -> set[str]:
    """The judge versions that workers consuming now run: the web process never loads the judge to hash it.

    More than one while a new release rolls out; none while no worker is up."""
    return {worker.judge_version for worker in fresh_workers() if worker.state == WorkerState.READY
            and worker.judge_version}


def judge_queue(problem: Problem) -> str:
    """The queue that judges this problem: its needs decide, and "any" prefers a GPU worker that is up."""
    if problem.needs == Needs.CUDA:
        return Queue.GPU
    if problem.needs == Needs.CPU:
        return Queue.CPU
    return Queue.GPU if consuming(Queue.GPU) else Queue.CPU
