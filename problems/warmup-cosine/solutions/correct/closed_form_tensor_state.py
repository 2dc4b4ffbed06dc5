# expect: accepted
# A plain object whose whole state is one tensor counter, with the schedule as a function of (t, peak); the
# optimizer's lrs are set from it after every step() and nothing is accumulated from step to step.
import math

import torch


def lr_at(t, peak, warmup_steps, total_steps, min_lr, warmup_start_lr):
    if t < warmup_steps:
        fraction = t / warmup_steps
        return warmup_start_lr * (1.0 - fraction) + peak * fraction
    progress = min(1.0, (t - warmup_steps) / (total_steps - warmup_steps)) if total_steps > warmup_steps else \
        float(t > total_steps)
    return min_lr + 0.5 * (peak - min_lr) * (1.0 + math.cos(math.pi * progress))


class WarmupCosine:
    def __init__(self, optimizer, warmup_steps, total_steps, min_lr=0.0, warmup_start_lr=0.0):
        self.optimizer = optimizer
        self.settings = (warmup_steps, total_steps, min_lr, warmup_start_lr)
        self.peaks = [group["lr"] for group in optimizer.param_groups]
        self.t = torch.zeros((), dtype=torch.int64)
        self.apply()

    def apply(self):
        for group, peak in zip(self.optimizer.param_groups, self.peaks):
            group["lr"] = lr_at(int(self.t), peak, *self.settings)

    def step(self):
        self.t += 1
        self.apply()

    def get_last_lr(self):
        return [lr_at(int(self.t), peak, *self.settings) for peak in self.peaks]

    def state_dict(self):
        return {"t": self.t.clone(), "peaks": torch.tensor(self.peaks, dtype=torch.float64)}

    def load_state_dict(self, state_dict):
        self.t = state_dict["t"].clone()
        self.peaks = state_dict["peaks"].tolist()
        self.apply()
