# expect: wrong_answer
# mistake: the cosine decays to 0 and min_lr only takes over after total_steps
# message: it decays to min_lr
# fails-on: warmup-then-decay
import math


class WarmupCosine:
    def __init__(self, optimizer, warmup_steps, total_steps, min_lr=0.0, warmup_start_lr=0.0):
        self.optimizer = optimizer
        self.warmup_steps, self.total_steps = warmup_steps, total_steps
        self.min_lr, self.warmup_start_lr = min_lr, warmup_start_lr
        self.peaks = [group["lr"] for group in optimizer.param_groups]
        self.step_count = 0
        self._apply()

    def lr_at(self, t, peak):
        warmup, total = self.warmup_steps, self.total_steps
        if t < warmup:
            return self.warmup_start_lr + (peak - self.warmup_start_lr) * t / warmup
        if t > total:
            return self.min_lr
        if warmup == total:  # no decay steps: step total_steps is the warmup's end, at the peak
            return peak
        progress = (t - warmup) / (total - warmup)
        return peak * (1 + math.cos(math.pi * progress)) / 2

    def _apply(self):
        self.last_lr = [self.lr_at(self.step_count, peak) for peak in self.peaks]
        for group, lr in zip(self.optimizer.param_groups, self.last_lr):
            group["lr"] = lr

    def step(self):
        self.step_count += 1
        self._apply()

    def get_last_lr(self):
        return list(self.last_lr)

    def state_dict(self):
        return {"step_count": self.step_count, "peaks": list(self.peaks), "last_lr": list(self.last_lr)}

    def load_state_dict(self, state_dict):
        self.step_count = state_dict["step_count"]
        self.peaks = list(state_dict["peaks"])
        self.last_lr = list(state_dict["last_lr"])
