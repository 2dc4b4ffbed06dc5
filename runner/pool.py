"""A warm pool: sandboxed harness processes started ahead of time, each lent to one judge and never reused.

A pooled process is started exactly as a cold one is (`sandbox.start`: a new bubblewrap, a slot uid of its
own, a fresh interpreter), imports torch (and initialises CUDA, on a GPU), pays torch's first-use costs, says
ready, and waits on its pipe with no submission in it. `start_harness` is the judge's hook: it lends a ready
process (or the one still starting, which is further along than a cold start), and falls back to a cold
start when the pool is empty or was built for other settings. The judge sends the process one submission
and closes it; nothing of it serves another run.

torch._dynamo, which the judge has a process import before the load where the code names what uses it
(checkpointing, the optimisers, torch.compile; its cost is in docs/speed.md), is imported by a refill too
when the last judge the pool lent processes to asked for it: a person working on such a problem finds
it paid at their next Run, and the pool of a worker judging other problems pays nothing for it. A batch's pool
does not (see below): its refills race the judge, and one that imported more would only be ready later.

Refills: one process at a time, in a thread of the pool, and only while no process the pool lent is still
open and no caller holds the pool (`hold()`: a worker holds it until the verdict is written), so a refill
never delays a result. A batch that judges one file after another (`runner check`) asks for
`refill_while_lent`: the next run's processes start while the current one is judged, on the CPU its
alternating user and reference processes leave idle. Where this process may raise another's priority again (root, or CAP_SYS_NICE), a
refill also starts under SCHED_IDLE, taking only CPU time that nothing else wants; a process is moved back
to the normal policy when it is lent, before the submission reaches it.

The pool's thread is the parent of every process it starts, and bubblewrap's --die-with-parent follows the
parent thread: the thread therefore outlives every process it started (close() waits for the lent ones).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field

from .client import Harness
from .sandbox import Ended, SandboxOptions, SandboxUnavailable, procs

logger = logging.getLogger(__name__)

# Only trusted code runs in a waiting process, so its watchdog needs nothing tighter than this; a lent
# process gets the problem's limit.
IDLE_MEMORY_LIMIT_BYTES = 16 << 30
# Under SCHED_IDLE on a busy host a start may take long; it delays nobody meanwhile.
POOLED_READY_TIMEOUT_S = 900.0
RETRY_DELAYS_S = (1.0, 5.0, 30.0, 120.0)
CLOSE_WAIT_S = 30.0


@dataclass
class PoolStats:
    """What the pool did since it was built."""

    started: int = 0
    failed: int = 0
    lent_ready: int = 0
    lent_starting: int = 0
    cold: int = 0


@dataclass
class _Starting:
    """A start in progress: `spawned` once its process exists, `done` once it is ready or has failed."""

    harness: Harness | None = None
    spawned: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    lent: bool = False
    failed: bool = False


class WarmPool:
    """Up to `size` sandboxed harness processes kept started for one sandbox configuration."""

    def __init__(self, options: SandboxOptions, *, size: int, threads: int = 1, gpu_index: int | None = None,
                 idle: bool | None = None, refill_while_lent: bool = False):
        """idle: start refills under SCHED_IDLE; by default, when this process may undo it.
        refill_while_lent: refill while lent processes are still open (a batch; see above)."""
        self.options, self.size, self.threads, self.gpu_index = options, size, threads, gpu_index
        self.refill_while_lent = refill_while_lent
        self.idle = procs.can_raise_priority() if idle is None else idle
        self.stats = PoolStats()
        self._ready: deque[Harness] = deque()
        self._starting: _Starting | None = None
        self._lent = 0
        # Whether refills import torch._dynamo: whether the last judge asked any of its processes to.
        self._warm_dynamo = self._asked_dynamo = False
        self._holds = 0
        self._closing = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._refill, name="warm-pool", daemon=True)
        if size > 0:
            self._thread.start()

    def start_harness(self, options: SandboxOptions, *, memory_limit_bytes: int, threads: int,
                      gpu_index: int | None) -> Harness:
        """The judge's start_harness: a pooled process for these settings when there is one, else a cold start."""
        harness = None
        if (options, threads, gpu_index) == (self.options, self.threads, self.gpu_index):
            harness = self._take()
        if harness is None:
            with self._changed:
                self.stats.cold += 1
            harness = Harness(options, memory_limit_bytes=memory_limit_bytes, threads=threads, gpu_index=gpu_index)
            self._lend(harness)
        harness.process.memory_limit_bytes = memory_limit_bytes
        return harness

    @contextmanager
    def hold(self):
        """No refill starts while held: a worker holds the pool from taking a submission to writing its verdict."""
        with self._changed:
            self._holds += 1
        try:
            yield
        finally:
            with self._changed:
                self._holds -= 1
                self._changed.notify_all()

    def waiting(self) -> int:
        """How many processes are ready and waiting now."""
        with self._changed:
            return len(self._ready)

    def wait_full(self, timeout_s: float) -> bool:
        """Block until size processes are ready (a benchmark's or a test's way to start from a full pool)."""
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while len(self._ready) < self.size:
                left = deadline - time.monotonic()
                if left <= 0 or self._closing:
                    return False
                self._changed.wait(left)
            return True

    def close(self) -> None:
        """Kill and reap every waiting process, let the lent ones finish (up to a bound), stop the thread."""
        with self._changed:
            self._closing = True
            starting = self._starting
            self._changed.notify_all()
        if starting is not None and not starting.lent and starting.spawned.wait(CLOSE_WAIT_S) and starting.harness:
            starting.harness.process.kill()
        if self._thread.is_alive():
            self._thread.join(2 * CLOSE_WAIT_S)

    def _take(self) -> Harness | None:
        with self._changed:
            harness = self._pop_ready()
            starting = None
            if harness is None:
                starting = self._starting
                if starting is None or starting.lent or self._closing:
                    return None
                starting.lent = True
                self.stats.lent_starting += 1
                self._lent += 1
        if starting is not None:
            return self._finish_start(starting)
        if self.idle:
            harness.process.raise_priority()
        return harness

    def _pop_ready(self) -> Harness | None:
        while self._ready:
            harness = self._ready.popleft()
            if harness.process.process.poll() is None:
                self.stats.lent_ready += 1
                self._lend(harness)
                return harness
            threading.Thread(target=harness.close, name="warm-pool-discard", daemon=True).start()
        return None

    def _finish_start(self, starting: _Starting) -> Harness | None:
        starting.spawned.wait()
        if starting.harness is None:
            self._returned()
            return None
        self._lend(starting.harness, counted=True)
        if self.idle:
            # Lent while still importing: the rest of its start is on the judge's clock, at full speed.
            starting.harness.process.raise_priority()
        starting.done.wait()
        if starting.failed:
            starting.harness.close()
            return None
        if self.idle:
            starting.harness.process.raise_priority()  # threads the import started meanwhile
        return starting.harness

    def _lend(self, harness: Harness, *, counted: bool = False) -> None:
        """Count harness as lent until it is closed."""
        if not counted:
            with self._changed:
                self._lent += 1
        harness.on_done = lambda: self._returned(harness)

    def _returned(self, harness: Harness | None = None) -> None:
        with self._changed:
            self._lent -= 1
            self._asked_dynamo = self._asked_dynamo or (harness is not None and harness.dynamo_used)
            # The processes lent since the pool last had none out are one judge's (the user's and the reference's).
            if self._lent == 0 and not self.refill_while_lent:
                self._warm_dynamo, self._asked_dynamo = self._asked_dynamo, False
            self._changed.notify_all()

    def _wants_another(self) -> bool:
        filled = len(self._ready) + (1 if self._starting is not None else 0)
        if filled >= self.size or self._holds:
            return False
        return self.refill_while_lent or self._lent == 0

    def _refill(self) -> None:
        failures = 0
        while True:
            with self._changed:
                while not self._closing and not self._wants_another():
                    self._changed.wait()
                if self._closing:
                    break
            if not self._start_one():
                delay = RETRY_DELAYS_S[min(failures, len(RETRY_DELAYS_S) - 1)]
                failures += 1
                with self._changed:
                    self._changed.wait_for(lambda: self._closing, timeout=delay)
            else:
                failures = 0
        # Processes this thread started die with it (--die-with-parent), their inits left as zombies for the
        # host's init: the thread closes the waiting ones itself and lets the lent ones finish first.
        with self._changed:
            waiting, self._ready = list(self._ready), deque()
        for harness in waiting:
            harness.process.kill()
        for harness in waiting:
            harness.close()
        with self._changed:
            self._changed.wait_for(lambda: self._lent == 0, timeout=CLOSE_WAIT_S)

    def _start_one(self) -> bool:
        starting = _Starting()
        with self._changed:
            self._starting = starting
        try:
            starting.harness = Harness(self.options, memory_limit_bytes=IDLE_MEMORY_LIMIT_BYTES,
                                       threads=self.threads, gpu_index=self.gpu_index, idle=self.idle)
        except (SandboxUnavailable, OSError) as error:
            logger.warning("Warm pool: a sandbox could not be started: %s", error)
            starting.failed = True
        finally:
            starting.spawned.set()
        if starting.harness is not None:
            with self._changed:
                self.stats.started += 1
            try:
                starting.harness.wait_ready(timeout_s=POOLED_READY_TIMEOUT_S)
                with self._changed:
                    warm_dynamo = self._warm_dynamo
                if warm_dynamo:
                    starting.harness.warm_up_dynamo("cpu" if self.gpu_index is None else "cuda",
                                                    timeout_s=POOLED_READY_TIMEOUT_S, ahead=True)
            except (Ended, RuntimeError) as error:
                starting.failed = True
                if not self._closing:
                    detail = error.detail if isinstance(error, Ended) else str(error)
                    logger.warning("Warm pool: a sandbox did not start: %s\n%s", detail,
                                   starting.harness.output()[1][-2000:])
        with self._changed:
            self._starting = None
            if starting.failed and not self._closing:
                self.stats.failed += 1
            elif not starting.failed and not starting.lent:
                if self._closing:
                    starting.failed = True
                else:
                    self._ready.append(starting.harness)
                    if len(self._ready) == self.size:
                        logger.info("Warm pool full: %d sandbox(es) ready", self.size)
            self._changed.notify_all()
        starting.done.set()
        if starting.failed and not starting.lent and starting.harness is not None:
            starting.harness.close()
        return not starting.failed or self._closing
