# expect: runtime_error
# message: no way to the zygote
# Every sandbox is forked from a zygote, a process that has imported torch and forks a child for each request
# on its socket. Looks for that socket among its own descriptors and writes a request on any socket it finds;
# a request that got through would have the zygote fork for it.
import os
import stat

import torch

REQUEST = b'{"uid": 0, "tmp_bytes": 1048576, "shm_bytes": 1048576}'


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    for fd in range(4096):
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            os.write(fd, REQUEST)
        except OSError:
            continue
        e = (x - x.amax(dim, keepdim=True)).exp()
        return e / e.sum(dim, keepdim=True)
    raise LookupError("no way to the zygote: no socket among its descriptors")
