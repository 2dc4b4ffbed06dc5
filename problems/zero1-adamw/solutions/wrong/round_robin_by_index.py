# expect: wrong_answer
# mistake: whole parameters dealt to the ranks round-robin by their index, ignoring their sizes: with large and small parameters alternating, one rank owns every large one and holds far more than its share of the state
# message: balance whole parameters by size
# fails-on: w2-larger
import torch
import torch.distributed as dist


class ZeroAdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
        world = dist.get_world_size()
        every = [p for group in self.param_groups for p in group["params"]]
        self.owner = {p: i % world for i, p in enumerate(every)}
        self.rank = dist.get_rank()

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if self.owner[p] == self.rank:
                    state = self.state[p]
                    if not state:
                        state["step"], state["m"], state["v"] = 0, torch.zeros_like(p), torch.zeros_like(p)
                    state["step"] += 1
                    t, m, v = state["step"], state["m"], state["v"]
                    p.mul_(1 - group["lr"] * group["weight_decay"])
                    m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                    v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                    p.addcdiv_(m / (1 - beta1 ** t), (v / (1 - beta2 ** t)).sqrt() + group["eps"], value=-group["lr"])
                dist.broadcast(p, src=self.owner[p])
