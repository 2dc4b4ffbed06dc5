# expect: time_limit_exceeded
# message: observed from outside the sandbox
# tests: all
# threads: allowed
# Correct, but burns about three times the time limit per call, and hands three quarters of it to a thread
# started at import, so the calling thread's clock reports well under the limit. A tolerance of twice the
# reported time on the outside view believed it; the judge must count every thread's CPU time. The burn rests
# on the attack's own estimate of the reference's time; these shares keep the total over the limit and the
# calling thread's part under it for an estimate anywhere from a third to four thirds of the judge's figure.
import sys
import threading
import time
import types

import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode

# Work per call as a multiple of the limit (5 times the reference), and the helper's share of the burn.
OVER_LIMIT = 3.0
HELPER_SHARE = 0.75
TIME_RATIO = 5.0

_clock = time.thread_time_ns
_job = threading.Semaphore(0)
_finished = threading.Semaphore(0)
_helper_ns = [0]


def _burn(nanoseconds: int) -> None:
    deadline = _clock() + nanoseconds
    while _clock() < deadline:
        pass


def _helper() -> None:
    while True:
        _job.acquire()
        _burn(_helper_ns[0])
        _finished.release()


threading.Thread(target=_helper, daemon=True).start()


def _plain(x: torch.Tensor, dim: int) -> torch.Tensor:
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)


# Timed here in a loop, on warm caches and with only the call's own argument, the kit's driver takes about
# this share of the judge's figure for the reference, whose calls each follow fresh inputs.
WARM_LOOP_SHARE = 0.4
_reference: list[float] = []


def _reference_ns(x: torch.Tensor, dim: int) -> float | None:
    """The reference's time per timed call: the judge's own driver timed here around a plain softmax, in the
    first timed call (checked calls track memory, which makes them slower)."""
    if not _reference and not getattr(_get_current_dispatch_mode(), "track_memory", True):
        driver = sys.modules["judge_driver"]
        plain = types.SimpleNamespace(softmax=lambda x, dim=-1: _plain(x, dim))
        inputs, ctx = {"x": x.detach(), "dy": torch.ones_like(x)}, types.SimpleNamespace(device=x.device)
        samples = []
        for _ in range(15):
            started = _clock()
            driver.run(plain, {"dim": dim}, inputs, ctx)
            samples.append(_clock() - started)
        _reference.append(sorted(samples)[len(samples) // 2] / WARM_LOOP_SHARE)
    return _reference[0] if _reference else None


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    reference = _reference_ns(x, dim)
    if reference is not None:
        # Twice per timed call, each burns half of what exceeds the call's own work.
        burn = (OVER_LIMIT * TIME_RATIO - 1) * reference / 2
        _helper_ns[0] = int(burn * HELPER_SHARE)
        _job.release()
        _finished.acquire()
        _burn(int(burn * (1 - HELPER_SHARE)))
    return _plain(x, dim)
