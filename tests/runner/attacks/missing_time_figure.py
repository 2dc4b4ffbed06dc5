# expect: runtime_error
# message: malformed answer
# A right softmax whose answer leaves out how long the call took. The judge read the absent figure as None
# and divided it (an internal error) instead of refusing the answer: a harness always reports it.
import sys

import torch


def _forged(write_frame):
    def write(stream, header, *args, **kwargs):
        if header.get("type") == "result":
            header = {key: value for key, value in header.items() if key != "time_ns"}
        return write_frame(stream, header, *args, **kwargs)
    return write


for _module in list(sys.modules.values()):
    if getattr(_module, "MAGIC", None) == b"RJW1" and hasattr(_module, "write_frame"):
        _module.write_frame = _forged(_module.write_frame)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
