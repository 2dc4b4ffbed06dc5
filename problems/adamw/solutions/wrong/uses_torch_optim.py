# expect: forbidden
# mistake: wraps torch.optim.AdamW behind torch.nn.utils.clip_grad_norm_, the one-call answer the problem asks to write by hand
# message: aten::
# fails-on: one-matrix-three-steps-float64
import math

import torch


class AdamW(torch.optim.AdamW):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, max_grad_norm=None):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        self.max_grad_norm = math.inf if max_grad_norm is None else max_grad_norm

    def step(self):
        graded = [p for p in self.param_groups[0]["params"] if p.grad is not None]
        norm = torch.nn.utils.clip_grad_norm_(graded, self.max_grad_norm)
        super().step()
        return norm
