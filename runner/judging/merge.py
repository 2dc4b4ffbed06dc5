"""The merge: the lanes' results made one judgement, as one process judging every test would have made it."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any, Callable, Sequence

from ..problems import Problem, TestSpec
from ..testcase import CaseResult
from ..verdict import SKIPPED, MemoryFigures, TestResult, TimeFigures, Verdict, overall, ratio

Event = Callable[[dict[str, Any]], None]
# What a test after the stop says, by what stopped the judgement.
AFTER_AN_ENDED_RUN = "skipped after a failure that ended the run"
AFTER_A_LIMIT = "skipped after a limit was exceeded"
AFTER_THE_FIRST_FAILURE = "skipped: this judge stops at the first failure"


class Merge:
    """One judgement's tests, settled by its lanes in any order, and what a caller sees of them.

    All lanes share one stop: the earliest test, in the problem's order, whose failure ends the judgement (its
    process ended, it went over a time or memory limit, or the judge stops at the first failure). Every later test is skipped, whichever lane judged
    it and whenever, and the lanes still judging such a test are told to stop (on_stop). Events reach the
    caller on the thread that made the merge (a worker writes them to its database from there), in the
    problem's order, each once every earlier test is settled: no event is sent for a test that the stop later
    turns into a skip."""

    def __init__(self, problem: Problem, device: str, tests: Sequence[TestSpec], emit: Event,
                 seed_index: int | None):
        self.problem, self.device, self.tests, self.seed_index = problem, device, tests, seed_index
        self._emit = emit
        self._thread = threading.get_ident()
        self._changed = threading.Condition()
        self._settled: dict[int, CaseResult] = {}
        self._stop = len(tests)  # the index of the test that stopped the judgement; none while len(tests)
        self._skip_message = ""
        self._released = 0
        self._stop_listeners: list[Callable[[int], None]] = []

    def begin(self) -> None:
        self._emit({"event": "started", "problem": self.problem.slug, "device": self.device, "total": len(self.tests)})

    def on_stop(self, listener: Callable[[int], None]) -> None:
        """Have listener(index) called each time the stop moves earlier, to index."""
        self._stop_listeners.append(listener)

    def stopped_before(self, index: int) -> bool:
        """Whether a test before test index has stopped the judgement, so that test is skipped."""
        with self._changed:
            return self._stop < index

    def settle(self, index: int, case: CaseResult, *, skip_rest: str | None = None) -> None:
        """Record test index's result, the first given for it; skip_rest: it ends the judgement, and the tests
        after it are skipped with this message. A result for a test after the stop is dropped."""
        with self._changed:
            if index > self._stop or index in self._settled:
                return
            self._settled[index] = case
            moved = skip_rest is not None and index < self._stop
            if moved:
                self._stop, self._skip_message = index, skip_rest
                for later in [settled for settled in self._settled if settled > index]:
                    del self._settled[later]
            self._changed.notify_all()
        if moved:
            for listener in self._stop_listeners:
                listener(index)
        if threading.get_ident() == self._thread:
            self._release()

    def abandon(self) -> None:
        """Stop every lane at once: the judgement failed as a whole (its caller gets the exception)."""
        with self._changed:
            self._stop = -1
        for listener in self._stop_listeners:
            listener(-1)

    def wait(self, lanes: Sequence[Future]) -> None:
        """On the merge's thread: pass on events as the lanes settle tests, until every lane has ended."""
        for lane in lanes:
            lane.add_done_callback(lambda _: self._wake())
        while True:
            with self._changed:
                ended = all(lane.done() for lane in lanes)
                if not ended:
                    self._changed.wait()
            self._release()
            if ended:
                return

    def verdict(self, *, sandbox: str, stdout: str = "", stderr: str = "") -> Verdict:
        """The judgement's verdict, its figures folded over the tests that stand, in the problem's order: the
        memory of the test that came closest to its limit (the later on a tie), the last timing. Both peaks
        come from that one test, so the ratio shown is one the limit was applied to: the largest peaks of two
        different tests, or a small test held under the floor, would make a passing run read as far over."""
        self._release()
        results, time, memory, share = [], TimeFigures(), MemoryFigures(), 0.0
        for index in range(len(self.tests)):
            case = self._standing(index)
            results.append(case.result)
            if case.user_peak_bytes is not None and case.memory_limit_bytes:
                if case.user_peak_bytes / case.memory_limit_bytes >= share:
                    share = case.user_peak_bytes / case.memory_limit_bytes
                    memory = MemoryFigures(user_peak_bytes=case.user_peak_bytes,
                                           reference_peak_bytes=case.reference_peak_bytes,
                                           ratio=ratio(case.user_peak_bytes, case.reference_peak_bytes))
            if case.time is not None:
                time = case.time
        verdict = Verdict(problem=self.problem.slug, verdict=overall(results), tests=results, device=self.device,
                          sandbox=sandbox, time=time, memory=memory, stdout=stdout, stderr=stderr,
                          problem_version=self.problem.version, seed_index=self.seed_index)
        self._emit({"event": "finished", "verdict": verdict.verdict})
        return verdict

    def _standing(self, index: int) -> CaseResult:
        """Test index's result as the judgement stands: its lane's, or a skip after the stop."""
        with self._changed:
            if index > self._stop:
                return CaseResult(TestResult(self.tests[index].name, SKIPPED, self._skip_message))
            return self._settled[index]

    def _release(self) -> None:
        with self._changed:
            ready = []
            while self._released < len(self.tests) and (self._released > self._stop or self._released in self._settled):
                ready.append(self._released)
                self._released += 1
        for index in ready:
            result = self._standing(index).result
            self._emit({"event": "test", "name": result.name, "status": result.status, "message": result.message,
                        "why": result.why, "time_ms": result.time_ms, "peak_bytes": result.peak_bytes, "index": index,
                        "total": len(self.tests)})

    def _wake(self) -> None:
        with self._changed:
            self._changed.notify_all()
