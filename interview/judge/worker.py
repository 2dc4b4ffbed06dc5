"""A judge worker's life, driven by Celery's signals, connected here (the worker loads this module through
the settings' CELERY_IMPORTS, before its first signal fires).

- A worker without the deployment's seed key where one is required (production) refuses its queues at once:
  a key of its own would give its judgements other hidden inputs than every other host's.
- Before it consumes anything, the worker judges every reference solution it could be asked to judge, on
  its own device (each GPU, for a GPU worker), and refuses its queues (exits non-zero) if one fails: a
  broken sandbox or driver must not turn every submission into an error. The check runs in a child
  process, so the worker never initialises CUDA before it forks its pool.
- Each pool process keeps a warm pool of started sandboxes (JUDGE_POOL_SIZE, runner/pool.py), started when
  the process starts and killed when it stops.
- Once consuming, a thread of the main process writes the worker's heartbeat and sweeps lost work every
  JUDGE_SWEEP_SECONDS. It lives in the main process, not in a scheduled task, so a busy pool (one judge per
  GPU) never delays either, and every worker sweeps without a separate scheduler: the sweep's guarded
  updates make concurrent sweeps harmless.
"""

import gc
import json
import logging
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field

from celery import signals
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import close_old_connections, connections
from django.utils import timezone

from interview.judge import engine, queues
from interview.judge.runs import pool_gpu_index, submissions_sweep
from interview.models import Queue, WorkerState
from interview.services.workers import worker_heartbeat, worker_heartbeats_forget

logger = logging.getLogger(__name__)

EXIT_SELF_CHECK_FAILED = 3
EXIT_MISCONFIGURED = 4
SELF_CHECK_TIMEOUT_S = 15 * 60
# The embedded queue keeps each delivered message this long, for whoever investigates a lost submission.
PROCESSED_MESSAGES_KEPT_S = 60 * 60

# What this worker reports in every heartbeat: its queues and pool, what its self-check found.
_identity: dict = {}


@dataclass
class SelfCheck:
    """What the self-check found on each device this worker judges on."""

    lines: list[str] = field(default_factory=list)
    failed: bool = False
    torch_version: str = ""
    device_names: dict[int, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@signals.worker_init.connect
def on_init(sender, **kwargs) -> None:
    """worker_init: record the worker, check its devices, and stop it before it consumes if a check fails."""
    worker = sender
    global _identity
    name, consumed = worker.hostname, sorted(worker.app.amqp.queues.consume_from)
    queues.embedded_queue_folders()
    # Hashed here, before the pool forks, so the heartbeat names the version every pool process judges with.
    _identity = {"queues": consumed, "pid": os.getpid(), "concurrency": worker.concurrency,
                 "judge_version": engine.judge_version()}
    worker_heartbeat(name=name, state=WorkerState.CHECKING, detail="", started_at=timezone.now(), **_identity)
    try:
        engine.seed_key()
    except ImproperlyConfigured as error:
        refuse(name, consumed, headline="MISCONFIGURED", detail=str(error), exit_code=EXIT_MISCONFIGURED)
    report = self_check(consumed, gpus=worker.concurrency)
    if report.failed:
        refuse(name, consumed, headline="SELF-CHECK FAILED", detail=report.text, exit_code=EXIT_SELF_CHECK_FAILED)
    engine.DEVICE_NAMES.update(report.device_names)
    _identity.update(torch_version=report.torch_version, detail=report.text,
                     device_name=", ".join(sorted(set(report.device_names.values()))))
    worker_heartbeat(name=name, state=WorkerState.READY, **_identity)
    logger.info("Self-check passed on %s:\n%s", name, report.text)
    # The pool forks next; a connection opened here must not be shared with the children.
    connections.close_all()


def refuse(name: str, consumed: list[str], *, headline: str, detail: str, exit_code: int) -> None:
    """Record that this worker refuses its queues, and why, then exit before it consumes anything."""
    worker_heartbeat(name=name, state=WorkerState.REFUSED, detail=detail)
    connections.close_all()
    logger.critical("%s: %s refuses its queues (%s) and exits.\n%s", headline, name, ", ".join(consumed), detail)
    raise SystemExit(exit_code)


def self_check(consumed: list[str], *, gpus: int) -> SelfCheck:
    """Run `manage.py judge_self_check` for the device of each consumed queue (each GPU on the gpu queue)."""
    report = SelfCheck()
    unknown = [queue for queue in consumed if queue not in Queue.values]
    if unknown:
        report.failed = True
        report.lines.append(f"unknown judge queue(s): {', '.join(unknown)} (use {', '.join(Queue.values)})")
        return report
    for queue in consumed:
        device = Queue(queue).device
        for gpu_index in range(gpus) if device == "cuda" else [0]:
            _check_device(report, device, gpu_index)
    return report


def _check_device(report: SelfCheck, device: str, gpu_index: int) -> None:
    where = f"{device}:{gpu_index}" if device == "cuda" else device
    command = [sys.executable, "-m", "django", "judge_self_check", "--device", device, "--gpu-index",
               str(gpu_index), "--json"]
    try:
        # stderr is left to the worker's own, so the per-problem progress shows in its log as it happens.
        finished = subprocess.run(command, stdout=subprocess.PIPE, text=True, timeout=SELF_CHECK_TIMEOUT_S,
                                  cwd=settings.BASE_DIR)
        found = json.loads(finished.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError) as error:
        report.failed = True
        report.lines.append(f"{where}: the self-check did not report: {error!r}")
        return
    report.torch_version = found["torch_version"]
    if found.get("device_name"):
        report.device_names[gpu_index] = found["device_name"]
    for result in found["results"]:
        mark = "ok  " if result["ok"] else "FAIL"
        detail = f": {result['message']}" if result["message"] else ""
        report.lines.append(f"{mark} {where} {result['slug']}: {result['verdict']} in {result['seconds']:.1f} s{detail}")
    if not found["results"]:
        report.lines.append(f"{where}: no problem to check (nothing in {settings.CONTENT_DIR} runs on {device})")
    if finished.returncode != 0:
        report.failed = True
        if found.get("error"):
            report.lines.append(f"FAIL {where}: {found['error']}")


class Maintenance(threading.Thread):
    """The heartbeat and the sweep, every JUDGE_SWEEP_SECONDS, in the worker's main process."""

    def __init__(self, name: str):
        super().__init__(name="judge-maintenance", daemon=True)
        self.worker_name = name
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(settings.JUDGE_SWEEP_SECONDS):
            try:
                self.tick()
            except Exception:  # noqa: BLE001 - a failed tick (database briefly away) must not end the thread
                logger.exception("Heartbeat and sweep failed; trying again in %s s", settings.JUDGE_SWEEP_SECONDS)
            finally:
                close_old_connections()
        connections.close_all()

    def tick(self) -> None:
        # The whole identity each time, so a row deleted meanwhile (by hand, or a test's flush) comes back whole.
        worker_heartbeat(name=self.worker_name, state=WorkerState.READY, **_identity)
        submissions_sweep()
        queues.prune_processed(older_than_s=PROCESSED_MESSAGES_KEPT_S)
        worker_heartbeats_forget()


_maintenance: Maintenance | None = None


@signals.worker_ready.connect
def on_ready(sender, **kwargs) -> None:
    """worker_ready: start the heartbeat and the sweep."""
    global _maintenance
    _maintenance = Maintenance(sender.hostname)
    _maintenance.start()


@signals.worker_process_init.connect
def on_process_init(**kwargs) -> None:
    """worker_process_init, in each pool process after the fork: start its warm pool of sandboxes on the device
    its judges use (process i of a GPU worker judges on GPU i). Sandboxes are spawned, never forked from here,
    and this process never initialises CUDA itself."""
    device = Queue.GPU.device if Queue.GPU in _identity.get("queues", []) else Queue.CPU.device
    engine.pool_start(device=device, gpu_index=pool_gpu_index(device))
    # What the worker imported (Django, torch, the judge), out of every judgement's collections: a judgement makes
    # objects fast enough to start one every few tests, and each would walk all of those again.
    gc.freeze()


@signals.worker_process_shutdown.connect
def on_process_shutdown(**kwargs) -> None:
    """worker_process_shutdown: kill and reap the pool process's waiting sandboxes."""
    engine.pool_stop()


@signals.worker_shutdown.connect
def on_shutdown(sender, **kwargs) -> None:
    """worker_shutdown: stop the thread and say so in the heartbeat."""
    if _maintenance is None:
        return
    _maintenance.stopping.set()
    _maintenance.join(timeout=10)
    worker_heartbeat(name=_maintenance.worker_name, state=WorkerState.STOPPED)
    connections.close_all()
