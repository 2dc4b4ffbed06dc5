import math

import torch
import torch.distributed as dist


class ZeroAdamW:
    """AdamW whose moments are sharded over the ranks (ZeRO stage 1): each parameter is cut into world-size
    chunks of ceil(numel / world) elements (the last ones shorter or empty), this rank keeps m and v of its
    own chunk of every parameter, updates that chunk only, and an all-gather of the chunks gives every rank
    the whole updated parameter."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        self.params = list(params)
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.world, self.rank = dist.get_world_size(), dist.get_rank()
        self.state = {}  # state[p] = {"step": int, "exp_avg": m, "exp_avg_sq": v} of this rank's chunk of p

    def _chunk(self, p):
        size = math.ceil(p.numel() / self.world)
        start = min(self.rank * size, p.numel())
        return size, slice(start, min(start + size, p.numel()))

    @torch.no_grad()
    def step(self):
        beta1, beta2 = self.betas
        for p in self.params:
            # The gradients are already averaged over the ranks (as after DDP's backward): the same on every
            # rank, so every rank skips the same parameters and joins the same all-gathers.
            if p.grad is None:
                continue
            size, mine = self._chunk(p)
            flat, grad = p.view(-1), p.grad.reshape(-1)[mine]
            state = self.state.get(p)
            if state is None:
                state = self.state[p] = {"step": 0, "exp_avg": torch.zeros_like(grad),
                                         "exp_avg_sq": torch.zeros_like(grad)}
            state["step"] += 1
            m, v, t = state["exp_avg"], state["exp_avg_sq"], state["step"]
            chunk = flat[mine]
            chunk.mul_(1 - self.lr * self.weight_decay)
            m.mul_(beta1).add_(grad, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denominator = (v / (1 - beta2 ** t)).sqrt_().add_(self.eps)
            chunk.addcdiv_(m, denominator, value=-self.lr / (1 - beta1 ** t))
            # Every chunk padded to the same size, as all_gather_into_tensor needs; the padding is sent and
            # dropped, at most world - 1 elements per parameter.
            padded = torch.zeros(size, dtype=p.dtype)
            padded[:chunk.numel()] = chunk
            gathered = torch.empty(size * self.world, dtype=p.dtype)
            dist.all_gather_into_tensor(gathered, padded)
            flat.copy_(gathered[:p.numel()])

    def zero_grad(self):
        for p in self.params:
            p.grad = None
