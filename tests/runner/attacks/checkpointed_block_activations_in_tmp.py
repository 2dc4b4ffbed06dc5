# expect: memory_limit_exceeded
# message: the sandbox's files and sockets gained
# problem: checkpointed-block
# tests: all
# Runs the block plainly, as no_checkpointing.py does, so every activation is kept for backward, but keeps them
# in files under /tmp: each tensor autograd saves is written out when saved and read back when the backward
# needs it. The tensor tracker sees nothing held and no process's resident set grows; the pages sit in the
# sandbox's tmpfs, which the watchdog counts toward the sandbox's budget but the judge left out of a call's
# memory. A call's figure now adds what the sandbox's tmpfs mounts and sockets gained during it.
import itertools
import os

import torch
from torch import nn

_names = itertools.count()


def _pack(tensor: torch.Tensor) -> str:
    path = f"/tmp/saved-{next(_names)}.pt"
    torch.save(tensor.detach(), path)
    return path


def _unpack(path: str) -> torch.Tensor:
    tensor = torch.load(path)
    os.unlink(path)
    return tensor


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.autograd.graph.saved_tensors_hooks(_pack, _unpack):
            return self.block(x)
