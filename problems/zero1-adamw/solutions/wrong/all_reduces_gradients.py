# expect: wrong_answer
# mistake: averages the gradients over the ranks again, as if step() had to do DDP's job: the same values, since they were already averaged, and a whole all-reduce of every gradient per step for nothing
# message: already averaged
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

    def _chunk(self, p):
        size = math.ceil(p.numel() / self.world)
        start = min(self.rank * size, p.numel())
        return size, slice(start, min(start + size, p.numel()))

    @torch.no_grad()
    def step(self):
        beta1, beta2 = self.betas
        for p in self.params:
            if p.grad is None:
                continue
            g = p.grad.clone()
            dist.all_reduce(g)
            g /= self.world
            size, mine = self._chunk(p)
            flat, grad = p.view(-1), g.reshape(-1)[mine]
            if p not in self.state:
                self.state[p] = {"step": 0, "exp_avg": torch.zeros_like(grad), "exp_avg_sq": torch.zeros_like(grad)}
            state = self.state[p]
            state["step"] += 1
            t = state["step"]
            m, v, chunk = state["exp_avg"], state["exp_avg_sq"], flat[mine]
            chunk.mul_(1 - self.lr * self.weight_decay)
            m.mul_(beta1).add_(grad, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denominator = (v / (1 - beta2 ** t)).sqrt_().add_(self.eps)
            chunk.addcdiv_(m, denominator, value=-self.lr / (1 - beta1 ** t))
            padded = torch.zeros(size)
            padded[:chunk.numel()] = chunk
            gathered = torch.empty(size * self.world)
            dist.all_gather_into_tensor(gathered, padded)
            flat[:size * self.world].copy_(gathered[:p.numel()])

    def zero_grad(self):
        for p in self.params:
            p.grad = None
