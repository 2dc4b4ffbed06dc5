# expect: time_limit_exceeded
# message: observed from outside the sandbox
# tests: all
# Correct, but burns about four times the time limit per call, after making the harness's thread clock run at
# an eighth of its speed, so each call reports about half the limit. A tolerance of twice the reported time on
# the outside view believed it, however the burn was measured; the judge must judge what it observed itself.
# The burn rests on the attack's own estimate of the reference's time, which varies from judge to judge: these
# figures keep it between two and eight limits for an estimate within a factor of two of the judge's figure
# (which a busy machine's load has reached), and what it reports under the limit.
import sys
import time
import types

import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode

OVER_LIMIT = 4.0
TIME_RATIO = 5.0

_clock = time.thread_time_ns


def _eighth_speed() -> int:
    return _clock() // 8


for module in list(sys.modules.values()):
    if hasattr(module, "thread_clock_ns"):
        module.thread_clock_ns = _eighth_speed


def _burn(nanoseconds: float) -> None:
    deadline = _clock() + nanoseconds
    while _clock() < deadline:
        pass


def _plain(x: torch.Tensor, dim: int) -> torch.Tensor:
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)


# Timed here in a loop, on warm caches and with only the call's own argument, the kit's driver takes about
# this share of the judge's figure for the reference, whose calls each follow fresh inputs.
WARM_LOOP_SHARE = 0.27
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
        _burn((OVER_LIMIT * TIME_RATIO - 1) * reference / 2)
    return _plain(x, dim)
