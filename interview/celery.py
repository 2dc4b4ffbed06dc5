"""The Celery app of the judge workers (`celery -A interview worker -Q cpu`).

Its settings are the CELERY_* names in interview/settings.py. It knows nothing of judging: the settings'
CELERY_IMPORTS name the modules a worker loads (interview/judge/tasks.py and interview/judge/worker.py, whose
signal handlers drive the worker's life), so the web process that imports this app to send messages loads
none of them.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "interview.settings")

app = Celery("interview")
app.config_from_object("django.conf:settings", namespace="CELERY")
