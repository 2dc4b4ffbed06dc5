"""The seccomp filter: its syscall tables against libseccomp's, and its decisions, by running the BPF
program on synthetic syscalls with a small classic-BPF interpreter."""

import ctypes
import ctypes.util
import errno
import struct

import pytest

from runner.sandbox import seccomp

ALLOW, KILL = seccomp.SECCOMP_RET_ALLOW, seccomp.SECCOMP_RET_KILL_PROCESS
EPERM = seccomp.SECCOMP_RET_ERRNO | errno.EPERM
ENOSYS = seccomp.SECCOMP_RET_ERRNO | errno.ENOSYS
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
        if code == seccomp.BPF_LD_W_ABS:
            accumulator = struct.unpack_from("=I", data, k)[0]
        elif code == seccomp.BPF_RET_K:
            return k
        elif code in (seccomp.BPF_JEQ_K, seccomp.BPF_JGE_K, seccomp.BPF_JSET_K):
            taken = {seccomp.BPF_JEQ_K: accumulator == k, seccomp.BPF_JGE_K: accumulator >= k,
                     seccomp.BPF_JSET_K: bool(accumulator & k)}[code]
            pc += jt if taken else jf
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        pc += 1


@pytest.mark.parametrize("arch", sorted(seccomp.AUDIT_ARCH))
def test_denied_calls_fail_with_eperm(arch):
    program = seccomp.build(arch)
    for name, number in seccomp.DENIED[arch].items():
        assert evaluate(program, number, seccomp.AUDIT_ARCH[arch]) == EPERM, name


@pytest.mark.parametrize("arch", sorted(seccomp.AUDIT_ARCH))
def test_what_pytorch_and_cuda_need_stays_allowed(arch):
    program = seccomp.build(arch)
    for number in (READ[arch], MEMFD_CREATE[arch], SOCKET[arch]):
        assert evaluate(program, number, seccomp.AUDIT_ARCH[arch]) == ALLOW
    thread_flags = 0x003D0F00  # what glibc's pthread_create passes
    assert evaluate(program, seccomp.CLONE[arch], seccomp.AUDIT_ARCH[arch], (thread_flags, 0, 0, 0, 0, 0)) == ALLOW
    assert evaluate(program, seccomp.IOCTL[arch], seccomp.AUDIT_ARCH[arch], (3, 0x5401, 0, 0, 0, 0)) == ALLOW


@pytest.mark.parametrize("arch", sorted(seccomp.AUDIT_ARCH))
@pytest.mark.parametrize("flag", [0x10000000, 0x20000000, 0x40000000, 0x00020000, 0x08000000, 0x04000000])
def test_clone_into_any_new_namespace_is_refused(arch, flag):
    program = seccomp.build(arch)
    assert evaluate(program, seccomp.CLONE[arch], seccomp.AUDIT_ARCH[arch], (flag | 17, 0, 0, 0, 0, 0)) == EPERM


@pytest.mark.parametrize("arch", sorted(seccomp.AUDIT_ARCH))
def test_clone3_reports_enosys_so_glibc_falls_back_to_clone(arch):
    assert evaluate(seccomp.build(arch), seccomp.CLONE3[arch], seccomp.AUDIT_ARCH[arch]) == ENOSYS


@pytest.mark.parametrize("arch", sorted(seccomp.AUDIT_ARCH))
def test_terminal_injection_is_refused(arch):
    program = seccomp.build(arch)
    assert evaluate(program, seccomp.IOCTL[arch], seccomp.AUDIT_ARCH[arch], (0, seccomp.TIOCSTI, 0, 0, 0, 0)) == EPERM


def test_another_architecture_and_the_x32_abi_are_refused():
    program = seccomp.build("x86_64")
    assert evaluate(program, READ["x86_64"], 0x40000003) == KILL  # i386
    assert evaluate(program, READ["x86_64"] | seccomp.X32_SYSCALL_BIT, seccomp.AUDIT_ARCH["x86_64"]) == EPERM


def _libseccomp():
    path = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        library = ctypes.CDLL(path)
    except OSError:
        pytest.skip("libseccomp is not installed")
    library.seccomp_syscall_resolve_name_arch.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
    return library


@pytest.mark.parametrize("arch", sorted(seccomp.AUDIT_ARCH))
def test_the_syscall_tables_agree_with_libseccomp(arch):
    library = _libseccomp()
    table = {**seccomp.DENIED[arch], "clone": seccomp.CLONE[arch], "clone3": seccomp.CLONE3[arch],
             "ioctl": seccomp.IOCTL[arch]}
    for name, number in table.items():
        resolved = library.seccomp_syscall_resolve_name_arch(seccomp.AUDIT_ARCH[arch], name.encode())
        assert resolved == number, f"{arch} {name}: libseccomp says {resolved}, the table {number}"
