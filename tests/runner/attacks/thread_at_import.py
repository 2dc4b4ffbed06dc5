# expect: compile_error
# message: refused a new thread
# Starts a helper thread at import, to do each call's work where the calling thread's clock, operator watch
# and tensor tracker do not look (helper_thread_share.py, on a problem that allows threads): on a problem of
# one process on the CPU the judge refuses every thread the submission starts, at import as in a call.
import threading
import queue

import torch

_jobs: queue.Queue = queue.Queue()


def _serve():
    while True:
        x, dim, done = _jobs.get()
        done.put(torch.softmax(x, dim))


threading.Thread(target=_serve, daemon=True).start()


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    done: queue.Queue = queue.Queue()
    _jobs.put((x, dim, done))
    return done.get()
