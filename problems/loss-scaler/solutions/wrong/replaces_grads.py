# expect: wrong_answer
# mistake: step() unscales with torch._foreach_div, the out-of-place twin of _foreach_div_, and assigns the new
# tensors to .grad: the values are right, but whatever else holds a gradient keeps the scaled one, and every
# gradient is copied once more
# message: divide the gradients in place
# fails-on: one-overflow-then-recovery
import torch


class LossScaler:
    def __init__(self, init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self.factors = {True: growth_factor, False: backoff_factor}
        self.current, self.interval, self.streak, self.overflowed = float(init_scale), growth_interval, 0, False

    def scale(self, loss):
        return self.current * loss

    def get_scale(self):
        return self.current

    @torch.no_grad()
    def step(self, optimizer):
        params = [p for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        for p, unscaled in zip(params, torch._foreach_div([p.grad for p in params], self.current)):
            p.grad = unscaled
        self.overflowed = not all(bool(p.grad.isfinite().all()) for p in params)
        if not self.overflowed:
            optimizer.step()
        return not self.overflowed

    def update(self):
        self.streak = 0 if self.overflowed else self.streak + 1
        if self.overflowed or self.streak == self.interval:
            self.current *= self.factors[not self.overflowed]
            self.streak = 0
