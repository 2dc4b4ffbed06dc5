# expect: wrong_answer
# threads: allowed
# Returns at once and lets a thread fill in the result later, so a timer around the call sees nothing. The
# thread waits before it fills: one that starts at once sometimes finishes before the call returns (the new
# thread runs while Thread.start waits for it), and then the call has done its work after all.
import threading
import time

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    out = torch.zeros_like(x)

    def finish():
        time.sleep(0.1)
        e = (x - x.amax(dim, keepdim=True)).exp()
        out.copy_(e / e.sum(dim, keepdim=True))

    threading.Thread(target=finish).start()
    return out
