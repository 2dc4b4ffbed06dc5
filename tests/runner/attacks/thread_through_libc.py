# expect: runtime_error
# message: pthread_create
# Starts its helper thread through the C library rather than Python's threading module, which a check in
# Python could miss: the refusal is the kernel's (clone), so pthread_create fails like Thread.start.
import ctypes

import torch

_libc = ctypes.CDLL(None)
_ROUTINE = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
_results: list = []


@_ROUTINE
def _work(_):
    x, dim = _results.pop()
    _results.append(torch.softmax(x, dim))
    return None


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    _results.append((x, dim))
    thread = ctypes.c_ulong()
    error = _libc.pthread_create(ctypes.byref(thread), None, _work, None)
    if error:
        raise RuntimeError(f"pthread_create failed with error {error}")
    _libc.pthread_join(thread, None)
    return _results.pop()
