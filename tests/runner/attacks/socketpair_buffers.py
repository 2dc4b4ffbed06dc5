# expect: runtime_error
# message: SO_SNDBUF
# Raises the send buffers of Unix socket pairs to the most the kernel allows and fills both directions:
# socket buffers are kernel memory that no process's resident set shows.
import socket

import torch

_held = []


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    # About 800 MiB per call, 2.5 GiB over the three sample calls.
    chunk = b"\x01" * (1 << 20)
    for _ in range(52):
        pair = socket.socketpair()
        _held.append(pair)
        for end in pair:
            try:
                end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 20)
            except OSError as error:
                raise OSError(error.errno, f"SO_SNDBUF: {error.strerror}") from None
            end.setblocking(False)
            try:
                while True:
                    end.send(chunk)
            except BlockingIOError:
                pass
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
