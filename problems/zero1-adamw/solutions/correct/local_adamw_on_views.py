# expect: accepted
# style: torch.optim.AdamW itself, stepping nn.Parameters that are views of this rank's slice of each parameter (so no copy of the weights is kept); dist.all_gather of equal padded slices puts the parameters back together
import math

import torch
import torch.distributed as dist
from torch import nn


class ZeroAdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        self.params = list(params)
        self.world, rank = dist.get_world_size(), dist.get_rank()
        self.bounds, self.views = [], []
        for p in self.params:
            size = math.ceil(p.numel() / self.world)
            lo, hi = min(rank * size, p.numel()), min((rank + 1) * size, p.numel())
            self.bounds.append((size, lo, hi))
            # A view of the real parameter: AdamW's in-place update lands in it, and it holds no storage of its own.
            self.views.append(nn.Parameter(p.detach().view(-1)[lo:hi]))
        self.local = torch.optim.AdamW(self.views, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)

    @torch.no_grad()
    def step(self):
        for p, view, (_, lo, hi) in zip(self.params, self.views, self.bounds):
            view.grad = None if p.grad is None else p.grad.reshape(-1)[lo:hi]
        self.local.step()
        for p, view, (size, _, _) in zip(self.params, self.views, self.bounds):
            if p.grad is None:
                continue
            chunk = torch.zeros(size)
            chunk[:view.numel()] = view
            pieces = [torch.empty(size) for _ in range(self.world)]
            dist.all_gather(pieces, chunk)
            p.view(-1).copy_(torch.cat(pieces)[:p.numel()])
        for view in self.views:
            view.grad = None

    def zero_grad(self):
        for p in self.params:
            p.grad = None
