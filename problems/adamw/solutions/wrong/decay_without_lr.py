# expect: wrong_answer
# mistake: the decoupled decay forgets the learning rate: p *= 1 - weight_decay
# message: scaled by the learning rate
# fails-on: one-matrix-three-steps-float64
import torch


class AdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, max_grad_norm=None):
        self.params = list(params)
        self.lr, self.betas, self.eps = lr, betas, eps
        self.weight_decay, self.max_grad_norm = weight_decay, max_grad_norm
        self.state = {}

    @torch.no_grad()
    def step(self):
        live = [p for p in self.params if p.grad is not None]
        norm = torch.stack([p.grad.square().sum() for p in live]).sum().sqrt()
        scale = 1.0 if self.max_grad_norm is None else (self.max_grad_norm / (norm + 1e-6)).clamp(max=1.0)
        beta1, beta2 = self.betas
        for p in live:
            g = p.grad * scale
            state = self.state.setdefault(p, {"step": 0, "exp_avg": torch.zeros_like(p),
                                              "exp_avg_sq": torch.zeros_like(p)})
            state["step"] += 1
            t, m, v = state["step"], state["exp_avg"], state["exp_avg_sq"]
            p.mul_(1 - self.weight_decay)
            m.mul_(beta1).add_(g, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            denom = (v / (1 - beta2 ** t)).sqrt_().add_(self.eps)
            p.addcdiv_(m, denom, value=-self.lr / (1 - beta1 ** t))
        return norm
