# expect: accepted
"""A torch.optim.Optimizer subclass for the bookkeeping (param_groups, a state defaultdict), the update
written out of place with torch.lerp, the gradients clipped in place, and the step count kept as a Python int."""
import torch


class AdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, max_grad_norm=None):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
        self.max_grad_norm = max_grad_norm

    @torch.no_grad()
    def step(self):
        grads = [p.grad for group in self.param_groups for p in group["params"] if p.grad is not None]
        norm = sum(torch.dot(g.reshape(-1), g.reshape(-1)) for g in grads).sqrt()
        factor = 1.0
        if self.max_grad_norm is not None:
            factor = torch.clamp(self.max_grad_norm / (norm + 1e-6), max=1.0)
            for g in grads:
                g.mul_(factor)  # in place, as clip_grad_norm_ does
            factor = 1.0
        for group in self.param_groups:
            lr, (beta1, beta2), eps, decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad * factor
                state = self.state[p]
                if not state:
                    state.update(step=0, exp_avg=torch.zeros_like(p), exp_avg_sq=torch.zeros_like(p))
                state["step"] += 1
                t = state["step"]
                state["exp_avg"] = torch.lerp(state["exp_avg"], g, 1 - beta1)
                state["exp_avg_sq"] = torch.lerp(state["exp_avg_sq"], g * g, 1 - beta2)
                m_hat = state["exp_avg"] / (1 - beta1 ** t)
                v_hat = state["exp_avg_sq"] / (1 - beta2 ** t)
                p.copy_(p * (1 - lr * decay) - lr * m_hat / (v_hat.sqrt() + eps))
        return norm
