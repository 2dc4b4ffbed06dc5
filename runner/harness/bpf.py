"""Classic-BPF seccomp programs: the instructions, the architecture check every program starts with, and the
few shapes of rule the judge's two filters are made of.

Shared by the sandbox's filter (runner/sandbox/seccomp.py, given to bubblewrap) and the one the harness puts
on itself before a submission loads (confine.py), so it imports the standard library only. A rule that looks
at an argument reads its low 32 bits, which on the little-endian x86_64 and aarch64 lie first.
"""

from __future__ import annotations

import platform
import struct

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000

# Opcodes and return values (linux/filter.h, linux/seccomp.h).
BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_JGE_K = 0x35
BPF_JSET_K = 0x45
BPF_RET_K = 0x06
SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

OFFSET_NR, OFFSET_ARCH, OFFSET_ARGS = 0, 4, 16


def machine() -> str:
    """The kernel architecture name the filters are built for."""
    name = platform.machine()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(name, name)


def instruction(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def errno_return(number: int) -> int:
    return SECCOMP_RET_ERRNO | number


def prologue(arch: str, deny: int) -> list[bytes]:
    """Kill a call from another architecture's ABI, refuse the x32 ABI, and load the call's number."""
    if arch not in AUDIT_ARCH:
        raise NotImplementedError(f"no seccomp tables for {arch}")
    program = [
        instruction(BPF_LD_W_ABS, OFFSET_ARCH),
        instruction(BPF_JEQ_K, AUDIT_ARCH[arch], jt=1, jf=0),
        instruction(BPF_RET_K, SECCOMP_RET_KILL_PROCESS),
        instruction(BPF_LD_W_ABS, OFFSET_NR),
    ]
    if arch == "x86_64":
        program += [instruction(BPF_JGE_K, X32_SYSCALL_BIT, jt=0, jf=1), instruction(BPF_RET_K, deny)]
    return program


def returning(numbers, action: int) -> list[bytes]:
    """Each of the given calls returns action; any other falls through, its number still loaded."""
    program = []
    for number in sorted(numbers):
        program += [instruction(BPF_JEQ_K, number, jt=0, jf=1), instruction(BPF_RET_K, action)]
    return program


def on_call(number: int, body: list[bytes]) -> list[bytes]:
    """Run body (which ends in a return on every path) for this call; any other falls through."""
    return [instruction(BPF_JEQ_K, number, jt=0, jf=len(body)), *body]


def load_argument(index: int) -> bytes:
    return instruction(BPF_LD_W_ABS, OFFSET_ARGS + 8 * index)


def argument_in(index: int, values, inside: int, outside: int) -> list[bytes]:
    """Return inside when the argument is one of values, else outside."""
    values = sorted(values)
    program = [load_argument(index)]
    for position, value in enumerate(values):
        program.append(instruction(BPF_JEQ_K, value, jt=len(values) - position, jf=0))
    return program + [instruction(BPF_RET_K, outside), instruction(BPF_RET_K, inside)]


def argument_has_all(index: int, bits: list[int], then: int, otherwise: int) -> list[bytes]:
    """Return then when every one of the bit masks meets the argument, else otherwise."""
    program = [load_argument(index)]
    for position, mask in enumerate(bits):
        program.append(instruction(BPF_JSET_K, mask, jt=0, jf=len(bits) - position))
    return program + [instruction(BPF_RET_K, then), instruction(BPF_RET_K, otherwise)]


def allow_the_rest() -> list[bytes]:
    return [instruction(BPF_RET_K, SECCOMP_RET_ALLOW)]
