"""The warm pool: one submission per process, refills after the judge, cold starts when empty, nothing left
behind, and a process that waited while another submission ran sees nothing of it."""

from __future__ import annotations

import json
import os
import time

import pytest

from runner import SandboxOptions
from runner.cache import ReferenceCache
from runner.pool import WarmPool
from runner.sandbox import procs
from runner.sandbox.process import wait_released

from .conftest import ROOT, judge_for_tests, requires_bubblewrap, sandbox_uid

pytestmark = [pytest.mark.sandbox, requires_bubblewrap, pytest.mark.slow]

# Uids of its own: the slot locks are shared with the other test processes, whose sandboxes would otherwise take
# a uid this module's sandbox has just handed back and pass for what it left behind.
OPTIONS = SandboxOptions(mode="bubblewrap", require=True, uid_base=62000)
REFERENCE = (ROOT / "problems" / "stable-softmax" / "reference.py").read_bytes()
READY_S = 180


@pytest.fixture
def make_pool():
    pools = []

    def make(size: int, **options) -> WarmPool:
        pool = WarmPool(OPTIONS, size=size, **options)
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        pool.close()


class Lending:
    """A start_harness that records every process the pool lends."""

    def __init__(self, pool: WarmPool):
        self.pool, self.lent, self.dynamo_warm_when_lent = pool, [], []

    def __call__(self, options, **settings):
        harness = self.pool.start_harness(options, **settings)
        self.lent.append(harness)
        self.dynamo_warm_when_lent.append(harness.dynamo_warm)
        return harness


def _judge(source, lending: Lending, **options):
    options.setdefault("tests", "sample")
    return judge_for_tests("stable-softmax", source, sandbox=OPTIONS, start_harness=lending, **options)


def _gone_within(pid: int, seconds: float) -> bool:
    """Whether pid leaves the process table within seconds. A process forked from the zygote is the zygote's
    child: it has ended once its pidfd says so, and leaves the table when the zygote reaps it, a moment later."""
    deadline = time.monotonic() + seconds
    while os.path.exists(f"/proc/{pid}"):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_each_pooled_process_judges_exactly_one_submission_and_is_gone_after_it(make_pool):
    pool = make_pool(2)
    assert pool.wait_full(READY_S)
    lending = Lending(pool)
    cache = ReferenceCache()
    first = _judge(REFERENCE, lending, cache=cache)
    assert pool.stats.lent_ready == 2, "the user's and the reference's process both come from the pool"
    # Refills begin once the first judge's processes have closed; on a busy machine a judge asking sooner
    # would get a cold start, which is the pool working, not what this test is about.
    assert pool.wait_full(READY_S)
    second = _judge(REFERENCE, lending, cache=cache)
    assert first.verdict == second.verdict == "accepted"
    assert pool.stats.cold == 0 and pool.stats.lent_ready == 3
    assert len({harness.process.pid for harness in lending.lent}) == len(lending.lent) == 3
    wait_released()
    for harness in lending.lent:
        assert harness.process.process.poll() is not None, "a lent process outlived its judge"
        assert _gone_within(harness.process.pid, 5)


def test_refills_wait_until_the_judge_is_done_and_the_pool_is_no_longer_held(make_pool):
    pool = make_pool(1)
    assert pool.wait_full(READY_S)
    lending = Lending(pool)
    during = []
    with pool.hold():
        verdict = _judge(REFERENCE, lending, on_event=lambda event: event["event"] == "test" and during.append(
            (pool.stats.started, pool.waiting())))
        time.sleep(0.5)
        assert pool.stats.started == 1, "a refill started while the pool was held"
    assert verdict.verdict == "accepted"
    assert set(during) == {(1, 0)}, "a refill started while the judge was running"
    assert pool.wait_full(READY_S) and pool.stats.started == 2


def test_a_refill_does_not_wait_for_a_hold_when_nobody_holds_the_pool(make_pool):
    pool = make_pool(1)
    assert pool.wait_full(READY_S)
    assert _judge(REFERENCE, Lending(pool)).verdict == "accepted"
    assert pool.wait_full(READY_S) and pool.stats.started == 2 and pool.waiting() == 1


def test_an_empty_pool_falls_back_to_a_cold_start(make_pool):
    pool = make_pool(0)
    lending = Lending(pool)
    assert _judge(REFERENCE, lending).verdict == "accepted"
    assert pool.stats.cold == 1 and pool.stats.started == 0


def test_a_judge_with_other_settings_than_the_pool_starts_cold(make_pool):
    pool = make_pool(1, threads=2)
    assert pool.wait_full(READY_S)
    assert _judge(REFERENCE, Lending(pool)).verdict == "accepted"
    assert pool.stats.cold == 1 and pool.stats.lent_ready == 0 and pool.waiting() == 1


def test_a_waiting_process_that_died_is_never_lent(make_pool):
    pool = make_pool(1)
    assert pool.wait_full(READY_S)
    waiting = pool._ready[0]
    waiting.process.kill()
    waiting.process.process.wait()
    lending = Lending(pool)
    assert _judge(REFERENCE, lending).verdict == "accepted"
    assert waiting not in lending.lent and pool.stats.cold == 1


def test_a_process_lent_while_still_starting_finishes_its_start_for_the_judge(make_pool):
    pool = make_pool(1)
    deadline = time.monotonic() + 30
    while pool._starting is None and pool.waiting() == 0:
        assert time.monotonic() < deadline, "the pool never began a start"
        time.sleep(0.01)
    lending = Lending(pool)
    assert _judge(REFERENCE, lending).verdict == "accepted"
    assert pool.stats.lent_starting + pool.stats.lent_ready == 1 and pool.stats.cold == 0


def test_refills_import_dynamo_after_a_judge_that_asked_for_it_and_not_after_one_that_did_not(make_pool):
    pool = make_pool(2)
    lending = Lending(pool)
    # Only the user's code names what imports torch._dynamo; the reference's process is not asked to.
    names_checkpointing = REFERENCE + b"\n# torch.utils.checkpoint: not used\n"
    for source in (names_checkpointing, REFERENCE, REFERENCE):
        assert pool.wait_full(READY_S)
        assert _judge(source, lending, cache=ReferenceCache()).verdict == "accepted"
    assert lending.dynamo_warm_when_lent == [False, False, True, True, False, False]
    assert [harness.dynamo_used for harness in lending.lent] == [True, False, False, False, False, False]


@pytest.mark.skipif(not procs.can_raise_priority(), reason="needs CAP_SYS_NICE to undo an idle start")
def test_a_refill_waits_under_sched_idle_and_is_lent_under_the_normal_policy(make_pool):
    pool = make_pool(1, idle=True)
    assert pool.wait_full(READY_S)
    waiting = pool._ready[0]
    policies = {os.sched_getscheduler(int(task)) for pid in procs.descendants(waiting.process.pid)
                for task in procs.HOST.tasks(pid)}
    assert policies == {os.SCHED_IDLE}
    harness = pool.start_harness(OPTIONS, memory_limit_bytes=1 << 30, threads=1, gpu_index=None)
    try:
        policies = {os.sched_getscheduler(int(task)) for pid in procs.descendants(harness.process.pid)
                    for task in procs.HOST.tasks(pid)}
        assert policies == {os.SCHED_OTHER}
        assert harness.process.memory_limit_bytes == 1 << 30
    finally:
        harness.close()


def test_closing_the_pool_kills_and_reaps_every_waiting_process(make_pool):
    pool = make_pool(2)
    assert pool.wait_full(READY_S)
    waiting = list(pool._ready)
    pids = [pid for harness in waiting for pid in procs.descendants(harness.process.pid)]
    uids = [int(harness.sandbox.rsplit("uid ", 1)[1].rstrip(")")) for harness in waiting
            if "(uid " in harness.sandbox]
    assert len(pids) >= 2 * 3
    pool.close()
    assert not pool._thread.is_alive()
    assert [pid for pid in pids if not _gone_within(pid, 5)] == [], "a pooled process (or a zombie) outlived the pool"
    for uid in uids:
        assert procs.owned_by(uid) == []


# Leaves files, tries to leave a thread and a detached process that stops every other process it can name;
# then works.
LEAVES_TRACES = r'''
import os, signal, threading, time

HARNESS = os.getpid()
for folder in ("/tmp", "/dev/shm"):
    with open(f"{folder}/left-behind", "w") as handle:
        handle.write("previous submission")
try:
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
except RuntimeError:  # the judge refuses threads on the CPU; one that got through must leave no trace either
    pass
try:
    child = os.fork()
except PermissionError:  # the judge refuses new processes; one that got through must leave no trace either
    child = None
if child == 0:
    os.setsid()
    if os.fork() == 0:
        for pid in [int(name) for name in os.listdir("/proc") if name.isdigit()]:
            if pid not in (os.getpid(), HARNESS):
                try:
                    os.kill(pid, signal.SIGSTOP)
                except OSError:
                    pass
        time.sleep(600)
    os._exit(0)


def softmax(x, dim=-1):
    shifted = x - x.amax(dim=dim, keepdim=True)
    return shifted.exp() / shifted.exp().sum(dim=dim, keepdim=True)
'''

LOOKS_AROUND = r'''
import json, os, threading


def softmax(x, dim=-1):
    report = {
        "files": sorted(name for folder in ("/tmp", "/dev/shm") for name in os.listdir(folder)),
        "pids": sorted(int(name) for name in os.listdir("/proc") if name.isdigit()),
        "threads": len(os.listdir("/proc/self/task")),
        "states": sorted(open(f"/proc/{name}/stat").read().split(")")[1].split()[0]
                         for name in os.listdir("/proc") if name.isdigit()),
        "uid": os.getuid(),
    }
    raise RuntimeError("LOOK" + json.dumps(report))
'''


def _look(verdict) -> dict:
    message = verdict.tests[0].message
    return json.loads(message[message.rindex("LOOK") + 4:].splitlines()[0])


def test_a_pooled_process_that_waited_through_another_submission_sees_nothing_of_it(make_pool):
    baseline = _look(judge_for_tests("stable-softmax", LOOKS_AROUND, tests="sample", sandbox=OPTIONS))
    pool = make_pool(2)
    assert pool.wait_full(READY_S)
    lending = Lending(pool)
    # Held as a worker holds it: a refill started after the first judge could take the uid it handed back.
    with pool.hold():
        first = _judge(LEAVES_TRACES, lending)
        second = _judge(LOOKS_AROUND, lending)
        wait_released()
        leftovers = procs.owned_by(sandbox_uid(first)) if sandbox_uid(first) is not None else []
    assert pool.stats.lent_ready == 2, "both submissions must run in processes started before the first ran"
    assert first.verdict == "accepted", first.tests
    seen = _look(second)
    # A cold sandbox's /tmp holds only the mount points of bound paths that lie under /tmp (a checkout there).
    assert seen["files"] == baseline["files"]
    assert seen["pids"] == baseline["pids"] and seen["threads"] == baseline["threads"]
    assert "T" not in seen["states"], "a process of the next sandbox was stopped by the previous submission"
    if sandbox_uid(first) is not None:
        assert sandbox_uid(first) != sandbox_uid(second) and leftovers == []
