# expect: runtime_error
# message: nothing of the repository is visible
# The virtual environment lives inside the repository: its parent holds the reference solution.
import os
import sys

import torch

CANDIDATES = [
    os.path.join(os.path.dirname(sys.prefix), "problems", "stable-softmax", "reference.py"),
    os.path.join(os.path.dirname(sys.prefix), "problems", "stable-softmax", "spec.py"),
    os.path.join(os.path.dirname(sys.prefix), "README.md"),
    "/work/main/problems/stable-softmax/reference.py",
]


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    for path in CANDIDATES:
        try:
            with open(path) as handle:
                handle.read()
        except OSError:
            continue
        e = (x - x.amax(dim, keepdim=True)).exp()
        return e / e.sum(dim, keepdim=True)
    raise FileNotFoundError("nothing of the repository is visible")
