"""What a submission sees from inside the sandbox, asked by a probe that reports through its error message."""

from __future__ import annotations

import errno
import json
import os

import pytest

from runner import JudgeError, SandboxOptions
from runner.sandbox import bwrap

from .conftest import forks_from_a_zygote, judge_for_tests, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, requires_bubblewrap]

PROBE = r'''
import ctypes, json, os, resource, socket

def softmax(x, dim=-1):
    status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    try:
        fd = os.memfd_create("probe")
        os.close(fd)
        memfd = True
    except OSError:
        memfd = False
    try:
        if os.fork() == 0:
            os._exit(0)
        fork_errno = 0
    except OSError as error:
        fork_errno = error.errno
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        clear_refs_errno = 0
    except OSError as error:
        clear_refs_errno = error.errno
    left, right = socket.socketpair(socket.AF_UNIX)
    left.close(); right.close()
    with open("/proc/net/dev") as handle:
        interfaces = sorted(line.split(":")[0].strip() for line in handle.readlines()[2:])
    try:
        with open("/usr/probe-write", "w"):
            pass
        root_writable = True
    except OSError:
        root_writable = False
    with open("/tmp/probe-write", "w") as handle:
        handle.write("private")
    pdeathsig = ctypes.c_int()
    ctypes.CDLL(None).prctl(2, ctypes.byref(pdeathsig), 0, 0, 0)  # PR_GET_PDEATHSIG
    report = {
        "uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(), "groups": os.getgroups(),
        "cap_eff": status["CapEff"].strip(), "cap_bnd": status["CapBnd"].strip(),
        "cap_prm": status["CapPrm"].strip(), "no_new_privs": status["NoNewPrivs"].strip(),
        "seccomp": status["Seccomp"].strip(), "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0],
        "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0], "core": resource.getrlimit(resource.RLIMIT_CORE)[0],
        "address_space": resource.getrlimit(resource.RLIMIT_AS)[0],
        "oom_score_adj": open("/proc/self/oom_score_adj").read().strip(), "hostname": socket.gethostname(),
        "pid": os.getpid(), "interfaces": interfaces, "root_entries": sorted(os.listdir("/")),
        "environment": sorted(os.environ), "memfd": memfd, "root_writable": root_writable,
        "seccomp_filters": int(status["Seccomp_filters"]), "fork_errno": fork_errno,
        "clear_refs_errno": clear_refs_errno,
        "unshare_user_errno": (ctypes.CDLL(None, use_errno=True).unshare(0x10000000), ctypes.get_errno())[1],
        "uid_map": open("/proc/self/uid_map").read().split(), "cwd": os.getcwd(), "ppid": os.getppid(),
        "pdeathsig": pdeathsig.value,
        "tmp_files": sorted(os.listdir("/tmp")), "shm_files": sorted(os.listdir("/dev/shm")),
    }
    raise RuntimeError("PROBE" + json.dumps(report))
'''


@pytest.fixture(scope="module", params=["forked", "cold"])
def inside(request):
    """The probe's report, from a sandbox forked from the zygote (as root) and from one started cold."""
    options = SandboxOptions(mode="bubblewrap", require=True, zygote=request.param == "forked")
    verdict = judge_for_tests("stable-softmax", PROBE, tests="sample", sandbox=options)
    message = verdict.tests[0].message
    return json.loads(message[message.rindex("PROBE") + 5:].splitlines()[0]), verdict


def test_the_submission_runs_as_an_unprivileged_uid_without_capabilities(inside):
    report, verdict = inside
    assert report["uid"] != 0 and report["euid"] != 0
    if os.geteuid() == 0:
        assert report["uid"] >= 60000 and f"uid {report['uid']}" in verdict.sandbox
    assert report["cap_eff"] == report["cap_prm"] == report["cap_bnd"] == "0000000000000000"
    assert report["no_new_privs"] == "1"
    assert report["seccomp"] == "2"


def test_limits_are_in_force_before_the_submission_runs(inside):
    report, _ = inside
    assert 0 < report["nproc"] <= 100_000
    assert report["nofile"] == 512 and report["core"] == 0
    assert report["address_space"] != -1
    assert report["oom_score_adj"] == "1000"


def test_the_network_is_only_an_empty_loopback(inside):
    report, _ = inside
    assert report["interfaces"] == ["lo"]


def test_the_filesystem_is_read_only_and_holds_no_repository(inside):
    report, _ = inside
    assert not report["root_writable"]
    # Besides the system's own, only the top folders of the interpreter's binds (wherever the checkout lives).
    interpreter_tops = {path.split("/")[1] for path in bwrap.interpreter_paths()}
    assert set(report["root_entries"]) <= {"bin", "dev", "etc", "judge", "lib", "lib32", "lib64", "libx32", "proc",
                                           "sbin", "sys", "tmp", "usr"} | interpreter_tops
    assert not os.path.exists("/tmp/probe-write")


def test_the_environment_holds_nothing_but_what_python_needs(inside):
    report, _ = inside
    # TORCHINDUCTOR_CACHE_DIR names the folder importing torch._dynamo makes, the same for every uid;
    # TRITON_INTERPRET runs a kernel problem's kernels through Triton's interpreter where there is no GPU.
    assert set(report["environment"]) <= {"PATH", "HOME", "LANG", "PYTHONPATH", "PYTHONUNBUFFERED",
                                          "PYTHONDONTWRITEBYTECODE", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                          "LD_LIBRARY_PATH", "PWD", "TORCHINDUCTOR_CACHE_DIR", "TRITON_INTERPRET"}


def test_namespaces(inside):
    report, _ = inside
    assert report["hostname"] == "judge"
    assert report["pid"] < 50  # its own pid namespace
    assert report["unshare_user_errno"] == 1  # EPERM
    # A user namespace of its own, in which only its uid is mapped, and only to itself.
    assert report["uid_map"] == [str(report["uid"]), str(report["uid"]), "1"]


def test_the_harness_starts_in_a_private_tmp_and_dies_with_its_parent(inside, request):
    report, verdict = inside
    assert report["cwd"] == "/tmp" and report["shm_files"] == []
    assert "probe-write" in report["tmp_files"]
    assert report["ppid"] == 2 and report["pdeathsig"] == 9
    forked = request.node.callspec.params["inside"] == "forked" and forks_from_a_zygote()
    assert ("forked from a zygote" in verdict.sandbox) == forked, verdict.sandbox


def test_the_submission_runs_under_the_harness_s_confinement_too(inside):
    """Beside the sandbox's filter, the one the harness puts on itself before the load (runner/harness/confine.py):
    no new process, no memfd on the CPU (a CUDA run keeps it), and no reset of the peak resident set the judge
    reads (Landlock)."""
    report, _ = inside
    assert report["seccomp_filters"] >= 2
    assert report["fork_errno"] == errno.EPERM
    assert not report["memfd"]
    assert report["clear_refs_errno"] == errno.EACCES


def test_the_plain_fallback_says_so_and_still_judges():
    verdict = judge_for_tests("stable-softmax", _reference(), tests="sample", sandbox=SandboxOptions(mode="plain"))
    assert verdict.verdict == "accepted", verdict.tests
    assert verdict.sandbox.startswith("plain-process (no isolation")


def test_a_required_sandbox_refuses_to_judge_without_bubblewrap():
    with pytest.raises(JudgeError, match="refusing to judge without the sandbox"):
        judge_for_tests("stable-softmax", _reference(), tests="sample",
                        sandbox=SandboxOptions(bwrap="/nonexistent/bwrap", require=True))
    with pytest.raises(JudgeError, match="required"):
        judge_for_tests("stable-softmax", _reference(), tests="sample",
                        sandbox=SandboxOptions(mode="plain", require=True))


def test_without_bubblewrap_auto_falls_back_to_a_plain_process():
    verdict = judge_for_tests("stable-softmax", _reference(), tests="sample",
                              sandbox=SandboxOptions(bwrap="/nonexistent/bwrap"))
    assert verdict.verdict == "accepted"
    assert verdict.sandbox.startswith("plain-process")


def _reference() -> bytes:
    from .conftest import ROOT

    return (ROOT / "problems" / "stable-softmax" / "reference.py").read_bytes()


def test_captured_output_keeps_no_nul_character_since_a_database_text_column_cannot_hold_one():
    import os

    from runner.sandbox.process import CapturedOutput

    read_end, write_end = os.pipe()
    captured = CapturedOutput(os.fdopen(read_end, "rb"))
    os.write(write_end, b"before\0after\n")
    os.close(write_end)
    captured.drain()
    assert captured.text() == "before\ufffdafter\n"
