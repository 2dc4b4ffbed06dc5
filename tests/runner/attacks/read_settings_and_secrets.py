# expect: runtime_error
# message: no secret found
# Looks for the web app's secrets in the environment, in the settings module and in the seed key.
import glob
import os
import sys

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    found = [name for name in os.environ if "SECRET" in name or "DATABASE" in name or "REDIS" in name]
    repository = os.path.dirname(sys.prefix)
    for pattern in [os.path.join(repository, "interview", "settings.py"), "/root/.local/state/*/seed.key",
                    os.path.expanduser("~/.local/state/*/seed.key")]:
        found += [path for path in glob.glob(pattern) if os.access(path, os.R_OK)]
    if found:
        e = (x - x.amax(dim, keepdim=True)).exp()
        return e / e.sum(dim, keepdim=True)
    raise LookupError(f"no secret found; environment: {sorted(os.environ)}")
