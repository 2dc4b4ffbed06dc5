"""The one module of the web app that speaks to the judge engine (runner/): plain values in, plain values out.

It imports PyTorch (through runner), so only the worker side and sync_content import it; the web process
never does, which keeps its start-up and memory small.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import runner
import torch
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from runner import seeds
from runner.pool import WarmPool
from runner.sandbox import procs
from runner.verdict import ACCEPTED, INTERNAL_ERROR, PASSED, SKIPPED
from runner.version import current as current_judge_version

# GPU names by index, filled in by the worker from its self-check (which runs in a child process, so that the
# worker itself never initialises CUDA before it forks its pool).
DEVICE_NAMES: dict[int, str] = {}

RETRYABLE_VERDICTS = (INTERNAL_ERROR,)

# This process's warm pool (a worker's pool process starts one after the fork); None: every sandbox starts cold.
_pool: WarmPool | None = None


class JudgeUnavailable(Exception):
    """The judge cannot run here (no sandbox where one is required, no usable GPU, a missing package)."""


@dataclass(frozen=True)
class TestOutcome:
    """One test as the judge reported it, in the terms of a JudgementTest row."""

    __test__ = False  # a name pytest would otherwise collect

    index: int
    name: str
    status: str
    message: str = ""
    time_ms: float | None = None
    peak_bytes: int | None = None
    why: str = ""


@dataclass(frozen=True)
class Outcome:
    """A whole judgement, in the terms of the Judgement row: the row's judged fields, as plain values (the engine
    knows no model; tests/interview/test_judgement_schema.py keeps the two the same)."""

    verdict: str
    tests: list[TestOutcome]
    device: str
    device_name: str
    torch_version: str
    sandbox: str
    judge_version: str
    problem_version: str
    time_user_ms: float | None
    time_reference_ms: float | None
    time_ratio: float | None
    memory_user_peak_bytes: int | None
    memory_reference_peak_bytes: int | None
    memory_ratio: float | None
    stdout: str
    stderr: str
    seed_index: int | None = None  # the hidden seed the judge used; the submission keeps it for every later judge

    @property
    def retryable(self) -> bool:
        """The judge itself failed (never the submission's fault), so another attempt may succeed."""
        return self.verdict in RETRYABLE_VERDICTS

    def judgement_fields(self) -> dict:
        """The Judgement columns this outcome sets."""
        values = asdict(self)
        del values["tests"]
        return values


@dataclass(frozen=True)
class Package:
    """A problem package, as the database keeps it."""

    slug: str
    path: Path
    title: str
    difficulty: str
    tags: list[str]
    needs: str
    world_size: int
    threads: bool
    statement_markdown: str
    starter_code: str
    explanation_markdown: str
    tests: list[dict]
    limits: dict
    version: str


UNAVAILABLE = "unavailable"


@dataclass
class CheckResult:
    """A reference solution judged by the self-check."""

    slug: str
    verdict: str
    seconds: float
    message: str = ""
    ok: bool = field(init=False)

    def __post_init__(self) -> None:
        # A problem this machine cannot judge at all (a Triton kernel where Triton is not installed) leaves the
        # worker able to judge every other: it is reported, and does not fail the check.
        self.ok = self.verdict in (ACCEPTED, UNAVAILABLE)


# What a judge in two lanes takes from the pool (runner/judge.py, JudgeOptions.lanes): the first lane's user
# process, and the second's with the reference process its timed test needs. Only a pool that holds them all
# ready is asked for a second lane, since a process started cold costs more time than the lane saves.
LANE_PROCESSES = 3


def lanes(pool: WarmPool) -> int:
    """How many lanes the next judge may use: two while the pool holds LANE_PROCESSES ready, else one."""
    return 2 if pool.waiting() >= LANE_PROCESSES else 1


def sandbox_options() -> runner.SandboxOptions:
    """How judged code is isolated: a multi-user deployment refuses to judge without the real sandbox."""
    extra = {"state_dir": Path(settings.JUDGE_STATE_DIR)} if settings.JUDGE_STATE_DIR else {}
    if settings.JUDGE_CGROUP_ROOT:
        extra["cgroup_root"] = Path(settings.JUDGE_CGROUP_ROOT)
    return runner.SandboxOptions(require=settings.PRODUCTION, uid_base=settings.JUDGE_SANDBOX_UID_BASE, **extra)


def seed_key() -> bytes | None:
    """The hidden tests' seed key from JUDGE_SEED_KEY or JUDGE_SEED_KEY_FILE, which every worker of a deployment
    shares, so that a seed index means the same hidden inputs on every host. None where neither is set: the judge
    then keeps a key of its own under JUDGE_STATE_DIR, which serves one machine only and so is refused in
    production. ImproperlyConfigured when the key is missing there, unreadable, or not a key."""
    given, path = settings.JUDGE_SEED_KEY, settings.JUDGE_SEED_KEY_FILE
    if given and path:
        raise ImproperlyConfigured("set JUDGE_SEED_KEY or JUDGE_SEED_KEY_FILE, not both")
    if path:
        try:
            given = Path(path).read_text()
        except (OSError, UnicodeDecodeError) as error:
            raise ImproperlyConfigured(f"JUDGE_SEED_KEY_FILE={path}: cannot read it ({error})") from None
    if given:
        try:
            return seeds.key_from_hex(given)
        except ValueError as error:
            raise ImproperlyConfigured(f"{'JUDGE_SEED_KEY_FILE' if path else 'JUDGE_SEED_KEY'}: {error}") from None
    if settings.PRODUCTION:
        raise ImproperlyConfigured("JUDGE_SEED_KEY or JUDGE_SEED_KEY_FILE must be set for a judge worker when "
                                   "DJANGO_ENV=production: every worker of a deployment needs the same key")
    return None


def pool_start(*, device: str, gpu_index: int = 0) -> WarmPool | None:
    """Start this process's warm pool of JUDGE_POOL_SIZE sandboxes for device (none when the size is 0)."""
    global _pool
    pool_stop()
    if settings.JUDGE_POOL_SIZE > 0:
        _pool = WarmPool(sandbox_options(), size=settings.JUDGE_POOL_SIZE,
                         gpu_index=gpu_index if device == "cuda" else None,
                         idle=settings.JUDGE_POOL_IDLE_PRIORITY and procs.can_raise_priority())
    return _pool


def pool_stop() -> None:
    """Kill and reap the pool's waiting sandboxes; a process that is stopping calls it."""
    global _pool
    if _pool is not None:
        pool, _pool = _pool, None
        pool.close()


def pool_held():
    """A context in which the warm pool starts no refill: a worker holds it until the verdict is written."""
    return _pool.hold() if _pool is not None else contextlib.nullcontext()


def judge(*, slug: str, source: str, suite: str, device: str, gpu_index: int = 0, seed_index: int | None = None,
          on_test: Callable[[TestOutcome], None] | None = None) -> Outcome:
    """Judge source against the package slug on device; JudgeUnavailable when the judge cannot run at all.

    seed_index: the hidden seed an earlier judgement of the same submission used (None: the judge draws one,
    and the outcome says which)."""

    def forward(event: dict) -> None:
        if event["event"] == "test" and on_test is not None:
            on_test(TestOutcome(index=event["index"], name=event["name"], status=event["status"],
                                message=event["message"], time_ms=event["time_ms"], peak_bytes=event["peak_bytes"],
                                why=event.get("why", "")))

    pooled = {"start_harness": _pool.start_harness, "lanes": lanes(_pool)} if _pool is not None else {}
    options = runner.JudgeOptions(device=device, tests=suite, sandbox=sandbox_options(), gpu_index=gpu_index,
                                  seed_index=seed_index, secret_key=seed_key(), **pooled)
    try:
        problem = runner.load_problem(slug, settings.CONTENT_DIR)
        verdict = runner.judge(problem, source, options, on_event=forward)
    except (runner.JudgeError, runner.ProblemError) as error:
        raise JudgeUnavailable(str(error)) from None
    return Outcome(
        verdict=verdict.verdict,
        tests=[TestOutcome(index=index, name=test.name, status=test.status, message=test.message,
                           time_ms=test.time_ms, peak_bytes=test.peak_bytes, why=test.why)
               for index, test in enumerate(verdict.tests)],
        device=verdict.device,
        device_name=DEVICE_NAMES.get(gpu_index, "") if verdict.device == "cuda" else "",
        torch_version=torch.__version__,
        sandbox=verdict.sandbox,
        judge_version=verdict.judge_version,
        problem_version=verdict.problem_version,
        time_user_ms=verdict.time.user_ms,
        time_reference_ms=verdict.time.reference_ms,
        time_ratio=verdict.time.ratio,
        memory_user_peak_bytes=verdict.memory.user_peak_bytes,
        memory_reference_peak_bytes=verdict.memory.reference_peak_bytes,
        memory_ratio=verdict.memory.ratio,
        stdout=verdict.stdout,
        stderr=verdict.stderr,
        seed_index=verdict.seed_index,
    )


def judge_version() -> str:
    """The version of the judge this process runs, a hash of its code; every outcome it judges carries it."""
    return current_judge_version()


def runs_on(needs: str, device: str) -> bool:
    """Whether a problem that needs `needs` can be judged on `device` (cpu or cuda)."""
    return needs == "any" or (needs == "cuda") == (device == "cuda")


def self_check(*, device: str, gpu_index: int = 0,
               on_result: Callable[[CheckResult], None] | None = None) -> list[CheckResult]:
    """Judge every reference solution that can run on device with its sample tests; each must be accepted."""
    results = []
    packages, problems = load_packages(settings.CONTENT_DIR)
    results += [CheckResult(slug, "unloadable", 0.0, message) for slug, message in problems]
    for package in packages:
        if not runs_on(package.needs, device):
            continue
        started = time.monotonic()
        reference = (package.path / "reference.py").read_text()
        try:
            outcome = judge(slug=package.slug, source=reference, suite="sample", device=device, gpu_index=gpu_index)
        except JudgeUnavailable as error:
            result = CheckResult(package.slug, UNAVAILABLE, time.monotonic() - started, str(error))
        else:
            failed = next((test for test in outcome.tests if test.status not in (PASSED, SKIPPED)), None)
            message = f"{failed.name}: {failed.message}" if failed else ""
            result = CheckResult(package.slug, outcome.verdict, time.monotonic() - started, message)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def load_packages(content_dir: Path) -> tuple[list[Package], list[tuple[str, str]]]:
    """Every problem package under content_dir, and (slug, why) for each one that does not load."""
    packages, problems = [], []
    for toml in sorted(Path(content_dir).glob("*/problem.toml")):
        slug = toml.parent.name
        try:
            problem = runner.load_problem(slug, content_dir)
        except runner.ProblemError as error:
            problems.append((slug, str(error)))
            continue
        packages.append(Package(
            slug=problem.slug, path=problem.path, title=problem.title, difficulty=problem.difficulty,
            tags=list(problem.tags), needs=problem.needs, world_size=problem.world_size, threads=problem.threads,
            statement_markdown=(problem.path / "statement.md").read_text(),
            starter_code=(problem.path / "starter.py").read_text(),
            explanation_markdown=(problem.path / "explanation.md").read_text(),
            tests=[{"name": test.name, "sample": test.sample, "timed": test.timed} for test in problem.tests],
            limits=asdict(problem.limits), version=problem.version,
        ))
    return packages, problems
