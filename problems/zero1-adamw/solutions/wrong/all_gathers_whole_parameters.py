# expect: wrong_answer
# mistake: each rank updates its own slice in its full local copy and then all-gathers every rank's whole copy of the parameter to pick the owners' slices out: the right values, at world-size times the traffic and a world-size-times buffer per parameter
# message: gathering whole parameters (or the state) from every rank moves up to
# fails-on: w2-three-steps
import math

import torch
import torch.distributed as dist


class ZeroAdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        self.params = list(params)
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.world, self.rank = dist.get_world_size(), dist.get_rank()
        self.state = {}

    def _bounds(self, p, rank):
        size = math.ceil(p.numel() / self.world)
        return min(rank * size, p.numel()), min((rank + 1) * size, p.numel())

    @torch.no_grad()
    def step(self):
        beta1, beta2 = self.betas
        for p in self.params:
            if p.grad is None:
                continue
            lo, hi = self._bounds(p, self.rank)
            flat, grad = p.view(-1), p.grad.reshape(-1)[lo:hi]
            state = self.state.setdefault(p, {"step": 0, "m": torch.zeros_like(grad), "v": torch.zeros_like(grad)})
            state["step"] += 1
            t, m, v, chunk = state["step"], state["m"], state["v"], flat[lo:hi]
            chunk.mul_(1 - self.lr * self.weight_decay)
            m.mul_(beta1).add_(grad, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            chunk.addcdiv_(m / (1 - beta1 ** t), (v / (1 - beta2 ** t)).sqrt() + self.eps, value=-self.lr)
            copies = [torch.empty_like(flat) for _ in range(self.world)]
            dist.all_gather(copies, flat.clone())
            for rank, copy in enumerate(copies):
                lo, hi = self._bounds(p, rank)
                flat[lo:hi] = copy[lo:hi]

    def zero_grad(self):
        for p in self.params:
            p.grad = None
