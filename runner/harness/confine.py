"""What the harness puts on itself just before a submission loads: a seccomp filter and a Landlock ruleset.

Both are set while only trusted code has run, follow every thread the submission starts, and cannot be
lifted again. The policy comes from the judge in the load request (runner/judging/sandboxes.py), never from
the submission:

- processes: a judged program runs in the processes the harness started (one, or one per rank, all started
  before the load), so fork, vfork and clone without CLONE_THREAD fail with EPERM, and clone3 with ENOSYS so
  that glibc falls back to clone, whose flags a filter can read. Work in a child would be out of the judge's
  sight: a child reaped by the kernel (SIGCHLD ignored) leaves its CPU time and memory in no process's count.
- threads: where `threads` is off, clone with CLONE_THREAD fails too, so the program runs on the thread that
  calls it and no other. What the harness and a problem's driver count inside the process (operators, live
  tensor bytes, saved tensors, a wrapped block's runs) is seen through dispatch modes and autograd settings,
  which are thread-local: work on a thread the submission started would be out of their sight. The judge
  turns threads off wherever it can (runner/judging/sandboxes.py): every problem run in one process on the
  CPU. Ranks need threads after the load (gloo's, for every group a test makes), and a GPU run needs the
  driver's.
- memory: what a program holds must be where the judge's watchdog counts it (resident memory, the sandbox's
  tmpfs mounts, TCP and UDP queues; runner/sandbox/process.py). So System V shared memory, semaphores and
  message queues, POSIX message queues, memfd_secret, vmsplice, splice and tee, growing a pipe
  (F_SETPIPE_SZ), raising a socket's buffers (SO_SNDBUF, SO_RCVBUF) and socket families other than Unix,
  IPv4, IPv6 and netlink are refused; memfd_create and shared mappings too, anonymous or of a file, unless
  `shared_memory` allows them (a CUDA run, whose driver may use them). A file mapped shared is also a channel
  between processes that no write(2) goes through: ranks that pass data through a mapping in their common /tmp
  would send it past the kernel's count of the bytes each rank writes (runner/client.py), which the judge
  holds a rank's traffic to.
- writes: Landlock allows creating and writing files only in /tmp and /dev/shm (the sandbox's own tmpfs
  mounts), /dev/null and, on CUDA, the GPU's device nodes. The rest of the filesystem is read-only already;
  what this adds is procfs: /proc/self/clear_refs, whose write resets the peak resident set the judge reads
  after each request, and /proc/<pid>/mem of another process of the sandbox. Descriptors opened before (the
  pipes to the judge) are not affected.

A call the filter refuses fails with EPERM, which refusal_note() turns into words a user can act on; a write
Landlock refuses fails with EACCES, naming its path.
"""

from __future__ import annotations

import ctypes
import errno
import glob
import os

from . import bpf

PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1
SECCOMP = {"x86_64": 317, "aarch64": 277}
LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1

CLONE_THREAD = 0x00010000
MAP_SHARED, MAP_ANONYMOUS = 0x01, 0x20
F_SETPIPE_SZ = 1031
SOL_SOCKET = 1
SOCKET_BUFFER_OPTIONS = (7, 8, 32, 33)  # SO_SNDBUF, SO_RCVBUF, SO_SNDBUFFORCE, SO_RCVBUFFORCE
SOCKET_FAMILIES = (1, 2, 10, 16)  # AF_UNIX, AF_INET, AF_INET6, AF_NETLINK

CALLS = {
    "x86_64": {
        "fork": 57, "vfork": 58, "clone": 56, "clone3": 435, "mmap": 9, "fcntl": 72, "setsockopt": 54,
        "socket": 41, "memfd_create": 319,
        # Memory outside every count, refused in every run.
        "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67, "semget": 64, "semop": 65, "semctl": 66,
        "semtimedop": 220, "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "mq_open": 240,
        "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify": 244, "mq_getsetattr": 245,
        "memfd_secret": 447, "vmsplice": 278, "splice": 275, "tee": 276,
    },
    "aarch64": {
        "clone": 220, "clone3": 435, "mmap": 222, "fcntl": 25, "setsockopt": 208, "socket": 198,
        "memfd_create": 279,
        "shmget": 194, "shmat": 196, "shmctl": 195, "shmdt": 197, "semget": 190, "semop": 193, "semctl": 191,
        "semtimedop": 192, "msgget": 186, "msgsnd": 189, "msgrcv": 188, "msgctl": 187, "mq_open": 180,
        "mq_unlink": 181, "mq_timedsend": 182, "mq_timedreceive": 183, "mq_notify": 184, "mq_getsetattr": 185,
        "memfd_secret": 447, "vmsplice": 75, "splice": 76, "tee": 77,
    },
}
ALWAYS_REFUSED = ("shmget", "shmat", "shmctl", "shmdt", "semget", "semop", "semctl", "semtimedop", "msgget",
                  "msgsnd", "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive",
                  "mq_notify", "mq_getsetattr", "memfd_secret", "vmsplice", "splice", "tee")

# Landlock's filesystem rights (linux/landlock.h), and the ABI version that brought each one.
WRITE_FILE, REMOVE_DIR, REMOVE_FILE = 1 << 1, 1 << 4, 1 << 5
MAKE_RIGHTS = sum(1 << bit for bit in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
REFER, TRUNCATE = 1 << 13, 1 << 14
WRITABLE_DIRECTORIES = ("/tmp", "/dev/shm")
WRITABLE_FILES = ("/dev/null",)
GPU_NODES = "/dev/nvidia*"

NOTE = ("the judge refused this call: a submission runs in this one process (no fork, subprocess or "
        "multiprocessing), and keeps its memory where the judge counts it (no memfd, System V IPC, message "
        "queues, shared mappings, or larger pipe and socket buffers)")
THREAD_NOTE = ("the judge refused a new thread: in this problem a submission runs on the thread that calls it "
               "and no other, since what the judge counts inside the process (operators, memory, autograd's "
               "saved tensors) is seen thread by thread")
# Whether apply() turned threads off in this process, for refusal_note.
_threads_refused = False


class ConfinementFailed(Exception):
    """The kernel would not take the confinement: the harness must not load a submission without it."""


def submission_filter(arch: str, *, processes: bool, shared_memory: bool, threads: bool = True) -> bytes:
    """The seccomp program for the policy, for arch."""
    calls = CALLS[arch]
    deny = bpf.errno_return(errno.EPERM)
    allow = bpf.SECCOMP_RET_ALLOW
    refused = [calls[name] for name in ALWAYS_REFUSED]
    if not processes:
        refused += [calls[name] for name in ("fork", "vfork") if name in calls]
    if not shared_memory:
        refused.append(calls["memfd_create"])
    program = [*bpf.prologue(arch, deny), *bpf.returning(refused, deny)]
    if not processes:
        program += bpf.returning([calls["clone3"]], bpf.errno_return(errno.ENOSYS))
        if threads:
            program += bpf.on_call(calls["clone"], bpf.argument_has_all(0, [CLONE_THREAD], allow, deny))
        else:
            program += bpf.returning([calls["clone"]], deny)
    if not shared_memory:
        program += bpf.on_call(calls["mmap"], bpf.argument_has_all(3, [MAP_SHARED], deny, allow))
    program += bpf.on_call(calls["fcntl"], bpf.argument_in(1, [F_SETPIPE_SZ], deny, allow))
    program += bpf.on_call(calls["socket"], bpf.argument_in(0, SOCKET_FAMILIES, allow, deny))
    # setsockopt: only the buffer sizes of SOL_SOCKET.
    program += bpf.on_call(calls["setsockopt"], [
        bpf.load_argument(1), bpf.instruction(bpf.BPF_JEQ_K, SOL_SOCKET, jt=1, jf=0),
        bpf.instruction(bpf.BPF_RET_K, allow), *bpf.argument_in(2, SOCKET_BUFFER_OPTIONS, deny, allow)])
    return b"".join(program + bpf.allow_the_rest())


def c_library() -> ctypes.CDLL:
    """The C library, its syscall() returning a long and errno kept for ctypes.get_errno()."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def apply(*, device: str, processes: bool, shared_memory: bool, threads: bool = True) -> None:
    """Restrict writes with Landlock where the kernel has it, then install the seccomp filter on every thread;
    ConfinementFailed if the filter cannot be installed."""
    global _threads_refused
    libc = c_library()
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise ConfinementFailed(f"no_new_privs: {os.strerror(ctypes.get_errno())}")
    _restrict_writes(libc, device)
    install_filter(libc, submission_filter(bpf.machine(), processes=processes, shared_memory=shared_memory,
                                           threads=threads))
    _threads_refused = not threads and not processes


def install_filter(libc, program: bytes) -> None:
    """Put a seccomp program on every thread of this process (no_new_privs must be set); ConfinementFailed
    if the kernel refuses it."""

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    instructions = ctypes.create_string_buffer(program, len(program))
    fprog = Program(len(program) // 8, ctypes.addressof(instructions))
    result = libc.syscall(SECCOMP[bpf.machine()], SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC,
                          ctypes.byref(fprog))
    if result != 0:
        why = os.strerror(ctypes.get_errno()) if result < 0 else f"thread {result} could not take it"
        raise ConfinementFailed(f"seccomp: {why}")


def _restrict_writes(libc, device: str) -> None:
    """Landlock: writes only where a judged program needs them. A kernel without Landlock is left as it is."""
    abi = libc.syscall(LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0), LANDLOCK_CREATE_RULESET_VERSION)
    if abi < 1:
        return
    handled = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_RIGHTS | (REFER if abi >= 2 else 0) \
        | (TRUNCATE if abi >= 3 else 0)
    attribute = ctypes.c_uint64(handled)
    ruleset = libc.syscall(LANDLOCK_CREATE_RULESET, ctypes.byref(attribute), ctypes.c_size_t(8), 0)
    if ruleset < 0:
        raise ConfinementFailed(f"landlock: {os.strerror(ctypes.get_errno())}")
    files = list(WRITABLE_FILES) + (sorted(glob.glob(GPU_NODES)) if device == "cuda" else [])
    try:
        for path in WRITABLE_DIRECTORIES:
            _allow(libc, ruleset, path, handled)
        for path in files:
            _allow(libc, ruleset, path, handled & (WRITE_FILE | TRUNCATE))
        if libc.syscall(LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            raise ConfinementFailed(f"landlock: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(ruleset)


def _allow(libc, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    rule = (ctypes.c_uint8 * 12).from_buffer_copy(rights.to_bytes(8, "little") + fd.to_bytes(4, "little"))
    try:
        if libc.syscall(LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            raise ConfinementFailed(f"landlock rule for {path}: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)


def refusal_note(error: BaseException) -> str | None:
    """Words for an error that a refusal of the judge's filters may have caused (EPERM), or None."""
    if isinstance(error, OSError) and error.errno == errno.EPERM:
        return NOTE
    if _threads_refused and isinstance(error, RuntimeError) and "can't start new thread" in str(error):
        return THREAD_NOTE
    return None
