# expect: wrong_answer
# mistake: step() checks the gradients but never divides them by the scale, so SGD steps on gradients multiplied by the scale
# message: scaled gradients
# fails-on: one-overflow-then-recovery
import torch


class LossScaler:
    def __init__(self, init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self.scale_value = float(init_scale)
        self.growth_factor, self.backoff_factor = growth_factor, backoff_factor
        self.growth_interval = growth_interval
        self.good_steps = 0
        self.found_inf = False

    def scale(self, loss):
        return loss * self.scale_value

    @torch.no_grad()
    def step(self, optimizer):
        grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        self.found_inf = any(not torch.isfinite(g).all() for g in grads)
        if self.found_inf:
            return False
        optimizer.step()
        return True

    def update(self):
        if self.found_inf:
            self.scale_value *= self.backoff_factor
            self.good_steps = 0
            return
        self.good_steps += 1
        if self.good_steps == self.growth_interval:
            self.scale_value *= self.growth_factor
            self.good_steps = 0

    def get_scale(self):
        return self.scale_value
