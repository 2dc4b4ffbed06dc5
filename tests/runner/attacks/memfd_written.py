# expect: runtime_error
# message: memfd_create
# Writes 2.5 GiB into a memfd with write(), never mapping it: pages that no process's resident set or
# proportional set counts, on top of a 2 GiB sandbox. On the CPU nothing a judged program runs needs memfd.
import os

import torch

_held = []


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    if not _held:
        chunk = b"\x01" * (1 << 20)
        # Many memfds of 60 MiB each, since one file may not pass the sandbox's 64 MiB file-size limit.
        for _ in range(42):
            fd = os.memfd_create("hidden")
            for _ in range(60):
                os.write(fd, chunk)
            _held.append(fd)
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
