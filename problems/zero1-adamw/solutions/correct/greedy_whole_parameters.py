# expect: accepted
# style: a torch.optim.Optimizer subclass that owns whole parameters, assigned largest first to the least loaded rank; the AdamW update written out for its own, then one broadcast per parameter from its owner
import torch
import torch.distributed as dist


class ZeroAdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
        self.world, self.rank = dist.get_world_size(), dist.get_rank()
        every = [p for group in self.param_groups for p in group["params"]]
        loads, self.owner = [0] * self.world, {}
        # Largest first onto the least loaded rank: no rank ends more than one parameter above its share.
        for p in sorted(every, key=lambda p: -p.numel()):
            rank = loads.index(min(loads))
            self.owner[p] = rank
            loads[rank] += p.numel()

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is not None and self.owner[p] == self.rank:
                    state = self.state[p]
                    if not state:
                        state["step"], state["exp_avg"], state["exp_avg_sq"] = 0, torch.zeros_like(p), torch.zeros_like(p)
                    state["step"] += 1
                    t, m, v = state["step"], state["exp_avg"], state["exp_avg_sq"]
                    p.mul_(1 - group["lr"] * group["weight_decay"])
                    m.lerp_(p.grad, 1 - beta1)
                    v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                    m_hat, v_hat = m / (1 - beta1 ** t), v / (1 - beta2 ** t)
                    p.sub_(group["lr"] * m_hat / (v_hat.sqrt() + group["eps"]))
                if p.grad is not None:  # the same on every rank, so every rank joins the same broadcasts
                    dist.broadcast(p, src=self.owner[p])
