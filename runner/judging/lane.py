"""A lane: one user process judging its share of a judgement's tests, each settled with the merge."""

from __future__ import annotations

import time
from typing import Any, Callable

import torch

from .. import hidden
from ..client import Harness
from ..kit.mistakes import diagnosed_once
from ..problems import Limits, Problem, TestSpec
from ..sandbox import Ended, SandboxUnavailable
from ..sandbox.process import DEADLINE, MEMORY
from ..testcase import CaseResult, forbidden_message, judge_case
from ..verdict import (FORBIDDEN, INTERNAL_ERROR, MEMORY_LIMIT_EXCEEDED, PASSED, RUNTIME_ERROR,
                       TIME_LIMIT_EXCEEDED, TestResult)
from .helper import TrustedHelper
from .merge import AFTER_A_LIMIT, AFTER_AN_ENDED_RUN, AFTER_THE_FIRST_FAILURE, Merge
from .plan import Lane
from .reference import ReferenceSide
from .sandboxes import LOAD_TIMEOUT_S, Sandboxes

LIMITS = (TIME_LIMIT_EXCEEDED, MEMORY_LIMIT_EXCEEDED)


class LaneRun:
    """One user process over a lane's tests, and the judgement each of them is judged in (testcase.Judgement).

    Its tests are judged in order until they are done or the merge's stop comes before the next; a failure
    that ends the process (or its load, or the judge itself), and a time or memory limit exceeded, is settled
    as the stop. A lane on a test after a
    stop that another lane settled has its process killed, whatever it is doing. Its wall clock is its own,
    and starts once its process is up."""

    def __init__(self, lane: Lane, problem: Problem, device: str, hidden_seed: int, sandboxes: Sandboxes,
                 reference: ReferenceSide, merge: Merge, *, stop_at_first_failure: bool):
        self.lane, self.tests = lane, lane.tests
        self.problem, self.device, self.hidden_seed = problem, device, hidden_seed
        self.sandboxes, self.reference, self.merge = sandboxes, reference, merge
        self.stop_at_first_failure = stop_at_first_failure
        self.helper = TrustedHelper(problem, hidden_seed, f"trusted {problem.slug}")
        self.user: Harness | None = None
        # Starting the sandboxes is the judge's cost; the user's wall clock starts once they are up.
        self.wall_deadline = float("inf")
        # From the first request that carries a hidden test's inputs on, nothing the user's process says is
        # shown: not its output, nor the text of a failure it reports (runner/hidden.py).
        self.hidden_inputs_sent = False
        self.source_lines = 0
        self.next_index = lane.start  # the index of the lane's first test not settled yet
        self.sandbox_words = self.stdout = self.stderr = ""
        merge.on_stop(self._stopped)

    def run(self, source: bytes) -> None:
        """Judge the lane's tests; SandboxUnavailable if its process cannot be started."""
        try:
            with diagnosed_once():
                self._judge(source)
        except SandboxUnavailable:
            raise
        except Exception as error:  # noqa: BLE001 - a bug of the judge must still end in a verdict
            if self.next_index in self.lane.indices:
                self._end(TestResult(self.tests[self.next_index - self.lane.start].name, INTERNAL_ERROR,
                                     f"the judge failed: {error!r}" + self.reference.stderr_note()))
        finally:
            if self.user is not None:
                self.user.process.kill()
                # Killed, so whatever it wrote is in the pipes already; it finishes exiting meanwhile.
                self.stdout, self.stderr = self.user.output()
                self.user.close_in_background()
            self.helper.close()

    def _judge(self, source: bytes) -> None:
        self.source_lines = len(source.splitlines())
        drawn = self.helper.draw_ahead(self.tests)
        # The reference starts beside the user's process, its start hidden behind the user's, when the first
        # test needs it, or when a timed test will and the lane goes on past failures (every timed round calls
        # it); otherwise only when a test needs it, which a failing lane may never reach.
        timed_ahead = not self.stop_at_first_failure and any(test.timed for test in self.tests)
        self.user = self.sandboxes.start()
        self.sandbox_words = self.user.sandbox
        if timed_ahead or not self.reference.has(self.tests[0]):
            self.reference.start()
        self.user.wait_ready()
        blobs = self.problem.sandbox_blobs(source)
        self.sandboxes.warm_up(self.user, blobs, self.tests)
        try:
            settings = self.sandboxes.start_ranks(self.user, self.tests)
            # The wall clock starts once the ranks are up; the import has its own timeout within it.
            self.wall_deadline = time.monotonic() + self.problem.limits.wall_s
            loaded = self.user.load(blobs, timeout_s=self.request_timeout_s(LOAD_TIMEOUT_S), **settings)
        except Ended as ended:
            return self._end(ended_result(self.tests[0].name, ended, "while the file was loaded"))
        failure = load_failure(self.tests[0].name, loaded)
        if failure:
            return self._end(failure)
        for index, test, inputs_drawn in zip(self.lane.indices, self.tests, drawn):
            if self.merge.stopped_before(index):
                return
            inputs = inputs_drawn()
            if not test.sample and inputs and not self.hidden_inputs_sent:
                self.user.process.hide_output_from_now()
                self.hidden_inputs_sent = True
            try:
                case = judge_case(self, test, inputs)
            except Ended as ended:
                return self._end(ended_result(test.name, ended, secret=self.hidden_inputs_sent,
                                              limits=self.problem.limits))
            if case.time is not None and case.time.reference_ms:
                self.reference.note_timed(test, case.time.reference_ms)
            if case.result.status in LIMITS:
                # What a process holds and how fast it runs depend on what it ran before: after a limit, a later
                # test's figures would differ between one process and two lanes' fresh ones, so none is judged.
                return self._settle(case, skip_rest=AFTER_A_LIMIT)
            if self.stop_at_first_failure and case.result.status != PASSED:
                return self._settle(case, skip_rest=AFTER_THE_FIRST_FAILURE)
            self._settle(case)

    def reference_result(self, test: TestSpec,
                         inputs: dict[str, torch.Tensor]) -> Callable[[], tuple[dict[str, Any], dict]]:
        pending = self._judges(lambda: self.reference.result(test, inputs))
        return lambda: self._judges(pending.result)

    def reference_harness(self) -> Harness:
        return self._judges(lambda: self.reference.harness().result())

    def request_timeout_s(self, wanted_s: float | None = None) -> float:
        """How long the next user request may take: its own allowance (by default a checked call's,
        3 × the time cap, at least 5 s), never past the lane's wall-clock limit."""
        if wanted_s is None:
            wanted_s = max(5.0, 3 * self.problem.limits.time_cap_ms / 1000)
        return max(0.1, min(wanted_s, self.wall_deadline - time.monotonic()))

    def beside(self, job: Callable[[], Any]) -> Callable[[], Any]:
        return self.helper.beside(job)

    def timed_inputs(self, test: TestSpec, round_index: int, index: int) -> dict[str, torch.Tensor]:
        return self.helper.timed_inputs(test, round_index, index)

    def prepare_round(self, test: TestSpec, round_index: int) -> None:
        self.helper.prepare_round(test, round_index)

    def _judges(self, work: Callable[[], Any]) -> Any:
        """work(), whose time is the judge's (the reference's start, or waiting for its answer): the lane's wall
        clock is moved on by it."""
        started = time.monotonic()
        try:
            return work()
        finally:
            self.wall_deadline += time.monotonic() - started

    def _settle(self, case: CaseResult, *, skip_rest: str | None = None) -> None:
        index, self.next_index = self.next_index, self.next_index + 1
        self.merge.settle(index, case, skip_rest=skip_rest)

    def _end(self, result: TestResult) -> None:
        """Settle a failure that ends the lane's process, and with it the judgement's later tests."""
        self._settle(CaseResult(result), skip_rest=AFTER_AN_ENDED_RUN)

    def _stopped(self, index: int) -> None:
        """The merge's stop moved to test index: a process judging a later test is of no more use."""
        if self.user is not None and index < self.next_index:
            self.user.process.kill()


def load_failure(name: str, loaded: dict[str, Any]) -> TestResult | None:
    """The failure the user's process reported at the load, as test name's result; None if it loaded."""
    if loaded.get("forbidden"):
        return TestResult(name, FORBIDDEN, forbidden_message(loaded["forbidden"], "while the file was loaded"))
    if loaded.get("error"):
        return TestResult(name, loaded["error"]["status"], loaded["error"]["message"])
    return None


def ended_result(name: str, ended: Ended, when: str = "during this test", *, secret: bool = False,
                 limits: Limits | None = None) -> TestResult:
    """secret: the process held hidden inputs, so how it chose to end is not described. limits: those of a
    test's calls, which a call stopped for time is reported against (the stop itself comes well after them)."""
    detail = hidden.ended_detail(ended.cause, ended.detail, when) if secret else f"{ended.detail} {when}"
    if ended.cause == MEMORY:
        return TestResult(name, MEMORY_LIMIT_EXCEEDED, detail)
    if ended.cause == DEADLINE:
        if limits is not None:
            detail += f"; the limit is {limits.time_words()}"
        return TestResult(name, TIME_LIMIT_EXCEEDED, detail)
    return TestResult(name, RUNTIME_ERROR, detail)
