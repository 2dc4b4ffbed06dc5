# expect: accepted
"""A pure function for one tensor's update, returning new tensors; the class only keeps the state and
clips with Python floats. The bias corrections are folded into a step size and an eps, as in the Adam
paper's efficient form, but with eps scaled so that the result is AdamW's."""
import math

import torch


def adamw_update(p, g, m, v, t, lr, beta1, beta2, eps, weight_decay):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g.square()
    correction1, correction2 = 1 - beta1 ** t, math.sqrt(1 - beta2 ** t)
    step_size = lr * correction2 / correction1
    p = p * (1 - lr * weight_decay) - step_size * m / (v.sqrt() + eps * correction2)
    return p, m, v


class AdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, max_grad_norm=None):
        self.params, self.hyper = list(params), (lr, *betas, eps, weight_decay)
        self.max_grad_norm = max_grad_norm
        self.state = {}

    def step(self):
        live = [p for p in self.params if p.grad is not None]
        norm = torch.stack([(p.grad.detach() ** 2).sum() for p in live]).sum().sqrt()
        factor = 1.0 if self.max_grad_norm is None else min(1.0, self.max_grad_norm / (norm.item() + 1e-6))
        for p in live:
            state = self.state.get(p) or {"t": 0, "exp_avg": torch.zeros_like(p), "exp_avg_sq": torch.zeros_like(p)}
            t = state["t"] + 1
            new_p, m, v = adamw_update(p.detach(), p.grad.detach() * factor, state["exp_avg"], state["exp_avg_sq"],
                                       t, *self.hyper)
            with torch.no_grad():
                p.copy_(new_p)
            self.state[p] = {"t": t, "exp_avg": m, "exp_avg_sq": v}
        return norm
