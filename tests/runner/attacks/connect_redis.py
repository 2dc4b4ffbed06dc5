# expect: runtime_error
# message: ConnectionRefusedError
# The host's redis listens on 127.0.0.1:6379; the sandbox's loopback is its own, with nothing on it.
import socket

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    with socket.create_connection(("127.0.0.1", 6379), timeout=2):
        pass
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
