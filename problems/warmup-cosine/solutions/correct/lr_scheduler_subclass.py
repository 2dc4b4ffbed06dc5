# expect: accepted
# A torch.optim.lr_scheduler.LRScheduler subclass: the base class keeps the count (last_epoch), base_lrs (each
# group's peak), _last_lr, state_dict() and load_state_dict(); get_lr() is the closed form at last_epoch.
import math

from torch.optim.lr_scheduler import LRScheduler


class WarmupCosine(LRScheduler):
    def __init__(self, optimizer, warmup_steps, total_steps, min_lr=0.0, warmup_start_lr=0.0):
        self.warmup_steps, self.total_steps = warmup_steps, total_steps
        self.min_lr, self.warmup_start_lr = min_lr, warmup_start_lr
        super().__init__(optimizer)

    def get_lr(self):
        t, w, n = self.last_epoch, self.warmup_steps, self.total_steps
        lrs = []
        for peak in self.base_lrs:
            if t < w:
                lrs.append(self.warmup_start_lr + (peak - self.warmup_start_lr) * t / w)
            elif t > n:
                lrs.append(self.min_lr)
            else:
                progress = (t - w) / (n - w) if n > w else 0.0
                lrs.append(self.min_lr + (peak - self.min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress)))
        return lrs
