"""The seccomp filters, the sandbox's and the one the harness puts on itself before a submission loads: their
syscall tables against libseccomp's, and their decisions, by running each BPF program on synthetic syscalls
with a small classic-BPF interpreter."""

import ctypes
import ctypes.util
import errno
import struct

import pytest

from runner.harness import bpf, confine
from runner.sandbox import seccomp

ALLOW, KILL = bpf.SECCOMP_RET_ALLOW, bpf.SECCOMP_RET_KILL_PROCESS
EPERM = bpf.SECCOMP_RET_ERRNO | errno.EPERM
ENOSYS = bpf.SECCOMP_RET_ERRNO | errno.ENOSYS
READ = {"x86_64": 0, "aarch64": 63}
MEMFD_CREATE = {"x86_64": 319, "aarch64": 279}
SOCKET = {"x86_64": 41, "aarch64": 198}


def evaluate(program: bytes, nr: int, arch: int, args=(0, 0, 0, 0, 0, 0)) -> int:
    """Run a classic-BPF seccomp program on one syscall; the action it returns."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, *args)
    instructions = [struct.unpack("=HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    accumulator, pc = 0, 0
    while True:
        code, jt, jf, k = instructions[pc]
        if code == bpf.BPF_LD_W_ABS:
            accumulator = struct.unpack_from("=I", data, k)[0]
        elif code == bpf.BPF_RET_K:
            return k
        elif code in (bpf.BPF_JEQ_K, bpf.BPF_JGE_K, bpf.BPF_JSET_K):
            taken = {bpf.BPF_JEQ_K: accumulator == k, bpf.BPF_JGE_K: accumulator >= k,
                     bpf.BPF_JSET_K: bool(accumulator & k)}[code]
            pc += jt if taken else jf
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        pc += 1


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
def test_denied_calls_fail_with_eperm(arch):
    program = seccomp.build(arch)
    for name, number in seccomp.DENIED[arch].items():
        assert evaluate(program, number, bpf.AUDIT_ARCH[arch]) == EPERM, name


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
def test_what_pytorch_and_cuda_need_stays_allowed(arch):
    program = seccomp.build(arch)
    for number in (READ[arch], MEMFD_CREATE[arch], SOCKET[arch]):
        assert evaluate(program, number, bpf.AUDIT_ARCH[arch]) == ALLOW
    thread_flags = 0x003D0F00  # what glibc's pthread_create passes
    assert evaluate(program, seccomp.CLONE[arch], bpf.AUDIT_ARCH[arch], (thread_flags, 0, 0, 0, 0, 0)) == ALLOW
    assert evaluate(program, seccomp.IOCTL[arch], bpf.AUDIT_ARCH[arch], (3, 0x5401, 0, 0, 0, 0)) == ALLOW


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
@pytest.mark.parametrize("flag", [0x10000000, 0x20000000, 0x40000000, 0x00020000, 0x08000000, 0x04000000])
def test_clone_into_any_new_namespace_is_refused(arch, flag):
    program = seccomp.build(arch)
    assert evaluate(program, seccomp.CLONE[arch], bpf.AUDIT_ARCH[arch], (flag | 17, 0, 0, 0, 0, 0)) == EPERM


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
def test_clone3_reports_enosys_so_glibc_falls_back_to_clone(arch):
    assert evaluate(seccomp.build(arch), seccomp.CLONE3[arch], bpf.AUDIT_ARCH[arch]) == ENOSYS


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
def test_terminal_injection_is_refused(arch):
    program = seccomp.build(arch)
    assert evaluate(program, seccomp.IOCTL[arch], bpf.AUDIT_ARCH[arch], (0, seccomp.TIOCSTI, 0, 0, 0, 0)) == EPERM


def test_another_architecture_and_the_x32_abi_are_refused():
    program = seccomp.build("x86_64")
    assert evaluate(program, READ["x86_64"], 0x40000003) == KILL  # i386
    assert evaluate(program, READ["x86_64"] | bpf.X32_SYSCALL_BIT, bpf.AUDIT_ARCH["x86_64"]) == EPERM


def _libseccomp():
    path = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        library = ctypes.CDLL(path)
    except OSError:
        pytest.skip("libseccomp is not installed")
    library.seccomp_syscall_resolve_name_arch.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    return library


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
def test_the_syscall_tables_agree_with_libseccomp(arch):
    library = _libseccomp()
    table = {**seccomp.DENIED[arch], "clone": seccomp.CLONE[arch], "clone3": seccomp.CLONE3[arch],
             "ioctl": seccomp.IOCTL[arch]}
    for name, number in table.items():
        resolved = library.seccomp_syscall_resolve_name_arch(bpf.AUDIT_ARCH[arch], name.encode())
        assert resolved == number, f"{arch} {name}: libseccomp says {resolved}, the table {number}"


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
def test_the_submission_filter_s_table_agrees_with_libseccomp(arch):
    library = _libseccomp()
    for name, number in confine.CALLS[arch].items():
        resolved = library.seccomp_syscall_resolve_name_arch(bpf.AUDIT_ARCH[arch], name.encode())
        assert resolved == number, f"{arch} {name}: libseccomp says {resolved}, the table {number}"
    assert "fork" not in confine.CALLS["aarch64"]  # the arm64 ABI has only clone


# The filter the harness installs before the submission loads (runner/harness/confine.py).

CPU_POLICY = {"processes": False, "shared_memory": False}
CUDA_POLICY = {"processes": False, "shared_memory": True}
THREAD_FLAGS = 0x003D0F00  # what glibc's pthread_create passes
FORK_FLAGS = 0x01200011  # CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD: what glibc's fork passes
VFORK_FLAGS = 0x00004111  # CLONE_VM | CLONE_VFORK | SIGCHLD: posix_spawn and subprocess


def decide(arch, policy, name, *args):
    program = confine.submission_filter(arch, **policy)
    return evaluate(program, confine.CALLS[arch][name], bpf.AUDIT_ARCH[arch], (*args, 0, 0, 0, 0, 0, 0)[:6])


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
def test_a_submission_may_start_threads_but_no_process(arch):
    assert decide(arch, CPU_POLICY, "clone", THREAD_FLAGS) == ALLOW
    assert decide(arch, CPU_POLICY, "clone", FORK_FLAGS) == EPERM
    assert decide(arch, CPU_POLICY, "clone", VFORK_FLAGS) == EPERM
    assert decide(arch, CPU_POLICY, "clone3") == ENOSYS
    for name in ("fork", "vfork"):
        if name in confine.CALLS[arch]:
            assert decide(arch, CPU_POLICY, name) == EPERM


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
def test_with_threads_off_no_thread_either(arch):
    policy = {**CPU_POLICY, "threads": False}
    for flags in (THREAD_FLAGS, FORK_FLAGS, VFORK_FLAGS):
        assert decide(arch, policy, "clone", flags) == EPERM
    assert decide(arch, policy, "clone3") == ENOSYS
    assert decide(arch, policy, "socket", 1, 1) == ALLOW


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
@pytest.mark.parametrize("policy", [CPU_POLICY, CUDA_POLICY], ids=["cpu", "cuda"])
def test_memory_outside_the_watchdog_s_count_is_refused_on_every_device(arch, policy):
    for name in confine.ALWAYS_REFUSED:
        assert decide(arch, policy, name) == EPERM, name
    assert decide(arch, policy, "fcntl", 3, confine.F_SETPIPE_SZ, 1 << 20) == EPERM
    assert decide(arch, policy, "fcntl", 3, 1032) == ALLOW  # F_GETPIPE_SZ
    for option in confine.SOCKET_BUFFER_OPTIONS:
        assert decide(arch, policy, "setsockopt", 3, confine.SOL_SOCKET, option) == EPERM
    assert decide(arch, policy, "setsockopt", 3, confine.SOL_SOCKET, 2) == ALLOW  # SO_REUSEADDR
    assert decide(arch, policy, "setsockopt", 3, 6, 7) == ALLOW  # IPPROTO_TCP's option 7, not a buffer


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
def test_memfd_and_shared_mappings_are_refused_on_the_cpu_only(arch):
    shared_anonymous = confine.MAP_SHARED | confine.MAP_ANONYMOUS
    assert decide(arch, CPU_POLICY, "memfd_create") == EPERM
    assert decide(arch, CPU_POLICY, "mmap", 0, 4096, 3, shared_anonymous) == EPERM
    assert decide(arch, CPU_POLICY, "mmap", 0, 4096, 3, 0x22) == ALLOW  # MAP_PRIVATE | MAP_ANONYMOUS
    assert decide(arch, CPU_POLICY, "mmap", 0, 4096, 1, confine.MAP_SHARED, 5) == EPERM  # a file, even read-only
    assert decide(arch, CPU_POLICY, "mmap", 0, 4096, 3, 0x03, 5) == EPERM  # MAP_SHARED_VALIDATE
    assert decide(arch, CPU_POLICY, "mmap", 0, 4096, 3, 0x02, 5) == ALLOW  # a private copy of a file
    assert decide(arch, CUDA_POLICY, "memfd_create") == ALLOW
    assert decide(arch, CUDA_POLICY, "mmap", 0, 4096, 3, shared_anonymous) == ALLOW


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
def test_only_unix_inet_and_netlink_sockets_can_be_made(arch):
    for family in confine.SOCKET_FAMILIES:
        assert decide(arch, CPU_POLICY, "socket", family, 1) == ALLOW
    for family in (17, 38, 40, 44):  # AF_PACKET, AF_ALG, AF_VSOCK, AF_XDP
        assert decide(arch, CPU_POLICY, "socket", family, 1) == EPERM


@pytest.mark.parametrize("arch", sorted(bpf.AUDIT_ARCH))
def test_the_submission_filter_allows_the_rest_and_kills_another_abi(arch):
    program = confine.submission_filter(arch, **CPU_POLICY)
    assert evaluate(program, READ[arch], bpf.AUDIT_ARCH[arch]) == ALLOW
    assert evaluate(program, READ[arch], 0x40000003) == KILL
