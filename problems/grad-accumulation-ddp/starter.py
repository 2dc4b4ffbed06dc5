import torch
import torch.distributed as dist
from torch import nn


class Accumulator:
    """Gradient accumulation over micro-batches on every rank of the default process group."""

    def __init__(self, model: nn.Module):
        """Set-up: may wrap `model` (in DistributedDataParallel, say); collectives here are not counted."""
        raise NotImplementedError

    def accumulate(self, micro_batches, loss_fn) -> None:
        """Forward and backward over every (x, y) in `micro_batches`, calling `loss_fn(output, y)` once each,
        leaving in each trainable parameter's .grad the gradient of the mean loss over all micro-batches of
        all ranks."""
        raise NotImplementedError
