"""Sandboxes forked from the zygote: ready quickly, and nothing of one submission reaches the next (files, memory,
descriptors, random state), nor does a submission reach the zygote or a sandbox beside it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from runner import SandboxOptions
from runner.client import Harness
from runner.sandbox import zygote
from runner.sandbox.process import wait_released

from .conftest import judge_for_tests, requires_a_zygote, requires_bubblewrap, sandbox_uid

pytestmark = [pytest.mark.sandbox, requires_bubblewrap,
              requires_a_zygote]

# Uids of their own, as test_pool's: a neighbour's sandbox would otherwise take a uid handed back here.
OPTIONS = SandboxOptions(mode="bubblewrap", require=True, uid_base=63000)
MARKER_HALVES = ("zygote-test-", "marker-5f1c2e")

# Leaves a file in /tmp and /dev/shm, a marker in its memory (a global, the heap, a tensor) and descriptors open
# (a file, a socket, an eventfd); then reports its random draws and answers correctly.
LEAVES_STATE = r'''
import json, os, random, socket
import torch

MARKER = "%s" + "%s"
for folder in ("/tmp", "/dev/shm"):
    with open(f"{folder}/left-behind", "w") as handle:
        handle.write(MARKER)
KEPT = [MARKER * 1000, bytearray(MARKER.encode() * 100_000), torch.tensor(list(MARKER.encode()) * 1000)]
HANDLES = [open("/tmp/left-open", "w"), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM), os.eventfd(0)]
DRAWS = {"torch": torch.rand(4).tolist(), "python": random.random(), "torch_seed": torch.initial_seed()}


def softmax(x, dim=-1):
    shifted = x - x.amax(dim=dim, keepdim=True)
    return shifted.exp() / shifted.exp().sum(dim=dim, keepdim=True)
''' % MARKER_HALVES

LOOKS_AROUND = r'''
import json, os, random, re, stat
import torch

DRAWS = {"torch": torch.rand(4).tolist(), "python": random.random(), "torch_seed": torch.initial_seed()}
HALVES = (b"%s", b"%s")


def marker_in_memory():
    """Whether the marker is anywhere in this process's private writable memory; its two halves are never put
    together here, so only a copy left by another process could be found."""
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", buffering=0) as memory:
        for line in maps:
            fields = line.split()
            if fields[1] != "rw-p":
                continue
            start, end = (int(value, 16) for value in fields[0].split("-"))
            tail = b""
            for offset in range(start, end, 1 << 20):
                memory.seek(offset)
                try:
                    chunk = tail + memory.read(min(1 << 20, end - offset))
                except OSError:
                    break
                at = chunk.find(HALVES[0])
                while at >= 0:
                    if chunk[at + len(HALVES[0]):at + len(HALVES[0]) + len(HALVES[1])] == HALVES[1]:
                        return True
                    at = chunk.find(HALVES[0], at + 1)
                tail = chunk[-64:]
    return False


def descriptors():
    found = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            found[name] = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            pass
    return found


def softmax(x, dim=-1):
    processes = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                processes[name] = open(f"/proc/{name}/cmdline", "rb").read().replace(b"\0", b" ").decode()
            except OSError:
                processes[name] = None
    signalled = []
    for pid in range(1, 1 << 16):
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
            signalled.append(pid)
        except ProcessLookupError:
            pass
        except PermissionError:
            signalled.append(-pid)
    report = {
        "files": sorted(name for folder in ("/tmp", "/dev/shm") for name in os.listdir(folder)),
        "marker": marker_in_memory(), "descriptors": descriptors(), "draws": DRAWS, "processes": processes,
        "signalled": signalled, "unix": open("/proc/net/unix").read().splitlines()[1:], "uid": os.getuid(),
        "sockets": [fd for fd in range(1024) if _is_socket(fd)],
    }
    raise RuntimeError("LOOK" + json.dumps(report))


def _is_socket(fd):
    try:
        return stat.S_ISSOCK(os.fstat(fd).st_mode)
    except OSError:
        return False
''' % tuple(half.encode().decode() for half in MARKER_HALVES)


def _look(verdict) -> dict:
    message = verdict.tests[0].message
    return json.loads(message[message.rindex("LOOK") + 4:].splitlines()[0])


@pytest.fixture(scope="module")
def two_runs():
    """A submission that leaves everything it can behind, then one that looks for it, both forked from the same
    zygote, which a run before them started."""
    judge_for_tests("stable-softmax", LOOKS_AROUND, tests="sample", sandbox=OPTIONS)
    before = dict(zygote._zygotes)
    first = judge_for_tests("stable-softmax", LEAVES_STATE, tests="sample", sandbox=OPTIONS)
    second = judge_for_tests("stable-softmax", LOOKS_AROUND, tests="sample", sandbox=OPTIONS)
    third = judge_for_tests("stable-softmax", LOOKS_AROUND, tests="sample", sandbox=OPTIONS)
    assert dict(zygote._zygotes) == before, "the runs did not share one zygote"
    return first, _look(second), _look(third)


def test_every_run_is_forked_from_the_zygote_with_a_uid_of_its_own(two_runs):
    first, second, third = two_runs
    assert first.verdict == "accepted", first.tests
    assert "forked from a zygote" in first.sandbox
    assert second["uid"] >= 63000 and sandbox_uid(first) >= 63000


def test_files_left_in_tmp_and_dev_shm_are_gone_for_the_next_run(two_runs):
    _, second, _ = two_runs
    assert "left-behind" not in second["files"] and "left-open" not in second["files"]


def test_memory_of_a_run_is_absent_from_the_next(two_runs):
    _, second, _ = two_runs
    assert second["marker"] is False


def test_descriptors_of_a_run_are_not_open_in_the_next(two_runs):
    _, second, third = two_runs
    assert second["descriptors"].keys() == third["descriptors"].keys()
    assert not [target for target in second["descriptors"].values() if "left-open" in target
                or target.startswith("anon_inode:[eventfd]")]
    # Its stdio and its two pipes to the judge, and no socket at all: none to the zygote in particular.
    assert second["sockets"] == [] and second["unix"] == []


def test_each_child_draws_random_numbers_of_its_own(two_runs):
    _, second, third = two_runs
    for source in ("torch", "python", "torch_seed"):
        assert second["draws"][source] != third["draws"][source], source


def test_a_child_sees_and_signals_only_the_processes_of_its_own_sandbox(two_runs):
    _, second, _ = two_runs
    # Its init and inner monitor (the reapers, the init root's), and itself (a copy of the zygote, its command
    # line included); nothing of the zygote or a sibling.
    assert sorted(map(int, second["processes"])) == [1, 2, 3]
    assert [line for pid, line in second["processes"].items() if pid != "3" and "reaper.py" not in line] == []
    assert sorted(second["signalled"]) == [-1, 2]


def test_a_child_cannot_see_or_signal_the_zygote_or_a_sandbox_waiting_beside_it():
    """A sandbox waits, forked and ready, while another runs a submission that signals everything it can name."""
    waiting = Harness(OPTIONS, memory_limit_bytes=1 << 30, threads=1, gpu_index=None)
    try:
        waiting.wait_ready()
        verdict = judge_for_tests("stable-softmax", LOOKS_AROUND, tests="sample", sandbox=OPTIONS)
        seen = _look(verdict)
        assert sorted(map(int, seen["processes"])) == [1, 2, 3]
        assert sandbox_uid(verdict) != int(waiting.sandbox.rsplit("uid ", 1)[1].rstrip(")"))
        assert waiting.process.process.poll() is None
        states = {open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
                  for pid in _descendants(waiting.process.pid)}
        assert "T" not in states
    finally:
        waiting.close()


def test_forked_sandboxes_are_ready_in_well_under_a_cold_start():
    Harness(OPTIONS, memory_limit_bytes=1 << 30, threads=1, gpu_index=None).close()  # the zygote is up
    times = []
    for _ in range(5):
        started = time.monotonic()
        harness = Harness(OPTIONS, memory_limit_bytes=1 << 30, threads=1, gpu_index=None)
        try:
            harness.wait_ready()
            times.append(time.monotonic() - started)
        finally:
            harness.close()
    # A cold start imports torch, over a second of CPU; a fork is tens of milliseconds (bench/sandbox_start.py),
    # and a busy machine may stretch it several times over.
    assert sorted(times)[2] < 0.75, times


def test_the_zygote_dies_with_the_process_that_started_it():
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from runner import SandboxOptions; "
              "from runner.client import Harness; "
              "h = Harness(SandboxOptions(mode='bubblewrap', require=True, uid_base=63500), memory_limit_bytes=1 << 30,"
              " threads=1, gpu_index=None); h.wait_ready(); print(h.process.pid, flush=True); import time; "
              "time.sleep(600)")
    judge = subprocess.Popen([sys.executable, "-c", script, str(os.getcwd())], stdout=subprocess.PIPE, text=True)
    try:
        monitor = int(judge.stdout.readline())
        tree = _descendants(judge.pid)
        assert monitor in tree
    finally:
        judge.kill()
        judge.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{pid}") for pid in tree):
        time.sleep(0.05)
    assert [pid for pid in tree if os.path.exists(f"/proc/{pid}")] == []


def test_a_sandbox_asked_not_to_fork_starts_cold_and_says_so():
    verdict = judge_for_tests("stable-softmax", LOOKS_AROUND, tests="sample",
                              sandbox=SandboxOptions(mode="bubblewrap", require=True, uid_base=63000, zygote=False))
    assert "forked" not in verdict.sandbox and sandbox_uid(verdict) is not None
    wait_released()


def _descendants(root: int) -> list[int]:
    from runner.sandbox import procs

    return procs.descendants(root)
