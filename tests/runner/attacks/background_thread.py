# expect: wrong_answer
# Returns at once and lets a thread fill in the result later, so a timer around the call sees nothing.
import threading

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    out = torch.zeros_like(x)

    def finish():
        e = (x - x.amax(dim, keepdim=True)).exp()
        out.copy_(e / e.sum(dim, keepdim=True))

    threading.Thread(target=finish).start()
    return out
