"""The trusted side of one harness process: start it, load a submission, send cases, observe each request.

Each request is bracketed by what the trusted side can see for itself: wall time, CPU time of the whole
sandbox (threads and children included), and the harness process's peak resident memory, reset before the
request (writing 5 to /proc/<pid>/clear_refs) and read after it (VmHWM).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import torch

from .harness import wire
from .sandbox import SandboxOptions, procs, start

READY_TIMEOUT_S = 180.0  # a cold disk cache can make `import torch` take over 20 s


@dataclass
class Observed:
    """What the trusted side saw of one request."""

    wall_s: float
    cpu_s: float
    rss_growth_bytes: int | None


class Harness:
    """A started harness process, ready for one submission."""

    def __init__(self, options: SandboxOptions, *, memory_limit_bytes: int, threads: int, gpu_index: int | None):
        self.process, self.sandbox = start(options, memory_limit_bytes=memory_limit_bytes, threads=threads,
                                           gpu_index=gpu_index)
        self.harness_pid: int | None = None
        self.ready: dict[str, Any] = {}

    def wait_ready(self) -> None:
        """Block until the harness has imported torch; no submission code has run yet. Idempotent, so a
        harness started ahead of time (a warm pool) can be handed to a judge already ready."""
        if self.ready:
            return
        self.ready = self.process.receive(timeout_s=READY_TIMEOUT_S).header
        pids = self.process.pids()
        leaves = [pid for pid in pids if pid not in procs.parents(pids)]
        self.harness_pid = max(leaves) if leaves else None

    def load(self, blobs: dict[str, bytes], *, timeout_s: float, **settings: Any) -> dict[str, Any]:
        """Send the submission; the harness's answer (compile errors and forbidden calls at import)."""
        return self.process.request({"type": "load", **settings}, blobs=blobs, timeout_s=timeout_s).header

    def request(self, header: dict[str, Any], tensors: dict[str, torch.Tensor], *,
                timeout_s: float) -> tuple[wire.Frame, Observed]:
        """One request and what the trusted side observed around it."""
        pids = self.process.pids()
        cpu_before = _cpu(pids)
        rss_before = procs.peak_rss_reset(self.harness_pid) if self.harness_pid else None
        started = time.monotonic()
        frame = self.process.request(header, tensors, timeout_s=timeout_s)
        wall = time.monotonic() - started
        peak = procs.status_bytes(self.harness_pid, "VmHWM") if self.harness_pid else None
        growth = peak - rss_before if peak is not None and rss_before is not None else None
        return frame, Observed(wall_s=wall, cpu_s=_cpu(self.process.pids()) - cpu_before, rss_growth_bytes=growth)

    def output(self) -> tuple[str, str]:
        return self.process.stdout.text(), self.process.stderr.text()

    def close(self) -> None:
        self.process.close()


def _cpu(pids: list[int]) -> float:
    return max(procs.thread_cpu_seconds(pids), procs.cpu_seconds(pids))

