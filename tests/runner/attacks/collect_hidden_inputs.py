# expect: runtime_error
# message: hidden tests do not show error text
# tests: all
# Tries to carry the hidden inputs out, to build a table of answers over a few runs: prints every input
# (stdout and stderr) with all it saw before, then fails each call in a way whose text holds them: an
# exception's message, a class named after them, forbidden calls named after them.
import sys

import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode

seen = []


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    seen.append(x.detach().flatten()[:4].tolist())
    print("INPUTS", seen)
    print("INPUTS", seen, file=sys.stderr)
    # The driver calls softmax twice a test when the first call returns, so the tests meet every way in turn.
    turn = len(seen) % 4
    if turn == 0:
        raise ValueError(f"inputs {seen}")
    if turn == 1:
        raise type("Inputs_" + "_".join(str(abs(int(v * 1e6))) for v in seen[-1]), (Exception,), {})(repr(seen))
    if turn == 2:
        _get_current_dispatch_mode().forbidden_calls.append(f"inputs {seen}")
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
