# expect: memory_limit_exceeded
# message: killed for memory
# sandbox-memory-mib: 768
# Holds 128 MiB of anonymous memory, then fills both directions of 150 TCP connections on the sandbox's
# loopback without reading them: about 7 MiB of queued data each, kernel memory that no process's resident
# set shows, which would let the sandbox hold over 1 GiB beside a 768 MiB limit.
import socket

import torch

_anonymous = b"\x01" * (128 << 20)
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
