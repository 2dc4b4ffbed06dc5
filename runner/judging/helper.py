"""The trusted side's work that need not wait its turn, done on a helper thread while the sandboxes work."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Sequence

import torch

from .. import seeds
from ..problems import Problem, TestSpec
from ..testcase import timed_call_inputs

Inputs = dict[str, torch.Tensor]


def seed_of(problem: Problem, hidden_seed: int, test: TestSpec) -> int:
    """The seed a test's inputs are drawn from: the problem's public one for a sample test, else the hidden one."""
    return seeds.sample_seed(problem.slug) if test.sample else hidden_seed


class TrustedHelper:
    """A lane's helper thread: each test's inputs drawn in test order, each followed by what the checker needs
    from them alone, and a timed test's rounds' inputs too, while the sandboxes run the calls, so that a judge
    costs the longer of the two, not their sum; and any other job handed to it (runner/testcase.py checks a
    timed round's outputs there)."""

    def __init__(self, problem: Problem, hidden_seed: int, name: str):
        self.problem, self.hidden_seed = problem, hidden_seed
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._timed_lock = threading.Lock()
        self._timed_drawn: dict[tuple[str, int, int], Future] = {}

    def beside(self, job: Callable[[], Any]) -> Callable[[], Any]:
        """Start job on the helper thread; a call that waits for its result and returns it."""
        return self._executor.submit(job).result

    def draw_ahead(self, tests: Sequence[TestSpec]) -> list[Callable[[], Inputs]]:
        """Each test's inputs, as a call that waits for them, drawn from now on with its truths (for a checker
        with `prepare`) and a timed test's first round's. The checker finds each truth ready, or waits for the
        one under way (runner/kit/memo.py); a truth that fails here is computed again where the check needs it,
        and fails there."""
        drawn_calls = []
        for test in tests:
            drawn = self.beside(lambda test=test: self.problem.checker.inputs(
                test.params, seeds.generator(seed_of(self.problem, self.hidden_seed, test), test.name)))
            drawn_calls.append(drawn)
            self._prepare_beside(test, drawn)
            if test.timed:
                self.prepare_round(test, 0)
        return drawn_calls

    def prepare_round(self, test: TestSpec, round_index: int) -> None:
        """Draw the inputs of a round of timed calls, and prepare their truths."""
        for index in range(self.problem.limits.timed_iterations):
            drawn = self.beside(lambda r=round_index, i=index: self.timed_inputs(test, r, i))
            self._prepare_beside(test, drawn)

    def timed_inputs(self, test: TestSpec, round_index: int, index: int) -> Inputs:
        """The inputs of one timed call, drawn once for the lane by whoever asks first (the helper thread, or
        the round itself when the helper has not reached them); a second asker waits for the first's draw."""
        key = (test.name, round_index, index)
        with self._timed_lock:
            drawn = self._timed_drawn.get(key)
            mine = drawn is None
            if mine:
                drawn = self._timed_drawn[key] = Future()
        if mine:
            try:
                drawn.set_result(timed_call_inputs(self.problem, self.hidden_seed, test, round_index, index))
            except BaseException as error:  # noqa: BLE001 - every asker meets it
                drawn.set_exception(error)
        return drawn.result()

    def close(self) -> None:
        """Run nothing more."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _prepare_beside(self, test: TestSpec, drawn: Callable[[], Inputs]) -> None:
        def prepared() -> None:
            try:
                self.problem.checker.prepare(test.params, drawn())
            except Exception:  # noqa: BLE001 - the check itself meets the same failure and reports it
                pass

        self.beside(prepared)
