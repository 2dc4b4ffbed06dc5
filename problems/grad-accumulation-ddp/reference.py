import torch
import torch.distributed as dist
from torch import nn


class Accumulator:
    """Data-parallel gradient accumulation: each rank sums its micro-batches' gradients locally, then one
    all-reduce per window averages the sum over the ranks."""

    def __init__(self, model: nn.Module):
        # Every rank is given the same weights, so set-up needs no broadcast. Frozen parameters
        # (requires_grad=False) never get a gradient and are neither reduced nor touched.
        self.model = model
        self.trainable = [p for p in model.parameters() if p.requires_grad]

    def accumulate(self, micro_batches, loss_fn) -> None:
        m = len(micro_batches)
        for x, y in micro_batches:
            # loss_fn is a mean over one micro-batch: 1/m turns the window's sum into the mean over all of it.
            (loss_fn(self.model(x), y) / m).backward()
        grads = [p.grad for p in self.trainable]
        # One bucket of every gradient: a single all-reduce of exactly their elements.
        flat = torch.cat([g.reshape(-1) for g in grads])
        dist.all_reduce(flat)
        # gloo has no ReduceOp.AVG: sum, then divide by the world size.
        flat /= dist.get_world_size()
        offset = 0
        for g in grads:
            g.copy_(flat[offset:offset + g.numel()].view_as(g))
            offset += g.numel()
