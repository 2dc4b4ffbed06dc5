# expect: accepted
"""The state kept in tensors, as torch.amp.GradScaler keeps it: a float32 scale (every scale here is a power
of two, so exact), an int32 count of good steps and a found-inf flag; one .item() per step decides."""
import torch


class LossScaler:
    def __init__(self, init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        self._scale = torch.tensor(init_scale, dtype=torch.float32)
        self._good = torch.tensor(0, dtype=torch.int32)
        self._found_inf = torch.tensor(False)
        self.growth_factor, self.backoff_factor, self.growth_interval = growth_factor, backoff_factor, growth_interval

    def scale(self, loss):
        self._scale = self._scale.to(loss.device)
        return loss * self._scale.to(loss.dtype)

    def step(self, optimizer):
        grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        with torch.no_grad():
            inverse = self._scale.double().reciprocal()
            for g in grads:
                g.mul_(inverse.to(g.dtype))
            self._found_inf = torch.stack([(~torch.isfinite(g)).any() for g in grads]).any()
        if self._found_inf.item():
            return False
        optimizer.step()
        return True

    def update(self):
        if self._found_inf.item():
            self._scale = self._scale * self.backoff_factor
            self._good.zero_()
            return
        self._good += 1
        if self._good.item() >= self.growth_interval:
            self._scale = self._scale * self.growth_factor
            self._good.zero_()

    def get_scale(self):
        return float(self._scale)
