# expect: accepted
# torch's LambdaLR with one factor function per param group: lr = peak * factor(t), the factor the schedule
# divided by that group's peak. LambdaLR's state_dict() keeps last_epoch (the count) and base_lrs.
import math

from torch.optim.lr_scheduler import LambdaLR


def schedule(peak, warmup_steps, total_steps, min_lr, warmup_start_lr):
    start, floor = warmup_start_lr / peak, min_lr / peak

    def factor(t):
        if t < warmup_steps:
            return start + (1.0 - start) * t / warmup_steps
        if t >= total_steps and total_steps > warmup_steps or t > total_steps:
            return floor
        progress = (t - warmup_steps) / max(1, total_steps - warmup_steps)
        return floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * progress))
    return factor


class WarmupCosine(LambdaLR):
    def __init__(self, optimizer, warmup_steps, total_steps, min_lr=0.0, warmup_start_lr=0.0):
        factors = [schedule(group["lr"], warmup_steps, total_steps, min_lr, warmup_start_lr)
                   for group in optimizer.param_groups]
        super().__init__(optimizer, factors)
