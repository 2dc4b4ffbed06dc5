"""Judging one submission: the trusted side's orchestration.

Per run: the user's harness and, when needed, a reference harness (the reference solution under the same
driver, in its own sandbox) are started side by side. Every test's inputs are generated here from a seed;
the reference's outputs come from the cache or from the reference harness; the user's outputs come back
over the pipe and the problem's trusted checker compares them. Timed tests interleave rounds of the two
harnesses on the same fresh inputs. Nothing the sandbox prints or exits with is taken as a result.
"""

from __future__ import annotations

import json
import os
import queue
import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import torch

from . import cache as reference_cache
from . import hidden, seeds
from .client import Harness
from .problems import KIT_SANDBOX_MODULES, Limits, Problem, ProblemError, TestSpec, load_problem
from .sandbox import Ended, SandboxOptions, SandboxUnavailable, procs
from .sandbox.process import DEADLINE, MEMORY
from .testcase import DECISIVE_TIME_FACTOR, CaseResult, forbidden_message, judge_case, timed_call_inputs
from .verdict import (COMPILE_ERROR, FORBIDDEN, INTERNAL_ERROR, MEMORY_LIMIT_EXCEEDED, PASSED, RUNTIME_ERROR,
                      SKIPPED, TIME_LIMIT_EXCEEDED, MemoryFigures, TestResult, TimeFigures, Verdict, overall,
                      ratio)

MAX_SOURCE_BYTES = 256 << 10
# What imports torch._dynamo on first use (torch.optim's first step, torch.utils.checkpoint, torch.func's
# transforms, torch.compile, DistributedDataParallel's constructor, an operation on the meta device): a
# sandbox whose code or tests name one of these imports it before the load (about 1.7 s of CPU and 35 MiB), so
# that no call is charged for it; every other sandbox is spared the cost. On the CPU the ranks of a distributed
# problem are forks of the process that imported it, so they start with it too, where each would import it
# again (3.5 s of CPU per DistributedDataParallel rank on a busy machine).
DYNAMO_USERS = re.compile(rb"optim|checkpoint|torch\.func|from torch import func|functorch|compile|_dynamo|"
                          rb"torch\.export|torch\.fx|pipelining|DistributedDataParallel|\bmeta\b")
LOAD_TIMEOUT_S = 10.0
RANK_START_S = 20.0
# A second lane is worth a process of its own when each lane has at least this much work (seconds of the
# reference's calls): below it, what the lane saves is lost to its load and to the trusted side's threads of
# two runs sharing the cores with three processes (flash-attention's 0.3 s of small tests beside its timed and
# longest tests took 3.8 s in two lanes, 3.1 s in one).
LANE_MIN_S = 0.8
# The reference's median timed call in the last run that timed it, by problem version, device and test: what a
# timed test's calls cost, for planning lanes only (a checked call, under the watch that follows every tensor,
# costs up to twice as much: checkpointed-block's 0.2 s against 0.1 s).
TIMED_REFERENCE_S: dict[tuple[str, str, str], float] = {}
Event = Callable[[dict[str, Any]], None]


class JudgeError(Exception):
    """The judge cannot run at all (unknown problem, unusable device, sandbox required but missing)."""


@dataclass(frozen=True)
class JudgeOptions:
    """How to judge: on which device, which tests, in which sandbox.

    seed_index picks which of the problem version's hidden seeds the hidden tests draw their inputs from
    (the Verdict says which one was used): left out, one is drawn at random; given, a re-judge sees the
    inputs the first judgement saw.

    The last three are for callers that manage resources themselves: a fixed seed key (tests), a cache of
    reference results other than the process-wide one, and start_harness(sandbox, memory_limit_bytes=,
    threads=, gpu_index=), which makes each sandboxed process (a warm pool passes one that hands out
    processes started ahead of time, each used for one run only).
    """

    device: str = "auto"  # auto, cpu or cuda
    tests: str = "all"  # all or sample
    gpu_index: int = 0  # which GPU, on cuda
    threads: int = 1  # intra-op threads of the judged process
    sandbox: SandboxOptions = field(default_factory=SandboxOptions)
    # Skip the tests after the first that fails: the verdict, that test's status, is the same (`runner check`).
    stop_at_first_failure: bool = False
    seed_index: int | None = None  # 0 <= seed_index < seeds.SEEDS_PER_VERSION; None: drawn at random
    secret_key: bytes | None = None  # None: the key under sandbox.state_dir
    cache: reference_cache.ReferenceCache | None = None  # None: the process-wide cache
    start_harness: Callable[..., Harness] = Harness
    # One reference process kept across judgements of the same problem (runner check), instead of one each.
    shared_reference: SharedReference | None = None
    # How many user processes may judge this submission at once: 2 lets a run whose checked calls all have
    # their reference results cached judge its later hidden tests in a second process, beside the first, on
    # the core one process leaves idle (see _Run.lanes). A caller passes 2 when it has processes to spare
    # (a warm pool's, started ahead): a lane that has to start its process costs more than it saves.
    lanes: int = 1


class SharedReference:
    """One reference process serving the judgements of one problem that run one after another, as `runner
    check` judges a package's own solutions: each correct solution's timed tests would otherwise start a
    reference process of their own, an interpreter and torch each. The reference runs only the package's
    reference on the judge's inputs, so what one judgement leaves in it cannot help or hurt the next. A
    process that has ended is replaced; the owner closes the last one."""

    def __init__(self) -> None:
        self._harness: Harness | None = None

    def harness(self, run: _Run) -> Harness:
        """The reference's process, loaded, for run (started now if there is none, or it has ended)."""
        if self._harness is not None and self._harness.process.ended():
            self.close()
        if self._harness is None:
            run.reference = run.start_harness(run.sandbox, **run._harness_settings())
            run._load_reference()
            self._harness = run.reference
        return self._harness

    def owns(self, harness: Harness | None) -> bool:
        return harness is not None and harness is self._harness

    def close(self) -> None:
        if self._harness is not None:
            self._harness.process.kill()
            self._harness.close_in_background()
            self._harness = None


# The trusted side's own tensor work (inputs, float64 truths, comparisons) is small beside what it judges, and
# the cores belong to the sandboxes: a second intra-op thread here only spins beside them. On two cores,
# `runner check rmsnorm` spent 15.0 s of user CPU with two threads and 6.9 s with one, in the same wall time.
TRUSTED_THREADS = 1


def judge(problem: Problem | str, source: str | bytes, options: JudgeOptions | None = None, *,
          on_event: Event | None = None) -> Verdict:
    """Judge source against problem (a Problem, or the slug of one under problems/); a Verdict whatever the
    submission does, JudgeError if the judge cannot run. on_event(event) hears each test as it finishes."""
    if isinstance(problem, str):
        try:
            problem = load_problem(problem)
        except ProblemError as error:
            raise JudgeError(str(error)) from None
    options = options or JudgeOptions()
    if torch.get_num_threads() > TRUSTED_THREADS:
        torch.set_num_threads(TRUSTED_THREADS)
    if options.seed_index is not None and not 0 <= options.seed_index < seeds.SEEDS_PER_VERSION:
        raise JudgeError(f"seed_index is from 0 to {seeds.SEEDS_PER_VERSION - 1}, not {options.seed_index}")
    device = resolve_device(problem, options.device)
    tests = problem.selected_tests(options.tests)
    emit = on_event or (lambda event: None)
    encoded = source.encode("utf-8", "surrogateescape") if isinstance(source, str) else source
    if options.lanes > 1:
        # Both lanes must draw their hidden inputs from the same seed.
        options = replace(options, seed_index=seeds.draw_index() if options.seed_index is None else options.seed_index)
    run = _Run(problem, device, tests, options, emit)
    lanes = run.lanes() if options.lanes > 1 else None
    if lanes is not None:
        # The reference results the plan found in the cache are handed on, not looked up again.
        return _judge_in_lanes(problem, device, tests, lanes, options, emit, encoded, run.reference_cases)
    return run.judge(encoded)


def _judge_in_lanes(problem: Problem, device: str, tests: list[TestSpec], lanes: list[list[TestSpec]],
                    options: JudgeOptions, emit: Event, source: bytes,
                    reference_cases: dict[str, tuple[dict[str, Any], dict[str, torch.Tensor]]]) -> Verdict:
    """Judge each lane's tests in a run of its own, the runs side by side, and make one verdict of theirs.

    Each run is a whole judgement of its tests (its own user process, the submission loaded in it, the same
    seed), so every test is judged as it would be in one run; the verdict is the first failure in the problem's
    order, as it is for one run. The first lane holds the sample tests: the output shown is its process's, the
    other's (the same load, then hidden tests only) is never shown. Events reach `emit` from this thread, in
    the order the tests finish, numbered by each test's place among all of them."""
    place = {test.name: index for index, test in enumerate(tests)}
    events: queue.Queue[dict[str, Any]] = queue.Queue()

    def lane_event(event: dict[str, Any]) -> None:
        if event["event"] == "test":
            events.put({**event, "index": place[event["name"]], "total": len(tests)})

    emit({"event": "started", "problem": problem.slug, "device": device, "total": len(tests)})
    runs = [_Run(problem, device, lane, options, lane_event) for lane in lanes]
    for run in runs:
        run.reference_cases.update(reference_cases)
    # A process started by a thread dies with that thread (bubblewrap's --die-with-parent): each lane's thread
    # lives until its run has ended, and its processes with it.
    with ThreadPoolExecutor(len(runs), thread_name_prefix=f"lane {problem.slug}") as executor:
        judged = [executor.submit(run.judge, source) for run in runs]
        while True:
            try:
                emit(events.get(timeout=0.05))
            except queue.Empty:
                if all(future.done() for future in judged):
                    break
        verdicts = [future.result() for future in judged]
    results = sorted((result for verdict in verdicts for result in verdict.tests), key=lambda result: place[result.name])
    timed = [run for run in runs if run.time.user_ms is not None]
    # The memory figures of the test nearest its limit, the later one on a tie, as one run's are.
    memory = max(reversed(runs), key=lambda run: run.memory_share).memory
    first = verdicts[0]
    verdict = Verdict(problem=problem.slug, verdict=overall(results), tests=results, device=device,
                      sandbox=first.sandbox, time=timed[-1].time if timed else TimeFigures(), memory=memory,
                      stdout=first.stdout, stderr=first.stderr, problem_version=problem.version,
                      seed_index=next((verdict.seed_index for verdict in verdicts if verdict.seed_index is not None), None))
    emit({"event": "finished", "verdict": verdict.verdict})
    return verdict


def resolve_device(problem: Problem, device: str) -> str:
    """cpu or cuda for this problem, or JudgeError naming why the device asked for cannot be used."""
    if device not in ("auto", "cpu", "cuda"):
        raise JudgeError(f"unknown device {device!r} (auto, cpu or cuda)")
    if device == "auto":
        device = "cuda" if problem.needs != "cpu" and torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise JudgeError("--device cuda: no usable GPU on this machine")
    if device == "cuda" and problem.needs == "cpu" or device == "cpu" and problem.needs == "cuda":
        raise JudgeError(f"problem {problem.slug!r} needs {problem.needs}, not {device}")
    return device


def uses_dynamo(blobs: dict[str, bytes], tests: list[TestSpec]) -> bool:
    """Whether the code a sandbox will run, or the parameters of its tests (a device to make tensors on),
    name something that imports torch._dynamo (the kit's own modules, which never do, aside)."""
    params = json.dumps([test.params for test in tests]).encode()
    return DYNAMO_USERS.search(params) is not None or any(
        DYNAMO_USERS.search(source) for name, source in blobs.items() if name.removeprefix("module:") not in KIT_SANDBOX_MODULES)


def precheck(source: bytes) -> str | None:
    """Why the file cannot even be handed to the sandbox, or None."""
    if len(source) > MAX_SOURCE_BYTES:
        return f"the file is {len(source):,} bytes; the limit is {MAX_SOURCE_BYTES:,}"
    nul = source.find(b"\0")
    if nul >= 0:
        return f"the file contains a NUL byte at offset {nul}"
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"the file is not UTF-8: byte 0x{source[error.start]:02x} at offset {error.start}"
    return None


class ReferenceLane:
    """The reference's process, worked from a thread of its own: its load and its checked calls run beside the
    user's process, on the core that process leaves idle, instead of between the user's calls. Jobs run in the
    order given. The first that fails makes every later one fail the same way: a reference that could not load
    answers nothing after. Its process ending is the judge's failure, never a verdict on the user's code."""

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


class _Run:
    """The state of one judgement."""

    def __init__(self, problem: Problem, device: str, tests: list[TestSpec], options: JudgeOptions, emit: Event):
        self.problem, self.device, self.tests, self.emit = problem, device, tests, emit
        self.sandbox, self.threads = options.sandbox, options.threads
        self.gpu_index = options.gpu_index if device == "cuda" else None
        self.stop_at_first_failure = options.stop_at_first_failure
        self.cache = options.cache if options.cache is not None else reference_cache.DEFAULT
        self.start_harness = options.start_harness
        self.shared_reference = options.shared_reference
        # Starting the sandboxes is the judge's cost; the user's wall clock starts once they are up.
        self.wall_deadline = float("inf")
        key = options.secret_key if options.secret_key is not None else seeds.load_key(options.sandbox.state_dir)
        self.seed_index = options.seed_index if options.seed_index is not None else seeds.draw_index()
        self.hidden_seed = seeds.hidden_seed(key, problem.version, self.seed_index)
        # From the first request that carries a hidden test's inputs on, nothing the user's process says is
        # shown: not its output, nor the text of a failure it reports (runner/hidden.py).
        self.hidden_inputs_sent = False
        self.source_lines = 0
        self.user: Harness | None = None
        self.reference: Harness | None = None
        self.lane = ReferenceLane(f"reference {problem.slug}")
        # The trusted side's own work that need not wait its turn (runner/testcase.py: a timed test's inputs and
        # checks), done while the sandboxes work.
        self.helper = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"trusted {problem.slug}")
        self.results: list[TestResult] = []
        self.time = TimeFigures()
        self.memory = MemoryFigures()
        self.memory_share = 0.0  # the verdict's memory figures' test: its peak over its limit
        self.sandbox_words = ""
        self.reference_cases: dict[str, tuple[dict[str, Any], dict[str, torch.Tensor]]] = {}
        self._timed_lock = threading.Lock()
        self._timed_drawn: dict[tuple[str, int, int], Future] = {}

    def lanes(self) -> list[list[TestSpec]] | None:
        """This run's tests in two lanes, or None where one process is as quick.

        The second lane is a suffix of the hidden tests; the first holds every test before it, none of them
        timed, and needs no reference process: the reference results of all checked calls are cached (the
        reference's own time for each, cached with it, is what a lane's work is estimated by; a timed test's
        rounds call both processes, each call as long as the reference's last timed one, or where none was
        timed yet its checked one: `_timed_calls`). The split chosen is the one whose longer lane is shortest,
        and only where each lane has LANE_MIN_S of work. Only on the CPU, for a single process's problem, and
        not in a run that stops at its first failure."""
        if (self.device != "cpu" or self.stop_at_first_failure or self.shared_reference is not None
                or self.problem.world_size != 1 or any(int(test.params.get("world_size", 1)) != 1 for test in self.tests)):
            return None
        limits = self.problem.limits
        costs = []
        for test in self.tests:
            if not self._cached(test):
                return None
            call_s = int(self.reference_cases[test.name][0].get("time_ns", 0)) / 1e9
            if test.timed:
                timed_s = TIMED_REFERENCE_S.get((self.problem.version, self.device, test.name), call_s)
                call_s += timed_s * self._timed_calls(timed_s)
            costs.append(call_s)
        first_hidden = next((index for index, test in enumerate(self.tests) if not test.sample), len(self.tests))
        best = None
        for split in range(max(first_hidden, 1), len(self.tests)):
            if any(test.timed for test in self.tests[:split]):
                break
            first, second = sum(costs[:split]), sum(costs[split:])
            if min(first, second) >= LANE_MIN_S and (best is None or max(first, second) < best[0]):
                best = (max(first, second), split)
        return None if best is None else [self.tests[:best[1]], self.tests[best[1]:]]

    def _timed_calls(self, call_s: float) -> int:
        """The calls a timed test's rounds make of both processes together, for a submission as fast as the
        reference: a warm-up each, then every round's iterations each, or only the first round's where that
        round puts it under a third of its limit (runner/testcase.py)."""
        limits = self.problem.limits
        allowed_s = min(limits.time_ratio * call_s, limits.time_cap_ms / 1000)
        rounds = 1 if call_s < allowed_s / DECISIVE_TIME_FACTOR else limits.timed_rounds
        return 2 * (1 + rounds * limits.timed_iterations)

    def judge(self, source: bytes) -> Verdict:
        self.emit({"event": "started", "problem": self.problem.slug, "device": self.device,
                   "total": len(self.tests)})
        try:
            self._judge(source)
        except SandboxUnavailable as error:
            raise JudgeError(str(error)) from None
        except Exception as error:  # noqa: BLE001 - a bug of the judge must still end in a verdict
            detail = f"the judge failed: {error!r}"
            if self.reference:
                detail += "\nreference harness stderr:\n" + self.reference.output()[1][-2000:]
            self._finish_with(TestResult(self._next_name(), INTERNAL_ERROR, detail))
        finally:
            shared = self.shared_reference
            if shared and shared.owns(self.reference) and not self.reference.process.ended():
                kept = self.reference  # the next judgement of the problem uses it
            else:
                kept = None
            harnesses = [harness for harness in (self.user, self.reference) if harness and harness is not kept]
            for harness in harnesses:
                harness.process.kill()
            # Killed, so whatever they wrote is in the pipes already; they finish exiting meanwhile.
            stdout, stderr = self.user.output() if self.user else ("", "")
            for harness in harnesses:
                harness.close_in_background()
            self.lane.close()
            self.helper.shutdown(wait=False, cancel_futures=True)
        verdict = Verdict(problem=self.problem.slug, verdict=overall(self.results), tests=self.results,
                          device=self.device, sandbox=self.sandbox_words, time=self.time, memory=self.memory,
                          stdout=stdout, stderr=stderr, problem_version=self.problem.version,
                          seed_index=self.seed_index if any(not test.sample for test in self.tests) else None)
        self.emit({"event": "finished", "verdict": verdict.verdict})
        return verdict

    def _judge(self, source: bytes) -> None:
        self.source_lines = len(source.splitlines())
        problem = precheck(source)
        if problem:
            self.sandbox_words = "none: the file was rejected before anything ran"
            return self._finish_with(TestResult(self.tests[0].name, COMPILE_ERROR, problem))
        cases = self._prepare_ahead()
        # The reference starts beside the user's process, its start hidden behind the user's, when the first
        # test needs it, or when a timed test will and the run goes on past failures (every timed round calls
        # it); otherwise only when a test needs it, which a failing run may never reach.
        timed_ahead = not self.stop_at_first_failure and any(test.timed for test in self.tests)
        self._start(need_reference=not self._has_reference(self.tests[0]) or timed_ahead)
        blobs = self.problem.sandbox_blobs(source)
        if uses_dynamo(blobs, self.tests):
            self.user.warm_up_dynamo(self.device)
        self.wall_deadline = time.monotonic() + self.problem.limits.wall_s
        try:
            loaded = self.user.load(blobs, **self._settings())
        except Ended as ended:
            return self._finish_with(_ended_result(self.tests[0].name, ended, "while the file was loaded"))
        failure = self._load_failure(loaded)
        if failure:
            return self._finish_with(failure)
        for test, drawn in cases:
            inputs = drawn()
            if not test.sample and inputs and not self.hidden_inputs_sent:
                self.user.process.hide_output_from_now()
                self.hidden_inputs_sent = True
            try:
                case = judge_case(self, test, inputs)
            except Ended as ended:
                return self._finish_with(_ended_result(test.name, ended, secret=self.hidden_inputs_sent,
                                                       limits=self.problem.limits))
            self._gather(case)
            if self.stop_at_first_failure and case.result.status != PASSED:
                return self._skip_rest("skipped: this judge stops at the first failure")

    def _seed(self, test: TestSpec) -> int:
        return seeds.sample_seed(self.problem.slug) if test.sample else self.hidden_seed

    def _inputs(self, test: TestSpec) -> dict[str, torch.Tensor]:
        return self.problem.checker.inputs(test.params, seeds.generator(self._seed(test), test.name))

    def _prepare_ahead(self) -> list[tuple[TestSpec, Callable[[], dict[str, torch.Tensor]]]]:
        """Each test's inputs, as a call that waits for them, drawn in test order on the helper thread from now
        on, each followed by what the checker needs from them alone (its truths, for a checker with `prepare`),
        and a timed test's by its first round's: while the sandboxes run the calls, so that a judge costs the
        longer of the two, not their sum. The checker finds each truth ready, or waits for the one under way
        (runner/kit/memo.py); a truth that fails here is computed again where the check needs it, and fails
        there."""
        cases = []
        for test in self.tests:
            drawn = self.beside(lambda test=test: self._inputs(test))
            cases.append((test, drawn))
            self._prepare_beside(test, drawn)
            if test.timed:
                self.prepare_round(test, 0)
        return cases

    def prepare_round(self, test: TestSpec, round_index: int) -> None:
        """Draw the inputs of a round of timed calls, and prepare their truths, on the helper thread."""
        for index in range(self.problem.limits.timed_iterations):
            drawn = self.beside(lambda r=round_index, i=index: self.timed_inputs(test, r, i))
            self._prepare_beside(test, drawn)

    def _prepare_beside(self, test: TestSpec, drawn: Callable[[], dict[str, torch.Tensor]]) -> None:
        prepare = getattr(self.problem.checker, "prepare", None)
        if prepare is None:
            return

        def prepared() -> None:
            try:
                prepare(test.params, drawn())
            except Exception:  # noqa: BLE001 - the check itself meets the same failure and reports it
                pass

        self.beside(prepared)

    def timed_inputs(self, test: TestSpec, round_index: int, index: int) -> dict[str, torch.Tensor]:
        """The inputs of one timed call, drawn once for the run by whoever asks first (the helper thread, or the
        round itself when the helper has not reached them); a second asker waits for the first's draw."""
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

    def _cache_key(self, test: TestSpec) -> str:
        return reference_cache.key(self.problem.version, self.device, self._seed(test), test.name, test.params)

    def _cached(self, test: TestSpec) -> bool:
        found = self.cache.get(self._cache_key(test))
        if found:
            self.reference_cases[test.name] = found
        return found is not None

    def _has_reference(self, test: TestSpec) -> bool:
        """Whether the reference's result for test is at hand: this run's already, or found in the cache now."""
        return test.name in self.reference_cases or self._cached(test)

    def reference_result(self, test: TestSpec,
                         inputs: dict[str, torch.Tensor]) -> Callable[[], tuple[dict[str, Any], dict[str, torch.Tensor]]]:
        """The reference's (answer, outputs) for a test, as a call that returns them: from the cache when
        possible, else from the reference's process, whose request starts now on the lane, beside whatever the
        user's process is asked meanwhile."""
        if self._has_reference(test):
            found = self.reference_cases[test.name]
            return lambda: found
        self._ensure_reference()
        pending = self.lane.submit(lambda: self._reference_call(test, inputs))
        return lambda: self._waited(pending)

    def _reference_call(self, test: TestSpec, inputs: dict[str, torch.Tensor]):
        frame, _ = self.reference.request({"type": "run", "params": test.params}, inputs,
                                          timeout_s=max(5.0, 3 * self.problem.limits.time_cap_ms / 1000) + 30)
        if frame.header.get("error") or frame.header.get("forbidden") or frame.header.get("modified_inputs"):
            raise RuntimeError(f"the reference failed test {test.name}: {frame.header}")
        result = (frame.header, frame.tensors)
        self.cache.put(self._cache_key(test), *result)
        self.reference_cases[test.name] = result
        return result

    def _waited(self, pending: Future):
        """pending's result. Time spent waiting for the reference is the judge's, so the run's wall clock is
        moved on by it."""
        started = time.monotonic()
        try:
            return pending.result()
        finally:
            self.wall_deadline += time.monotonic() - started

    def beside(self, job: Callable[[], Any]) -> Callable[[], Any]:
        pending = self.helper.submit(job)
        return pending.result

    def request_timeout_s(self, wanted_s: float | None = None) -> float:
        """How long the next user request may take: its own allowance (by default a checked call's,
        3 × the time cap, at least 5 s), never past the run's wall-clock limit."""
        if wanted_s is None:
            wanted_s = max(5.0, 3 * self.problem.limits.time_cap_ms / 1000)
        return max(0.1, min(wanted_s, self.wall_deadline - time.monotonic()))

    def _settings(self, *, reference: bool = False) -> dict[str, Any]:
        limits = self.problem.limits
        sizes = sorted({int(test.params.get("world_size", self.problem.world_size)) for test in self.tests})
        resource_limits = {"nproc": self._nproc(), "nofile": 512, "fsize_bytes": 64 << 20, "core_bytes": 0,
                           "cpu_s": int(limits.wall_s) + 5}
        if self.device == "cpu":
            resource_limits["address_space_extra_bytes"] = limits.sandbox_memory_bytes
        else:
            # An address-space limit breaks CUDA's virtual reservations; the data segment is limited instead,
            # loosely, since what the driver maps privately is not known in advance. The watchdog is the
            # real bound on host memory.
            resource_limits["data_bytes"] = max(4 * limits.sandbox_memory_bytes, 32 << 30)
        # What the submission may not do (runner/harness/confine.py): start processes, since every problem runs
        # in the processes the harness starts (the ranks too, started before the load); hold memory outside the
        # watchdog's count in memfd or shared anonymous mappings, but on CUDA, whose driver may use them.
        confinement = {"processes": False, "shared_memory": self.device == "cuda"}
        return {"device": self.device, "forbidden": self.problem.forbidden, "limits": resource_limits,
                "confine": confinement,
                "entry_points": self.problem.entry_points, "world_size": self.problem.world_size,
                "collective_timeout_s": limits.collective_timeout_s, "world_sizes": sizes,
                # Starting ranks is the judge's cost (an interpreter and torch each), not the submission's.
                "timeout_s": LOAD_TIMEOUT_S + (30 if reference else 0) + (RANK_START_S * sum(sizes) if sizes != [1] else 0)}

    def _nproc(self) -> int:
        if os.geteuid() == 0:
            return 256
        # Without a uid of its own the sandbox shares the count with every process of this user.
        return len(procs.owned_by(os.geteuid())) * 8 + 256

    def _start(self, *, need_reference: bool) -> None:
        """The user's process, and the reference's beside it if asked (its load on the lane); otherwise the
        reference starts when a test first needs it."""
        self.user = self.start_harness(self.sandbox, **self._harness_settings())
        self.sandbox_words = self.user.sandbox
        if need_reference:
            self._ensure_reference()
        self.user.wait_ready()

    def _ensure_reference(self) -> None:
        """The reference's process, started here (a process dies with the thread that started it, so never on
        the lane) and loaded on the lane, unless it exists. A shared one is loaded when it is handed out."""
        if self.reference is not None:
            return
        if self.shared_reference:
            started = time.monotonic()
            self.reference = self.shared_reference.harness(self)
            self.wall_deadline += time.monotonic() - started
            return
        self.reference = self.start_harness(self.sandbox, **self._harness_settings())
        self.lane.submit(self._load_reference)

    def reference_harness(self) -> Harness:
        """The reference's process, loaded, once every request the lane holds for it has been answered."""
        self._ensure_reference()
        self._waited(self.lane.submit(lambda: None))
        return self.reference

    def _harness_settings(self) -> dict[str, Any]:
        return dict(memory_limit_bytes=self.problem.limits.sandbox_memory_bytes, threads=self.threads,
                    gpu_index=self.gpu_index)

    def _load_reference(self) -> None:
        self.reference.wait_ready()
        blobs = self.problem.sandbox_blobs(self.problem.source("reference.py"))
        if uses_dynamo(blobs, self.tests):
            self.reference.warm_up_dynamo(self.device)
        answer = self.reference.load(blobs, **self._settings(reference=True))
        if answer.get("error") or answer.get("forbidden"):
            raise RuntimeError(f"the reference solution does not load: {answer}")

    def _load_failure(self, loaded: dict[str, Any]) -> TestResult | None:
        name = self.tests[0].name
        if loaded.get("forbidden"):
            return TestResult(name, FORBIDDEN, forbidden_message(loaded["forbidden"], "while the file was loaded"))
        if loaded.get("error"):
            return TestResult(name, loaded["error"]["status"], loaded["error"]["message"])
        return None

    def _gather(self, case: CaseResult) -> None:
        """Record a judged test and fold its figures into the verdict's: the memory of the test that came
        closest to its limit, the last timing.

        Both peaks come from that one test, so the ratio shown is one the limit was applied to: the largest
        peaks of two different tests, or a small test held under the floor, would make a passing run read
        as far over the ratio."""
        if case.user_peak_bytes is not None and case.memory_limit_bytes:
            share = case.user_peak_bytes / case.memory_limit_bytes
            if share >= self.memory_share:
                self.memory_share = share
                self.memory = MemoryFigures(user_peak_bytes=case.user_peak_bytes,
                                            reference_peak_bytes=case.reference_peak_bytes,
                                            ratio=ratio(case.user_peak_bytes, case.reference_peak_bytes))
        if case.time is not None:
            self.time = case.time
            if case.time.reference_ms:
                TIMED_REFERENCE_S[self.problem.version, self.device, case.result.name] = case.time.reference_ms / 1000
        self._record(case.result)

    def _record(self, result: TestResult) -> None:
        self.results.append(result)
        self.emit({"event": "test", "name": result.name, "status": result.status, "message": result.message,
                   "time_ms": result.time_ms, "peak_bytes": result.peak_bytes, "index": len(self.results) - 1,
                   "total": len(self.tests)})

    def _next_name(self) -> str:
        return self.tests[min(len(self.results), len(self.tests) - 1)].name

    def _finish_with(self, result: TestResult) -> None:
        """Record a failure that ends the run, then skip every remaining test."""
        if len(self.results) < len(self.tests):
            self._record(result)
        self._skip_rest("skipped after a failure that ended the run")

    def _skip_rest(self, message: str) -> None:
        for test in self.tests[len(self.results):]:
            self._record(TestResult(test.name, SKIPPED, message))


def _ended_result(name: str, ended: Ended, when: str = "during this test", *, secret: bool = False,
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

