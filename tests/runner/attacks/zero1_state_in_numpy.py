# expect: wrong_answer
# problem: zero1-adamw
# tests: all
# message: resident memory grew
# Plain AdamW on every rank, no communication, with both moments of every parameter kept in NumPy arrays: the
# parameters are right and identical everywhere, but each rank holds the whole optimizer state, where the judge's
# walk of the tensors an optimizer made sees none of it.
import math

import numpy
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
                self.moments[index] = (numpy.zeros(p.numel(), numpy.float32), numpy.zeros(p.numel(), numpy.float32))
                self.steps[index] = 0
            self.steps[index] += 1
            t = self.steps[index]
            m, v = (torch.from_numpy(a).view_as(p) for a in self.moments[index])
            p.mul_(1 - self.lr * self.weight_decay)
            m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
            denominator = (v.sqrt() / math.sqrt(1 - beta2 ** t)).add_(self.eps)
            p.addcdiv_(m, denominator, value=-self.lr / (1 - beta1 ** t))

    def zero_grad(self, set_to_none=True):
        for p in self.params:
            p.grad = None
