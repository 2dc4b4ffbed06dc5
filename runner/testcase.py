"""One test, judged: the checked call, its comparison, memory, and (for timed tests) interleaved timing.

Statuses are decided in this order, so the most specific reason wins: a forbidden call, tampering with the
judge's watch, a changed input, an error raised in the call, a wrong result, then memory, then time.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Callable, Protocol

import torch

from . import compare, hidden, seeds
from .client import Harness, Observed
from .outputs import judged
from .problems import Problem, TestSpec
from .verdict import (FORBIDDEN, MEMORY_LIMIT_EXCEEDED, PASSED, TIME_LIMIT_EXCEEDED, WRONG_ANSWER, TestResult,
                      TimeFigures, ratio, split_why)

# Resident memory a correct solution's call holds beyond its tracked tensors and the harness's copies of its
# inputs and outputs (the libraries' buffers on first use of a kernel, the interpreter's own objects): past
# this the outside figure replaces the tracker's claim, so it bounds how small a bypass of the tracker can be
# seen. The growth during one call is held against that call's claim; the level above the process's size
# before the load, which gathers every first use of a run, against the most any call was allowed. Each is
# set above the largest excess every correct solution of every problem shows (bench/neighbour_check.py
# prints them; docs/speed.md has the last figures).
RSS_GROWTH_SLACK_BYTES = 32 << 20
RSS_LEVEL_SLACK_BYTES = 64 << 20
# Timed calls run without the tensor tracker and with glibc's steady-state allocator, whose heap keeps freed blocks
# for the next call (docs/judge.md, Measurement): a timed request may grow the resident set by the test's limit on
# a call, the copies, and this many times that limit besides, the most measured (a checkpointed stack held 113 MiB
# for 31 MiB of live tensors, about 2.6 times more).
TIMED_HEAP_KEPT_FACTOR = 3
# CUDA's allocator reports its growth from inside the process: a claim, trusted no more than the tracker's.
CUDA_SLACK_BYTES = 256 << 20
# On CUDA the outside view is the request's wall clock, which a busy host stretches; a reported time is only
# overruled there when the outside view exceeds twice it by more than this. On the CPU the outside view is
# the sandbox's CPU time, and the figure judged is never below it.
CUDA_FLOOR_GRAIN_MS = 2.0
# A timed test whose figure after a round, judged as after the last, is more than this many times its limit, or
# less than its inverse, runs no more rounds: a loop where a kernel belongs (ten to a hundred times the
# reference) is called too slow a round in, and a solution a third of its limit or less is accepted a round in
# (most problems allow several times the reference, and a correct solution takes about what it takes), so a
# Submit of either waits for one round instead of all. A solution's per-call CPU time is not a third of its
# neighbour's in one round and three times it in the next; near the limit every round runs, and a set of rounds
# over the limit by less than this is timed once more (a burst on a shared machine has made a correct solution's
# calls several times slower for a whole set), the better set judged.
DECISIVE_TIME_FACTOR = 3.0
# A hidden test's time is shown to two significant figures, and never finer than a microsecond: a process holding
# hidden inputs chooses the figure it reports, and at full precision each test's time could carry about 63 bits of
# them out (docs/judge.md, Hidden tests stay hidden). A third figure would show only noise: the same solution's
# time varies by more than 1% from run to run on one machine (docs/speed.md).
SHOWN_TIME_FIGURES = 2
SHOWN_TIME_FINEST_DECIMALS = 3


class Judgement(Protocol):
    """What judging one test needs from the judgement it belongs to (a lane's run, runner/judging/lane.py)."""

    problem: Problem
    device: str
    hidden_seed: int
    user: Harness
    source_lines: int  # lines of the submission's file
    hidden_inputs_sent: bool  # whether the user's process has been sent a hidden test's inputs yet

    def reference_result(self, test: TestSpec,
                         inputs: dict[str, torch.Tensor]) -> Callable[[], tuple[dict[str, Any], dict]]:
        """A call returning the reference's (answer, outputs) for the test, from the cache or the reference's
        process, which starts on them now and works beside the user's."""

    def reference_harness(self) -> Harness:
        """The reference's process, started when first needed, with nothing left to answer."""

    def request_timeout_s(self, wanted_s: float | None = None) -> float:
        """How long the next request to the user's process may take."""

    def beside(self, job: Callable[[], Any]) -> Callable[[], Any]:
        """Start job on the trusted side's helper thread; a call that waits for its result and returns it."""

    def timed_inputs(self, test: TestSpec, round_index: int, index: int) -> dict[str, torch.Tensor]:
        """The inputs of one timed call (timed_call_inputs), drawn once for the run."""

    def prepare_round(self, test: TestSpec, round_index: int) -> None:
        """Have the helper thread draw a round's inputs (and the checker's truths for them) ahead of the round."""


@dataclass
class CaseResult:
    """One test's result and the figures it measured; the judgement gathers them into the verdict's."""

    result: TestResult
    user_peak_bytes: int | None = None
    reference_peak_bytes: int | None = None
    memory_limit_bytes: int | None = None  # what this test's peak was judged against
    time: TimeFigures | None = None


def forbidden_message(calls: list[str], when: str) -> str:
    return f"called {', '.join(calls)} {when}; this problem forbids it"


def judge_case(run: Judgement, test: TestSpec, inputs: dict[str, torch.Tensor]) -> CaseResult:
    """The result of one test; raises sandbox.Ended when the user's process stops answering."""
    reference = run.reference_result(test, inputs)
    frame, observed = run.user.request({"type": "run", "params": test.params}, inputs,
                                       timeout_s=run.request_timeout_s())
    expected_answer, expected = reference()
    answer = frame.header
    failure = _call_failure(run, answer, "during the call", inputs)
    if failure:
        return CaseResult(TestResult(test.name, *failure))
    message = judged(lambda got: checked(run.problem, test, inputs, got, expected), frame.tensors, expected)
    if not message:
        message = sent_checked(run.problem, test, frame.tensors, observed, expected_answer)
    if message:
        said, why = split_why(message)
        return CaseResult(TestResult(test.name, WRONG_ANSWER, said, why=why))
    peak, peak_note = trusted_peak(run.user, answer, observed, inputs, frame.tensors)
    # The call took no longer than its request, which the trusted side timed itself.
    call_ms = min(answer.get("time_ns", 0) / 1e6, observed.wall_s * 1000)
    result = TestResult(test.name, PASSED, "", time_ms=call_ms if test.sample else shown_ms(call_ms), peak_bytes=peak)
    reference_peak = expected_answer.get("peak_bytes")
    limit, basis = case_memory_limit(run.problem, test, inputs, reference_peak)
    case = CaseResult(result, user_peak_bytes=peak, reference_peak_bytes=reference_peak or 0,
                      memory_limit_bytes=limit)
    if peak > limit:
        result.status = MEMORY_LIMIT_EXCEEDED
        # The figure is the tracker's (live tensors) unless the note says what the trusted side saw instead.
        what = peak_note or " of live tensors"
        result.message = f"peak memory {_mib(peak)}{what}; the limit here is {_mib(limit)} ({basis})"
        return case
    if test.timed:
        case.time = _time(run, test, result, (limit, basis))
    return case


def checked(problem: Problem, test: TestSpec, inputs: dict[str, torch.Tensor], got: dict[str, torch.Tensor],
            expected: dict[str, torch.Tensor]) -> str | None:
    """The problem's checker on one call's outputs; on a hidden test (and every timed call, whose inputs are
    hidden too) its messages show no values."""
    return _worded(test, problem.checker.check, test.params, inputs, got, expected)


def _worded(test: TestSpec, rule, *args) -> str | None:
    """rule(*args), whose message on a hidden test (and every timed call, whose inputs are hidden too) shows
    no values."""
    if test.sample and not test.timed:
        return rule(*args)
    with compare.values_hidden():
        return rule(*args)


UNREAD_SENT = ("the bytes each rank sent could not be read from outside the sandbox (a rank process ended or could "
               "not be told apart), so this test cannot be passed")


def sent_bytes(got: dict[str, torch.Tensor], observed: Observed) -> dict[int, int] | None:
    """The bytes each rank sent during a call, as the trusted side read them itself: each rank process's written
    bytes, as the kernel counted them (every write(2)-like call: sockets, pipes and files), less the bytes of the
    tensors that rank answered with (the answer travels through the same kind of write; its header's few
    hundred bytes stay in the figure, which can only make it larger). None where they could not be read."""
    if observed.written_bytes is None:
        return None
    return {rank: written - sum(tensor.nbytes for name, tensor in got.items() if name.rpartition("@")[2] == str(rank))
            for rank, written in observed.written_bytes.items()}


def sent_checked(problem: Problem, test: TestSpec, got: dict[str, torch.Tensor], observed: Observed,
                 reference_answer: dict[str, Any]) -> str | None:
    """A distributed problem's rules on the bytes each rank sent: the problem's own, if its checker has one
    (check_sent), whose words know the mistake; then, on every distributed problem, at most `sent_ratio` times
    what the reference's same rank sent on the test plus `sent_slack_bytes`."""
    reference = reference_answer.get("sent_bytes")
    if not problem.checker.judges_sent_bytes and reference is None:
        return None
    sent = sent_bytes(got, observed)
    if sent is None:
        return UNREAD_SENT
    message = _worded(test, problem.checker.check_sent, test.params, sent) if problem.checker.judges_sent_bytes \
        else None
    return message or (traffic_checked(problem, sent, reference) if reference is not None else None)


def traffic_checked(problem: Problem, sent: dict[int, int], reference: list[int]) -> str | None:
    """Why a rank sent more than the problem allows beside the reference's same rank, or None."""
    limits = problem.limits
    for rank, nbytes in sorted(sent.items()):
        allowed = limits.sent_ratio * reference[rank] + limits.sent_slack_bytes if rank < len(reference) else 0
        if nbytes > allowed:
            return (f"rank {rank}'s process wrote {_kib(nbytes)} during the call (every thread's sockets, pipes and "
                    f"files, counted by the kernel), more than {limits.sent_ratio:g}× the {_kib(reference[rank])} "
                    f"the reference's rank {rank} sent plus {_kib(limits.sent_slack_bytes)}: this step "
                    f"communicates more than it needs to")
    return None


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
    own = problem.checker.memory_limit(test.params, inputs)
    if own:
        limit = min(limit, own[0])
        basis += f"; {own[1]}"
    return limit, basis


def trusted_peak(harness: Harness, answer: dict[str, Any], observed: Observed, inputs: dict[str, torch.Tensor],
                 outputs: dict[str, torch.Tensor]) -> tuple[int, str]:
    """The peak to judge: the tracker's claim, unless what the trusted side saw outgrows it (see
    outside_excess) by more than the slack."""
    claimed = int(answer.get("peak_bytes") or 0)
    growth_excess, level_excess = outside_excess(harness, claimed, observed, inputs, outputs)
    if answer.get("cuda_peak_bytes") is not None:
        cuda_growth = answer["cuda_peak_bytes"] - (answer.get("cuda_base_bytes") or 0)
        if cuda_growth > claimed + CUDA_SLACK_BYTES:
            return cuda_growth, " (from CUDA's allocator: the tensor tracker saw less)"
    if growth_excess is not None and growth_excess > RSS_GROWTH_SLACK_BYTES:
        return observed.rss_growth_bytes, (f" (resident memory grew by this during the call, in a process of the "
                                           f"submission with what the sandbox's files and sockets gained; the "
                                           f"tracker saw {_mib(claimed)})")
    if level_excess is not None and level_excess > RSS_LEVEL_SLACK_BYTES:
        return observed.rss_level_bytes, (f" (resident memory stood this far above its size before the file was "
                                          f"loaded, in a process of the submission with what the sandbox's files "
                                          f"and sockets gained since; the tracker saw {_mib(claimed)})")
    return claimed, ""


def outside_excess(harness: Harness, claimed: int, observed: Observed, inputs: dict[str, torch.Tensor],
                   outputs: dict[str, torch.Tensor], *, kept_bytes: int = 0) -> tuple[int | None, int | None]:
    """How far each outside figure exceeds what the call may hold (None where it was not read), and the
    call's claim added to what the process is allowed.

    The growth during the call is held against its own claim plus the copies; the level above the process's
    size before the submission was loaded, against the most any call so far was allowed (memory kept from
    one call serves the next, and what a correct solution's allocator keeps is no bypass). The level is what
    counts memory touched at import.
    """
    own = claimed + copied_bytes(inputs, outputs) + kept_bytes
    harness.memory_allowance_bytes = max(harness.memory_allowance_bytes, own)
    growth, level = observed.rss_growth_bytes, observed.rss_level_bytes
    return (None if growth is None else growth - own,
            None if level is None else level - harness.memory_allowance_bytes)


def copied_bytes(*tensor_sets: dict[str, torch.Tensor]) -> int:
    """What the harness's own copies of a request's tensors may hold: twice their bytes (the frame as read,
    and a clone of each input to detect changes in place, or the outputs as written)."""
    return 2 * sum(t.numel() * t.element_size() for tensors in tensor_sets for t in tensors.values())


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.2f} MiB"


def _kib(size: float) -> str:
    return f"{size / 1024:.1f} KiB"


def _time(run: Judgement, test: TestSpec, result: TestResult, memory: tuple[int, str]) -> TimeFigures | None:
    """The time verdict of a timed test, or None when a timed call failed (the result says how): one set of
    rounds, and a second on fresh inputs when the first came out over the limit by less than the decisive
    factor; the set judged is the one nearer its limit. memory: the test's limit on a call's peak and what it
    rests on, which every timed call is held to as the checked call was."""
    limits = run.problem.limits
    best, sets = None, 0
    for first_round in (0, limits.timed_rounds):
        measured = _timed_rounds(run, test, result, range(first_round, first_round + limits.timed_rounds), memory)
        if measured is None:
            return None
        sets += 1
        if best is None or _share_of_limit(run, measured[0]) < _share_of_limit(run, best[0]):
            best = measured
        if best[1] or _share_of_limit(run, best[0]) <= 1.0:
            break
    figures, cut_short = best
    decided = _judge_time(run.problem, run.device, result, *figures)
    if cut_short:
        result.message += (f" (after round {cut_short} of {limits.timed_rounds}: over {DECISIVE_TIME_FACTOR:g}× "
                           f"the limit, so the other rounds were not run)")
    elif sets == 2 and result.status == TIME_LIMIT_EXCEEDED:
        result.message += f" (the better of two sets of {limits.timed_rounds} rounds, on fresh inputs each)"
    return decided


def _timed_rounds(run: Judgement, test: TestSpec, result: TestResult, rounds: range,
                  memory: tuple[int, str]) -> tuple[tuple[float, float, float], int] | None:
    """Interleave rounds of the user's and the reference's timed calls on the same fresh inputs: the median
    reported, observed and reference figures, and the count of rounds run when the figure after one was over
    the decisive factor (else 0); None when a timed call failed (the result says how).

    The sandboxes take turns on one core; the trusted side's own work runs beside them, on another: each
    round's inputs are drawn while the round before is timed, and each round's outputs are checked while the
    next is. A wrong output is still decided before any figure: the set's checks are all waited for first."""
    limits = run.problem.limits
    user_times, reference_times, floors, checks = [], [], [], []
    figures, cut_short = (0.0, 0.0, 0.0), 0
    for count, round_index in enumerate(rounds, start=1):
        batch = _timing_inputs(run, test, round_index, limits.timed_iterations)
        if count < len(rounds):
            run.prepare_round(test, round_index + 1)
        order = ("user", "reference") if round_index % 2 == 0 else ("reference", "user")
        answers = {}
        # The user's sandbox is watched for the whole round: CPU it spends while the reference runs (a thread
        # left spinning to slow the reference down) is its own too.
        round_started = run.user.cpu_sample()
        for who in order:
            answers[who] = _timed_request(run, who, test, batch, limits.timed_iterations)
        user_cpu_s = run.user.cpu_since(round_started)
        (user_answer, user_outputs, user_seen, user_calls) = answers["user"]
        (ref_answer, ref_outputs, ref_seen, ref_calls) = answers["reference"]
        # What a timed request holds (every call's inputs and outputs, copied) is allowed to stay resident.
        run.user.memory_allowance_bytes = max(run.user.memory_allowance_bytes,
                                              (result.peak_bytes or 0) + copied_bytes(batch, user_outputs))
        failure = (_call_failure(run, user_answer, "during a timed call", _call_inputs(batch))
                   or _timed_memory_failure(run, user_seen, batch, user_outputs, memory))
        if failure:
            result.status, result.message = failure
            return None
        checks.append(run.beside(lambda batch=batch, got=user_outputs, expected=ref_outputs:
                                 _wrong_timed_output(run, test, batch, got, expected, limits.timed_iterations)))
        user_times += [ns / 1e6 for ns in user_answer["times_ns"]]
        reference_times += [ns / 1e6 for ns in ref_answer["times_ns"]]
        user_total_s, ref_total_s = ((user_seen.wall_s, ref_seen.wall_s) if run.device == "cuda"
                                     else (user_cpu_s, ref_seen.cpu_s))
        floors.append(_trusted_floor_ms(user_total_s, user_calls, ref_total_s, ref_calls, ref_answer["times_ns"]))
        figures = (statistics.median(user_times), statistics.median(floors), statistics.median(reference_times))
        share = _share_of_limit(run, figures)
        if count < len(rounds) and share > DECISIVE_TIME_FACTOR:
            cut_short = count
            break
        if count < len(rounds) and share < 1 / DECISIVE_TIME_FACTOR:
            break  # far under its limit: judged on the rounds run
    for check in checks:
        failure = check()
        if failure:
            result.status, (result.message, result.why) = failure[0], split_why(failure[1])
            return None
    return figures, cut_short


def _call_inputs(batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A timed request's inputs by the names of one call's (each call's named "<index>/<name>")."""
    return {name.split("/", 1)[1]: tensor for name, tensor in batch.items()}


def _timed_memory_failure(run: Judgement, observed: Observed, batch: dict[str, torch.Tensor],
                          outputs: dict[str, torch.Tensor], memory: tuple[int, str]) -> tuple[str, str] | None:
    """A timed request held to the test's memory limit from outside, as a checked call's claim is: timed calls
    run without the tracker (its cost per operator would blur the ratio the time limit judges), so each call is
    taken to hold the most it may, and the resident set's growth and level must stay within that, the copies
    and the allocator's kept blocks, by the slacks a checked call has."""
    limit, basis = memory
    growth_excess, level_excess = outside_excess(run.user, limit, observed, batch, outputs,
                                                 kept_bytes=TIMED_HEAP_KEPT_FACTOR * limit)
    if growth_excess is not None and growth_excess > RSS_GROWTH_SLACK_BYTES:
        what = f"grew by {_mib(observed.rss_growth_bytes)} during the timed calls"
    elif level_excess is not None and level_excess > RSS_LEVEL_SLACK_BYTES:
        what = f"stood {_mib(observed.rss_level_bytes)} above its size before the file was loaded during the timed calls"
    else:
        return None
    return MEMORY_LIMIT_EXCEEDED, (f"resident memory (a process of the submission's, with the sandbox's files and "
                                   f"sockets) {what}, more than calls that each hold at most "
                                   f"{_mib(limit)} ({basis}) could need")


def _share_of_limit(run: Judgement, figures: tuple[float, float, float]) -> float:
    """The judged per-call figure over its limit (1.0 is the limit), from (reported, observed, reference)."""
    reported_ms, observed_ms, reference_ms = figures
    return _judged_ms(run.device, reported_ms, observed_ms)[0] / max(_allowed_ms(run.problem, reference_ms), 1e-9)


def _timing_inputs(run: Judgement, test: TestSpec, round_index: int, count: int) -> dict[str, torch.Tensor]:
    batch = {}
    for index in range(count):
        for name, tensor in run.timed_inputs(test, round_index, index).items():
            batch[f"{index}/{name}"] = tensor
    return batch


def timed_call_inputs(problem: Problem, seed: int, test: TestSpec, round_index: int, index: int) -> dict[str, torch.Tensor]:
    """The inputs of one timed call: fresh for each call of each round, drawn from the hidden seed."""
    return problem.checker.inputs(test.params, seeds.generator(seed, test.name, "timed", round_index, index))


def _timed_request(run: Judgement, who: str, test: TestSpec, batch: dict[str, torch.Tensor], count: int):
    """One timed request: count calls on the batch's inputs, after a warm-up call on a process's first timed
    request (first uses: the allocator's pages, lazily built state); later rounds find them paid. The answer,
    the outputs, what was observed of the request and the calls it made, the warm-up included."""
    harness = run.user if who == "user" else run.reference_harness()
    allowance = (count + 1) * run.problem.limits.time_cap_ms / 1000 * 1.5 + 5
    timeout = run.request_timeout_s(allowance) if who == "user" else allowance + 30
    warmup = 0 if harness.timed_requests else 1
    harness.timed_requests += 1
    frame, observed = harness.request({"type": "time", "params": test.params, "iterations": count,
                                       "warmup": warmup}, batch, timeout_s=timeout)
    if who == "reference" and (frame.header.get("error") or frame.header.get("forbidden")):
        raise RuntimeError(f"the reference failed its timed calls: {frame.header}")
    return frame.header, frame.tensors, observed, count + warmup


def _wrong_timed_output(run: Judgement, test: TestSpec, batch: dict[str, torch.Tensor],
                        user_outputs: dict[str, torch.Tensor], ref_outputs: dict[str, torch.Tensor],
                        count: int) -> tuple[str, str] | None:
    """The first timed call of a round whose outputs the checker rejects, as a wrong answer; None if none."""
    for index in range(count):
        prefix = f"{index}/"
        got = {k[len(prefix):]: v for k, v in user_outputs.items() if k.startswith(prefix)}
        expected = {k[len(prefix):]: v for k, v in ref_outputs.items() if k.startswith(prefix)}
        given = {k[len(prefix):]: v for k, v in batch.items() if k.startswith(prefix)}
        message = judged(lambda outputs: checked(run.problem, test, given, outputs, expected), got, expected)
        if message:
            return WRONG_ANSWER, f"timed call {index + 1} (fresh inputs in the same buffers): {message}"
    return None


def _trusted_floor_ms(user_total_s: float, user_calls: int, ref_total_s: float, ref_calls: int,
                      ref_times_ns: list[int]) -> float:
    """The user's per-call time as the trusted side saw it, less the harness's own overhead per request.

    The totals are the sandbox's CPU time over the request (on CUDA, its wall time), each spread over the calls
    that request made: a process's first timed request makes a warm-up call before the timed ones, its later
    ones do not, and the two processes need not be at the same request (the reference's may serve several
    judgements). The overhead is what the reference's request cost beyond its calls: the same harness, the
    same inputs and outputs.
    """
    overhead = max(0.0, ref_total_s - ref_calls * statistics.median(ref_times_ns) / 1e9)
    return max(0.0, user_total_s - overhead) / user_calls * 1000


def _judge_time(problem: Problem, device: str, result: TestResult, reported_ms: float, observed_ms: float,
                reference_ms: float) -> TimeFigures:
    """The time verdict on the median reported time and the median observed one: on the CPU the figure
    judged is the larger, so a report can make the verdict worse, never better."""
    limits = problem.limits
    user_ms, overruled = _judged_ms(device, reported_ms, observed_ms)
    note = (f" (as observed from outside the sandbox; the process reported {shown_ms(reported_ms):g} ms)"
            if overruled else "")
    # Decided on the figure judged, shown as every hidden test's time is (a timed test is hidden).
    result.time_ms = shown_ms(user_ms)
    figures = TimeFigures(user_ms=result.time_ms, reference_ms=reference_ms, ratio=ratio(result.time_ms, reference_ms))
    if user_ms > _allowed_ms(problem, reference_ms):
        result.status = TIME_LIMIT_EXCEEDED
        result.message = (f"median {result.time_ms:g} ms per call{note}, {figures.ratio:.1f}× the reference's "
                          f"{reference_ms:.3f} ms; the limit is {limits.time_words()}")
    return figures


def shown_ms(ms: float) -> float:
    """A hidden test's time as it is shown: SHOWN_TIME_FIGURES significant figures, none finer than a microsecond."""
    if ms <= 0:
        return 0.0
    return round(ms, min(SHOWN_TIME_FINEST_DECIMALS, SHOWN_TIME_FIGURES - 1 - math.floor(math.log10(ms))))


def _judged_ms(device: str, reported_ms: float, observed_ms: float) -> tuple[float, bool]:
    """The per-call figure judged, and whether the outside view overruled the report."""
    overruled = observed_ms > 2 * reported_ms + CUDA_FLOOR_GRAIN_MS if device == "cuda" else observed_ms > reported_ms
    return (observed_ms if overruled else reported_ms), overruled


def _allowed_ms(problem: Problem, reference_ms: float) -> float:
    return min(problem.limits.time_ratio * reference_ms, problem.limits.time_cap_ms)
