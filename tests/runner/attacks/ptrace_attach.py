# expect: runtime_error
# message: ptrace refused
# Tries to attach to its parent with ptrace, the first step of injecting code into another process.
import ctypes
import os


def softmax(x, dim=-1):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, os.getppid(), None, None) != 0:  # PTRACE_ATTACH
        raise PermissionError(f"ptrace refused: errno {ctypes.get_errno()}")
    return x
