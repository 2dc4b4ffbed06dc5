# expect: accepted
"""All parameters flattened into one vector per step: the moments live in two flat buffers, and each
parameter's state entries are views into them. Step counts are one tensor, one entry per parameter."""
import torch


class AdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, max_grad_norm=None):
        self.params = list(params)
        self.lr, (self.beta1, self.beta2), self.eps = lr, betas, eps
        self.decay, self.max_grad_norm = weight_decay, max_grad_norm
        sizes = [p.numel() for p in self.params]
        self.m = self.params[0].new_zeros(sum(sizes))
        self.v = self.params[0].new_zeros(sum(sizes))
        self.slices = list(zip(torch.tensor([0, *sizes]).cumsum(0).tolist(), sizes))
        self.steps = torch.zeros(len(self.params), dtype=torch.float64)
        self.state = {}

    def step(self):
        with torch.no_grad():
            live = [i for i, p in enumerate(self.params) if p.grad is not None]
            index = torch.cat([torch.arange(self.slices[i][0], sum(self.slices[i])) for i in live]).to(self.m.device)
            g = torch.cat([self.params[i].grad.reshape(-1) for i in live])
            w = torch.cat([self.params[i].reshape(-1) for i in live])
            norm = (g * g).sum().sqrt()
            if self.max_grad_norm is not None:
                g = g * torch.minimum(self.max_grad_norm / (norm + 1e-6), torch.ones_like(norm))
            self.steps[live] += 1
            t = torch.cat([self.steps[i].expand(self.params[i].numel()) for i in live]).to(g)
            m = self.m[index] * self.beta1 + (1 - self.beta1) * g
            v = self.v[index] * self.beta2 + (1 - self.beta2) * g * g
            self.m[index], self.v[index] = m, v
            update = (m / (1 - self.beta1 ** t)) / ((v / (1 - self.beta2 ** t)).sqrt() + self.eps)
            w = w * (1 - self.lr * self.decay) - self.lr * update
            start = 0
            for i in live:
                p, (offset, size) = self.params[i], self.slices[i]
                p.copy_(w[start:start + size].view_as(p))
                start += size
                self.state[p] = {"exp_avg": self.m[offset:offset + size].view_as(p),
                                 "exp_avg_sq": self.v[offset:offset + size].view_as(p)}
        return norm
