# expect: wrong_answer
# mistake: shards the state by whole parameters and updates only this rank's own, but never sends them: after a step each rank holds fresh values of its own parameters and stale ones of everybody else's
# message: is not rank 0's: the parameters must be identical on every rank
# fails-on: w2-three-steps
import torch
import torch.distributed as dist


class ZeroAdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
        world, rank = dist.get_world_size(), dist.get_rank()
        every = [p for group in self.param_groups for p in group["params"]]
        loads, self.mine = [0] * world, set()
        for p in sorted(every, key=lambda p: -p.numel()):
            owner = loads.index(min(loads))
            loads[owner] += p.numel()
            if owner == rank:
                self.mine.add(p)

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None or p not in self.mine:
                    continue
                state = self.state[p]
                if not state:
                    state["step"], state["m"], state["v"] = 0, torch.zeros_like(p), torch.zeros_like(p)
                state["step"] += 1
                t, m, v = state["step"], state["m"], state["v"]
                p.mul_(1 - group["lr"] * group["weight_decay"])
                m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                p.addcdiv_(m / (1 - beta1 ** t), (v / (1 - beta2 ** t)).sqrt() + group["eps"], value=-group["lr"])
