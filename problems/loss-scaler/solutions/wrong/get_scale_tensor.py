# expect: wrong_answer
# mistake: the scale and the count of good steps kept as 0-dim tensors, as GradScaler keeps them, and get_scale()
# hands the scale tensor out instead of a Python float: every value is right, but the caller gets a tensor where
# the interface pins a number
# message: get_scale() returned something other than a Python float
# fails-on: one-overflow-then-recovery
import torch


class LossScaler:
    def __init__(self, init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self._scale, self._growth_tracker = torch.tensor(float(init_scale)), torch.tensor(0)
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval, self._found_inf = growth_interval, torch.tensor(False)

    def scale(self, loss):
        return loss * self._scale.to(loss)

    def step(self, optimizer):
        grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        with torch.no_grad():
            torch._foreach_div_(grads, self._scale.item())
            self._found_inf = torch.stack([g.isfinite().all() for g in grads]).logical_not().any().cpu()
        if self._found_inf:
            return False
        optimizer.step()
        return True

    def update(self):
        if self._found_inf:
            self._scale.mul_(self._backoff_factor)
            self._growth_tracker.zero_()
            return
        self._growth_tracker += 1
        if int(self._growth_tracker) == self._growth_interval:
            self._scale.mul_(self._growth_factor)
            self._growth_tracker.zero_()

    def get_scale(self):
        return self._scale
