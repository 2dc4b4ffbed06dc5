# expect: accepted
"""The gradients unscaled with one foreach multiply, overflow found from their sums (an inf or NaN anywhere
makes a sum inf or NaN), and growth as a countdown to the next growth rather than a count of good steps."""
import math

import torch


class LossScaler:
    def __init__(self, init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self.current = init_scale
        self.factors = growth_factor, backoff_factor
        self.interval = growth_interval
        self.until_growth = growth_interval
        self.skipped = False

    def scale(self, loss):
        return loss * self.current

    @torch.no_grad()
    def step(self, optimizer):
        grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        torch._foreach_mul_(grads, 1.0 / self.current)
        total = torch.stack([g.sum() for g in grads]).sum().item()
        self.skipped = not math.isfinite(total)
        if not self.skipped:
            optimizer.step()
        return not self.skipped

    def update(self):
        growth, backoff = self.factors
        if self.skipped:
            self.current *= backoff
            self.until_growth = self.interval
            return
        self.until_growth -= 1
        if self.until_growth == 0:
            self.current *= growth
            self.until_growth = self.interval

    def get_scale(self):
        return self.current
