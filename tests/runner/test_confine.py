"""What the harness puts on itself before a submission loads, probed in a process of its own: no new
processes, threads still, no writes outside the sandbox's tmpfs (so no reset of the peak the judge reads),
and forbidden operators refused on every thread."""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys

import pytest

from runner.harness import confine

from .conftest import ROOT

PROBE = r'''
import json, mmap, os, threading
import torch
from runner.harness import confine
from runner.harness.forbid import ForbiddenKernels

kernels = ForbiddenKernels(["aten::_softmax"])
confine.apply(device="cpu", processes=False, shared_memory=False)
report = {}


def attempt(name, call):
    try:
        call()
        report[name] = "done"
    except BaseException as error:  # noqa: BLE001
        report[name] = f"{type(error).__name__}: {error}"
        report[name + " note"] = confine.refusal_note(error)


def on_a_thread(name, call):
    worker = threading.Thread(target=attempt, args=(name, call))
    worker.start()
    worker.join()


def write(path):
    with open(path, "w") as handle:
        handle.write("5")


attempt("fork", os.fork)
attempt("subprocess", lambda: __import__("subprocess").run(["/bin/true"]))
on_a_thread("thread", lambda: None)
on_a_thread("fork from a thread", os.fork)
attempt("memfd", lambda: os.memfd_create("held"))
attempt("shared anonymous mapping", lambda: mmap.mmap(-1, 4096))
attempt("private anonymous mapping", lambda: mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS))
with open("/tmp/judge-confine-mapped", "wb") as handle:
    handle.write(bytes(4096))
with open("/tmp/judge-confine-mapped", "r+b") as handle:
    attempt("shared file mapping", lambda: mmap.mmap(handle.fileno(), 4096))
    attempt("private file mapping", lambda: mmap.mmap(handle.fileno(), 4096, flags=mmap.MAP_PRIVATE))
os.unlink("/tmp/judge-confine-mapped")
attempt("clear_refs", lambda: write("/proc/self/clear_refs"))
on_a_thread("clear_refs from a thread", lambda: write("/proc/self/clear_refs"))
attempt("file in /tmp", lambda: write("/tmp/judge-confine-probe"))
attempt("/dev/null", lambda: write("/dev/null"))
attempt("/dev/zero for writing", lambda: write("/dev/zero"))
attempt("a matmul", lambda: torch.randn(64, 64) @ torch.randn(64, 64))
on_a_thread("softmax on a thread", lambda: torch.softmax(torch.randn(3, 4), -1))
report["forbidden seen"] = kernels.take()
report["seccomp filters"] = open("/proc/self/status").read().split("Seccomp_filters:")[1].split()[0]
os.unlink("/tmp/judge-confine-probe")
print(json.dumps(report))
'''


def _landlock() -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.syscall(confine.LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), 1) >= 1


@pytest.fixture(scope="module")
def report():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_no_new_process_can_be_started_from_any_thread(report):
    for name in ("fork", "subprocess", "fork from a thread"):
        assert report[name].startswith("PermissionError"), report[name]
        assert "runs in this one process" in report[name + " note"]
    assert report["thread"] == "done"


def test_memory_the_watchdog_cannot_count_is_refused_and_ordinary_memory_is_not(report):
    assert report["memfd"].startswith("PermissionError")
    assert report["shared anonymous mapping"].startswith("PermissionError")
    assert report["private anonymous mapping"] == "done"
    assert report["shared file mapping"].startswith("PermissionError")
    assert report["private file mapping"] == "done"
    assert report["a matmul"] == "done"


@pytest.mark.skipif(not _landlock(), reason="this kernel has no Landlock")
def test_the_peak_the_judge_reads_cannot_be_reset_from_any_thread(report):
    for name in ("clear_refs", "clear_refs from a thread"):
        assert report[name].startswith("PermissionError"), report[name]


@pytest.mark.skipif(not _landlock(), reason="this kernel has no Landlock")
def test_writes_go_to_the_sandbox_s_tmpfs_and_dev_null_only(report):
    assert report["file in /tmp"] == "done"
    assert report["/dev/null"] == "done"
    assert report["/dev/zero for writing"].startswith("PermissionError")


def test_a_forbidden_operator_on_another_thread_is_refused_and_recorded(report):
    assert "aten::_softmax.default is forbidden" in report["softmax on a thread"]
    assert report["forbidden seen"] == ["aten::_softmax.default"]


def test_the_filter_is_in_force_on_the_process(report):
    assert int(report["seccomp filters"]) >= 1


# With threads off (every problem of one process on the CPU): the program runs on the calling thread alone, and
# what a judged call does without starting a thread still works.
ONE_THREAD_PROBE = r'''
import json, threading
import torch
import torch.utils.checkpoint
from runner.harness import confine

layer = torch.nn.Linear(8, 8)
confine.apply(device="cpu", processes=False, shared_memory=False, threads=False)
report = {"threads before": len(__import__("os").listdir("/proc/self/task"))}
try:
    threading.Thread(target=lambda: None).start()
    report["thread"] = "done"
except RuntimeError as error:
    report["thread"] = str(error)
    report["thread note"] = confine.refusal_note(error)
x = torch.randn(4, 8, requires_grad=True)
torch.utils.checkpoint.checkpoint(layer, x, use_reentrant=False).sum().backward()
torch.utils.checkpoint.checkpoint(layer, x, use_reentrant=True).sum().backward()
torch.autograd.grad(layer(x).square().sum(), x, create_graph=True)[0].sum().backward()
report["backward"] = x.grad.shape == x.shape
report["threads"] = len(__import__("os").listdir("/proc/self/task"))
print(json.dumps(report))
'''


def test_with_threads_off_no_thread_starts_and_autograd_still_works():
    result = subprocess.run([sys.executable, "-c", ONE_THREAD_PROBE], capture_output=True, text=True, cwd=ROOT,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["thread"] == "can't start new thread"
    assert "runs on the thread that calls it" in report["thread note"]
    assert report["backward"] is True
    assert report["threads"] == report["threads before"]
