# expect: runtime_error
# message: shmget
# Fills System V shared-memory segments and detaches them: once detached, a segment is in no process's
# resident set, and the sandbox's IPC namespace would let it keep 2.5 GiB beside a 2 GiB sandbox
# (a gigabyte in each of the three sample calls).
import ctypes
import os

import torch

IPC_PRIVATE, IPC_CREAT = 0, 0o1000
SEGMENT = 256 << 20
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
_held = []


def _check(result, call):
    if result in (-1, None, ctypes.c_void_p(-1).value):
        error = ctypes.get_errno()
        raise OSError(error, f"{call}: {os.strerror(error)}")
    return result


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    # A gigabyte per call at most, so that no call runs out of its wall clock on a busy machine.
    for _ in range(min(4, 10 - len(_held))):
        segment = _check(libc.shmget(IPC_PRIVATE, ctypes.c_size_t(SEGMENT), IPC_CREAT | 0o600), "shmget")
        address = _check(libc.shmat(segment, None, 0), "shmat")
        ctypes.memset(address, 1, SEGMENT)
        libc.shmdt(ctypes.c_void_p(address))
        _held.append(segment)
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
