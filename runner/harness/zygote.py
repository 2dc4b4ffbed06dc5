"""The zygote: one process that imports torch and pays its first-use costs once, and forks each sandbox of a
judging process from that state (runner/sandbox/zygote.py is its trusted side).

It runs as root in a bubblewrap sandbox of its own (runner/sandbox/bwrap.py, zygote_command): the read-only
view, cleared environment and namespaces a sandbox gets, with only the capabilities a child needs to build
its own isolation, and no seccomp filter (the filter denies the very calls that build it). It never runs
submission code and holds nothing secret: every child forks from it, never from a process that ran anything
else, so nothing of one submission can reach the next. It is single-threaded whenever it forks: its warm-up
runs on one thread, so torch's intra-op pool never starts, and a fork is refused while another thread exists.

Requests come over a Unix socket, one at a time: a JSON object with the child's settings and, as SCM_RIGHTS,
the child's pipes (requests, responses, stdout, stderr, and its exit status); the answer is a pidfd of the
child's first process. A child is four processes, shaped as bubblewrap's are as root (pids as the child's
own pid namespace numbers them):

- the monitor, outside: new mount, pid, network, IPC, UTS and cgroup namespaces; /tmp, /dev/shm and /dev/pts
  mounted afresh and the zygote's /proc unmounted; the loopback up. It waits for the init and writes its
  status to the status pipe (the trusted side is not its parent).
- the init (pid 1): mounts the namespace's /proc, forks the inner monitor, drops every capability and becomes
  the reaper (reaper.py), staying uid 0 as bubblewrap's init does.
- the inner monitor (pid 2): the slot's uid and gid and no other group, an empty capability bounding set, a
  user namespace in which no further one can be made (bubblewrap's --disable-userns), no capabilities; forks
  the harness, takes the sandbox's seccomp filter and becomes the reaper. A submission that kills it takes
  its own process down with it, as with bubblewrap's inner monitor.
- the harness (pid 3): every descriptor closed but its stdio and pipes, the sandbox's seccomp filter, its
  random states drawn afresh from the kernel, then it serves as a harness started afresh does.

Each process dies with its parent (PR_SET_PDEATHSIG), and the monitor with the zygote, which exits once the
trusted side's end of its socket closes.
"""

from __future__ import annotations

import atexit
import ctypes
import errno
import fcntl
import gc
import json
import os
import random
import signal
import socket
import struct
import sys
import traceback

import torch

from . import confine, serve
from .limits import close_descriptors_but

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x20, 0x1000, 0x4000, 0x40000
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP = 1, 4, 24
LINUX_CAPABILITY_VERSION_3 = 0x20080522
LAST_CAPABILITY = 63  # beyond the kernel's last, PR_CAPBSET_DROP fails with EINVAL
SIOCSIFFLAGS = 0x8914
IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x1, 0x8, 0x40
# What bubblewrap covers read-only in a procfs it mounts (bubblewrap.c, cover_proc_dirs). It names /proc/sys
# too, but only where writable, which it never is: a sysctl directory's mode binds root as well. The inner
# monitor sets its user namespace's max_user_namespaces there.
COVERED_PROC_PATHS = ("/proc/sysrq-trigger", "/proc/irq", "/proc/bus")
# Mounts of the zygote's sandbox that each child replaces with its own.
PRIVATE_MOUNTS = ("/proc", "/tmp", "/dev/shm", "/dev/pts")
REAPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reaper.py")
PIPES = ("requests", "responses", "stdout", "stderr", "status")
MAX_MESSAGE_BYTES = 1 << 16

libc = confine.c_library()


def main(argv: list[str]) -> None:
    """argv: the control socket's descriptor, then that of the sandbox's seccomp program."""
    control = socket.socket(fileno=int(argv[0]))
    with os.fdopen(int(argv[1]), "rb") as source:
        program = source.read()
    torch.set_num_threads(1)
    serve.warm_up(torch.device("cpu"))
    # What torch's import made, out of every child's collections: a collection would walk those objects again in
    # each child, and its writes to their headers would copy the pages that hold them, which are shared till then.
    gc.freeze()
    # Nothing a child may write: its own cwd is set after its /tmp is.
    os.chdir("/")
    control.send(json.dumps({"type": "ready", "torch": torch.__version__}).encode())
    # A monitor that has exited is collected at once: a zombie would pass for a sandbox process still there.
    signal.signal(signal.SIGCHLD, lambda number, frame: _reap())
    dynamo = False
    while True:
        message, fds, _, _ = socket.recv_fds(control, MAX_MESSAGE_BYTES, len(PIPES))
        if not message:
            return
        pidfd = None
        try:
            request = json.loads(message)
            if request.get("dynamo") and not dynamo:
                serve.warm_up_dynamo(torch.device("cpu"))
                dynamo = True
                gc.freeze()
            if len(fds) != len(PIPES):
                raise ValueError(f"{len(fds)} descriptors came with the request, not {len(PIPES)}")
            threads = len(os.listdir("/proc/self/task"))
            if threads != 1:
                raise RuntimeError(f"{threads} threads: a forked child would inherit their locks, held or not")
            # Not collected before it has a pidfd, however soon it exits.
            unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
            try:
                pid = _fork(lambda: _monitor(request, dict(zip(PIPES, fds)), program))
                pidfd = os.pidfd_open(pid)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
            answer = {"pid": pid}
        except Exception as error:  # noqa: BLE001 - the trusted side falls back to a cold start, and says why
            answer = {"error": f"{type(error).__name__}: {error}"}
        finally:
            for fd in fds:
                os.close(fd)
        socket.send_fds(control, [json.dumps(answer).encode()], [pidfd] if pidfd is not None else [])
        if pidfd is not None:
            os.close(pidfd)


def _reap() -> None:
    """Collect the monitors that have exited (the trusted side holds their pidfds, which outlive them)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _fork(child) -> int:
    """Fork, the child running child() and never returning here; its pid. A child whose parent is gone before
    it could ask to die with it exits at once."""
    parent = os.getpid()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    pid = os.fork()
    if pid != 0:
        return pid
    try:
        _die_with_parent(parent)
        child()
    except BaseException:  # noqa: BLE001 - whatever failed, the child must not return into its parent's loop
        traceback.print_exc()
    finally:
        os._exit(127)


def _die_with_parent(parent: int) -> None:
    """SIGKILL when the parent exits (a change of uid undoes it: asked again after one), or at once if it has."""
    _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")
    # A process's first child in a new pid namespace sees its parent, outside, as pid 0.
    if os.getppid() not in (parent, 0):
        os._exit(1)


def _monitor(request: dict, pipes: dict[str, int], program: bytes) -> None:
    # The zygote's way with its children is not this process's: it waits for its own.
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    os.setsid()
    if request.get("idle"):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    null = os.open("/dev/null", os.O_RDWR)
    for fd, source in ((0, null), (1, pipes["stdout"]), (2, pipes["stderr"])):
        os.dup2(source, fd)
    close_descriptors_but(0, 1, 2, pipes["requests"], pipes["responses"], pipes["status"])
    namespaces = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    if libc.unshare(namespaces | CLONE_NEWCGROUP) != 0:  # a kernel without cgroup namespaces
        _check(libc.unshare(namespaces), "unshare")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    for point in PRIVATE_MOUNTS:
        _check(libc.umount2(point.encode(), MNT_DETACH), f"umount {point}")
    _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={int(request['tmp_bytes'])}")
    _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={int(request['shm_bytes'])}")
    _mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620")
    # The zygote's cwd would otherwise stay the cwd of everything below, on a mount no child may keep.
    os.chdir("/tmp")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        fcntl.ioctl(probe, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING))
    init = _fork(lambda: _init(request, pipes, program))
    close_descriptors_but(pipes["status"])
    _, status = os.waitpid(init, 0)
    os.write(pipes["status"], f"{os.waitstatus_to_exitcode(status)}\n".encode())


def _init(request: dict, pipes: dict[str, int], program: bytes) -> None:
    os.close(pipes["status"])
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for path in COVERED_PROC_PATHS:
        if os.path.exists(path):
            _mount(path, path, None, MS_BIND | MS_REC)
            _mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
    inner = _fork(lambda: _inner_monitor(request, pipes, program))
    _clear_bounding_set()
    _clear_capabilities()
    _become_reaper(inner)


def _inner_monitor(request: dict, pipes: dict[str, int], program: bytes) -> None:
    uid = int(request["uid"])
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    _clear_bounding_set()
    # Leaving uid 0 clears every capability left (no PR_SET_KEEPCAPS). It also makes the process undumpable,
    # its /proc files root's, which the exec after setpriv undoes for bubblewrap's harness: so does this.
    os.setresuid(uid, uid, uid)
    _check(libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "PR_SET_DUMPABLE")
    _enter_user_namespace(uid)
    with open("/proc/sys/user/max_user_namespaces", "w") as limit:
        limit.write("1")
    _enter_user_namespace(uid)
    if libc.unshare(CLONE_NEWUSER) == 0:
        raise RuntimeError("user namespaces were not disabled")
    # A new user namespace comes with every capability in it and a full bounding set.
    _clear_bounding_set()
    _clear_capabilities()
    harness = _fork(lambda: _harness(request, pipes, program))
    _die_with_parent(1)  # the namespace's init
    confine.install_filter(libc, program)
    _become_reaper(harness)


def _harness(request: dict, pipes: dict[str, int], program: bytes) -> None:
    close_descriptors_but(0, 1, 2, pipes["requests"], pipes["responses"])
    confine.install_filter(libc, program)
    if request.get("probe"):
        os._exit(0)
    _reseed()
    try:
        serve.serve_forked(pipes["requests"], pipes["responses"])
        code = 0
    except SystemExit as leaving:
        code = 0 if leaving.code is None else leaving.code
        if not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001 - reported as an interpreter reports what nothing caught
        traceback.print_exc()
        code = 1
    # As the interpreter of a harness started afresh ends: its exit handlers, its streams flushed.
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - the submission may have replaced or closed the streams
            pass
    os._exit(code)


def _reseed() -> None:
    """Random states of its own: a child starts from the zygote's, the same in every child."""
    random.seed(os.urandom(32))
    torch.manual_seed(int.from_bytes(os.urandom(8), "little"))
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(int.from_bytes(os.urandom(4), "little"))


def _become_reaper(child: int) -> None:
    """Replace this process (a copy of the zygote, all of torch resident) with the small reaper."""
    close_descriptors_but(0, 1, 2)
    os.execv(sys.executable, [sys.executable, "-I", "-S", REAPER, str(child)])


def _enter_user_namespace(uid: int) -> None:
    """A new user namespace in which uid and its group are themselves, and setgroups is denied."""
    _check(libc.unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{uid} {uid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)


def _clear_bounding_set() -> None:
    for capability in range(LAST_CAPABILITY + 1):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 and ctypes.get_errno() != errno.EINVAL:
            _check(-1, f"dropping capability {capability} from the bounding set")


def _clear_capabilities() -> None:
    header = (ctypes.c_uint32 * 2)(LINUX_CAPABILITY_VERSION_3, 0)
    _check(libc.capset(header, (ctypes.c_uint32 * 6)()), "capset")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    arguments = [None if value is None else value.encode() for value in (source, target, fstype)]
    _check(libc.mount(*arguments, ctypes.c_ulong(flags), None if data is None else data.encode()), f"mount {target}")


def _check(result: int, what: str) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


if __name__ == "__main__":
    main(sys.argv[1:])
