# expect: memory_limit_exceeded
# message: before the file was loaded
# tests: all
# problem: checkpointed-block
# Does not checkpoint: every activation stays alive until backward, as in the plain block. Each one autograd
# saves is copied into a large buffer touched at import and replaced by a view of it, so the tensor tracker
# sees one block's temporaries at a time, and the process's resident set, already that large before the
# first call, does not grow. Only the resident level above the process's size before the load shows it.
import torch
from torch import nn

_BUFFER = torch.empty(768 << 20, dtype=torch.uint8)
_BUFFER.fill_(1)
_ALIGN = 64
_next = [0]


def _pack(tensor: torch.Tensor):
    size = tensor.numel() * tensor.element_size()
    if _next[0] + size > _BUFFER.numel():
        _next[0] = 0
    start = _next[0]
    _next[0] += (size + _ALIGN - 1) // _ALIGN * _ALIGN
    kept = _BUFFER[start:start + size].view(tensor.dtype).view(tensor.shape)
    kept.copy_(tensor)
    return kept, tensor.requires_grad


def _unpack(packed):
    return packed[0]


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.autograd.graph.saved_tensors_hooks(_pack, _unpack):
            return self.block(x)
