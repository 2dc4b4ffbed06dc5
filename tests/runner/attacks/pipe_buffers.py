# expect: runtime_error
# message: F_SETPIPE_SZ
# Grows pipes to 1 MiB each with F_SETPIPE_SZ and fills them: pipe buffers are kernel pages that no
# process's resident set shows. Past 64 MiB the kernel's per-user soft limit refuses to grow more pipes,
# which bounds this where the sandbox has a uid of its own; the judge refuses the first one.
import fcntl
import os

import torch

_held = []


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    if not _held:
        chunk = b"\x01" * (1 << 20)
        for _ in range(240):
            read_end, write_end = os.pipe()
            _held.append((read_end, write_end))
            try:
                fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 1 << 20)
            except OSError as error:
                if len(_held) == 1:
                    raise OSError(error.errno, f"F_SETPIPE_SZ: {error.strerror}") from None
            os.set_blocking(write_end, False)
            try:
                os.write(write_end, chunk)
            except BlockingIOError:
                pass
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
