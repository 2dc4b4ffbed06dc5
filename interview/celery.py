"""The Celery app of the judge workers (`celery -A interview worker -Q cpu`); its settings are the CELERY_*
names in interview/settings.py, its tasks live in interview/tasks.py.

A worker's life is in interview/worker.py: it judges every reference solution on its own device before it
consumes anything, then keeps a heartbeat and sweeps lost work from a thread of its main process; each of its
pool processes keeps a warm pool of started sandboxes.
"""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "interview.settings")

app = Celery("interview")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# The handlers import interview.worker when the signal fires: this module is imported before Django is set up,
# and the worker module needs the models.


@signals.worker_init.connect
def _check_devices_before_consuming(sender, **kwargs):
    from interview import worker

    worker.on_init(sender)


@signals.worker_ready.connect
def _start_heartbeat_and_sweep(sender, **kwargs):
    from interview import worker

    worker.on_ready(sender)


@signals.worker_process_init.connect
def _start_warm_pool(**kwargs):
    from interview import worker

    worker.on_process_init()


@signals.worker_process_shutdown.connect
def _stop_warm_pool(**kwargs):
    from interview import worker

    worker.on_process_shutdown()


@signals.worker_shutdown.connect
def _stop_heartbeat_and_sweep(sender, **kwargs):
    from interview import worker

    worker.on_shutdown(sender)
