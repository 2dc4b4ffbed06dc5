"""The sandbox's seccomp filter, given to bubblewrap's --seccomp FD: it denies what no PyTorch program needs.

The filter is a deny list: everything PyTorch and CUDA use (threads, Unix sockets, memfd_create, mmap,
ioctl on device nodes) stays allowed, and the network is cut by the empty network namespace, not here.
Denied calls fail with EPERM, so a submission that tries one sees a clean Python error rather than a crash;
clone3 fails with ENOSYS, which makes glibc fall back to clone, whose flags a filter can inspect (clone3
passes them in memory a filter cannot read). A call from another architecture's ABI (x32, or a 32-bit
entry on a 64-bit kernel) is refused outright, since the tables below would not describe it.

What a submission may do with processes and memory is narrowed further by the filter the harness puts on
itself just before the submission loads (runner/harness/confine.py), from the policy the judge sends.
"""

from __future__ import annotations

import errno
import os

from ..harness import bpf

# Kernel numbers of the denied calls, per architecture (tests/runner/test_seccomp.py checks them against
# libseccomp's tables where that library is installed).
DENIED = {
    "x86_64": {
        "ptrace": 101, "syslog": 103, "uselib": 134, "adjtimex": 159, "chroot": 161, "acct": 163,
        "settimeofday": 164, "mount": 165, "umount2": 166, "swapon": 167, "swapoff": 168, "reboot": 169,
        "sethostname": 170, "setdomainname": 171, "iopl": 172, "ioperm": 173, "init_module": 175,
        "delete_module": 176, "quotactl": 179, "pivot_root": 155, "vhangup": 153, "lookup_dcookie": 212,
        "clock_settime": 227, "kexec_load": 246, "add_key": 248, "request_key": 249, "keyctl": 250,
        "unshare": 272, "perf_event_open": 298, "fanotify_init": 300, "name_to_handle_at": 303,
        "open_by_handle_at": 304, "clock_adjtime": 305, "setns": 308, "process_vm_readv": 310,
        "process_vm_writev": 311, "kcmp": 312, "finit_module": 313, "kexec_file_load": 320, "bpf": 321,
        "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
        "fspick": 433, "pidfd_getfd": 438, "mount_setattr": 442,
    },
    "aarch64": {
        "lookup_dcookie": 18, "umount2": 39, "mount": 40, "pivot_root": 41, "chroot": 51, "vhangup": 58,
        "quotactl": 60, "acct": 89, "unshare": 97, "kexec_load": 104, "init_module": 105,
        "delete_module": 106, "clock_settime": 112, "syslog": 116, "ptrace": 117, "reboot": 142,
        "sethostname": 161, "setdomainname": 162, "settimeofday": 170, "adjtimex": 171,
        "add_key": 217, "request_key": 218, "keyctl": 219, "swapon": 224, "swapoff": 225,
        "perf_event_open": 241, "fanotify_init": 262, "name_to_handle_at": 264, "open_by_handle_at": 265,
        "clock_adjtime": 266, "setns": 268, "process_vm_readv": 270, "process_vm_writev": 271,
        "kcmp": 272, "finit_module": 273, "bpf": 280, "userfaultfd": 282, "kexec_file_load": 294,
        "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428,
        "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
        "pidfd_getfd": 438, "mount_setattr": 442,
    },
}
CLONE = {"x86_64": 56, "aarch64": 220}
CLONE3 = {"x86_64": 435, "aarch64": 435}
IOCTL = {"x86_64": 16, "aarch64": 29}
TIOCSTI = 0x5412

CLONE_NAMESPACE_FLAGS = (
    0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
    | 0x00000080  # CLONE_NEWTIME
)


def build(arch: str | None = None) -> bytes:
    """The filter program for arch (default: this machine), as bytes for bubblewrap."""
    arch = arch or bpf.machine()
    deny = bpf.errno_return(errno.EPERM)
    allow = bpf.SECCOMP_RET_ALLOW
    program = [
        *bpf.prologue(arch, deny),
        *bpf.returning(DENIED[arch].values(), deny),
        *bpf.returning([CLONE3[arch]], bpf.errno_return(errno.ENOSYS)),
        # clone: refuse any namespace flag in the low word of the first argument.
        *bpf.on_call(CLONE[arch], bpf.argument_has_all(0, [CLONE_NAMESPACE_FLAGS], deny, allow)),
        # ioctl(fd, TIOCSTI, ...) would push keystrokes into a terminal the sandbox might share.
        *bpf.on_call(IOCTL[arch], bpf.argument_in(1, [TIOCSTI], deny, allow)),
        *bpf.allow_the_rest(),
    ]
    return b"".join(program)


def program_fd(arch: str | None = None) -> int:
    """A readable file descriptor holding the filter, positioned at its start (the caller closes it)."""
    fd = os.memfd_create("judge-seccomp", os.MFD_CLOEXEC)
    os.write(fd, build(arch))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
