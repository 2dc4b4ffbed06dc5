# expect: accepted
# style: every parameter laid end to end in one flat vector cut into world-size equal ranges (a range may span parameters); per-parameter step counts, one all-gather of the ranges per step, and zero_grad() zeroing the gradients in place
import math

import torch
import torch.distributed as dist


class ZeroAdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        self.params = list(params)
        self.lr, (self.beta1, self.beta2), self.eps, self.decay = lr, betas, eps, weight_decay
        world, rank = dist.get_world_size(), dist.get_rank()
        total = sum(p.numel() for p in self.params)
        self.size = math.ceil(total / world)
        self.lo, self.hi = min(rank * self.size, total), min((rank + 1) * self.size, total)
        self.m = torch.zeros(self.hi - self.lo)
        self.v = torch.zeros(self.hi - self.lo)
        self.steps = [0] * len(self.params)

    def _pieces(self):
        """(parameter index, its slice, the matching slice of this rank's range) for what this rank owns."""
        start = 0
        for i, p in enumerate(self.params):
            lo, hi = max(start, self.lo), min(start + p.numel(), self.hi)
            if lo < hi:
                yield i, slice(lo - start, hi - start), slice(lo - self.lo, hi - self.lo)
            start += p.numel()

    @torch.no_grad()
    def step(self):
        for i, p in enumerate(self.params):
            self.steps[i] += p.grad is not None
        world = dist.get_world_size()
        mine = torch.cat([p.detach().reshape(-1) for p in self.params])[self.lo:self.hi].clone()
        for i, own, here in self._pieces():
            p = self.params[i]
            if p.grad is None:
                continue
            t, g = self.steps[i], p.grad.reshape(-1)[own]
            m, v = self.m[here], self.v[here]
            m.mul_(self.beta1).add_((1 - self.beta1) * g)
            v.mul_(self.beta2).add_((1 - self.beta2) * g * g)
            w = mine[here]
            w.mul_(1 - self.lr * self.decay)
            w.sub_(self.lr * (m / (1 - self.beta1 ** t)) / ((v / (1 - self.beta2 ** t)).sqrt() + self.eps))
        padded = torch.zeros(self.size)
        padded[:mine.numel()] = mine
        flat = torch.empty(self.size * world)
        dist.all_gather_into_tensor(flat, padded)
        start = 0
        for p in self.params:
            p.copy_(flat[start:start + p.numel()].view_as(p))
            start += p.numel()

    def zero_grad(self):
        for p in self.params:
            if p.grad is not None:
                p.grad.zero_()  # zeros, as optimizer.zero_grad(set_to_none=False) leaves them
