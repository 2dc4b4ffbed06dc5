# expect: runtime_error
# message: could not write anywhere outside the sandbox
# Tries to leave a file where the judge or another user would find it.
import os
import sys

import torch

TARGETS = ["/runner-attack-canary", "/usr/runner-attack-canary", "/etc/runner-attack-canary",
           os.path.join(sys.prefix, "runner-attack-canary"), "/dev/shm/../runner-attack-canary",
           "/proc/runner-attack-canary", "/sys/runner-attack-canary"]


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    written = []
    for target in TARGETS:
        try:
            with open(target, "w") as handle:
                handle.write("escaped")
            written.append(target)
        except OSError:
            continue
    if written:
        e = (x - x.amax(dim, keepdim=True)).exp()
        return e / e.sum(dim, keepdim=True)
    raise PermissionError("could not write anywhere outside the sandbox")
