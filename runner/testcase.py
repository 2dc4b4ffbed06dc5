"""One test, judged: the checked call, its comparison, memory, and (for timed tests) interleaved timing.

Statuses are decided in this order, so the most specific reason wins: a forbidden call, tampering with the
judge's watch, a changed input, an error raised in the call, a wrong result, then memory, then time.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any, Protocol

import torch

from . import compare, hidden, seeds
from .client import Harness, Observed
from .outputs import judged
from .problems import Problem, TestSpec
from .verdict import (FORBIDDEN, MEMORY_LIMIT_EXCEEDED, PASSED, TIME_LIMIT_EXCEEDED, WRONG_ANSWER, TestResult,
                      TimeFigures, ratio)

# Resident-memory growth a call can cause without tensors (modules imported on first use, allocator
# slack, the harness's copies of inputs and outputs are added separately); growth beyond this and the
# tracked tensor peak means the tracker was bypassed. It bounds how small a bypass this check can see.
RSS_SLACK_BYTES = 256 << 20
# The outside view of CPU time is tick-grained; a reported time is only overruled when the outside view
# exceeds twice it by more than this.
FLOOR_GRAIN_MS = 2.0


class Judgement(Protocol):
    """What judging one test needs from the judgement it belongs to (runner/judge.py's run)."""

    problem: Problem
    device: str
    hidden_seed: int
    user: Harness
    source_lines: int  # lines of the submission's file
    hidden_inputs_sent: bool  # whether the user's process has been sent a hidden test's inputs yet

    def reference_result(self, test: TestSpec, inputs: dict[str, torch.Tensor]) -> tuple[dict[str, Any], dict]:
        """The reference's (answer, outputs) for the test, from the cache or the reference's process."""

    def reference_harness(self) -> Harness:
        """The reference's process, started when first needed."""

    def request_timeout_s(self, wanted_s: float | None = None) -> float:
        """How long the next request to the user's process may take."""


@dataclass
class CaseResult:
    """One test's result and the figures it measured; the judgement gathers them into the verdict's."""

    result: TestResult
    user_peak_bytes: int | None = None
    reference_peak_bytes: int | None = None
    time: TimeFigures | None = None


def forbidden_message(calls: list[str], when: str) -> str:
    return f"called {', '.join(calls)} {when}; this problem forbids it"


def judge_case(run: Judgement, test: TestSpec, inputs: dict[str, torch.Tensor]) -> CaseResult:
    """The result of one test; raises sandbox.Ended when the user's process stops answering."""
    expected_answer, expected = run.reference_result(test, inputs)
    frame, observed = run.user.request({"type": "run", "params": test.params}, inputs,
                                       timeout_s=run.request_timeout_s())
    answer = frame.header
    failure = _call_failure(run, answer, "during the call", inputs)
    if failure:
        return CaseResult(TestResult(test.name, *failure))
    message = judged(lambda got: checked(run.problem, test, inputs, got, expected), frame.tensors, expected)
    if message:
        return CaseResult(TestResult(test.name, WRONG_ANSWER, message))
    peak, peak_note = trusted_peak(answer, observed, inputs, frame.tensors)
    result = TestResult(test.name, PASSED, "", time_ms=answer.get("time_ns", 0) / 1e6, peak_bytes=peak)
    reference_peak = expected_answer.get("peak_bytes")
    case = CaseResult(result, user_peak_bytes=peak, reference_peak_bytes=reference_peak or 0)
    limit, basis = case_memory_limit(run.problem, test, inputs, reference_peak)
    if peak > limit:
        result.status = MEMORY_LIMIT_EXCEEDED
        result.message = f"peak memory {_mib(peak)} of live tensors{peak_note}; the limit here is {_mib(limit)} ({basis})"
        return case
    if test.timed:
        case.time = _time(run, test, result)
    return case


def checked(problem: Problem, test: TestSpec, inputs: dict[str, torch.Tensor], got: dict[str, torch.Tensor],
            expected: dict[str, torch.Tensor]) -> str | None:
    """The problem's checker on one call's outputs; on a hidden test (and every timed call, whose inputs are
    hidden too) its messages show no values."""
    if test.sample and not test.timed:
        return problem.checker.check(test.params, inputs, got, expected)
    with compare.values_hidden():
        return problem.checker.check(test.params, inputs, got, expected)


def _call_failure(run: Judgement, answer: dict[str, Any], when: str,
                  inputs: dict[str, torch.Tensor]) -> tuple[str, str] | None:
    """The failure the harness reported for a call, if any. Once the process holds hidden inputs its text
    could carry them out, so the message is the trusted side's own (runner/hidden.py)."""
    secret = run.hidden_inputs_sent
    if answer.get("forbidden"):
        calls = hidden.forbidden_calls(answer["forbidden"], run.problem.forbidden) if secret else answer["forbidden"]
        return FORBIDDEN, forbidden_message(calls or ["an operator"], when)
    if answer.get("tamper"):
        return FORBIDDEN, hidden.TAMPERED if secret else "the submission " + " and ".join(answer["tamper"])
    if answer.get("modified_inputs"):
        names = ", ".join(name for name in answer["modified_inputs"] if not secret or name in inputs)
        what = f"the input {names}" if names else "an input"
        return WRONG_ANSWER, f"{what} was modified in place; the call must leave its arguments unchanged"
    if answer.get("error"):
        status, message = answer["error"]["status"], answer["error"]["message"]
        return status, hidden.error_message(status, message, when, run.source_lines) if secret else message
    return None


def memory_limit(limits, reference_peak: int | None) -> int:
    """Bytes a call may hold at its peak: a ratio of the reference's, never below the floor or over the cap."""
    limit = max(limits.memory_floor_bytes, int(limits.memory_ratio * (reference_peak or 0)))
    return min(limit, limits.memory_cap_bytes) if limits.memory_cap_bytes else limit


def case_memory_limit(problem: Problem, test: TestSpec, inputs: dict[str, torch.Tensor],
                      reference_peak: int | None) -> tuple[int, str]:
    """A test's limit on peak bytes and what it rests on: the ratio to the reference's peak, tightened by the
    checker's own bound for the test, when it defines `memory_limit(params, inputs) -> (bytes, what) | None`
    (a figure measured on the trusted side, such as a fraction of a baseline model's peak)."""
    limit = memory_limit(problem.limits, reference_peak)
    basis = f"{problem.limits.memory_ratio:g}× the reference's {_mib(reference_peak or 0)}"
    checker_limit = getattr(problem.checker, "memory_limit", None)
    own = checker_limit(test.params, inputs) if checker_limit else None
    if own:
        limit = min(limit, own[0])
        basis += f"; {own[1]}"
    return limit, basis


def trusted_peak(answer: dict[str, Any], observed: Observed, inputs: dict[str, torch.Tensor],
                 outputs: dict[str, torch.Tensor]) -> tuple[int, str]:
    """The peak to judge: the tracker's claim, unless what the trusted side saw outgrows it."""
    claimed = int(answer.get("peak_bytes") or 0)
    if answer.get("cuda_peak_bytes") is not None:
        cuda_growth = answer["cuda_peak_bytes"] - (answer.get("cuda_base_bytes") or 0)
        if cuda_growth > claimed + RSS_SLACK_BYTES:
            return cuda_growth, " (from CUDA's allocator: the tensor tracker saw less)"
    if observed.rss_growth_bytes is None:
        return claimed, ""
    copies = 2 * sum(t.numel() * t.element_size() for t in (*inputs.values(), *outputs.values()))
    if observed.rss_growth_bytes > claimed + copies + RSS_SLACK_BYTES:
        return observed.rss_growth_bytes, f" (the process's resident memory grew by this; the tracker saw {_mib(claimed)})"
    return claimed, ""


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.2f} MiB"


def _time(run: Judgement, test: TestSpec, result: TestResult) -> TimeFigures | None:
    """Interleave rounds of the user's and the reference's timed calls on the same fresh inputs; the figures,
    or None when a timed call failed (the result says how)."""
    limits = run.problem.limits
    user_times, reference_times, floors = [], [], []
    for round_index in range(limits.timed_rounds):
        batch = _timing_inputs(run, test, round_index, limits.timed_iterations)
        order = ("user", "reference") if round_index % 2 == 0 else ("reference", "user")
        answers = {}
        for who in order:
            answers[who] = _timed_request(run, who, test, batch, limits.timed_iterations)
        failure = _timed_failure(run, test, batch, answers, limits.timed_iterations)
        if failure:
            result.status, result.message = failure
            return None
        (user_answer, _, user_seen), (ref_answer, _, ref_seen) = answers["user"], answers["reference"]
        user_times += [ns / 1e6 for ns in user_answer["times_ns"]]
        reference_times += [ns / 1e6 for ns in ref_answer["times_ns"]]
        floors.append(_trusted_floor_ms(run.device, user_seen, ref_seen, ref_answer["times_ns"]))
    return _judge_time(run.problem, result, statistics.median(user_times), statistics.median(floors),
                       statistics.median(reference_times))


def _timing_inputs(run: Judgement, test: TestSpec, round_index: int, count: int) -> dict[str, torch.Tensor]:
    seed = run.hidden_seed
    batch = {}
    for index in range(count):
        for name, tensor in run.problem.checker.inputs(
                test.params, seeds.generator(seed, test.name, "timed", round_index, index)).items():
            batch[f"{index}/{name}"] = tensor
    return batch


def _timed_request(run: Judgement, who: str, test: TestSpec, batch: dict[str, torch.Tensor], count: int):
    harness = run.user if who == "user" else run.reference_harness()
    allowance = (count + 1) * run.problem.limits.time_cap_ms / 1000 * 1.5 + 5
    timeout = run.request_timeout_s(allowance) if who == "user" else allowance + 30
    frame, observed = harness.request({"type": "time", "params": test.params, "iterations": count, "warmup": 1},
                                      batch, timeout_s=timeout)
    if who == "reference" and (frame.header.get("error") or frame.header.get("forbidden")):
        raise RuntimeError(f"the reference failed its timed calls: {frame.header}")
    return frame.header, frame.tensors, observed


def _timed_failure(run: Judgement, test: TestSpec, batch: dict[str, torch.Tensor], answers,
                   count: int) -> tuple[str, str] | None:
    user_answer, user_outputs, _ = answers["user"]
    failure = _call_failure(run, user_answer, "during a timed call", batch)
    if failure:
        return failure
    _, ref_outputs, _ = answers["reference"]
    for index in range(count):
        prefix = f"{index}/"
        got = {k[len(prefix):]: v for k, v in user_outputs.items() if k.startswith(prefix)}
        expected = {k[len(prefix):]: v for k, v in ref_outputs.items() if k.startswith(prefix)}
        given = {k[len(prefix):]: v for k, v in batch.items() if k.startswith(prefix)}
        message = judged(lambda outputs: checked(run.problem, test, given, outputs, expected), got, expected)
        if message:
            return WRONG_ANSWER, f"timed call {index + 1} (fresh inputs in the same buffers): {message}"
    return None


def _trusted_floor_ms(device: str, user_seen: Observed, ref_seen: Observed, ref_times_ns: list[int]) -> float:
    """The user's per-call time as the trusted side saw it, less the harness's own overhead per request.

    The overhead is what the reference's request cost beyond the calls it timed: the same harness, the
    same inputs and outputs. CPU time counts every thread of the sandbox; on CUDA the wall clock is used.
    """
    calls = len(ref_times_ns) + 1
    user_total = user_seen.wall_s if device == "cuda" else user_seen.cpu_s
    ref_total = ref_seen.wall_s if device == "cuda" else ref_seen.cpu_s
    overhead = max(0.0, ref_total - calls * statistics.median(ref_times_ns) / 1e9)
    return max(0.0, user_total - overhead) / calls * 1000


def _judge_time(problem: Problem, result: TestResult, reported_ms: float, floor_ms: float,
                reference_ms: float) -> TimeFigures:
    limits = problem.limits
    user_ms, note = reported_ms, ""
    if floor_ms > 2 * reported_ms + FLOOR_GRAIN_MS:
        user_ms = floor_ms
        note = f" (as observed from outside the sandbox; the process reported {reported_ms:.3f} ms)"
    result.time_ms = user_ms
    figures = TimeFigures(user_ms=user_ms, reference_ms=reference_ms, ratio=ratio(user_ms, reference_ms))
    allowed = min(limits.time_ratio * reference_ms, limits.time_cap_ms)
    if user_ms > allowed:
        result.status = TIME_LIMIT_EXCEEDED
        result.message = (f"median {user_ms:.3f} ms per call{note}, {figures.ratio:.1f}× the reference's "
                          f"{reference_ms:.3f} ms; the limit is {limits.time_ratio:g}× "
                          f"(and at most {limits.time_cap_ms:g} ms)")
    return figures
