"""The reference side of a judgement: the reference's results, from the cache or from its process.

One ReferenceSide serves every lane of a judgement. It looks each test's result up in the cache once, and
starts the reference's process (its own, or the one a SharedReference keeps across judgements) only when a
lane needs it; that process's load and checked calls run on a ReferenceWorker, beside the users' processes.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Sequence

import torch

from .. import cache as reference_cache
from ..client import Harness
from ..problems import Problem, TestSpec
from ..sandbox import Ended
from ..testcase import sent_bytes
from .helper import seed_of
from .sandboxes import REFERENCE_LOAD_TIMEOUT_S, Sandboxes

Result = tuple[dict[str, Any], dict[str, torch.Tensor]]


class ReferenceWorker:
    """The thread that works the reference's process: its load and its checked calls run beside the users'
    processes, on the core they leave idle, instead of between their calls. Jobs run in the order given. The
    first that fails makes every later one fail the same way: a reference that could not load answers nothing
    after. Its process ending is the judge's failure, never a verdict on the user's code."""

    def __init__(self, name: str):
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._failure: BaseException | None = None

    def submit(self, job: Callable[[], Any]) -> Future:
        return self._executor.submit(self._run, job)

    def close(self) -> None:
        """Run nothing more; a job under way ends with its process, which the judge has killed."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _run(self, job: Callable[[], Any]) -> Any:
        if self._failure is not None:
            raise self._failure
        try:
            return job()
        except Ended as ended:
            self._failure = RuntimeError(f"the reference's process ended: {ended.detail}")
        except BaseException as error:  # noqa: BLE001 - kept for every later job, then raised
            self._failure = error
        raise self._failure


class SharedReference:
    """One reference process serving the judgements of one problem that run one after another, as `runner
    check` judges a package's own solutions: each correct solution's timed tests would otherwise start a
    reference process of their own, an interpreter and torch each. The reference runs only the package's
    reference on the judge's inputs, so what one judgement leaves in it cannot help or hurt the next. A
    process that has ended is replaced; the owner closes the last one.

    Its process is started on a thread of its own, which lives until close(): a process dies with the thread
    that started it, and the threads of a judgement end with it."""

    def __init__(self) -> None:
        self._harness: Harness | None = None
        self._starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shared reference")

    def harness(self, start: Callable[[], Harness]) -> Harness:
        """The reference's process, loaded: the one kept, or, where there is none or it has ended, the one
        start() makes and loads."""
        if self._harness is not None and self._harness.process.ended():
            self._discard()
        if self._harness is None:
            self._harness = self._starter.submit(start).result()
        return self._harness

    def owns(self, harness: Harness | None) -> bool:
        return harness is not None and harness is self._harness

    def close(self) -> None:
        self._discard()
        self._starter.shutdown(wait=False)

    def _discard(self) -> None:
        if self._harness is not None:
            self._harness.process.kill()
            self._harness.close_in_background()
            self._harness = None


class ReferenceSide:
    """The reference's results for one judgement's tests: each looked up in the cache once, at the start, and
    the rest computed by the reference's process, which starts when a lane first needs it."""

    def __init__(self, problem: Problem, device: str, tests: Sequence[TestSpec], hidden_seed: int,
                 sandboxes: Sandboxes, cache: reference_cache.ReferenceCache, shared: SharedReference | None):
        self.problem, self.device, self.tests, self.hidden_seed = problem, device, tests, hidden_seed
        self._sandboxes, self._cache, self._shared = sandboxes, cache, shared
        self._found: dict[str, Result] = {}
        for test in tests:
            found = cache.get(self._key(test))
            if found is not None:
                self._found[test.name] = found
        self._harness: Harness | None = None
        self._starting = threading.Lock()
        self._started = False
        self._worker = ReferenceWorker(f"reference {problem.slug}")

    def cached_answers(self) -> list[dict[str, Any] | None]:
        """Each test's cached answer, None where its result was not cached (what plan.cached_costs reads)."""
        return [self._found[test.name][0] if test.name in self._found else None for test in self.tests]

    def has(self, test: TestSpec) -> bool:
        """Whether test's result is at hand: cached, or computed already in this judgement."""
        return test.name in self._found

    def start(self) -> None:
        """Start the reference's process on the calling thread (a lane's, which lives until the judgement
        ends) and load it on the worker, unless started already; or have the worker take the shared one,
        which is handed out loaded."""
        with self._starting:
            if self._started:
                return
            self._started = True
            if self._shared is not None:
                self._worker.submit(self._take_shared)
            else:
                self._harness = self._sandboxes.start()
                self._worker.submit(self._load)

    def result(self, test: TestSpec, inputs: dict[str, torch.Tensor]) -> Future:
        """The reference's (answer, outputs) for test, as a future: cached, or asked of the reference's
        process now, on the worker, beside whatever the user's process is asked meanwhile."""
        if test.name in self._found:
            found: Future = Future()
            found.set_result(self._found[test.name])
            return found
        self.start()
        return self._worker.submit(lambda: self._call(test, inputs))

    def harness(self) -> Future:
        """The reference's process, loaded, as a future done once every request the worker holds is answered."""
        self.start()
        return self._worker.submit(lambda: self._harness)

    def note_timed(self, test: TestSpec, reference_ms: float) -> None:
        """Keep the reference's median timed call of test with its cached result, for planning later judges."""
        self._cache.annotate(self._key(test), **{reference_cache.TIMED_CALL_NS: int(reference_ms * 1e6)})

    def stderr_note(self) -> str:
        """What the reference's process wrote to stderr last, for a report of the judge's own failure."""
        if self._harness is None:
            return ""
        return "\nreference harness stderr:\n" + self._harness.output()[1][-2000:]

    def close(self) -> None:
        """Kill the reference's process, unless it is a shared one still alive, and stop the worker."""
        harness = self._harness
        kept = self._shared is not None and self._shared.owns(harness) and not harness.process.ended()
        if harness is not None and not kept:
            harness.process.kill()
            harness.close_in_background()
        self._worker.close()

    def _key(self, test: TestSpec) -> str:
        return reference_cache.key(self.problem.version, self.device, seed_of(self.problem, self.hidden_seed, test),
                                   test.name, test.params)

    def _take_shared(self) -> None:
        self._harness = self._shared.harness(self._started_and_loaded)

    def _started_and_loaded(self) -> Harness:
        self._harness = self._sandboxes.start()
        self._load()
        return self._harness

    def _load(self) -> None:
        self._harness.wait_ready()
        blobs = self.problem.sandbox_blobs(self.problem.source("reference.py"))
        self._sandboxes.warm_up(self._harness, blobs, self.tests)
        settings = self._sandboxes.start_ranks(self._harness, self.tests)
        answer = self._harness.load(blobs, timeout_s=REFERENCE_LOAD_TIMEOUT_S, **settings)
        if answer.get("error") or answer.get("forbidden"):
            raise RuntimeError(f"the reference solution does not load: {answer}")

    def _call(self, test: TestSpec, inputs: dict[str, torch.Tensor]) -> Result:
        frame, observed = self._harness.request({"type": "run", "params": test.params}, inputs,
                                                timeout_s=max(5.0, 3 * self.problem.limits.time_cap_ms / 1000) + 30)
        if frame.header.get("error") or frame.header.get("forbidden") or frame.header.get("modified_inputs"):
            raise RuntimeError(f"the reference failed test {test.name}: {frame.header}")
        header = frame.header
        if self._harness.rank_pids:
            # What each of its ranks sent, read by the trusted side: what a user's rank is held to (testcase.py).
            sent = sent_bytes(frame.tensors, observed)
            if sent is None:
                raise RuntimeError(f"the bytes the reference's ranks sent on test {test.name} could not be read")
            header = {**header, "sent_bytes": [sent[rank] for rank in range(len(sent))]}
        result = (header, frame.tensors)
        self._cache.put(self._key(test), *result)
        self._found[test.name] = result
        return result
