# expect: memory_limit_exceeded
# message: killed for memory
# sandbox-memory-mib: 768
# Holds anonymous memory up to 128 MiB under its 768 MiB sandbox limit, then fills both directions of up to
# 150 TCP connections on the sandbox's loopback without reading them: several MiB of queued data each,
# kernel memory that no process's resident set shows, which would let the sandbox hold about 1.5 GiB beside
# its limit. (Filling only the last 128 MiB keeps the call short: on a busy machine, queueing 640 MiB has
# outlasted the call's wall clock.)
import socket

import torch

LIMIT = 768 << 20


def _proportional() -> int:
    """This process's proportional set, the figure the judge kills on."""
    with open("/proc/self/smaps_rollup") as rollup:
        return next(int(line.split()[1]) * 1024 for line in rollup if line.startswith("Pss:"))


_anonymous = bytearray(LIMIT - _proportional() - (128 << 20))
_held = []


def _fill(end):
    end.setblocking(False)
    try:
        while True:
            end.send(b"\x01" * (1 << 20))
    except BlockingIOError:
        pass


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    if not _held:
        _held.append(socket.create_server(("127.0.0.1", 0), backlog=256))
        for _ in range(150):
            _held.append(socket.create_connection(_held[0].getsockname()))
            _held.append(_held[0].accept()[0])
            _fill(_held[-2])
            _fill(_held[-1])
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
