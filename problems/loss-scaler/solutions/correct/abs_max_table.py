# expect: accepted
"""Overflow found from the largest magnitude over all gradients (torch.max propagates NaN), the gradients
multiplied in place by the scale's exact reciprocal, and the scale kept as a power-of-two exponent."""
import math

import torch


class LossScaler:
    def __init__(self, init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self.exponent = math.log2(init_scale)
        self.up, self.down = math.log2(growth_factor), math.log2(backoff_factor)
        self.growth_interval = growth_interval
        self.state = {"good_in_a_row": 0, "last_skipped": False}

    def get_scale(self):
        return 2.0 ** self.exponent

    def scale(self, loss):
        return torch.ldexp(loss, torch.tensor(self.exponent, dtype=loss.dtype, device=loss.device))

    def step(self, optimizer):
        params = [p for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        for p in params:
            p.grad.mul_(2.0 ** -self.exponent)
        largest = torch.stack([p.grad.abs().max() for p in params]).max().item()
        self.state["last_skipped"] = not math.isfinite(largest)
        if self.state["last_skipped"]:
            return False
        optimizer.step()
        return True

    def update(self):
        if self.state["last_skipped"]:
            self.exponent += self.down
            self.state["good_in_a_row"] = 0
        elif self.state["good_in_a_row"] + 1 == self.growth_interval:
            self.exponent += self.up
            self.state["good_in_a_row"] = 0
        else:
            self.state["good_in_a_row"] += 1
