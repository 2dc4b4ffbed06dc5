# expect: accepted
# Floods stdout and stderr, then answers correctly: the output is capped, the verdict unaffected.
import sys

import torch

chunk = "flood " * 10000
for _ in range(800):
    sys.stdout.write(chunk)
    sys.stderr.write(chunk)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
