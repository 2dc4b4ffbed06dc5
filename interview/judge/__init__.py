"""Judging on the web side, in one place: everything that happens after Submit.

- queues.py: sending a submission's message to the queue of its device, and how deep the queues are;
- tasks.py: the Celery task a worker runs for each message;
- runs.py: the judge-run service (claim, lease, record each test, finish or give back) and the sweep;
- engine.py: the one module of interview/ that speaks to the judge engine (runner/, and so PyTorch);
- worker.py: a judge worker's life (self-check before consuming, heartbeat and sweep, warm pools).

The web process imports only queues.py (to publish); the rest is loaded by workers and management commands.
"""
