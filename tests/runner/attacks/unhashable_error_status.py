# expect: runtime_error
# message: malformed answer
# Reports the call's error with a status that is a list: looked up in a set as it came, it raised TypeError
# in the judge (an internal error) instead of being refused as a broken answer.
import sys

import torch


def _forged(write_frame):
    def write(stream, header, *args, **kwargs):
        if header.get("type") == "result":
            header = dict(header, error={"status": ["passed"], "message": ""})
        return write_frame(stream, header, *args, **kwargs)
    return write


for _module in list(sys.modules.values()):
    if getattr(_module, "MAGIC", None) == b"RJW1" and hasattr(_module, "write_frame"):
        _module.write_frame = _forged(_module.write_frame)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
