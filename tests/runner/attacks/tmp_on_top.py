# expect: memory_limit_exceeded
# message: killed for memory
# sandbox-memory-mib: 768
# Holds anonymous memory up to 128 MiB under its 768 MiB sandbox limit from its import on, then writes 250 MiB
# into files in /tmp, never mapping them: tmpfs pages are in no process's resident set, so a count of
# resident sets alone would let the sandbox hold more than its limit. (The smaller limit keeps the load
# short: on a busy machine, touching 2 GiB of fresh pages has outlasted the load's wall clock.)
import os

import torch

LIMIT = 768 << 20


def _proportional() -> int:
    """This process's proportional set, the figure the judge kills on."""
    with open("/proc/self/smaps_rollup") as rollup:
        return next(int(line.split()[1]) * 1024 for line in rollup if line.startswith("Pss:"))


_anonymous = bytearray(LIMIT - _proportional() - (128 << 20))
_written = []


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    # Five files of 50 MiB, since one file may not pass the sandbox's 64 MiB file-size limit.
    while len(_written) < 5:
        fd = os.open(f"/tmp/held{len(_written)}", os.O_CREAT | os.O_WRONLY, 0o600)
        for _ in range(50):
            os.write(fd, b"\x01" * (1 << 20))
        os.close(fd)
        _written.append(fd)
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
