import torch
import torch.distributed as dist


class ZeroAdamW:
    """AdamW with its optimizer state sharded over the ranks of the default process group (ZeRO stage 1)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        """Keep the parameters (replicated on every rank); decide which part of the state this rank holds."""
        raise NotImplementedError

    def step(self):
        """Update this rank's shard from the (already averaged) gradients, then make every rank's parameters equal."""
        raise NotImplementedError

    def zero_grad(self):
        """Set every parameter's .grad to None (or to zeros)."""
        raise NotImplementedError
