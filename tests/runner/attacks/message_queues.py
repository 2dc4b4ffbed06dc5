# expect: runtime_error
# message: msgget
# Fills System V message queues (16 KiB each, 32000 of them in a fresh IPC namespace): kernel memory that
# no process's resident set shows.
import ctypes
import os

import torch

IPC_PRIVATE, IPC_CREAT, IPC_NOWAIT = 0, 0o1000, 0o4000
libc = ctypes.CDLL(None, use_errno=True)
_held = []


class Message(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 8192)]


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    if not _held:
        message = Message(1, b"\x01" * 8192)
        for _ in range(30000):
            queue = libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600)
            if queue < 0:
                error = ctypes.get_errno()
                raise OSError(error, f"msgget: {os.strerror(error)}")
            _held.append(queue)
            while libc.msgsnd(queue, ctypes.byref(message), ctypes.c_size_t(8192), IPC_NOWAIT) == 0:
                pass
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
