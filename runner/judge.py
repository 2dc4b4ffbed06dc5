"""Judging one submission: the trusted side's orchestration.

The tests are planned into lanes (runner/judging/plan.py), each a user process judging its share of them
(runner/judging/lane.py); one lane unless the caller has processes to spare and the reference's cached
figures say a second one shortens the judge. Every test's inputs are generated on the trusted side from a
seed; the reference's outputs come from the cache or from the reference's own process, which one reference
side serves to every lane (runner/judging/reference.py); the user's outputs come back over the pipe and the
problem's trusted checker compares them. Timed tests interleave rounds of the user's and the reference's
processes on the same fresh inputs. The merge (runner/judging/merge.py) makes the lanes' results one
judgement, with one stop for all, exactly as one process judging every test would have. Nothing the sandbox
prints or exits with is taken as a result.
"""

from __future__ import annotations

import importlib.util
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Callable

import torch

from . import cache as reference_cache
from . import seeds
from .client import Harness
from .judging.lane import LaneRun
from .judging.merge import AFTER_AN_ENDED_RUN, Event, Merge
from .judging.plan import LANE_MIN_S, cached_costs, most_lanes, plan
from .judging.reference import ReferenceSide, SharedReference
from .judging.sandboxes import Sandboxes
from .problems import Problem, ProblemError, load_problem
from .sandbox import SandboxOptions, SandboxUnavailable
from .testcase import CaseResult
from .verdict import COMPILE_ERROR, TestResult, Verdict

MAX_SOURCE_BYTES = 256 << 10


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
    # the core one process leaves idle (runner/judging/plan.py). A caller passes 2 when it has processes to
    # spare (a warm pool's, started ahead): a lane that has to start its process costs more than it saves.
    lanes: int = 1
    # The least work, in seconds of the reference's calls, that makes a second lane worth its process.
    min_lane_s: float = LANE_MIN_S


# The trusted side's own tensor work (inputs, float64 truths, comparisons) is small beside what it judges, and
# the cores belong to the sandboxes: a second intra-op thread here only spins beside them, at twice the CPU
# for the same wall time (docs/speed.md).
TRUSTED_THREADS = 1


def judge(problem: Problem | str, source: str | bytes, options: JudgeOptions | None = None, *,
          on_event: Event | None = None) -> Verdict:
    """Judge source against problem (a Problem, or the slug of one under problems/); a Verdict whatever the
    submission does, JudgeError if the judge cannot run. on_event(event) hears the start, each test in the
    problem's order as soon as it and every test before it are judged, and the end, all on the calling thread."""
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
    if problem.kind == "kernel" and device == "cpu":
        # Triton's interpreter says nothing of a kernel's speed on a GPU: on the CPU a timed test is checked like
        # the others (values, traffic), and kernels are timed only on a GPU worker.
        tests = [replace(test, timed=False) for test in tests]
    emit = on_event or (lambda event: None)
    key = options.secret_key if options.secret_key is not None else seeds.load_key(options.sandbox.state_dir)
    # Every lane draws its hidden inputs from this one seed.
    seed_index = options.seed_index if options.seed_index is not None else seeds.draw_index()
    hidden_seed = seeds.hidden_seed(key, problem.version, seed_index)
    merge = Merge(problem, device, tests, emit, seed_index if any(not test.sample for test in tests) else None)
    merge.begin()
    encoded, rejected = precheck(source)
    if rejected:
        merge.settle(0, CaseResult(TestResult(tests[0].name, COMPILE_ERROR, rejected)), skip_rest=AFTER_AN_ENDED_RUN)
        return merge.verdict(sandbox="none: the file was rejected before anything ran")
    sandboxes = Sandboxes(problem, device, options.sandbox, options.threads,
                          options.gpu_index if device == "cuda" else None, options.start_harness)
    reference = ReferenceSide(problem, device, tests, hidden_seed, sandboxes,
                              options.cache if options.cache is not None else reference_cache.DEFAULT,
                              options.shared_reference)
    distributed = problem.world_size != 1 or any(int(test.params.get("world_size", 1)) != 1 for test in tests)
    most = most_lanes(options.lanes, device=device, distributed=distributed,
                      stops_at_first_failure=options.stop_at_first_failure,
                      shared_reference=options.shared_reference is not None)
    lanes = plan(tests, cached_costs(tests, reference.cached_answers(), problem.limits), most=most,
                 min_lane_s=options.min_lane_s)
    runs = [LaneRun(lane, problem, device, hidden_seed, sandboxes, reference, merge,
                    stop_at_first_failure=options.stop_at_first_failure) for lane in lanes]
    try:
        _run_lanes(runs, merge, encoded)
    except SandboxUnavailable as error:
        raise JudgeError(str(error)) from None
    finally:
        reference.close()
    # The first lane holds the load and the sample tests: its output is the one shown. Every other lane's
    # process holds hidden inputs from its first request on.
    first = runs[0]
    return merge.verdict(sandbox=first.sandbox_words, stdout=first.stdout, stderr=first.stderr)


def _run_lanes(runs: list[LaneRun], merge: Merge, source: bytes) -> None:
    """Each lane's run: the first on this thread, the merge's, which passes events on as tests settle; the
    others beside it, on threads that live until every run has ended (a process dies with the thread that
    started it, and the reference's may be started by any lane)."""
    with ThreadPoolExecutor(max(1, len(runs) - 1), thread_name_prefix=f"lane {merge.problem.slug}") as executor:
        others = [executor.submit(run.run, source) for run in runs[1:]]
        try:
            runs[0].run(source)
            merge.wait(others)
        except BaseException:
            merge.abandon()
            raise
        for other in others:
            other.result()


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
    if problem.kind == "kernel" and not _triton_installed():
        raise JudgeError(f"problem {problem.slug!r} is a Triton kernel, and Triton is not installed here (it is "
                         "installed on Linux x86-64)")
    return device


def _triton_installed() -> bool:
    """Whether Triton can be imported here, without importing it (this process never runs a kernel)."""
    try:
        return importlib.util.find_spec("triton") is not None
    except ImportError:
        return False


def precheck(source: str | bytes) -> tuple[bytes, str | None]:
    """The file's bytes, and why they cannot even be handed to the sandbox (None when they can).

    A str is encoded with the bytes it escaped (surrogateescape) put back, so a file decoded that way is judged
    as the bytes it was; any other lone surrogate stands for no byte and no character, and is refused here.
    """
    if isinstance(source, str):
        try:
            source = source.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as error:
            return b"", (f"the file is not UTF-8 text: a lone surrogate U+{ord(source[error.start]):04X} at "
                         f"character {error.start}")
    if len(source) > MAX_SOURCE_BYTES:
        return source, f"the file is {len(source):,} bytes; the limit is {MAX_SOURCE_BYTES:,}"
    nul = source.find(b"\0")
    if nul >= 0:
        return source, f"the file contains a NUL byte at offset {nul}"
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as error:
        return source, f"the file is not UTF-8: byte 0x{source[error.start]:02x} at offset {error.start}"
    return source, None
