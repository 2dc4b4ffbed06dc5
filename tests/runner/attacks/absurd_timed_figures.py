# expect: runtime_error
# message: the process sent
# tests: all
# A right softmax whose timed answers claim 10**400 ns per call, past what a 64-bit count holds: the judge
# once divided them as they came and failed itself (an internal error).
import sys

import torch


def _forged(write_frame):
    def write(stream, header, *args, **kwargs):
        if header.get("type") == "timed" and header.get("times_ns"):
            header = dict(header, times_ns=[10**400] * len(header["times_ns"]))
        return write_frame(stream, header, *args, **kwargs)
    return write


for _module in list(sys.modules.values()):
    if getattr(_module, "MAGIC", None) == b"RJW1" and hasattr(_module, "write_frame"):
        _module.write_frame = _forged(_module.write_frame)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
