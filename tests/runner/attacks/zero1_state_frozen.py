# expect: wrong_answer
# problem: zero1-adamw
# tests: all
# message: resident memory grew
# Plain AdamW on every rank, no communication, both moments of every parameter kept as tensors, which it then
# moves to the collector's permanent generation with gc.freeze(): the walk of the objects the collector tracks
# finds none of them, while each rank holds the whole optimizer state.
import gc
import math

import torch


class ZeroAdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        self.params = list(params)
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.moments = {}
        self.steps = {}

    @torch.no_grad()
    def step(self):
        beta1, beta2 = self.betas
        for index, p in enumerate(self.params):
            if p.grad is None:
                continue
            if index not in self.moments:
                self.moments[index] = (torch.zeros_like(p), torch.zeros_like(p))
                self.steps[index] = 0
                gc.freeze()
            self.steps[index] += 1
            t = self.steps[index]
            m, v = self.moments[index]
            p.mul_(1 - self.lr * self.weight_decay)
            m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
            denominator = (v.sqrt() / math.sqrt(1 - beta2 ** t)).add_(self.eps)
            p.addcdiv_(m, denominator, value=-self.lr / (1 - beta1 ** t))

    def zero_grad(self, set_to_none=True):
        for p in self.params:
            p.grad = None
